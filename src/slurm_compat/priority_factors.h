// Which job a priority_factors_object_t (a row of sprio) describes: 26.05
// identifies it by the job's step_id (job id and sluid,
// src/plugins/priority/multifactor/priority_multifactor.c), earlier series
// by its job_id. Include after slurmctld's headers.
#ifndef SLURM_BUDGET_SLURM_COMPAT_PRIORITY_FACTORS_H_
#define SLURM_BUDGET_SLURM_COMPAT_PRIORITY_FACTORS_H_

namespace slurm_compat {

inline void SetFactorsJob(priority_factors_object_t* obj, const job_record_t* job) {
#if SLURM_BUDGET_SLURM_SERIES >= 2605
  obj->step_id = job->step_id;
#else
  obj->job_id = job->job_id;
#endif
}

}  // namespace slurm_compat

#endif  // SLURM_BUDGET_SLURM_COMPAT_PRIORITY_FACTORS_H_
