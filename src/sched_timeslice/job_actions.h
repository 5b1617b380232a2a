// Job actions: the only code of the timeslice plugins that changes
// slurmctld's records: the visible reason on a preempted job, the preemption
// itself (requeue or cancel), and the "empty by" promise in a draining
// node's reason.
//
// The reason goes into the job's SystemComment (libbudget/policy/job_notes.h: no
// user, not even an operator, can write it through Slurm, so nothing a user
// writes is read back as a note), which `scontrol show job` and `squeue -O
// system_comment` show and sbudget reads, e.g. the core's preemption note
// (libbudget/policy/preemption_note.h FormatPreemptionNote)
//   preempted by job 13 at 2026-11-29T09:10:00 (rule: unallocated)
// Slurm's own state_desc is overwritten by the requeue, the SystemComment
// is not. The user's own Comment is left alone.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_JOB_ACTIONS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_JOB_ACTIONS_H_

#include <cstdint>
#include <string>

#include "libbudget/policy/contract.h"
#include "libbudget/standing.h"

namespace timeslice {

// Replaces the departure note in the job's SystemComment with `note` and
// a notice until `notice_until` (0: none), keeping its other note
// (job_notes.h).
// REQUIRES: the job write lock. `job_record` is a job_record_t*.
void SetDepartureNote(void* job_record, const std::string& note, budget::TimePoint notice_until = 0);

// Requeues (falling back to a kill if Slurm refuses, as slurm_job_preempt
// does) or cancels job `job_id`, if it is still running the run that
// started at `start`. Sets the departure note first (an empty `note` keeps
// the one there: a job whose notice is over). Returns false, with *why
// set, if the job is gone, no longer running, or started again since.
// REQUIRES: job and node write locks, fed read lock (timeslice_locks.h).
bool PreemptRunningJob(uint32_t job_id, budget::TimePoint start, budget::PreemptAction action,
                       const std::string& note, std::string* why);

// Tells job `job_id`, if it is still running the run that started at
// `start`, that it is to leave by `until` (budget.conf PreemptNotice): its
// departure note with the notice's end, then its signal (the one it asked
// for with --signal, to the steps or the batch shell as it asked; else
// SIGTERM to every step and the batch script), and Slurm's end time cut
// to `until`, with its preempt_time set, as Slurm's own preemption
// GraceTime does. So backfill and `squeue --start` plan its GPUs free at
// `until`; the time-slicing pass ends the job then (PreemptRunningJob,
// timeslice_thread.cc), and if no pass comes first, Slurm's time-limit
// check ends it as a preemption (slurm_job_preempt, in the job's preempt
// mode, which preempt/timeslice gives by its contract). Returns false
// as PreemptRunningJob.
// REQUIRES: job and node write locks, fed read lock (timeslice_locks.h).
bool NoticeRunningJob(uint32_t job_id, budget::TimePoint start, budget::TimePoint until, const std::string& note,
                      std::string* why);

// Requeues job `job_id` if it still is a job that left in its notice
// (job_facts.h LeftInItsNotice): Slurm requeues a finished batch job as
// `scontrol requeue` does. Its note's notice end becomes the time it left. Returns false, with *why set, if it is not (any
// more), or Slurm refused.
// REQUIRES: job and node write locks, fed read lock (timeslice_locks.h).
bool RequeueLeftJob(uint32_t job_id, std::string* why);

// Replaces any "; empty by ..." suffix of node `index`'s reason with
// "; empty by <when>". Returns true if the reason changed.
// REQUIRES: the node write lock.
bool SetNodeEmptyBy(int32_t index, budget::TimePoint when);

// Gives pending job `job_id` the top priority (kGrantedPriority,
// libbudget/policy/order.h) until priority/budget's next pass: the victims freed
// GPUs for it, and Slurm's scheduler, run when they end, must try it first.
// Returns true if this call gave it: false if the job had it already (an
// earlier pass granted it), is gone, no longer pending, held or has a
// priority set by an operator.
// REQUIRES: the job write lock.
bool GrantTopPriority(uint32_t job_id);

// Asks slurmctld's scheduler to run soon (a new grant of a job that fits on
// free GPUs). Each call costs a main-scheduler cycle over the whole queue.
void KickScheduler();

// When slurmctld last changed a node's state (its last_node_update, whole
// seconds): a job started or ended on it, it was drained or returned to
// service. Read without a lock (a hint: the pass itself reads under locks).
budget::TimePoint NodesLastChanged();

// How many jobs have ended in slurmctld (completed, cancelled or failed:
// its sdiag counters). A change in this count is a job that ended, seen at
// once, where NodesLastChanged's whole seconds cannot tell an end later in
// the second of the last pass from one before it. Read without a lock (a
// hint, as above).
uint64_t JobEndCount();

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_JOB_ACTIONS_H_
