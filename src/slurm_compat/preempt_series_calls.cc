// preempt/timeslice's calls that only some Slurm series ask for. 25.05+
// (checked on 25.11 and 26.05: src/interfaces/preempt.c) asks the plugin
// for a job's mode, priority and grace time through preempt_p_get_mode,
// preempt_p_get_prio and preempt_p_get_grace_time, which the plugin
// defines (sched_timeslice/preempt_timeslice.cc), and decides itself that
// preemption is enabled when PreemptMode is not OFF. Up to 24.11 it asks
// preempt_p_get_data for each of these and for whether preemption is
// enabled: the answers below are the plugin's, and "no", so that Slurm's
// schedulers never look for preemption candidates, whatever PreemptMode.
#include "sched_timeslice/slurm_headers.h"

#if SLURM_BUDGET_SLURM_SERIES < 2505
extern "C" {

uint16_t preempt_p_get_mode(job_record_t* job);
uint32_t preempt_p_get_prio(job_record_t* job);
uint32_t preempt_p_get_grace_time(job_record_t* job);

int preempt_p_get_data(job_record_t* job, slurm_preempt_data_type_t type, void* data) {
  if (!data) return SLURM_ERROR;
  switch (type) {
    case PREEMPT_DATA_ENABLED:
      *static_cast<bool*>(data) = false;
      return SLURM_SUCCESS;
    case PREEMPT_DATA_MODE:
      *static_cast<uint16_t*>(data) = preempt_p_get_mode(job);
      return SLURM_SUCCESS;
    case PREEMPT_DATA_PRIO:
      *static_cast<uint32_t*>(data) = preempt_p_get_prio(job);
      return SLURM_SUCCESS;
    case PREEMPT_DATA_GRACE_TIME:
      *static_cast<uint32_t*>(data) = preempt_p_get_grace_time(job);
      return SLURM_SUCCESS;
    default:
      error("preempt/timeslice: unknown preempt data type %d", static_cast<int>(type));
      return SLURM_ERROR;
  }
}

}  // extern "C"
#endif
