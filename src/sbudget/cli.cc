// The sbudget command line (cli.h).
#include "sbudget/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/timeslice_counts.h"
#include "libbudget/report/metrics_text.h"
#include "libbudget/report/report_file.h"
#include "libbudget/report/report_reader.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/config/time_string.h"
#include "sbudget/history_chart.h"
#include "sbudget/report_table.h"
#include "sbudget/seed_ledger.h"
#include "sbudget/snapshot_locate.h"
#include "sbudget/tree_review.h"

namespace sbudget {

using budget::ReportSnapshot;
using budget::Status;

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

const char kUsage[] =
    "Usage: sbudget [-A ACCOUNTS] [-u USERS] [-a] [-l] [-n] [-p|-P|--json]\n"
    "               [--snapshot FILE]\n"
    "       sbudget explain (JOBID | -u USER | -A ACCOUNT) [--json] [--snapshot FILE]\n"
    "       sbudget history [--since TIME] [--paths PATH,...] [--svg FILE | --csv]\n"
    "               [--snapshot FILE]\n"
    "       sbudget metrics [-o FILE] [--openmetrics] [--snapshot FILE]\n"
    "       sbudget validate FILE\n"
    "       sbudget diff OLD NEW [--as USER]\n"
    "       sbudget seed-ledger [--since DURATION] [--sacct-file FILE] [--tree FILE]\n"
    "               [--dry-run] [--force]\n"
    "See sbudget(1); sbudget --help lists the options and columns.\n";

const char kOptionsHelp[] =
    "\nReport options:\n"
    "  -A, --accounts=NAME[,...]  only these accounts' or tree paths' subtrees\n"
    "  -u, --users=USER[,...]     only these users' nodes and the subtrees they own\n"
    "  -a, --all                  every user's nodes (default: only yours)\n"
    "  -l, --long                 the wide form: every column, never cut\n"
    "  -n, --noheader             no header, rule or summary line\n"
    "  -p, --parsable             '|'-separated, with a trailing '|'\n"
    "  -P, --parsable2            '|'-separated, no trailing '|'\n"
    "      --json                 the selected rows as JSON\n"
    "      --snapshot=FILE        read this report snapshot\n"
    "explain options:\n"
    "  -u, --users=USER           every job of USER\n"
    "  -A, --accounts=ACCOUNT     every job of ACCOUNT\n"
    "      --json                 one JSON object per job, in an array\n"
    "history options:\n"
    "      --since=TIME           now, now-DURATION, @EPOCH, YYYY-MM-DD[THH:MM[:SS]]\n"
    "      --paths=PATH[,...]     these allocations (default: root and children)\n"
    "      --csv                  CSV on standard output (the default)\n"
    "      --svg=FILE             an SVG chart\n"
    "metrics options:\n"
    "  -o, --output=FILE          write FILE atomically (FILE.tmp, then rename)\n"
    "      --openmetrics          OpenMetrics 1.0 (default: Prometheus' text format)\n"
    "diff options:\n"
    "      --as=USER              check that USER owns every change\n"
    "seed-ledger options (run as root with slurmctld stopped, before the switch):\n"
    "      --since=DURATION       this far back (7-0: 7 days; default LookbackWindow)\n"
    "      --sacct-file=FILE      read this sacct -P output instead of running sacct\n"
    "      --tree=FILE            charge against this tree (default: budget.conf's)\n"
    "      --dry-run              print what would be seeded; write nothing\n"
    "      --force                replace a ledger that already holds usage\n"
    "  -h, --help                 this help\n"
    "  -V, --version              the version\n"
    "The output fits $COLUMNS (default 80) columns, except -l.\n";

std::string Help() {
  return std::string(kUsage) + kOptionsHelp + "\nColumns (GPU time in GPU-hours over the lookback window; weighted\n"
         "GPU-hours when priority/budget runs with GpuTypeWeights, as the report says):\n" +
         ColumnHelp(false) + "With -l, also:\n" + [] {
           std::string extra;
           std::vector<std::string> short_names = ColumnNames(false);
           std::string all = ColumnHelp(true);
           size_t start = 0;
           while (start < all.size()) {
             size_t eol = all.find('\n', start);
             std::string line = all.substr(start, eol - start + 1);
             std::string name = line.substr(2, line.find(' ', 2) - 2);
             if (std::find(short_names.begin(), short_names.end(), name) == short_names.end()) extra += line;
             start = eol + 1;
           }
           return extra;
         }();
}

// Options of every sub-command, parsed Slurm-style: short flags may be
// grouped (-la), values follow the option or `=` (--as=bob, -Abio).
struct Options {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // long name -> value
  std::map<std::string, bool> flags;          // long name -> set
  bool Flag(const std::string& name) const { return flags.count(name) != 0; }
  const std::string* Value(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
};

struct OptionSpec {
  char short_name;  // 0: none
  const char* long_name;
  bool takes_value;
};

const OptionSpec kOptions[] = {
    {'A', "accounts", true}, {'u', "users", true},   {'a', "all", false},
    {'l', "long", false},    {'n', "noheader", false}, {'p', "parsable", false},
    {'P', "parsable2", false}, {0, "json", false},   {0, "snapshot", true},
    {0, "since", true},      {0, "svg", true},       {0, "csv", false},
    {0, "paths", true},      {0, "as", true},        {'o', "output", true},
    {0, "openmetrics", false}, {'h', "help", false},
    {0, "sacct-file", true}, {0, "tree", true}, {0, "dry-run", false}, {0, "force", false},
    {'V', "version", false},
};

const OptionSpec* FindShort(char c) {
  for (const OptionSpec& o : kOptions) {
    if (o.short_name == c) return &o;
  }
  return nullptr;
}

const OptionSpec* FindLong(const std::string& name) {
  for (const OptionSpec& o : kOptions) {
    if (name == o.long_name) return &o;
  }
  return nullptr;
}

Status ParseOptions(const std::vector<std::string>& args, size_t first, Options* out) {
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto take_value = [&](const OptionSpec& o, std::string inline_value, bool has_inline) -> Status {
      if (!o.takes_value) {
        if (has_inline) return Status::InvalidArgument("option --" + std::string(o.long_name) + " takes no value");
        out->flags[o.long_name] = true;
        return Status::Ok();
      }
      if (!has_inline) {
        if (i + 1 >= args.size()) return Status::InvalidArgument("option --" + std::string(o.long_name) + " needs a value");
        inline_value = args[++i];
      }
      out->values[o.long_name] = inline_value;
      return Status::Ok();
    };
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      size_t eq = a.find('=');
      std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const OptionSpec* o = FindLong(name);
      if (o == nullptr) return Status::InvalidArgument("unknown option --" + name);
      Status s = take_value(*o, eq == std::string::npos ? "" : a.substr(eq + 1), eq != std::string::npos);
      if (!s.ok()) return s;
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      for (size_t k = 1; k < a.size(); ++k) {
        const OptionSpec* o = FindShort(a[k]);
        if (o == nullptr) return Status::InvalidArgument(std::string("unknown option -") + a[k]);
        if (o->takes_value) {
          Status s = take_value(*o, a.substr(k + 1), k + 1 < a.size());
          if (!s.ok()) return s;
          break;
        }
        out->flags[o->long_name] = true;
      }
    } else {
      out->positional.push_back(a);
    }
  }
  return Status::Ok();
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// The StateSaveLocation file per snapshot_locate.h, or "" with the
// problem printed.
std::string StateSaveSnapshotFile(const Environment& env, Io* io) {
  std::ifstream conf(env.slurm_conf);
  if (!conf) {
    // libslurm would retry reading it for a minute: say so at once.
    io->err += "sbudget: cannot read " + env.slurm_conf +
               " (set SLURM_CONF) to find StateSaveLocation; or give --snapshot FILE\n";
    return "";
  }
  std::stringstream text;
  text << conf.rdbuf();
  std::string dir = StateSaveLocationFromConf(text.str());
  // Not in the file: Slurm's default applies, which the controller knows.
  if (dir.empty() && env.load_state_save_location) {
    Status s = env.load_state_save_location(&dir);
    if (!s.ok()) {
      io->err += "sbudget: " + env.slurm_conf + " names no StateSaveLocation, and " + s.message() +
                 "; give --snapshot FILE\n";
      return "";
    }
  }
  if (dir.empty()) {
    io->err += "sbudget: cannot find StateSaveLocation (" + env.slurm_conf + "); give --snapshot FILE\n";
    return "";
  }
  return SnapshotFileIn(dir);
}

// Reads the snapshot per snapshot_locate.h; on failure prints the problem.
// A snapshot written while no tree had loaded is a failure too, said as such.
// *file_read (may be null): the file it read.
bool LoadSnapshot(const Options& opts, const Environment& env, ReportSnapshot* out, Io* io,
                  std::string* file_read = nullptr) {
  std::string file;
  Status s;
  if (const std::string* f = opts.Value("snapshot")) {
    file = *f;
    s = budget::ReadReportSnapshot(file, out);
  } else {
    std::string warning;
    std::string report_dir = ReportDirFromBudgetConf(env.slurm_conf, &warning);
    if (!warning.empty()) io->err += "sbudget: " + warning + "\n";
    if (!report_dir.empty()) {
      file = SnapshotFileIn(report_dir);
      s = budget::ReadReportSnapshot(file, out);
    }
    if (report_dir.empty() || !s.ok()) {
      // No ReportDir, or nothing usable there (not mounted, not written
      // yet): StateSaveLocation, readable on the controller.
      Io state_io;
      std::string state_file = StateSaveSnapshotFile(env, &state_io);
      Status state_status = state_file.empty() ? Status::NotFound("") : budget::ReadReportSnapshot(state_file, out);
      if (report_dir.empty() || state_status.ok()) {
        io->err += state_io.err;
        if (state_file.empty()) return false;
        file = state_file;
        s = state_status;
      }
    }
  }
  if (!s.ok()) {
    io->err += "sbudget: " + SnapshotProblem(s, file) + "\n";
    return false;
  }
  if (!out->tree_loaded) {
    io->err += "sbudget: " + NoTreeProblem(*out, env.now) + "\n";
    return false;
  }
  std::string warning = StalenessWarning(*out, env.now);
  if (!warning.empty()) io->err += "sbudget: " + warning + "\n";
  if (file_read != nullptr) *file_read = file;
  return true;
}

int Usage(Io* io, const std::string& why) {
  io->err += "sbudget: " + why + "\n" + kUsage;
  return kExitUsage;
}

int RunReport(const Options& opts, const Environment& env, Io* io) {
  if (!opts.positional.empty()) return Usage(io, "unknown sub-command '" + opts.positional[0] + "'");
  int styles = opts.Flag("parsable") + opts.Flag("parsable2") + opts.Flag("json");
  if (styles > 1) return Usage(io, "-p, -P and --json exclude each other");
  ReportSnapshot snapshot;
  if (!LoadSnapshot(opts, env, &snapshot, io)) return kExitFailed;
  ReportFilter filter;
  if (const std::string* v = opts.Value("accounts")) filter.accounts = SplitList(*v);
  if (const std::string* v = opts.Value("users")) filter.users = SplitList(*v);
  filter.all_users = opts.Flag("all");
  filter.current_user = env.current_user;
  // A name that matches nothing is said; with nothing matched at all, the
  // report fails rather than print an empty table.
  std::vector<std::string> unmatched = Unmatched(snapshot, filter);
  for (const std::string& item : unmatched) {
    io->err += "sbudget: " + item + ": no " + (item[1] == 'A' ? "account or tree path" : "user or owner") +
               " of that name in the tree\n";
  }
  if (!unmatched.empty() && unmatched.size() == filter.accounts.size() + filter.users.size()) {
    return kExitFailed;
  }
  std::vector<size_t> rows = SelectNodes(snapshot, filter);
  if (opts.Flag("json")) {
    io->out += FormatJson(snapshot, rows, env.now);
    return kExitOk;
  }
  TableOptions table;
  table.long_format = opts.Flag("long");
  table.header = !opts.Flag("noheader");
  if (env.columns > 0) table.width = env.columns;
  table.style = opts.Flag("parsable") ? TableStyle::kParsable
                : opts.Flag("parsable2") ? TableStyle::kParsable2 : TableStyle::kColumns;
  if (table.style == TableStyle::kColumns && table.header) {
    io->out += FormatSnapshotSummary(snapshot, env.now, table.long_format ? SIZE_MAX : table.width);
  }
  io->out += FormatTable(snapshot, rows, table);
  return kExitOk;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// explain -u USERS / -A ACCOUNTS: every job of theirs Slurm remembers, by
// job id, the pending ones placed once among all pending jobs.
int RunExplainMany(const Options& opts, const Environment& env, Io* io) {
  std::vector<std::string> users, accounts;
  if (const std::string* v = opts.Value("users")) users = SplitList(*v);
  if (const std::string* v = opts.Value("accounts")) accounts = SplitList(*v);
  if (!env.load_jobs) {
    io->err += "sbudget: explain -u/-A asks slurmctld for the jobs: cannot read " + env.slurm_conf +
               " (set SLURM_CONF)\n";
    return kExitFailed;
  }
  std::vector<SlurmJob> all;
  Status s = env.load_jobs(&all);
  if (!s.ok()) {
    io->err += "sbudget: " + s.message() + "\n";
    return kExitFailed;
  }
  ReportSnapshot snapshot;
  Io snapshot_io;
  const bool have_snapshot = LoadSnapshot(opts, env, &snapshot, &snapshot_io);
  io->err += snapshot_io.err;
  std::vector<SlurmJob> pending;
  std::vector<const SlurmJob*> chosen;
  for (const SlurmJob& j : all) {
    if (j.state == "PENDING") pending.push_back(j);
    if ((users.empty() || Contains(users, j.user)) && (accounts.empty() || Contains(accounts, j.account))) {
      chosen.push_back(&j);
    }
  }
  std::sort(chosen.begin(), chosen.end(), [](const SlurmJob* a, const SlurmJob* b) { return a->job_id < b->job_id; });
  std::string who;
  if (!users.empty()) who += "user " + *opts.Value("users");
  if (!accounts.empty()) who += std::string(who.empty() ? "" : ", ") + "account " + *opts.Value("accounts");
  if (chosen.empty()) {
    io->err += "sbudget: Slurm has no jobs of " + who + "\n";
    return kExitFailed;
  }
  std::vector<QueuedJob> queue;
  if (have_snapshot) queue = PlacePendingJobs(pending, snapshot);
  std::vector<Explanation> explanations;
  for (const SlurmJob* j : chosen) {
    Explanation e;
    e.slurm = *j;
    ExplainPlacedJob(j->job_id, j, have_snapshot ? &queue : nullptr, have_snapshot ? &snapshot : nullptr, env.now,
                     &e.text, &e.facts);
    explanations.push_back(std::move(e));
  }
  if (opts.Flag("json")) {
    io->out += FormatExplanationsJson(explanations);
    return kExitOk;
  }
  const size_t width = env.columns > 0 ? env.columns : kDefaultWidth;
  for (size_t i = 0; i < explanations.size(); ++i) {
    io->out += (i > 0 ? "\n" : "") + WrapExplanation(explanations[i].text, width);
  }
  return kExitOk;
}

int RunExplain(const Options& opts, const Environment& env, Io* io) {
  const bool many = opts.Value("users") != nullptr || opts.Value("accounts") != nullptr;
  if (many) {
    if (opts.positional.size() != 1) return Usage(io, "explain takes a JOBID or -u/-A, not both");
    return RunExplainMany(opts, env, io);
  }
  if (opts.positional.size() != 2) return Usage(io, "explain takes one JOBID (or -u USER / -A ACCOUNT)");
  const std::string& text = opts.positional[1];
  char* end = nullptr;
  errno = 0;
  unsigned long id = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || id == 0 || id > UINT32_MAX) {
    return Usage(io, "'" + text + "' is not a job id");
  }
  ReportSnapshot snapshot;
  Io snapshot_io;
  bool have_snapshot = LoadSnapshot(opts, env, &snapshot, &snapshot_io);
  io->err += snapshot_io.err;
  SlurmJob slurm;
  bool have_slurm = false;
  if (env.load_job) {
    Status s = env.load_job(static_cast<uint32_t>(id), &slurm);
    have_slurm = s.ok();
    if (!s.ok() && !s.IsNotFound()) io->err += "sbudget: " + s.message() + "\n";
  }
  // Only a pending job's place needs the other pending jobs (one RPC,
  // paid when someone asks rather than by the plugin at every pass).
  std::vector<SlurmJob> pending;
  bool have_pending = false;
  if (have_slurm && slurm.state == "PENDING" && have_snapshot && env.load_pending_jobs) {
    Status s = env.load_pending_jobs(&pending);
    have_pending = s.ok();
    if (!s.ok()) io->err += "sbudget: " + s.message() + "\n";
  }
  std::string out;
  Status s = ExplainJob(static_cast<uint32_t>(id), have_slurm ? &slurm : nullptr,
                        have_pending ? &pending : nullptr, have_snapshot ? &snapshot : nullptr,
                        env.now, &out);
  if (!s.ok()) {
    io->err += "sbudget: " + s.message() + "\n";
    return kExitFailed;
  }
  if (opts.Flag("json")) {
    Explanation e;
    if (have_slurm) {
      e.slurm = slurm;
    } else {
      e.slurm.job_id = static_cast<uint32_t>(id);
    }
    std::vector<QueuedJob> queue;
    if (have_pending) queue = PlacePendingJobs(pending, snapshot);
    ExplainPlacedJob(e.slurm.job_id, have_slurm ? &slurm : nullptr, have_pending ? &queue : nullptr,
                     have_snapshot ? &snapshot : nullptr, env.now, &e.text, &e.facts);
    io->out += FormatExplanationsJson({e});
    return kExitOk;
  }
  io->out += WrapExplanation(out, env.columns > 0 ? env.columns : kDefaultWidth);
  return kExitOk;
}

int RunHistory(const Options& opts, const Environment& env, Io* io) {
  if (opts.positional.size() != 1) return Usage(io, "history takes no arguments besides options");
  const std::string* svg = opts.Value("svg");
  // CSV on standard output is the default: the text form.
  if (svg != nullptr && opts.Flag("csv")) return Usage(io, "history takes --svg FILE or --csv, not both");
  budget::TimePoint since = std::numeric_limits<budget::TimePoint>::min();
  if (const std::string* v = opts.Value("since")) {
    Status s = ParseSince(*v, env.now, &since);
    if (!s.ok()) return Usage(io, s.message());
  }
  ReportSnapshot snapshot;
  if (!LoadSnapshot(opts, env, &snapshot, io)) return kExitFailed;
  std::vector<std::string> paths;
  if (const std::string* v = opts.Value("paths")) paths = SplitList(*v);
  std::string root_name = snapshot.nodes.empty() ? "cluster" : snapshot.nodes[0].name;
  std::vector<budget::SnapshotHistory> series = SelectHistory(snapshot, paths, since);
  if (svg == nullptr) {
    io->out += FormatHistoryCsv(series, root_name, snapshot.generated_at);
    return kExitOk;
  }
  std::ofstream file(*svg, std::ios::binary | std::ios::trunc);
  file << FormatHistorySvg(series, root_name, snapshot.generated_at, snapshot.capacity_gpus);
  file.close();
  if (!file) {
    io->err += "sbudget: cannot write " + *svg + ": " + std::strerror(errno) + "\n";
    return kExitFailed;
  }
  io->out += "wrote " + *svg + " (" + std::to_string(series.size()) + " allocations)\n";
  return kExitOk;
}

std::string DirOf(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

// Where the plugins' state files are: beside --snapshot FILE; else in
// StateSaveLocation, where the plugins write them (a ReportDir holds the
// snapshot alone, budget.conf(5)), or beside the snapshot read when
// StateSaveLocation is not known or not searchable here (a login node).
std::string StateFilesDir(const Options& opts, const Environment& env, const std::string& snapshot_file) {
  if (opts.Value("snapshot") == nullptr) {
    Io ignored;  // a missing StateSaveLocation was said, or did not matter, when the snapshot was read
    const std::string state_file = StateSaveSnapshotFile(env, &ignored);
    if (!state_file.empty() && access(DirOf(state_file).c_str(), X_OK) == 0) return DirOf(state_file);
  }
  return DirOf(snapshot_file);
}

// metrics: the snapshot and the plugins' state files (StateFilesDir) as
// metrics text (libbudget/report/metrics_text.h). A state file that is absent
// leaves its families out; one that is corrupt fails the command, as a
// corrupt snapshot does, and -o then leaves FILE as it was, so that its
// timestamp ages and an alert on staleness fires.
int RunMetrics(const Options& opts, const Environment& env, Io* io) {
  if (opts.positional.size() != 1) return Usage(io, "metrics takes no arguments besides options");
  ReportSnapshot snapshot;
  std::string snapshot_file;
  if (!LoadSnapshot(opts, env, &snapshot, io, &snapshot_file)) return kExitFailed;
  const std::string dir = StateFilesDir(opts, env, snapshot_file);
  budget::MetricsSources sources;
  sources.report = &snapshot;
  budget::PackingState packing;
  Status s = budget::LoadPackingState(dir + "/" + budget::kPackingStateFile, &packing);
  if (s.ok()) {
    sources.packing = &packing;
  } else if (!s.IsNotFound()) {
    io->err += "sbudget: " + s.message() + "\n";
    return kExitFailed;
  }
  budget::TimesliceCounts counts;
  const std::string counts_file = dir + "/" + budget::kTimesliceStateFile;
  if (std::ifstream(counts_file)) {
    s = budget::ReadCounts(counts_file, &counts);
    if (!s.ok()) {
      io->err += "sbudget: " + s.message() + "\n";
      return kExitFailed;
    }
    sources.timeslice = &counts;
  }
  const budget::MetricsForm form =
      opts.Flag("openmetrics") ? budget::MetricsForm::kOpenMetrics : budget::MetricsForm::kPrometheus;
  std::string text = budget::FormatMetricsText(sources, env.now, form);
  const std::string* output = opts.Value("output");
  if (output == nullptr) {
    io->out += text;
    return kExitOk;
  }
  s = budget::WriteTextFileAtomically(*output, text);
  if (!s.ok()) {
    io->err += "sbudget: " + s.message() + "\n";
    return kExitFailed;
  }
  return kExitOk;
}

int Emit(const ReviewResult& r, Io* io) {
  io->out += r.out;
  for (size_t start = 0; start < r.err.size();) {
    size_t eol = r.err.find('\n', start);
    io->err += "sbudget: " + r.err.substr(start, eol - start) + "\n";
    start = eol == std::string::npos ? r.err.size() : eol + 1;
  }
  return r.exit_code;
}

}  // namespace

Status ParseSince(const std::string& text, budget::TimePoint now, budget::TimePoint* out) {
  if (text == "now") {
    *out = now;
    return Status::Ok();
  }
  if (text.rfind("now-", 0) == 0) {
    budget::Seconds ago = 0;
    Status s = budget::ParseDuration(text.substr(4), &ago);
    if (!s.ok()) return Status::InvalidArgument("--since " + text + ": " + s.message());
    *out = now - ago;
    return Status::Ok();
  }
  if (!text.empty() && text[0] == '@') {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str() + 1, &end, 10);
    if (text.size() > 1 && *end == '\0' && errno == 0) {
      *out = v;
      return Status::Ok();
    }
  }
  for (const char* format : {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    struct tm tm = {};
    const char* end = strptime(text.c_str(), format, &tm);
    if (end != nullptr && *end == '\0') {
      tm.tm_isdst = -1;
      *out = mktime(&tm);
      return Status::Ok();
    }
  }
  return Status::InvalidArgument("--since " + text +
                                 ": expected now, now-DURATION (e.g. now-1-0), @EPOCH or "
                                 "YYYY-MM-DD[THH:MM[:SS]]");
}

int RunSbudget(const std::vector<std::string>& args, const Environment& env, Io* io) {
  Options opts;
  Status s = ParseOptions(args, 0, &opts);
  if (!s.ok()) return Usage(io, s.message());
  if (opts.Flag("help")) {
    io->out += Help();
    return kExitOk;
  }
  if (opts.Flag("version")) {
    io->out += std::string("sbudget ") + PACKAGE_VERSION + "\n";
    return kExitOk;
  }
  const std::string command = opts.positional.empty() ? "" : opts.positional[0];
  if (command == "explain") return RunExplain(opts, env, io);
  if (command == "history") return RunHistory(opts, env, io);
  if (command == "metrics") return RunMetrics(opts, env, io);
  if (command == "seed-ledger") {
    if (opts.positional.size() != 1) return Usage(io, "seed-ledger takes no arguments besides options");
    SeedRequest request;
    request.slurm_conf = env.slurm_conf;
    request.now = env.now;
    if (const std::string* v = opts.Value("since")) request.since = *v;
    if (const std::string* v = opts.Value("sacct-file")) request.sacct_file = *v;
    if (const std::string* v = opts.Value("tree")) request.tree_file = *v;
    request.dry_run = opts.Flag("dry-run");
    request.force = opts.Flag("force");
    return RunSeedLedger(request, env.seed, &io->out, &io->err);
  }
  if (command == "validate") {
    if (opts.positional.size() != 2) return Usage(io, "validate takes one FILE");
    return Emit(ValidateTreeFile(opts.positional[1]), io);
  }
  if (command == "diff") {
    if (opts.positional.size() != 3) return Usage(io, "diff takes OLD and NEW");
    std::optional<std::string> as;
    if (const std::string* v = opts.Value("as")) as = *v;
    return Emit(DiffTreeFiles(opts.positional[1], opts.positional[2], as), io);
  }
  return RunReport(opts, env, io);
}

}  // namespace sbudget
