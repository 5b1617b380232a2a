// The usage picture (--svg-usage): per policy, each team's delivered GPU
// time against its entitlement over time. One panel per policy, stacked,
// all on one time axis and one share axis, so that panels compare at a
// glance; x = time, y = share of the cluster, ticks at round values (1, 2
// or 5 x 10^k of a percent, of minutes, hours or days). A solid line per
// team (its delivered GPU-seconds per hour over capacity, averaged over a
// sliding window that fits the run, named in the title) and a dashed line
// of the same colour at its entitlement; entitlement lines that would
// coincide are drawn a few pixels apart, and the legend gives each team's
// entitlement.
#ifndef SLURM_BUDGET_SIM_USAGE_SVG_H_
#define SLURM_BUDGET_SIM_USAGE_SVG_H_

#include <string>
#include <vector>

#include "libbudget/state/tree.h"
#include "sim/run_metrics.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// The averaging window for a run of `run` seconds: about 1/30 of it, the
// nearest (by ratio) of 1, 2, 3, 6, 12 h, 1, 2, 7 d; never below 1 h,
// the resolution of the service figures (run_metrics.h). A week gives 6 h,
// a 3-hour trace 1 h (no averaging).
Seconds UsageAverageWindow(Seconds run);

// `average_window` 0: UsageAverageWindow of the longest run. Otherwise
// whole hours (at least one).
std::string RenderUsageSvg(const std::vector<PolicyResult>& results, const Workload& workload,
                           const AllocationTree& tree, Seconds average_window = 0);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_USAGE_SVG_H_
