#include "libbudget/config/config.h"

#include <strings.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "libbudget/config/time_string.h"

namespace budget {
namespace {

// A key of budget.conf: its documented spelling and how its value is read.
struct KeySpec {
  const char* name;
  Status (*parse)(std::string_view value, BudgetConfig* config);
};

Status ParseTree(std::string_view value, BudgetConfig* config) {
  if (value.empty()) return Status::InvalidArgument("must name a file or URL");
  config->budget_tree = std::string(value);
  return Status::Ok();
}

Status ParseReportDir(std::string_view value, BudgetConfig* config) {
  if (value.empty() || value[0] != '/') {
    return Status::InvalidArgument("must be an absolute directory, got \"" + std::string(value) + "\"");
  }
  std::string dir(value);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  config->report_dir = dir;
  return Status::Ok();
}

Status ParsePositiveDuration(std::string_view value, Seconds* out) {
  Seconds s = 0;
  Status st = ParseDuration(value, &s);
  if (!st.ok()) return st;
  if (s <= 0) return Status::InvalidArgument("must be longer than 0");
  *out = s;
  return Status::Ok();
}

// *Interval keys: whole seconds, 1 .. one day.
Status ParseIntervalSeconds(std::string_view value, Seconds* out) {
  if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string_view::npos) {
    return Status::InvalidArgument("must be a whole number of seconds, got \"" + std::string(value) + "\"");
  }
  Seconds s = std::stoll(std::string(value));
  if (s < 1 || s > 86400) return Status::InvalidArgument("must be between 1 and 86400 seconds");
  *out = s;
  return Status::Ok();
}

// A notice before preemption: whole seconds, 0 (none) .. 3600. An hour is
// longer than any checkpoint a site would wait for while GPUs idle.
Status ParseNoticeSeconds(std::string_view value, Seconds* out) {
  if (value.empty() || value.size() > 4 || value.find_first_not_of("0123456789") != std::string_view::npos) {
    return Status::InvalidArgument("must be a whole number of seconds, got \"" + std::string(value) + "\"");
  }
  Seconds s = std::stoll(std::string(value));
  if (s > 3600) return Status::InvalidArgument("must be between 0 and 3600 seconds");
  *out = s;
  return Status::Ok();
}

// Case-insensitive equality of a value with a lower-case word. Not
// strncasecmp: an empty value may have a null data() (UnknownAccount=).
bool IsWord(std::string_view value, std::string_view word) {
  if (value.size() != word.size()) return false;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

// A network timeout: whole seconds, 1 .. 3600 (an hour without an answer
// is a source that is down).
Status ParseTimeoutSeconds(std::string_view value, Seconds* out) {
  Seconds s = 0;
  Status st = ParseIntervalSeconds(value, &s);
  if (!st.ok()) return st;
  if (s > 3600) return Status::InvalidArgument("must be between 1 and 3600 seconds");
  *out = s;
  return Status::Ok();
}

Status ParseUnknownAccount(std::string_view value, BudgetConfig* config) {
  if (IsWord(value, "reject")) {
    config->unknown_account = UnknownAccountPolicy::kReject;
  } else if (IsWord(value, "unallocated")) {
    config->unknown_account = UnknownAccountPolicy::kUnallocated;
  } else {
    return Status::InvalidArgument("must be reject or unallocated, got \"" + std::string(value) + "\"");
  }
  return Status::Ok();
}

// yes or no, in any case.
Status ParseYesNo(std::string_view value, bool* out) {
  if (IsWord(value, "yes")) {
    *out = true;
  } else if (IsWord(value, "no")) {
    *out = false;
  } else {
    return Status::InvalidArgument("must be yes or no, got \"" + std::string(value) + "\"");
  }
  return Status::Ok();
}

// A count of GPUs: a whole number 0 .. 1024.
// A count of `what` (GPUs, nodes) from 0 to 1024.
Status ParseCount(std::string_view value, const char* what, uint32_t* out) {
  if (value.empty() || value.size() > 4 || value.find_first_not_of("0123456789") != std::string_view::npos) {
    return Status::InvalidArgument(std::string("must be a whole number of ") + what + ", got \"" +
                                   std::string(value) + "\"");
  }
  long n = std::stol(std::string(value));
  if (n > 1024) return Status::InvalidArgument("must be between 0 and 1024");
  *out = uint32_t(n);
  return Status::Ok();
}

Status ParseGpuCount(std::string_view value, uint32_t* out) { return ParseCount(value, "GPUs", out); }

const KeySpec kKeys[] = {
    {"BudgetTree", ParseTree},
    {"BudgetRefresh",
     [](std::string_view v, BudgetConfig* c) { return ParsePositiveDuration(v, &c->budget_refresh); }},
    {"TreeConnectTimeout",
     [](std::string_view v, BudgetConfig* c) { return ParseTimeoutSeconds(v, &c->tree_connect_timeout); }},
    {"TreeFetchTimeout",
     [](std::string_view v, BudgetConfig* c) { return ParseTimeoutSeconds(v, &c->tree_fetch_timeout); }},
    {"LedgerBucket",
     [](std::string_view v, BudgetConfig* c) { return ParsePositiveDuration(v, &c->ledger_bucket); }},
    {"RecalcInterval",
     [](std::string_view v, BudgetConfig* c) { return ParseIntervalSeconds(v, &c->recalc_interval); }},
    {"UnknownAccount", ParseUnknownAccount},
    {"TimesliceInterval",
     [](std::string_view v, BudgetConfig* c) { return ParseIntervalSeconds(v, &c->timeslice_interval); }},
    {"TimeSlicing",
     [](std::string_view v, BudgetConfig* c) {
       bool on = false;
       Status st = ParseYesNo(v, &on);
       if (st.ok()) c->time_slicing = on ? TimeSlicingKey::kYes : TimeSlicingKey::kNo;
       return st;
     }},
    {"HeroWait",
     [](std::string_view v, BudgetConfig* c) { return ParseDuration(v, &c->hero_wait); }},
    {"PreemptNotice",
     [](std::string_view v, BudgetConfig* c) { return ParseNoticeSeconds(v, &c->preempt_notice); }},
    {"LookbackWindow",
     [](std::string_view v, BudgetConfig* c) { return ParsePositiveDuration(v, &c->lookback_window); }},
    {"MaxMinRuntime",
     [](std::string_view v, BudgetConfig* c) { return ParsePositiveDuration(v, &c->max_min_runtime); }},
    {"DefaultMinRuntime",
     [](std::string_view v, BudgetConfig* c) { return ParseDuration(v, &c->default_min_runtime); }},
    {"QuickStartMinRuntime",
     [](std::string_view v, BudgetConfig* c) { return ParseDuration(v, &c->quick_start_min_runtime); }},
    {"ReportDir", ParseReportDir},
    {"GpuTypeWeights",
     [](std::string_view v, BudgetConfig* c) { return GpuTypeWeights::Parse(v, &c->gpu_type_weights); }},
    {"DefaultContractNotice",
     [](std::string_view v, BudgetConfig* c) { return ParseYesNo(v, &c->default_contract_notice); }},
    {"QuickStartGpus", [](std::string_view v, BudgetConfig* c) { return ParseGpuCount(v, &c->quick_start_gpus); }},
    {"QuickStartUserGpus",
     [](std::string_view v, BudgetConfig* c) { return ParseGpuCount(v, &c->quick_start_user_gpus); }},
    {"QuickStartReserveNodes",
     [](std::string_view v, BudgetConfig* c) { return ParseCount(v, "nodes", &c->quick_start_reserve_nodes); }},
    {"HeroMinNodes",
     [](std::string_view v, BudgetConfig* c) {
       Status st = ParseGpuCount(v, &c->hero_min_nodes);
       if (st.ok() && c->hero_min_nodes == 0) return Status::InvalidArgument("must be at least 1 node");
       if (!st.ok()) return Status::InvalidArgument("must be a whole number of nodes, 1 .. 1024, got \"" + std::string(v) + "\"");
       return st;
     }},
};

const KeySpec* FindKey(std::string_view key) {
  for (const KeySpec& spec : kKeys) {
    if (key.size() == std::strlen(spec.name) && strncasecmp(key.data(), spec.name, key.size()) == 0) {
      return &spec;
    }
  }
  return nullptr;
}

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// A relative BudgetTree path names a file beside budget.conf, not one in
// whatever directory the daemon or tool runs in. URLs and absolute paths
// stay as they are; so does everything when `file` has no directory.
std::string TreePathBeside(const std::string& file, const std::string& tree) {
  if (tree.empty() || tree[0] == '/' || tree.find("://") != std::string::npos || tree == kBudgetTreeSlurmdbd)
    return tree;
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return tree;
  return file.substr(0, slash + 1) + tree;
}

std::string Where(const std::string& file, int line) { return file + ":" + std::to_string(line) + ": "; }

}  // namespace

Status ParseBudgetConfig(std::string_view text, const std::string& file, BudgetConfig* out) {
  BudgetConfig config;
  int seen_on_line[sizeof kKeys / sizeof kKeys[0]] = {};
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;

    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(Where(file, line_no) + "expected Key=Value, got \"" + std::string(line) + "\"");
    }
    std::string_view key = Trim(line.substr(0, eq));
    std::string_view value = Trim(line.substr(eq + 1));
    const KeySpec* spec = FindKey(key);
    if (spec == nullptr) {
      return Status::InvalidArgument(Where(file, line_no) + "unknown key \"" + std::string(key) + "\"");
    }
    const std::string key_name = spec->name;
    size_t index = spec - kKeys;
    if (seen_on_line[index] != 0) {
      return Status::InvalidArgument(Where(file, line_no) + "key " + key_name + " is already set on line " +
                                     std::to_string(seen_on_line[index]));
    }
    seen_on_line[index] = line_no;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    } else if (value.find_first_of(" \t") != std::string_view::npos) {
      return Status::InvalidArgument(Where(file, line_no) + "key " + key_name +
                                     ": one Key=Value per line (quote a value that has spaces)");
    }
    Status st = spec->parse(value, &config);
    if (!st.ok()) return Status::InvalidArgument(Where(file, line_no) + "key " + key_name + ": " + st.message());
  }
  config.budget_tree = TreePathBeside(file, config.budget_tree);
  if (config.default_min_runtime > config.max_min_runtime) {
    return Status::InvalidArgument(file + ": DefaultMinRuntime (" + FormatDuration(config.default_min_runtime) +
                                   ") is longer than MaxMinRuntime (" + FormatDuration(config.max_min_runtime) + ")");
  }
  if (config.ledger_bucket > config.lookback_window) {
    return Status::InvalidArgument(file + ": LedgerBucket (" + FormatDuration(config.ledger_bucket) +
                                   ") is longer than LookbackWindow (" + FormatDuration(config.lookback_window) + ")");
  }
  if (config.tree_connect_timeout > config.tree_fetch_timeout) {
    return Status::InvalidArgument(file + ": TreeConnectTimeout (" + std::to_string(config.tree_connect_timeout) +
                                   " s) is longer than TreeFetchTimeout (" +
                                   std::to_string(config.tree_fetch_timeout) + " s)");
  }
  *out = std::move(config);
  return Status::Ok();
}

Status LoadBudgetConfig(const std::string& file, BudgetConfig* out, bool* missing) {
  *missing = false;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) {
      *out = BudgetConfig();
      *missing = true;
      return Status::Ok();
    }
    return Status::IOError(file + ": cannot read: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError(file + ": read error: " + std::strerror(errno));
  return ParseBudgetConfig(text.str(), file, out);
}

std::string BudgetConfigPathBeside(const std::string& slurm_conf) {
  size_t slash = slurm_conf.rfind('/');
  if (slash == std::string::npos) return "budget.conf";
  return slurm_conf.substr(0, slash + 1) + "budget.conf";
}

std::vector<std::string> BudgetConfigKeys() {
  std::vector<std::string> names;
  for (const KeySpec& spec : kKeys) names.emplace_back(spec.name);
  return names;
}

}  // namespace budget
