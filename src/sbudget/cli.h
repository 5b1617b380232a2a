// The sbudget command line: parses the arguments, runs one sub-command and
// returns its exit status, with everything it prints collected in an Io.
//
// Slurm, the clock and the invoking user come in as parameters (the
// Environment), so that the whole command can be tested without a
// controller; sbudget_main.cc supplies the real ones.
//
// Exit status: 0 success; 1 the request failed (no snapshot, unknown job,
// an invalid tree, an edit the --as user may not make, a seed-ledger
// refused or failed); 2 bad usage.
//
// Thread safety: none needed; one call per process.
#ifndef SLURM_BUDGET_SBUDGET_CLI_H_
#define SLURM_BUDGET_SBUDGET_CLI_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"
#include "sbudget/explain.h"
#include "sbudget/seed_ledger.h"

namespace sbudget {

struct Environment {
  std::function<budget::Status(uint32_t, SlurmJob*)> load_job;
  // Every pending job (explain of a pending job: its place in the queue).
  std::function<budget::Status(std::vector<SlurmJob>*)> load_pending_jobs;
  // Every job Slurm remembers (explain -u/-A).
  std::function<budget::Status(std::vector<SlurmJob>*)> load_jobs;
  std::function<budget::Status(std::string*)> load_state_save_location;
  budget::TimePoint now = 0;
  std::string current_user;
  std::string slurm_conf;  // path of slurm.conf to read StateSaveLocation from
  size_t columns = 0;      // $COLUMNS; 0 when unset (80 columns)
  // seed-ledger's ping of slurmctld and its sacct (seed_ledger.h).
  SeedEnvironment seed;
};

struct Io {
  std::string out;
  std::string err;
};

// args excludes the program name.
int RunSbudget(const std::vector<std::string>& args, const Environment& env, Io* io);

// Parses --since: "now", "now-DURATION" (a Slurm time string, e.g.
// now-2:00:00 or now-1-0), "@EPOCH", or a local "YYYY-MM-DD[THH:MM[:SS]]".
budget::Status ParseSince(const std::string& text, budget::TimePoint now, budget::TimePoint* out);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_CLI_H_
