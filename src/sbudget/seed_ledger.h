// `sbudget seed-ledger`: fills priority/budget's ledger from Slurm's
// accounting for the window before a site switches to the suite
// (libbudget/accounting/ledger_seed.h has the charging rules; this file is
// the command around them). See sbudget(1), "seed-ledger".
//
// Safety, in the order checked:
//   1. slurmctld must be stopped (it loads the ledger at start and saves
//      its own over it every RecalcInterval): refused when its pid file
//      (SlurmctldPidFile, default /var/run/slurmctld.pid) is locked, as
//      slurmctld locks it while it runs (Slurm's create_pidfile()), or when
//      the controller answers a ping (as `scontrol ping` asks; from any
//      host). --dry-run writes nothing and runs either way.
//   2. The tree: --tree FILE; else budget.conf's BudgetTree (beside
//      slurm.conf) when it is a file; else (a URL, slurmdbd) the last good
//      copy priority/budget kept in StateSaveLocation. None: refused.
//   3. An existing ledger (StateSaveLocation/budget_ledger.dat) that holds
//      usage, or does not load, is replaced only with --force; it is then
//      kept as the previous generation (budget_ledger.dat.1,
//      ledger_generations.h).
//   4. sacct's output (or --sacct-file) is read whole before anything is
//      written; any malformed row fails the command, and the files on disk
//      stay as they were.
// The ledger is written with SaveLedgerGeneration, owned like
// StateSaveLocation (so that slurmctld's SlurmUser can replace it).
//
// Exit status: 0 seeded (or, with --dry-run, would have); 1 refused or
// failed (nothing written); 2 bad usage.
//
// Thread safety: none needed; one call per process.
#ifndef SLURM_BUDGET_SBUDGET_SEED_LEDGER_H_
#define SLURM_BUDGET_SBUDGET_SEED_LEDGER_H_

#include <functional>
#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace sbudget {

struct SeedRequest {
  std::string slurm_conf;      // where slurm.conf is (budget.conf beside it)
  std::string since;           // --since as given; "" = LookbackWindow
  std::string sacct_file;      // --sacct-file; "" = run sacct
  std::string tree_file;       // --tree; "" = the configured tree
  bool dry_run = false;
  bool force = false;
  budget::TimePoint now = 0;
};

struct SeedEnvironment {
  // Whether slurmctld answers a ping; null: not asked (no libslurm).
  std::function<bool()> controller_answers;
  // Runs sacct with these arguments (sacct_command.h's RunSacct).
  std::function<budget::Status(const std::vector<std::string>&, std::string*)> run_sacct;
};

// Runs the command; what it prints goes to *out and *err. Returns the exit
// status above.
int RunSeedLedger(const SeedRequest& request, const SeedEnvironment& env, std::string* out, std::string* err);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_SEED_LEDGER_H_
