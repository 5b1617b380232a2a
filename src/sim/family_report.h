// What a family run (family_run.h) prints: the table of each policy's
// distributions with the mix behind every worst case, the JSON of every
// mix (per team: delivered/owed and debug p90; hero wait), the
// `bench family_*` lines of one policy, and the files that replay one mix.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_FAMILY_REPORT_H_
#define SLURM_BUDGET_SIM_FAMILY_REPORT_H_

#include <string>
#include <vector>

#include "libbudget/status.h"
#include "sim/family_run.h"

namespace budget {
namespace sim {

// A column per policy: median, worst decile and worst of each outcome; then
// the worst mixes named ("mix 7 (seed 123)") with their team.
std::string FormatFamilyTable(const std::vector<MixOutcome>& outcomes, const std::vector<PolicySummary>& summaries,
                              const FamilyOptions& options, double days);

// {"family": {...}, "summary": {policy: ...}, "mixes": [{...per policy
// figures, per team figures...}]}.
std::string FormatFamilyJson(const std::vector<MixOutcome>& outcomes, const std::vector<PolicySummary>& summaries,
                             const FamilyOptions& options);

// The `bench family_*` lines of `summary` (make bench-family).
std::string FormatFamilyBench(const PolicySummary& summary, uint32_t mixes);

// Writes DIR/scenario.json and DIR/tree.json of `mix` (DIR is created if
// missing) and sets *command to the budget-sim line that replays it alone.
Status DumpMix(const Mix& mix, const std::string& dir, std::string* command);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FAMILY_REPORT_H_
