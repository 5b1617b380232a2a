// `sbudget seed-ledger` (seed_ledger.h).
#include "sbudget/seed_ledger.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "libbudget/accounting/ledger_seed.h"
#include "libbudget/config/config.h"
#include "libbudget/config/time_string.h"
#include "libbudget/policy/run_charging.h"
#include "libbudget/state/ledger_file.h"
#include "libbudget/state/ledger_generations.h"
#include "libbudget/state/tree.h"
#include "priority_budget/state_files.h"  // the state files' names (constants only)
#include "sbudget/cli.h"
#include "sbudget/snapshot_locate.h"

namespace sbudget {

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;
// Slurm's defaults when slurm.conf does not set them.
constexpr char kDefaultStateSaveLocation[] = "/var/spool/slurmctld";
constexpr char kDefaultSlurmctldPidFile[] = "/var/run/slurmctld.pid";

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The pid of the process that holds a write lock on `file` (slurmctld holds
// one on its pid file while it runs), 0 when none holds one or the file
// cannot be opened.
pid_t LockHolder(const std::string& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  pid_t holder = 0;
  if (fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK) holder = lock.l_pid;
  close(fd);
  return holder;
}

// "12.3" GPU-hours of `seconds` GPU-seconds.
std::string Hours(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds / 3600.0);
  return text;
}

std::string Pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// --since: a duration back from now ("7-0", as sbatch --time reads it), or
// any form `sbudget history --since` takes.
budget::Status SinceOf(const std::string& text, budget::TimePoint now, budget::TimePoint* out) {
  budget::Seconds ago = 0;
  if (budget::ParseDuration(text, &ago).ok()) {
    *out = now - ago;
    return budget::Status::Ok();
  }
  budget::Status st = ParseSince(text, now, out);
  if (!st.ok())
    return budget::Status::InvalidArgument("--since " + text +
                                           ": expected a duration such as 7-0 (7 days), now-DURATION, @EPOCH or "
                                           "YYYY-MM-DD[THH:MM[:SS]]");
  return budget::Status::Ok();
}

std::string FormatReport(const budget::SeedReport& r, const std::string& source, budget::TimePoint since,
                         budget::TimePoint now) {
  std::ostringstream o;
  o << "seed-ledger: runs from " << budget::SacctTimeText(since) << " to " << budget::SacctTimeText(now)
    << " UTC (" << budget::FormatDuration(now - since) << "), read from " << source << "\n";
  o << "  rows read:     " << r.rows << "\n";
  o << "  runs read:     " << r.runs_read << " (rows that held an allocation)\n";
  o << "  runs charged:  " << r.runs_charged << " (of " << r.jobs_charged << " jobs)\n";
  if (r.skipped.empty()) o << "  rows skipped:  0\n";
  for (size_t i = 0; i < r.skipped.size(); ++i) {
    o << (i == 0 ? "  rows skipped:  " : "                 ") << r.skipped[i].second << " " << r.skipped[i].first;
    if (r.skipped[i].first.rfind("runs whose account", 0) == 0 && !r.unknown_accounts.empty()) {
      o << ":";
      for (size_t a = 0; a < r.unknown_accounts.size() && a < 10; ++a) o << " " << r.unknown_accounts[a];
      if (r.unknown_accounts.size() > 10) o << " (and " << r.unknown_accounts.size() - 10 << " more)";
    }
    o << "\n";
  }
  size_t width = 5;
  for (const auto& team : r.team_allocated) width = std::max(width, team.first.size());
  o << "GPU-hours charged to allocated work, per top-level team (weighted by GpuTypeWeights):\n";
  for (const auto& [team, seconds] : r.team_allocated)
    o << "  " << Pad(team, width) << "  " << PadLeft(Hours(seconds), 10) << "\n";
  o << "  " << Pad("total", width) << "  " << PadLeft(Hours(r.allocated_gpu_seconds), 10) << "\n";
  if (r.unallocated_gpu_seconds > 0)
    o << "  free work (min-runtime 0, not ranked on): " << Hours(r.unallocated_gpu_seconds) << " GPU-hours\n";
  return o.str();
}

// The tree seed-ledger charges against, per seed_ledger.h; "" in *problem
// when found.
bool LoadTree(const SeedRequest& request, const budget::BudgetConfig& config, const std::string& state_dir,
              budget::AllocationTree* tree, std::string* from, std::string* problem) {
  std::string file = request.tree_file;
  if (file.empty()) {
    const std::string& spec = config.budget_tree;
    const bool url = spec.find("://") != std::string::npos && spec.rfind("file://", 0) != 0;
    if (spec.empty()) {
      *problem = "budget.conf sets no BudgetTree; give --tree FILE";
      return false;
    }
    if (spec == budget::kBudgetTreeSlurmdbd || url) {
      file = state_dir + "/" + budget_prio::kLastGoodTreeFileName;
      if (!Exists(file)) {
        *problem = "BudgetTree=" + spec + " is read by priority/budget, and it has kept no copy yet (" + file +
                   " does not exist): give the tree with --tree FILE (for slurmdbd: "
                   "scripts/tree_from_sacctmgr.py writes it)";
        return false;
      }
    } else {
      file = spec.rfind("file://", 0) == 0 ? spec.substr(7) : spec;
    }
  }
  std::vector<std::string> warnings;
  budget::Status st = budget::AllocationTree::ParseFile(file, tree, &warnings);
  if (!st.ok()) {
    *problem = "the allocation tree does not load: " + st.message();
    return false;
  }
  *from = file;
  return true;
}

// Gives `file` (and its previous generation) the owner of `dir`, so that
// slurmctld's SlurmUser can rotate and replace them. Root only.
void OwnLikeDir(const std::string& dir, const std::string& file, std::string* err) {
  struct stat st;
  if (geteuid() != 0 || stat(dir.c_str(), &st) != 0 || st.st_uid == 0) return;
  for (const std::string& f : {file, budget::PreviousGenerationFile(file)}) {
    if (Exists(f) && chown(f.c_str(), st.st_uid, st.st_gid) != 0)
      *err += "sbudget: warning: cannot give " + f + " to the owner of " + dir + ": " + std::strerror(errno) + "\n";
  }
}

}  // namespace

int RunSeedLedger(const SeedRequest& request, const SeedEnvironment& env, std::string* out, std::string* err) {
  auto fail = [err](const std::string& message) {
    *err += "sbudget: seed-ledger: " + message + "\n";
    return kExitFailed;
  };
  // slurm.conf: StateSaveLocation and the pid file.
  std::ifstream conf_file(request.slurm_conf);
  if (!conf_file) return fail("cannot read " + request.slurm_conf + " (set SLURM_CONF): it says where the ledger is");
  std::stringstream conf_text;
  conf_text << conf_file.rdbuf();
  std::string state_dir = SettingFromConf(conf_text.str(), "StateSaveLocation");
  if (state_dir.empty()) state_dir = kDefaultStateSaveLocation;
  while (state_dir.size() > 1 && state_dir.back() == '/') state_dir.pop_back();
  std::string pid_file = SettingFromConf(conf_text.str(), "SlurmctldPidFile");
  if (pid_file.empty()) pid_file = kDefaultSlurmctldPidFile;

  // budget.conf: the window, the charging options, the tree.
  const std::string budget_conf = budget::BudgetConfigPathBeside(request.slurm_conf);
  budget::BudgetConfig config;
  bool missing = false;
  budget::Status st = budget::LoadBudgetConfig(budget_conf, &config, &missing);
  if (!st.ok()) return fail(st.message());
  if (missing && request.tree_file.empty())
    return fail(budget_conf + " does not exist: it names the tree (BudgetTree) and the window; give --tree FILE "
                              "to seed with budget.conf's defaults");

  budget::TimePoint since = request.now - config.lookback_window;
  if (!request.since.empty()) {
    st = SinceOf(request.since, request.now, &since);
    if (!st.ok()) {
      *err += "sbudget: seed-ledger: " + st.message() + "\n";
      return kExitUsage;
    }
  }
  if (since >= request.now) {
    *err += "sbudget: seed-ledger: --since " + request.since + " is not in the past\n";
    return kExitUsage;
  }
  std::string note;
  if (request.now - since > config.lookback_window) {
    since = request.now - config.lookback_window;
    note = "note: --since goes back further than LookbackWindow (" + budget::FormatDuration(config.lookback_window) +
           "): only the window is seeded\n";
  }

  // 1. slurmctld must be stopped.
  std::string running;
  if (const pid_t holder = LockHolder(pid_file))
    running = "its pid file " + pid_file + " is locked by process " + std::to_string(holder);
  else if (env.controller_answers && env.controller_answers())
    running = "it answers a ping (scontrol ping: UP)";
  if (!running.empty() && !request.dry_run)
    return fail("slurmctld is running (" + running +
                "): stop it first. priority/budget loads the ledger when slurmctld starts and saves its own over "
                "it while it runs, so a seed written now would be lost; --dry-run shows what would be seeded");

  // 2. The tree.
  budget::AllocationTree tree;
  std::string tree_from, problem;
  if (!LoadTree(request, config, state_dir, &tree, &tree_from, &problem)) return fail(problem);

  // 3. An existing ledger.
  const std::string ledger_file = state_dir + "/" + budget_prio::kLedgerFileName;
  const std::string previous = budget::PreviousGenerationFile(ledger_file);
  const std::string existing_file = Exists(ledger_file) ? ledger_file : Exists(previous) ? previous : "";
  if (!existing_file.empty() && !request.force) {
    budget::Ledger existing(budget::LedgerOptionsFor(config));
    st = budget::LoadLedger(existing_file, &existing);
    if (!st.ok())
      return fail(existing_file + " exists but does not load (" + st.message() +
                  "): --force replaces it (it is kept as " + previous + ")");
    if (existing.path_count() > 0)
      return fail(existing_file + " already holds usage of " + std::to_string(existing.path_count()) +
                  " allocation(s): --force replaces it (the old one is kept as " + previous + ")");
  }

  // 4. sacct's output, read whole, then charged.
  std::string text, source;
  if (!request.sacct_file.empty()) {
    std::ifstream in(request.sacct_file, std::ios::binary);
    if (!in) return fail("cannot read " + request.sacct_file + ": " + std::strerror(errno));
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    source = request.sacct_file;
  } else {
    if (!env.run_sacct) return fail("cannot run sacct here; give --sacct-file FILE");
    const std::vector<std::string> args = budget::SeedSacctArguments(since, request.now);
    st = env.run_sacct(args, &text);
    if (!st.ok()) return fail(st.message());
    source = "sacct";
  }
  budget::Ledger ledger(budget::LedgerOptionsFor(config));
  budget::FleetWorth fleet(&config.gpu_type_weights);
  budget::SeedReport report;
  st = budget::SeedLedgerFromSacct(text, source, tree, config, fleet, since, request.now, &ledger, &report);
  if (!st.ok()) return fail(st.message() + " (nothing written)");

  *out += note;
  *out += "tree: " + tree_from + "\n";
  *out += FormatReport(report, source, since, request.now);
  if (!running.empty()) *out += "note: slurmctld is running (" + running + "): stop it before seeding for real\n";
  if (request.dry_run) {
    *out += "dry run: nothing written (would write " + ledger_file + ")\n";
    return kExitOk;
  }
  st = budget::SaveLedgerGeneration(ledger, ledger_file);
  if (!st.ok()) return fail(st.message());
  OwnLikeDir(state_dir, ledger_file, err);
  *out += "wrote " + ledger_file + (existing_file.empty() ? "" : " (the ledger before it is kept as " + previous + ")") +
          "; start slurmctld with PriorityType=priority/budget to use it\n";
  return kExitOk;
}

}  // namespace sbudget
