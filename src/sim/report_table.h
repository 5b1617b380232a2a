// The side-by-side table of policies, as budget-sim prints it on stdout:
// one column per policy, one row per figure, then the jobs rejected per
// reason, then per team owed vs delivered.
#ifndef SLURM_BUDGET_SIM_REPORT_TABLE_H_
#define SLURM_BUDGET_SIM_REPORT_TABLE_H_

#include <string>
#include <vector>

#include "sim/run_metrics.h"

namespace budget {
namespace sim {

// Jobs rejected at submission come last but for the teams: a row of totals,
// then, when there are any, up to kMaxReasonRows reasons, each with the
// count per policy (all of them are in the JSON).
std::string FormatTable(const std::vector<PolicyResult>& results);
constexpr size_t kMaxReasonRows = 10;
// "45 s", "12.5 min", "3.2 h", "1.5 d".
std::string HumanSeconds(double seconds);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_REPORT_TABLE_H_
