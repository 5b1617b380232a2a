// Job snapshot: the only code of priority/budget that reads or writes
// slurmctld's job records (besides the sprio list, sprio_factors.h).
//
//   ViewOfJob        one record -> JobView (job_view.h)
//   SnapshotJobs     every pending, running and suspended job, plus finished
//                    jobs that still hold a ledger cursor or ended after the
//                    previous pass, and the cluster's GPUs (from the nodes'
//                    TRES); copies only, so that the pass runs unlocked
//   ApplyPriorities  writes the pass's priorities, skipping jobs that ended,
//                    started, were held or got an operator-set priority since
//                    the snapshot, and never writes 0
//
// The job_record_t type stays out of this header so that C++ files without
// Slurm's headers can include it.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libbudget/standing.h"
#include "priority_budget/job_view.h"

namespace budget_prio {

// REQUIRES: the job read lock; `job_record` is a job_record_t*.
JobView ViewOfJob(const void* job_record);

// Appends the jobs to snapshot->jobs (the caller keeps the vector between
// passes, so its memory is not returned to the kernel and faulted back in
// at every pass) and sets snapshot->capacity_gpus.
// REQUIRES: the job and node read locks.
void SnapshotJobs(const std::unordered_set<uint32_t>& jobs_with_cursor, budget::TimePoint last_pass,
                  JobSnapshot* snapshot);

// REQUIRES: the job write lock. Returns how many priorities changed.
int ApplyPriorities(const std::vector<std::pair<uint32_t, uint32_t>>& priorities);

// Fills in JobView::user from the uid where slurmctld had no user name
// (getpwuid_r, cached per uid for the life of the cache). Call without locks.
class UserNames {
 public:
  const std::string& NameOf(uid_t uid);
  void Resolve(std::vector<JobView>* jobs);

 private:
  std::unordered_map<uid_t, std::string> cache_;
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_
