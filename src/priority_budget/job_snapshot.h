// Job snapshot: the only code of priority/budget that reads or writes
// slurmctld's job records (besides the sprio list, sprio_factors.h).
//
//   ViewOfJob        one record -> JobView (job_view.h)
//   SnapshotJobs     every pending, running and suspended job, plus finished
//                    jobs that still hold a ledger cursor or ended after the
//                    previous pass, into the JobViewCache (a view is built
//                    only for a job that is new or changed, job_view_cache.h;
//                    the others get their per-pass fields re-read), and the
//                    cluster's GPUs (from the nodes' TRES) with their worth
//                    (from the nodes' Gres types); copies only, so
//                    that the pass runs unlocked
//   ApplyPriorities  writes the pass's new priorities, skipping jobs that
//                    ended, started, were held or got an operator-set
//                    priority since the snapshot, and never writes 0
//
// The job_record_t type stays out of this header so that C++ files without
// Slurm's headers can include it.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libbudget/policy/gpu_worth.h"
#include "libbudget/standing.h"
#include "priority_budget/job_view.h"
#include "priority_budget/job_view_cache.h"

namespace budget_prio {

// REQUIRES: the job read lock; `job_record` is a job_record_t*.
JobView ViewOfJob(const void* job_record);

// Refreshes `cache` from the job list (BeginPass(changed, full) ... EndPass)
// and adds every node to `fleet` (its GPUs and Gres: the capacity and what
// each node's GPUs are worth, libbudget/policy/gpu_worth.h).
// REQUIRES: the job and node read locks; `fleet` has no node yet.
void SnapshotJobs(const std::unordered_set<uint32_t>& jobs_with_cursor, budget::TimePoint last_pass,
                  const std::vector<uint32_t>& changed, bool full, JobViewCache* cache, budget::FleetWorth* fleet);

// REQUIRES: the job write lock. Returns how many priorities changed.
int ApplyPriorities(const std::vector<std::pair<uint32_t, uint32_t>>& priorities);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_JOB_SNAPSHOT_H_
