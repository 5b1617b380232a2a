// What the two pictures share: one colour per team, one hue family per
// program (the tree node just below the root that holds the team), and a
// few SVG helpers.
#ifndef SLURM_BUDGET_SIM_SVG_COMMON_H_
#define SLURM_BUDGET_SIM_SVG_COMMON_H_

#include <string>
#include <vector>

#include "libbudget/state/tree.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// colors[account] = "hsl(h,s%,l%)". Programs get hues spread around the
// wheel; the teams of a program get lightnesses spread within the family.
std::vector<std::string> TeamColors(const Workload& workload, const AllocationTree& tree);
std::string XmlEscape(const std::string& text);
std::string SvgNumber(double v);  // compact, 1 decimal

// The step of round axis ticks: 1, 2 or 5 x 10^k, the smallest that covers
// [0, max] in at most `max_intervals` steps. REQUIRES: max > 0,
// max_intervals >= 1.
double RoundStep(double max, int max_intervals);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SVG_COMMON_H_
