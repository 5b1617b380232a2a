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
//   - changed jobs: priority_p_set() (job write lock held; at submission
//     and after each update of a job that is not held) notes the job id, so
//     that the next pass rebuilds its view (job_view_cache.h). Past
//     kMaxChangedJobs ids (no pass has run for a long while) the list is
//     dropped and the next pass rebuilds every view instead.
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

  static constexpr size_t kMaxChangedJobs = 100000;
  void MarkJobChanged(uint32_t job_id);
  // The ids marked since the last call; *all = true when the list
  // overflowed (every view must be rebuilt).
  std::vector<uint32_t> TakeChangedJobs(bool* all);

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const OrderView> order_;  // GUARDED_BY(mutex_)
  std::vector<JobView> ended_jobs_;         // GUARDED_BY(mutex_)
  std::vector<uint32_t> changed_jobs_;      // GUARDED_BY(mutex_)
  bool changed_overflow_ = false;           // GUARDED_BY(mutex_)
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_PLUGIN_STATE_H_
