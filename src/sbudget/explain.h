// `sbudget explain JOBID`: why a job waits, runs, or was preempted, told
// from the two sources that know:
//   - Slurm: the job's own record (state, reason, contract record in the
//     AdminComment, the suite's notes in the SystemComment: why it left its
//     GPUs, the last contract change refused; never the user-writable
//     Comment) and, for a pending job,
//     every pending job with the priority priority/budget gave it;
//   - the plugin's last report snapshot: the tree nodes' ranks, usage and
//     owed/delivered time, and the running jobs' protection.
//
// Nothing is decided here. A pending job's rank, fair-share and user
// priority are its Slurm priority read back (order.h DecodePriority, with
// the snapshot's number of ranked nodes); its allocation is the snapshot's
// node of that rank; its queue position is its place among the pending jobs
// by priority (then submit time, then job id, as the job order breaks
// ties). "Why is X ahead" names the first step of the documented job order
// (order.h) on which the two jobs differ.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_EXPLAIN_H_
#define SLURM_BUDGET_SBUDGET_EXPLAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/status.h"

namespace sbudget {

// What Slurm says about a job (filled by slurm_api.cc from slurm_load_job).
struct SlurmJob {
  uint32_t job_id = 0;
  std::string state;   // as scontrol prints it: "PENDING", "COMPLETING", ...
  // The state without its flags (a job being requeued or ended is
  // COMPLETING for a while): "PENDING", "RUNNING", "PREEMPTED", ...
  std::string base_state;
  std::string reason;  // "Priority", "Resources", "None", ...
  std::string user;
  std::string account;
  std::string admin_comment;
  // The suite's notes (libbudget/policy/job_notes.h): the departure note of
  // preempt/timeslice, the refusal of job_submit/contract.
  std::string system_comment;
  uint32_t priority = 0;
  budget::TimePoint submit_time = 0;
  budget::TimePoint start_time = 0;  // 0: not started
  // Pending jobs: when Slurm's backfill scheduler expects it to start
  // (squeue --start); 0 when it has no estimate.
  budget::TimePoint estimated_start = 0;
  uint32_t restart_count = 0;        // times requeued
  bool requeue = false;              // Requeue=1: Slurm may requeue it
  uint32_t gpus = 0;  // asked for (pending) or held (libbudget/config/gpu_count.h)
};

// A pending job placed in the queue: Slurm's record read through the
// snapshot (state kPending; node, rank, allocated, user priority and
// fairshare from its priority; queue_position set).
struct QueuedJob {
  budget::SnapshotJob job;
  // False: the priority is not one priority/budget's order could have made
  // with the snapshot's ranked nodes, or it decodes to a node the job's
  // account and user are not charged to (an operator set it, or the ranks
  // changed between the pass that set it and the snapshot); the job then
  // has no rank or node here.
  bool decoded = false;
};

// Places `pending` (Slurm's pending jobs; held ones, priority 0, are left
// out) in the queue: priority high first, then submit time, then job id.
std::vector<QueuedJob> PlacePendingJobs(const std::vector<SlurmJob>& pending,
                                        const budget::ReportSnapshot& snapshot);

// How many jobs ahead are listed one by one.
constexpr size_t kMaxJobsAheadListed = 10;

// The explanation of `job_id`. `slurm` may be null (the controller did not
// answer, or the job has left its memory); `pending` (every pending job, as
// Slurm lists them) may be null when the job is not pending or the list
// could not be had; `snapshot` may be null (no snapshot). NotFound if
// neither Slurm nor the snapshot knows the job.
budget::Status ExplainJob(uint32_t job_id, const SlurmJob* slurm,
                          const std::vector<SlurmJob>* pending,
                          const budget::ReportSnapshot* snapshot, budget::TimePoint now,
                          std::string* out);

// `text` (ExplainJob's lines) with every line longer than `width` broken
// at spaces: a continuation is indented to where its line's text begins
// (after the label column), so the labels stay readable at 80 columns.
std::string WrapExplanation(const std::string& text, size_t width);

// What an explanation found, for --json (the text says the same in words).
struct JobFacts {
  bool decoded = false;  // its allocation and priority are the plugin's
  bool has_node = false;
  std::string node_path;
  uint32_t tree_rank = budget::FairShareOrder::kNoRank;
  bool allocated = false;
  uint32_t priority = 0;
  uint32_t queue_position = budget::SnapshotJob::kNoPosition;  // 0: next
  size_t queue_length = 0;
  budget::TimePoint estimated_start = 0;  // 0: none
  // When time slicing can start it (libbudget/report/start_estimate.h);
  // 0: no such estimate.
  budget::TimePoint timeslice_start = 0;
  budget::TimePoint protection_end = budget::SnapshotJob::kNoTime;
  uint32_t preempted_by = 0;    // 0: not preempted (or left a draining node)
  std::string preemption_rule;  // "" when neither
  // Its last departure's notice (budget.conf PreemptNotice): when it was
  // told, and when its notice ended or ends; 0 for none.
  budget::TimePoint told_at = 0;
  budget::TimePoint notice_until = 0;
  // The last contract change job_submit/contract refused ("" for none).
  std::string refused_change;
  budget::TimePoint refused_change_at = 0;
};

// ExplainJob with the pending jobs already placed (PlacePendingJobs of
// every pending job, once for many jobs; null when Slurm did not list
// them), and what it found in *facts.
budget::Status ExplainPlacedJob(uint32_t job_id, const SlurmJob* slurm, const std::vector<QueuedJob>* queue,
                                const budget::ReportSnapshot* snapshot, budget::TimePoint now, std::string* out,
                                JobFacts* facts);

// One job's explanation, for `explain -u/-A --json`.
struct Explanation {
  SlurmJob slurm;
  std::string text;
  JobFacts facts;
};

// A JSON array, one object per job: job_id, state, reason, user, account,
// gpus, min_runtime, resumable, allocation, allocated, tree_rank, priority,
// queue_position (1 = next), queue_length, submit_time, start_time,
// estimated_start, timeslice_start, protection_end, preempted_by, preemption_rule,
// told_at, notice_until, refused_change, refused_change_at (null where a value does not apply or
// is unknown), and explanation (the text's lines).
std::string FormatExplanationsJson(const std::vector<Explanation>& jobs);

// Why `ahead` comes before `job` in the job order: the first step of the
// order on which they differ, in words.
std::string WhyAhead(const budget::SnapshotJob& ahead, const budget::SnapshotJob& job);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_EXPLAIN_H_
