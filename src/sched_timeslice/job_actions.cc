// Job actions: see job_actions.h.
#include "sched_timeslice/job_actions.h"

#include <csignal>
#include <ctime>

#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/order.h"
#include "libbudget/policy/preemption_note.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/slurm_headers.h"
#include "slurm_compat/requeue.h"

namespace timeslice {

namespace {
constexpr char kEmptyBy[] = "; empty by ";
}

void SetDepartureNote(void* job_record, const std::string& note, budget::TimePoint notice_until) {
  job_record_t* job = static_cast<job_record_t*>(job_record);
  std::string notes = budget::WithDeparture(job->system_comment ? job->system_comment : "", note, notice_until);
  xfree(job->system_comment);
  job->system_comment = xstrdup(notes.c_str());
}

namespace {

// The job if it still runs the run that started at `start`; else null, with
// *why set.
job_record_t* RunningRun(uint32_t job_id, budget::TimePoint start, std::string* why) {
  job_record_t* job = find_job_record(job_id);
  if (!job) {
    *why = "it is gone";
    return nullptr;
  }
  if (!IS_JOB_RUNNING(job) || IS_JOB_COMPLETING(job)) {
    *why = "it is no longer running";
    return nullptr;
  }
  if (job->start_time != static_cast<time_t>(start)) {
    *why = "it started again since";
    return nullptr;
  }
  return job;
}

}  // namespace

bool NoticeRunningJob(uint32_t job_id, budget::TimePoint start, budget::TimePoint until, const std::string& note,
                      std::string* why) {
  job_record_t* job = RunningRun(job_id, start, why);
  if (!job) return false;
  SetDepartureNote(job, note, until);
  job->preempt_time = time(nullptr);
  if (job->end_time == 0 || job->end_time > static_cast<time_t>(until)) job->end_time = static_cast<time_t>(until);
  // A job that asked for a signal before its end gets that one, where it
  // asked for it (B: the batch shell only); the others SIGTERM everywhere,
  // the batch script included (a script that runs its trainer directly
  // has no step to signal).
  const uint16_t signal = job->warn_signal ? job->warn_signal : SIGTERM;
  const uint16_t flags = job->warn_signal ? (job->warn_flags & KILL_JOB_BATCH) : KILL_FULL_JOB;
  job_signal(job, SIGCONT, flags, 0, false);
  int rc = job_signal(job, signal, flags, 0, false);
  if (rc != SLURM_SUCCESS) {
    // Told or not, it leaves at `until`: its note and end time say so.
    error("preempt/timeslice: JobId=%u: signal %u before its preemption failed: %s", job_id, unsigned(signal),
          slurm_strerror(rc));
  }
  last_job_update = time(nullptr);
  return true;
}

bool PreemptRunningJob(uint32_t job_id, budget::TimePoint start, budget::PreemptAction action,
                       const std::string& note, std::string* why) {
  job_record_t* job = RunningRun(job_id, start, why);
  if (!job) return false;
  if (!note.empty()) SetDepartureNote(job, note);
  job->preempt_time = time(nullptr);
  int rc = SLURM_ERROR;
  if (action == budget::PreemptAction::kRequeue) rc = slurm_compat::RequeueJob(job, true);
  if (rc != SLURM_SUCCESS) {
    // Not resumable, or Slurm refused the requeue (not a batch job, requeue
    // disabled): end it, as slurm_job_preempt does.
    job = find_job_record(job_id);
    rc = job ? job_signal(job, SIGKILL, 0, 0, true) : ESLURM_INVALID_JOB_ID;
  }
  if (rc != SLURM_SUCCESS) {
    *why = slurm_strerror(rc);
    return false;
  }
  last_job_update = time(nullptr);
  return true;
}

bool RequeueLeftJob(uint32_t job_id, std::string* why) {
  job_record_t* job = find_job_record(job_id);
  if (!job || !LeftInItsNotice(job)) {
    *why = "it is gone, or no longer a job that left in its notice";
    return false;
  }
  // Its run ended when it left, before its notice did: the note says so
  // (job_notes.h), for priority/budget's charge of the run and for
  // sbudget explain.
  const budget::JobNotes notes = budget::JobNotesOf(job->system_comment);
  if (job->end_time > 0 && job->end_time < static_cast<time_t>(notes.notice_until))
    SetDepartureNote(job, notes.departure, job->end_time);
  int rc = slurm_compat::RequeueJob(job, true);
  if (rc != SLURM_SUCCESS) {
    *why = slurm_strerror(rc);
    return false;
  }
  last_job_update = time(nullptr);
  return true;
}

bool SetNodeEmptyBy(int32_t index, budget::TimePoint when) {
  if (index < 0 || index >= node_record_count || !node_record_table_ptr[index]) return false;
  node_record_t* node = node_record_table_ptr[index];
  std::string reason = node->reason ? node->reason : "";
  size_t suffix = reason.find(kEmptyBy);
  if (suffix != std::string::npos) reason.resize(suffix);
  reason += kEmptyBy + budget::FormatLocalTime(when);
  if (node->reason && reason == node->reason) return false;
  xfree(node->reason);
  node->reason = xstrdup(reason.c_str());
  last_node_update = time(nullptr);
  return true;
}

bool GrantTopPriority(uint32_t job_id) {
  job_record_t* job = find_job_record(job_id);
  if (!job || !IS_JOB_PENDING(job) || job->priority == 0 || job->direct_set_prio) return false;
  if (job->priority == budget::kGrantedPriority) return false;
  job->priority = budget::kGrantedPriority;
  last_job_update = time(nullptr);
  return true;
}

void KickScheduler() { queue_job_scheduler(); }

budget::TimePoint NodesLastChanged() { return __atomic_load_n(&last_node_update, __ATOMIC_RELAXED); }

uint64_t JobEndCount() {
  const diag_stats_t& s = slurmctld_diag_stats;
  return uint64_t(__atomic_load_n(&s.jobs_completed, __ATOMIC_RELAXED)) +
         __atomic_load_n(&s.jobs_canceled, __ATOMIC_RELAXED) + __atomic_load_n(&s.jobs_failed, __ATOMIC_RELAXED);
}

}  // namespace timeslice
