// Where a plugin finds budget.conf, and loading it: one rule for every
// plugin of the suite, so that they all read the same file.
//
// The rule: budget.conf beside the slurm.conf of the daemon that loaded the
// plugin (Slurm's slurm_conf.slurm_conf); else, when the daemon has not set
// it, beside $SLURM_CONF; else beside /etc/slurm/slurm.conf.
//
// Slurm-free: the plugin passes slurm_conf.slurm_conf in, so the rule is
// tested without a daemon (plugin_support_test.cc).
// Thread safety: plain functions (getenv: call them while no thread
// changes the environment, as Slurm's plugin init does).
#ifndef SLURM_BUDGET_PLUGIN_SUPPORT_BUDGET_CONF_LOCATION_H_
#define SLURM_BUDGET_PLUGIN_SUPPORT_BUDGET_CONF_LOCATION_H_

#include <string>

#include "libbudget/config/config.h"
#include "libbudget/config/config_last_good.h"
#include "libbudget/status.h"

namespace plugin_support {

// The slurm.conf the rule above starts from. `daemon_slurm_conf` may be
// null or empty (not set).
std::string SlurmConfPath(const char* daemon_slurm_conf);

// budget.conf beside SlurmConfPath(daemon_slurm_conf).
std::string BudgetConfPath(const char* daemon_slurm_conf);

// A budget.conf as a plugin loaded it.
struct LoadedBudgetConf {
  std::string path;              // the file read (or looked for)
  budget::BudgetConfig config;   // the defaults where the file is missing
  bool missing = false;          // the file does not exist
  // Set when a bad file at a reconfigure was replaced by the last good one
  // (libbudget/config/config_last_good.h): one line to log as an error.
  std::string fallback;
};

// How a slurmctld plugin loads it: keeping the last good copy in
// `state_dir` (StateSaveLocation; "" keeps none), falling back to it when
// `reconfiguring` (slurmctld re-executed by `scontrol reconfigure`, Slurm
// 23.11+: slurm_compat/reconfigure.h), under the plugin's own `check`
// (none: any file that parses).
struct LoadOptions {
  std::string state_dir;
  bool reconfiguring = false;
  budget::BudgetConfigCheck check;
};

// Loads BudgetConfPath(daemon_slurm_conf) (budget::LoadBudgetConfig): a
// missing file is not an error (out->missing, the defaults); a bad one is
// InvalidArgument naming file, line and key. REQUIRES: out != nullptr.
budget::Status LoadBudgetConf(const char* daemon_slurm_conf, LoadedBudgetConf* out);

// The same, with the last good copy (LoadOptions above).
budget::Status LoadBudgetConf(const char* daemon_slurm_conf, const LoadOptions& options, LoadedBudgetConf* out);

}  // namespace plugin_support

#endif  // SLURM_BUDGET_PLUGIN_SUPPORT_BUDGET_CONF_LOCATION_H_
