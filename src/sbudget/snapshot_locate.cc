// Finding and judging the report snapshot (snapshot_locate.h).
#include "sbudget/snapshot_locate.h"

#include <strings.h>

#include <cstdlib>

#include "libbudget/config/config.h"
#include "libbudget/config/time_string.h"

namespace sbudget {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string StateSaveLocationFromConf(std::string_view text) { return SettingFromConf(text, "StateSaveLocation"); }

std::string SettingFromConf(std::string_view text, std::string_view kKey) {
  std::string value;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, eq));
    if (key.size() != kKey.size() || strncasecmp(key.data(), kKey.data(), kKey.size()) != 0) continue;
    std::string_view v = Trim(line.substr(eq + 1));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    value = std::string(v);
  }
  return value;
}

std::string SlurmConfPath() {
  const char* env = std::getenv("SLURM_CONF");
  return env != nullptr && *env != '\0' ? env : kDefaultSlurmConf;
}

std::string SnapshotFileIn(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + "/" + budget::kReportSnapshotFileName;
}

std::string SnapshotProblem(const budget::Status& status, const std::string& file) {
  if (status.IsNotFound()) {
    return "no budget report snapshot at " + file +
           ": priority/budget writes it after each recompute pass; is PriorityType=priority/budget "
           "set and slurmctld running? (or give --snapshot FILE)";
  }
  if (status.IsCorruption()) {
    return "the budget report snapshot is unusable: " + status.message();
  }
  return "cannot read the budget report snapshot: " + status.message() +
         " (StateSaveLocation must be searchable by users, e.g. mode 0711)";
}

std::string ReportDirFromBudgetConf(const std::string& slurm_conf, std::string* warning) {
  const std::string file = budget::BudgetConfigPathBeside(slurm_conf);
  budget::BudgetConfig config;
  bool missing = false;
  budget::Status st = budget::LoadBudgetConfig(file, &config, &missing);
  if (!st.ok()) {
    *warning = "ignoring " + file + " (" + st.message() + "): looking in StateSaveLocation only";
    return "";
  }
  return missing ? std::string() : config.report_dir;
}

std::string NoTreeProblem(const budget::ReportSnapshot& s, budget::TimePoint now) {
  return "no allocation tree has loaded (from " + s.tree_source + ", as of " + budget::FormatDuration(s.Age(now)) +
         " ago): priority/budget is running but computes no budgets, ranks or priorities until one does; "
         "slurmctld's log says why the tree was refused (check it with: sbudget validate FILE)";
}

std::string StalenessWarning(const budget::ReportSnapshot& s, budget::TimePoint now) {
  if (!s.IsStale(now)) return "";
  return "warning: the budget snapshot is " + budget::FormatDuration(s.Age(now)) +
         " old (stale after " + std::to_string(budget::kStaleIntervals) +
         " recompute intervals of " + std::to_string(s.recalc_interval) +
         " s, at least " + std::to_string(budget::kMinStaleAge) +
         " s): slurmctld or priority/budget is not updating it; figures below are from then";
}

}  // namespace sbudget
