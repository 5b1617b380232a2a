// PluginState: what priority/budget's threads share.
//
//   - the published order (OrderView, priority_pass.h): written by the
//     recalc thread after each pass, read by priority_p_set() (job
//     submission, under slurmctld's job write lock) and by sprio's RPC. It
//     is swapped as a shared_ptr under this object's mutex, so a reader
//     holds a consistent tree + order for as long as it needs it and never
//     waits for a pass.
//   - ended jobs: priority_p_job_end() (job write lock held) queues a copy
//     of the job, and the next pass charges its tail, so the slurmctld
//     thread never touches the ledger.
//
// Lock order: slurmctld's locks may be held when taking mutex_, never the
// other way round; mutex_ is held only for a swap or a copy.
//
// Thread safety: every method is thread-safe.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_PLUGIN_STATE_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_PLUGIN_STATE_H_

#include <memory>
#include <mutex>
#include <vector>

#include "priority_budget/job_view.h"
#include "priority_budget/priority_pass.h"

namespace budget_prio {

class PluginState {
 public:
  // Null until the first order is published.
  std::shared_ptr<const OrderView> order() const;
  void Publish(std::shared_ptr<const OrderView> order);

  void QueueEndedJob(JobView job);
  std::vector<JobView> TakeEndedJobs();

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const OrderView> order_;  // GUARDED_BY(mutex_)
  std::vector<JobView> ended_jobs_;         // GUARDED_BY(mutex_)
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_PLUGIN_STATE_H_
