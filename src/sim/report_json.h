// The --json output: these keys, per policy under
// policies.<name>:
//   what_if (null, or the what-if run: "builtin", "exact-runtimes"),
//   occupancy, unallocated_share, preemptions, fragmentation (stranded
//   share of the free GPUs), stranded_of_all (of all GPUs), wall_seconds,
//   wait.{all,debug,hero}.{p50,p90,p99}   (seconds)
//   rejected.total, rejected.by_reason[] of {reason, jobs, first_job_ids}
//                  (the jobs refused at submission, rejections.h)
//   teams.<account>.{entitlement, owed_gpu_hours, delivered_gpu_hours,
//                    delivered_over_owed, free_gpu_hours}
#ifndef SLURM_BUDGET_SIM_REPORT_JSON_H_
#define SLURM_BUDGET_SIM_REPORT_JSON_H_

#include <string>
#include <vector>

#include "sim/run_metrics.h"

namespace budget {
namespace sim {

std::string FormatJson(const std::vector<PolicyResult>& results);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_REPORT_JSON_H_
