// Whether this init() runs in a slurmctld that `scontrol reconfigure`
// re-executed. Slurm 23.11 and later reconfigure that way: the new process
// finds SLURMCTLD_RECONF in its environment (src/slurmctld/controller.c,
// _try_to_reconfig) and runs every plugin's init() again, where 22.05 calls
// the plugins' reconfigure hooks instead and never re-executes. Plugins use
// it to fall back to the last good budget.conf (libbudget/config_last_good.h)
// rather than stop the controller.
#ifndef SLURM_BUDGET_SLURM_COMPAT_RECONFIGURE_H_
#define SLURM_BUDGET_SLURM_COMPAT_RECONFIGURE_H_

#include <cstdlib>

namespace slurm_compat {

inline bool SlurmctldReexecutedByReconfigure() {
#if SLURM_BUDGET_SLURM_SERIES >= 2311
  return std::getenv("SLURMCTLD_RECONF") != nullptr;
#else
  return false;
#endif
}

}  // namespace slurm_compat

#endif  // SLURM_BUDGET_SLURM_COMPAT_RECONFIGURE_H_
