// Ledger seed: see ledger_seed.h for the rules.
#include "libbudget/accounting/ledger_seed.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include "libbudget/accounting/sacct_rows.h"
#include "libbudget/policy/run_charging.h"

namespace budget {

namespace {

const char kStepRows[] = "step rows (sacct without -X; their job's own row counts)";
const char kNeverRan[] = "rows that never ran (cancelled before start, or pending)";
const char kNoGpus[] = "runs without GPUs (no gres/gpu in AllocTRES)";
const char kUnknownAccount[] = "runs whose account is in no node of the tree (never charged)";
const char kBeforeSince[] = "runs that ended before --since";

// One run to charge.
struct Run {
  uint32_t job_id;
  TimePoint start;  // already at least since
  TimePoint end;
  std::string path;
  std::string team;
  Ledger::Series occupancy;
  double rate;
};

void CountSkip(const char* why, SeedReport* report) {
  for (auto& [reason, count] : report->skipped) {
    if (reason == why) {
      ++count;
      return;
    }
  }
  report->skipped.emplace_back(why, 1);
}

// A run's weighted GPUs: each typed entry at its type, the rest untyped; a
// run's nodes are not in sacct's row, so the core values it as a job whose
// nodes are unknown (gpu_worth.h).
double RateOf(const SacctRow& row, const FleetWorth& fleet) {
  static const std::vector<int32_t> kNoNodes;
  double rate = 0;
  uint64_t typed = 0;
  for (const TypedGpus& t : row.typed_gpus) {
    rate += fleet.RunningJobRate(t.type, t.gpus, kNoNodes);
    typed += t.gpus;
  }
  if (typed < row.gpus) rate += fleet.RunningJobRate("", static_cast<double>(row.gpus - typed), kNoNodes);
  return rate;
}

// The top-level team of a node: its ancestor just below the root, or the
// root itself.
std::string TeamOf(const AllocationTree& tree, NodeId node) {
  const std::string& path = tree.node(node).path;
  if (path.empty()) return tree.DisplayPath(node);
  return path.substr(0, path.find('/'));
}

// Splits `line` on '|' into views of it.
void SplitBars(std::string_view line, std::vector<std::string_view>* fields) {
  fields->clear();
  size_t pos = 0;
  while (true) {
    const size_t bar = line.find('|', pos);
    fields->push_back(line.substr(pos, bar == std::string_view::npos ? std::string_view::npos : bar - pos));
    if (bar == std::string_view::npos) return;
    pos = bar + 1;
  }
}

Status Error(const std::string& file, uint64_t line, std::string_view text, std::string_view field,
             const std::string& what) {
  const size_t column = field.data() >= text.data() ? static_cast<size_t>(field.data() - text.data()) + 1 : 1;
  return Status::InvalidArgument(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
}

}  // namespace

std::string SacctTimeText(TimePoint t) {
  const time_t seconds = static_cast<time_t>(t);
  struct tm parts;
  char text[32];
  if (gmtime_r(&seconds, &parts) == nullptr || strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts) == 0)
    return "1970-01-01T00:00:00";
  return text;
}

std::vector<std::string> SeedSacctArguments(TimePoint since, TimePoint now) {
  return {"-a", "-X", "-D", "-P", "--starttime", SacctTimeText(since), "--endtime", SacctTimeText(now),
          std::string("--format=") + kSeedSacctFormat};
}

Status SeedLedgerFromSacct(std::string_view text, const std::string& file, const AllocationTree& tree,
                           const BudgetConfig& config, const FleetWorth& fleet, TimePoint since, TimePoint now,
                           Ledger* ledger, SeedReport* report) {
  *report = SeedReport();
  if (text.empty()) return Status::InvalidArgument(file + ": empty: no header line (did sacct print nothing?)");
  if (text.back() != '\n') {
    size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    return Status::InvalidArgument(file + ":" + std::to_string(lines) +
                                   ": the last line has no newline: the output was cut short (truncated)");
  }
  SacctColumns col;
  bool header_read = false;
  bool trailing_bar = false;  // sacct -p: a '|' after the last field
  std::vector<std::string_view> fields;
  std::vector<Run> runs;
  std::set<std::string> unknown_accounts;
  uint64_t line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (trailing_bar && line.back() == '|') line.remove_suffix(1);
    SplitBars(line, &fields);
    SacctProblem problem;
    if (!header_read) {
      if (line.back() == '|') {
        trailing_bar = true;
        fields.pop_back();
      }
      if (!ReadSacctHeader(fields, &col, &problem))
        return Error(file, line_number, line, fields[problem.field], problem.what);
      if (!col.has(kSacctJobIdRaw))
        return Error(file, line_number, line, line,
                     std::string("header: missing column JobIDRaw (seed-ledger needs each job's own id: "
                                 "sacct --format=") +
                         kSeedSacctFormat + ")");
      header_read = true;
      continue;
    }
    ++report->rows;
    if (fields.size() != col.count)
      return Error(file, line_number, line, fields.back(),
                   "expected " + std::to_string(col.count) + " fields (as the header), got " +
                       std::to_string(fields.size()));
    SacctRow row;
    if (!ParseSacctRowKind(fields, col, &row, &problem))
      return Error(file, line_number, line, fields[problem.field], problem.what);
    if (row.id_kind == SacctJobId::kStep) {
      CountSkip(kStepRows, report);
      continue;
    }
    if (!row.ran) {
      CountSkip(kNeverRan, report);
      continue;
    }
    ++report->runs_read;
    if (!ParseSacctRun(fields, col, &row, &problem) || !ParseSacctContract(fields, col, &row, &problem))
      return Error(file, line_number, line, fields[problem.field], problem.what);
    if (row.gpus == 0) {
      CountSkip(kNoGpus, report);
      continue;
    }
    const NodeId node = tree.NodeFor(row.account, row.user);
    if (node == kNoNode) {
      CountSkip(kUnknownAccount, report);
      unknown_accounts.insert(row.account);
      continue;
    }
    const TimePoint end = std::min(row.start + row.elapsed, now);
    if (end <= since) {
      CountSkip(kBeforeSince, report);
      continue;
    }
    runs.push_back(Run{row.raw_id, std::max(row.start, since), end, tree.node(node).path, TeamOf(tree, node),
                       OccupancyOf(IsAllocatedWork(row.has_contract, row.contract, config)), RateOf(row, fleet)});
  }
  if (!header_read) return Status::InvalidArgument(file + ": no header line (did sacct print nothing?)");

  // A job's runs in start order, so that each is charged from the end of
  // the one before (its cursor) on.
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    return a.job_id != b.job_id ? a.job_id < b.job_id : a.start < b.start;
  });
  Ledger seeded(ledger->options());
  std::map<std::string, double> by_team;
  const std::vector<NodeId> teams = tree.size() > 0 ? tree.node(0).children : std::vector<NodeId>();
  for (const Run& run : runs) {
    // What free work adds to kUnallocated; ChargeRun returns kAllocated's.
    const TimePoint from = std::max(run.start, seeded.ChargedUntil(run.job_id));
    if (run.occupancy == Ledger::Series::kUnallocated && run.end > from)
      report->unallocated_gpu_seconds += run.rate * static_cast<double>(run.end - from);
    const double allocated = ChargeRun(run.job_id, run.path, run.occupancy, run.start, run.end, run.rate, &seeded);
    by_team[run.team] += allocated;
    report->allocated_gpu_seconds += allocated;
    ++report->runs_charged;
  }
  report->jobs_charged = seeded.job_count();
  for (const NodeId child : teams) {
    const std::string& name = tree.node(child).name;
    report->team_allocated.emplace_back(name, by_team[name]);
    by_team.erase(name);
  }
  for (const auto& [team, seconds] : by_team) report->team_allocated.emplace_back(team, seconds);
  report->unknown_accounts.assign(unknown_accounts.begin(), unknown_accounts.end());
  *ledger = std::move(seeded);
  return Status::Ok();
}

}  // namespace budget
