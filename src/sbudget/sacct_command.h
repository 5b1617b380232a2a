// Running sacct for sbudget seed-ledger: the program, its arguments and the
// environment that makes its times UTC and ISO (TZ=UTC,
// SLURM_TIME_FORMAT=standard), its standard output captured. Not libslurm:
// sacct talks to slurmdbd, which keeps running while slurmctld is stopped.
//
// Thread safety: one call at a time (fork/exec, waits for the child).
#ifndef SLURM_BUDGET_SBUDGET_SACCT_COMMAND_H_
#define SLURM_BUDGET_SBUDGET_SACCT_COMMAND_H_

#include <string>
#include <vector>

#include "libbudget/status.h"

namespace sbudget {

// Runs `program` (looked up in PATH) with `args`, standard output into *out.
// NotFound when the program is not found ("sacct not found in PATH ...");
// IOError with its exit status and the first lines of its standard error
// when it fails.
budget::Status RunSacct(const std::string& program, const std::vector<std::string>& args, std::string* out);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_SACCT_COMMAND_H_
