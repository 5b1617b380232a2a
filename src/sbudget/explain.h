// `sbudget explain JOBID`: why a job waits, runs, or was preempted, told
// from the two sources that know: Slurm's own record of the job (state,
// reason, contract record in the AdminComment) and the priority plugin's
// last report snapshot (allocation rank, usage, priority factors, queue
// position, protection end, preemption record).
//
// Nothing is decided here: the rank, the priority and the queue position are
// the plugin's (the core's FairShareOrder); "why is X ahead" only names the
// first step of the documented job order (order.h) on which the two jobs
// differ.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_EXPLAIN_H_
#define SLURM_BUDGET_SBUDGET_EXPLAIN_H_

#include <cstdint>
#include <string>

#include "libbudget/report_snapshot.h"
#include "libbudget/status.h"

namespace sbudget {

// What Slurm says about a job (filled by slurm_api.cc from slurm_load_job).
struct SlurmJob {
  uint32_t job_id = 0;
  std::string state;   // "PENDING", "RUNNING", ...
  std::string reason;  // "Priority", "Resources", "None", ...
  std::string user;
  std::string account;
  std::string admin_comment;
  std::string comment;  // the preemption note of sched/timeslice, if any
  uint32_t priority = 0;
  budget::TimePoint submit_time = 0;
  budget::TimePoint start_time = 0;  // 0: not started
  uint32_t restart_count = 0;        // times requeued
};

// How many jobs ahead are listed one by one.
constexpr size_t kMaxJobsAheadListed = 10;

// The explanation of `job_id`. `slurm` may be null (the controller did not
// answer, or the job has left its memory); `snapshot` may be null (no
// snapshot). NotFound if neither knows the job.
budget::Status ExplainJob(uint32_t job_id, const SlurmJob* slurm,
                          const budget::ReportSnapshot* snapshot, budget::TimePoint now,
                          std::string* out);

// Why `ahead` comes before `job` in the job order: the first step of the
// order on which they differ, in words.
std::string WhyAhead(const budget::SnapshotJob& ahead, const budget::SnapshotJob& job);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_EXPLAIN_H_
