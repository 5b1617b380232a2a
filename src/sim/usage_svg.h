// The usage picture (--svg-usage): per policy, each team's delivered GPU
// time against its entitlement over time. One panel per policy, stacked;
// x = time, y = share of the cluster; a solid line per team (its delivered
// GPU-seconds per hour over capacity, averaged over a sliding `smooth_hours`)
// and a dashed line of the same colour at its entitlement.
#ifndef SLURM_BUDGET_SIM_USAGE_SVG_H_
#define SLURM_BUDGET_SIM_USAGE_SVG_H_

#include <string>
#include <vector>

#include "libbudget/tree.h"
#include "sim/run_metrics.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

std::string RenderUsageSvg(const std::vector<PolicyResult>& results, const Workload& workload,
                           const AllocationTree& tree, int smooth_hours = 6);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_USAGE_SVG_H_
