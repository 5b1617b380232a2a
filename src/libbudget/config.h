// budget.conf: the suite's own configuration file, read by every plugin and
// tool through this one parser.
//
// Format (Slurm style): one `Key=Value` per line, keys case-insensitive,
// `#` starts a comment, blank lines ignored, the value may be wrapped in
// double quotes. The file lives beside slurm.conf. An unknown key, a bad
// value or a key given twice is an error that names file, line and key; the
// caller (a plugin's init()) refuses to start on it.
//
// Keys and defaults:
//   BudgetTree=PATH|URL      allocation tree (JSON); no default
//   LookbackWindow=7-0       sliding window of the fair-share ledger
//   MaxMinRuntime=8:00:00    the longest protected minimum runtime
//   DefaultMinRuntime=0      the contract of a job that declares none
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_CONFIG_H_
#define SLURM_BUDGET_LIBBUDGET_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

struct BudgetConfig {
  std::string budget_tree;                 // BudgetTree
  Seconds lookback_window = 7 * 86400;     // LookbackWindow
  Seconds max_min_runtime = 8 * 3600;      // MaxMinRuntime
  Seconds default_min_runtime = 0;         // DefaultMinRuntime
};

// Parses the text of a budget.conf. `file` names it in error messages.
// On error *out is untouched. Cross-key rules are checked after all keys
// (DefaultMinRuntime <= MaxMinRuntime).
Status ParseBudgetConfig(std::string_view text, const std::string& file, BudgetConfig* out);

// Reads and parses `file`. A missing file is not an error: *out gets the
// defaults and *missing is set, so that the caller can log one line saying so.
Status LoadBudgetConfig(const std::string& file, BudgetConfig* out, bool* missing);

// "<dir of slurm_conf>/budget.conf".
std::string BudgetConfigPathBeside(const std::string& slurm_conf);

// The names of every key, as documented (for help texts and tests).
std::vector<std::string> BudgetConfigKeys();

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CONFIG_H_
