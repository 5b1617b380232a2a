// Requeueing a running job from inside slurmctld, as Slurm's own preemption
// does (src/interfaces/preempt.c, slurm_job_preempt). 25.11 removed
// job_requeue(uid, job_id, msg, preempt, flags), which looked the job up by
// id; job_requeue_internal takes the record. The older series adapt to that
// shape. Include after slurmctld's headers.
#ifndef SLURM_BUDGET_SLURM_COMPAT_REQUEUE_H_
#define SLURM_BUDGET_SLURM_COMPAT_REQUEUE_H_

namespace slurm_compat {

// Requeues `job` as root; `preempt`: as a preemption (Slurm's accounting
// and reason say so). Requires the job and node write locks.
inline int RequeueJob(job_record_t* job, bool preempt) {
#if SLURM_BUDGET_SLURM_SERIES >= 2511
  return job_requeue_internal(0, job, preempt, 0);
#else
  return job_requeue(0, job->job_id, nullptr, preempt, 0);
#endif
}

}  // namespace slurm_compat

#endif  // SLURM_BUDGET_SLURM_COMPAT_REQUEUE_H_
