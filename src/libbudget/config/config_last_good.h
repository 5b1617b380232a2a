// The last budget.conf that loaded, kept in StateSaveLocation, so that a bad
// edit cannot stop slurmctld at a reconfigure.
//
// Why: Slurm 23.11 and later run `scontrol reconfigure` by re-executing
// slurmctld, so every plugin's init() reads budget.conf again, where a bad
// file stops the controller (a bad file at a real start still must: the
// admin is there to see it). Slurm 22.05 calls the plugins' reconfigure
// hooks instead, which keep the values in memory; there `reconfiguring` is
// never true at init and only the saving below happens.
//
// LoadBudgetConfigWithLastGood(path, state_dir, reconfiguring, ...):
//   - `path` loads and passes `check`: it is the answer, and its text is
//     saved as <state_dir>/budget.conf.last_good (written to a temporary
//     file and renamed, and only when the text differs from the saved one);
//   - it does not, and `reconfiguring`, and a saved text exists that loads
//     and passes `check`: that is the answer, parsed as if it were at
//     `path` (so a relative BudgetTree means the same file), and *fallback
//     holds one line for the caller to log as an error: the file's error,
//     and that the last good configuration is used until the file is fixed;
//   - otherwise: the file's error (or the check's), *out untouched.
// A missing file is not an error (the defaults, as LoadBudgetConfig, and
// *missing set); `check` may make it one (priority/budget needs a tree).
//
// Thread safety: none needed (plugins call it from init(), one at a time).
// Several plugins of one slurmctld save the same text: the second finds it
// already saved.
#ifndef SLURM_BUDGET_LIBBUDGET_CONFIG_LAST_GOOD_H_
#define SLURM_BUDGET_LIBBUDGET_CONFIG_LAST_GOOD_H_

#include <functional>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/status.h"

namespace budget {

inline constexpr char kLastGoodBudgetConfigFile[] = "budget.conf.last_good";

// A rule of the caller's on a loaded configuration (`missing`: the file did
// not exist); an error Status refuses it.
using BudgetConfigCheck = std::function<Status(const BudgetConfig& config, bool missing)>;

Status LoadBudgetConfigWithLastGood(const std::string& path, const std::string& state_dir, bool reconfiguring,
                                    const BudgetConfigCheck& check, BudgetConfig* out, bool* missing,
                                    std::string* fallback);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CONFIG_LAST_GOOD_H_
