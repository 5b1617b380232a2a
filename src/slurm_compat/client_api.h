// libslurm's client API where Slurm 22.05 and 24.11 differ, for sbudget
// (which uses the public headers only, so it reads SLURM_VERSION_NUMBER
// from <slurm/slurm_version.h> rather than configure's series).
//   - 23.11.1+ makes every API call fatal until slurm_init() has run;
//     22.05 reads slurm.conf lazily at the first call.
//   - slurm_get_errno() is gone: libslurm sets errno.
//   - slurm_job_reason_string() became slurm_job_state_reason_string().
//   - 26.05's slurm_load_job() takes a slurm_step_id_t, not a job id; its
//     wrapper for a job id (SLURM_BACKWARD_COMPAT) is C11 _Generic, which
//     C++ cannot use: LoadJob() builds the step id.
//   - 26.05 renamed slurm_free_ctl_conf() to slurm_free_conf().
// Both reason-string functions are exported by libslurm but declared in no
// public header.
#ifndef SLURM_BUDGET_SLURM_COMPAT_CLIENT_API_H_
#define SLURM_BUDGET_SLURM_COMPAT_CLIENT_API_H_

#include <cerrno>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

extern "C" char* slurm_job_state_string(uint32_t state);

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
extern "C" char* slurm_job_state_reason_string(enum job_state_reason reason);

namespace slurm_compat {
// Once per process, before any other libslurm call.
inline void ClientInit() {
  static const bool done = (slurm_init(nullptr), true);
  (void)done;
}
inline int LastError() { return errno; }
inline const char* JobReasonString(enum job_state_reason reason) { return slurm_job_state_reason_string(reason); }
}  // namespace slurm_compat
#endif

namespace slurm_compat {
// slurm_load_job() of one job, by its id.
inline int LoadJob(job_info_msg_t** resp, uint32_t job_id, uint16_t show_flags) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
  slurm_step_id_t step_id = {};
  step_id.job_id = job_id;
  step_id.step_het_comp = NO_VAL;
  step_id.step_id = NO_VAL;
  return slurm_load_job(resp, step_id, show_flags);
#else
  return slurm_load_job(resp, job_id, show_flags);
#endif
}

// Frees what slurm_load_ctl_conf() returned.
inline void FreeConf(slurm_conf_t* conf) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
  slurm_free_conf(conf);
#else
  slurm_free_ctl_conf(conf);
#endif
}
}  // namespace slurm_compat

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 11, 0)
extern "C" char* slurm_job_reason_string(enum job_state_reason reason);

namespace slurm_compat {
inline void ClientInit() {}
inline int LastError() { return slurm_get_errno(); }
inline const char* JobReasonString(enum job_state_reason reason) { return slurm_job_reason_string(reason); }
}  // namespace slurm_compat
#endif

#endif  // SLURM_BUDGET_SLURM_COMPAT_CLIENT_API_H_
