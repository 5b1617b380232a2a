// Where a plugin finds budget.conf (budget_conf_location.h).
#include "plugin_support/budget_conf_location.h"

#include <cstdlib>
#include <utility>

namespace plugin_support {

namespace {

constexpr char kDefaultSlurmConf[] = "/etc/slurm/slurm.conf";

bool IsSet(const char* value) { return value != nullptr && *value != '\0'; }

}  // namespace

std::string SlurmConfPath(const char* daemon_slurm_conf) {
  if (IsSet(daemon_slurm_conf)) return daemon_slurm_conf;
  const char* env = std::getenv("SLURM_CONF");
  if (IsSet(env)) return env;
  return kDefaultSlurmConf;
}

std::string BudgetConfPath(const char* daemon_slurm_conf) {
  return budget::BudgetConfigPathBeside(SlurmConfPath(daemon_slurm_conf));
}

budget::Status LoadBudgetConf(const char* daemon_slurm_conf, LoadedBudgetConf* out) {
  LoadedBudgetConf loaded;
  loaded.path = BudgetConfPath(daemon_slurm_conf);
  budget::Status st = budget::LoadBudgetConfig(loaded.path, &loaded.config, &loaded.missing);
  out->path = loaded.path;
  if (!st.ok()) return st;
  *out = std::move(loaded);
  return st;
}

budget::Status LoadBudgetConf(const char* daemon_slurm_conf, const LoadOptions& options, LoadedBudgetConf* out) {
  if (options.state_dir.empty() && !options.check) return LoadBudgetConf(daemon_slurm_conf, out);
  LoadedBudgetConf loaded;
  loaded.path = BudgetConfPath(daemon_slurm_conf);
  out->path = loaded.path;
  budget::BudgetConfigCheck check = options.check;
  if (!check) check = [](const budget::BudgetConfig&, bool) { return budget::Status::Ok(); };
  budget::Status st;
  if (options.state_dir.empty()) {
    st = budget::LoadBudgetConfig(loaded.path, &loaded.config, &loaded.missing);
    if (st.ok()) st = check(loaded.config, loaded.missing);
  } else {
    st = budget::LoadBudgetConfigWithLastGood(loaded.path, options.state_dir, options.reconfiguring, check,
                                              &loaded.config, &loaded.missing, &loaded.fallback);
  }
  if (!st.ok()) return st;
  *out = std::move(loaded);
  return st;
}

}  // namespace plugin_support
