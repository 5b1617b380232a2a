// GPU counts from Slurm's text forms of a job's resources, one rule for
// priority/budget (which reads slurmctld's job records) and sbudget (which
// reads the job records libslurm returns): both hold the same strings.
//
// A job's GPU count is the `gres/gpu=N` entry of its formatted TRES:
// allocated TRES for running jobs, requested TRES for pending ones. Slurm
// puts GPUs in the TRES only with `AccountingStorageTRES=gres/gpu`; without
// it the count comes from the job's GPU request (--gres/--gpus:
// tres_per_job, else tres_per_node x nodes, else tres_per_task x tasks).
//
// Slurm-free string parsing; thread safety: plain functions.
#ifndef SLURM_BUDGET_LIBBUDGET_GPU_COUNT_H_
#define SLURM_BUDGET_LIBBUDGET_GPU_COUNT_H_

#include <string_view>

namespace budget {

// N of the first `gres/gpu=N` entry of a formatted TRES string such as
// "cpu=1,mem=1G,node=1,billing=1,gres/gpu=2" (typed entries such as
// `gres/gpu:a100=2` are ignored: the untyped one is the total). 0 if none.
double GpuCountFromTres(std::string_view tres);

// The GPUs of a GRES request or configuration, the sum of its gpu entries:
// "gres:gpu:4" = 4, "gres:gpu:a100:2,gres:gpu:v100:1" = 3, "gpu:8" = 8,
// "gres/gpu=2" = 2, "gres:gpu" = 1, "gres:nic:1" = 0, and a node's
// "gpu:8(S:0-1)" = 8 (the socket binding is not a count).
double GpuCountFromGresSpec(std::string_view spec);

// The strings of one job (empty when Slurm has none).
struct JobGpuStrings {
  std::string_view tres;      // formatted TRES: allocated (running) or requested (pending)
  std::string_view per_job;   // tres_per_job
  std::string_view per_node;  // tres_per_node
  std::string_view per_task;  // tres_per_task
  double nodes = 1;           // allocated nodes, or the minimum asked for
  double tasks = 1;
};

// The job's GPUs by the rule above (nodes and tasks below 1 count as 1).
double JobGpuCount(const JobGpuStrings& job);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_GPU_COUNT_H_
