// libslurm's client API where Slurm 22.05 and 24.11 differ, for sbudget
// (which uses the public headers only, so it reads SLURM_VERSION_NUMBER
// from <slurm/slurm_version.h> rather than configure's series).
//   - 23.11.1+ makes every API call fatal until slurm_init() has run;
//     22.05 reads slurm.conf lazily at the first call.
//   - slurm_get_errno() is gone: libslurm sets errno.
//   - slurm_job_reason_string() became slurm_job_state_reason_string().
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
#else
extern "C" char* slurm_job_reason_string(enum job_state_reason reason);

namespace slurm_compat {
inline void ClientInit() {}
inline int LastError() { return slurm_get_errno(); }
inline const char* JobReasonString(enum job_state_reason reason) { return slurm_job_reason_string(reason); }
}  // namespace slurm_compat
#endif

#endif  // SLURM_BUDGET_SLURM_COMPAT_CLIENT_API_H_
