// Job actions: see job_actions.h.
#include "sched_timeslice/job_actions.h"

#include <csignal>
#include <ctime>

#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/order.h"
#include "libbudget/policy/preemption_note.h"
#include "sched_timeslice/slurm_headers.h"
#include "slurm_compat/requeue.h"

namespace timeslice {

namespace {
constexpr char kEmptyBy[] = "; empty by ";
}

void SetDepartureNote(void* job_record, const std::string& note) {
  job_record_t* job = static_cast<job_record_t*>(job_record);
  std::string notes = budget::WithDeparture(job->system_comment ? job->system_comment : "", note);
  xfree(job->system_comment);
  job->system_comment = xstrdup(notes.c_str());
}

bool PreemptRunningJob(uint32_t job_id, budget::TimePoint start, budget::PreemptAction action,
                       const std::string& note, std::string* why) {
  job_record_t* job = find_job_record(job_id);
  if (!job) {
    *why = "it is gone";
    return false;
  }
  if (!IS_JOB_RUNNING(job) || IS_JOB_COMPLETING(job)) {
    *why = "it is no longer running";
    return false;
  }
  if (job->start_time != static_cast<time_t>(start)) {
    *why = "it started again since";
    return false;
  }
  SetDepartureNote(job, note);
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

}  // namespace timeslice
