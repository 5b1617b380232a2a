// The Slurm-free half of job_facts.h (RunningJobOf, ShapeOf), so that the
// unit test links it without slurmctld.
#include "sched_timeslice/job_facts.h"

namespace timeslice {

budget::RunningJob RunningJobOf(const JobFacts& job, const StandingsView& view) {
  budget::RunningJob r;
  r.job_id = job.job_id;
  r.allocation = view.AllocationOf(job.account, job.user);
  r.start = job.start;
  r.min_runtime = job.contract.min_runtime;
  r.resumable = job.contract.resumable;
  r.user_priority = job.user_priority;
  r.time_limit = job.time_limit;
  r.user = job.user_id;
  for (int32_t node : job.nodes) r.nodes.push_back(budget::NodeGpus{node, job.gpus_per_node});
  return r;
}

budget::JobShape ShapeOf(const JobFacts& job, const StandingsView& view) {
  budget::JobShape s;
  s.job_id = job.job_id;
  s.allocation = view.AllocationOf(job.account, job.user);
  s.min_runtime = job.contract.min_runtime;
  s.node_count = job.node_count;
  s.gpus_per_node = job.gpus_per_node;
  return s;
}

}  // namespace timeslice
