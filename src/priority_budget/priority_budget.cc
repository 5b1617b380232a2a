// priority/budget (`PriorityType=priority/budget`): Slurm's entry points.
//
// Job priority from the budget-weighted hierarchical fair-share order of the
// core library (order.h): a thin adapter. This file only receives Slurm's
// calls and hands them on:
//   init/fini                       budget.conf, the recalc thread; at
//                                   init, one warning when Slurm lets any
//                                   user charge any account
//                                   (libbudget/config/slurm_settings.h)
//   priority_p_set                  a new (or changed) job's priority from the
//                                   last published order; marks the job
//                                   changed for the recalc thread's cache
//   priority_p_reconfig             wakes the recalc thread (never fetches);
//                                   tells it whether a timeslice plugin
//                                   reads the standings file
//   priority_p_job_end              queues the job so its tail gets charged
//   priority_p_get_priority_factors_list   sprio (sprio_factors.h)
//   priority_p_set_assoc_usage, priority_p_calc_fs_factor   required by the
//                                   loader; the slurmdbd association usage is
//                                   not ours to keep (the ledger is)
//
// Nothing here may take slurmctld down (every entry catches everything) but a
// bad budget.conf at start: one fatal line then names file, line and key.
//
// Locks: priority_p_set and priority_p_job_end run with the job write lock
// held; they only take PluginState's mutex (nested inside it), never a
// slurmctld lock.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/config/slurm_settings.h"
#include "plugin_support/budget_conf_location.h"
#include "plugin_support/guarded_call.h"
#include "priority_budget/association_reader.h"
#include "priority_budget/job_snapshot.h"
#include "priority_budget/plugin_state.h"
#include "priority_budget/priority_pass.h"
#include "priority_budget/recalc_thread.h"
#include "priority_budget/slurm_headers.h"
#include "priority_budget/sprio_factors.h"
#include "slurm_compat/reconfigure.h"

extern "C" {
extern const char plugin_name[] = "Priority budget (hierarchical fair share over GPU-time budgets) plugin";
extern const char plugin_type[] = "priority/budget";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

budget_prio::PluginState g_state;
std::unique_ptr<budget_prio::RecalcThread> g_thread;

// Whether a plugin that reads the standings file runs in this slurmctld.
bool TimesliceConfigured() {
  auto is = [](const char* value, const char* name) { return value != nullptr && std::strcmp(value, name) == 0; };
  return is(slurm_conf.preempt_type, "preempt/timeslice");
}

// The suite charges the account -A names; only Slurm checks that the user
// belongs to it (slurmdbd, AccountingStorageEnforce=associations).
void WarnIfAnyUserMayChargeAnyAccount() {
  budget::SlurmSettings settings;
  const uint16_t enforce = slurm_conf.accounting_storage_enforce;
  settings.enforces_associations = (enforce & ACCOUNTING_ENFORCE_ASSOCS) != 0;
  char enforce_text[256];
  accounting_enforce_string(enforce, enforce_text, sizeof enforce_text);
  settings.accounting_storage_enforce = enforce_text;
  settings.accounting_storage_type = slurm_conf.accounting_storage_type ? slurm_conf.accounting_storage_type : "";
  for (const std::string& line : budget::AccountMembershipWarnings(settings)) {
    info("priority/budget: WARNING: %s", line.c_str());
  }
}

int Init() {
  std::string path = plugin_support::BudgetConfPath(slurm_conf.slurm_conf);
  if (!slurm_conf.state_save_location || !*slurm_conf.state_save_location) {
    error("priority/budget: StateSaveLocation is not set: the ledger has nowhere to live");
    return SLURM_ERROR;
  }
  auto needs_tree = [&path](const budget::BudgetConfig& c, bool missing) {
    if (!missing && !c.budget_tree.empty()) return budget::Status::Ok();
    return budget::Status::InvalidArgument(
        "BudgetTree is not set in " + path + (missing ? " (the file does not exist)" : "") +
        ": priority/budget needs an allocation tree (BudgetTree=<path, file://, http:// or https:// URL of the "
        "tree JSON>, or BudgetTree=slurmdbd for Slurm's account hierarchy)");
  };
  plugin_support::LoadOptions options;
  options.state_dir = slurm_conf.state_save_location;
  options.reconfiguring = slurm_compat::SlurmctldReexecutedByReconfigure();
  options.check = needs_tree;
  plugin_support::LoadedBudgetConf conf;
  budget::Status st = plugin_support::LoadBudgetConf(slurm_conf.slurm_conf, options, &conf);
  // One fatal line naming file, line and key: the last line slurmctld prints.
  if (!st.ok()) fatal("priority/budget: %s", st.message().c_str());
  const budget::BudgetConfig& config = conf.config;
  // A bad file at a reconfigure (23.11+ re-executes slurmctld): the last
  // good one is used, and the log says so as an error.
  if (!conf.fallback.empty()) error("priority/budget: %s", conf.fallback.c_str());
  budget_prio::TreeSource::SetAssociationReader(&budget_prio::ReadAssociationTree);
  auto thread = std::make_unique<budget_prio::RecalcThread>(config, path, slurm_conf.state_save_location, &g_state);
  thread->SetStandingsRead(TimesliceConfigured());
  st = thread->Start();
  if (!st.ok()) {
    error("priority/budget: %s", st.message().c_str());
    return SLURM_ERROR;
  }
  g_thread = std::move(thread);
  info("priority/budget: loaded; budget.conf %s, tree source %s, state in %s", path.c_str(),
       config.budget_tree.c_str(), slurm_conf.state_save_location);
  WarnIfAnyUserMayChargeAnyAccount();
  return SLURM_SUCCESS;
}

uint32_t InitialPriority(job_record_t* job_ptr) {
  // An operator's --priority stays as set (as with priority/basic).
  if (job_ptr->direct_set_prio && job_ptr->priority > 0) return job_ptr->priority;
  std::shared_ptr<const budget_prio::OrderView> view = g_state.order();
  budget_prio::JobView job = budget_prio::ViewOfJob(job_ptr);
  job.phase = budget_prio::JobPhase::kPending;
  if (!view) return 1;  // no tree yet: the lowest priority Slurm still runs
  return budget_prio::PriorityUnder(*view, job);
}

}  // namespace

extern "C" {

int init(void) {
  return plugin_support::GuardedCall(SLURM_ERROR, Init, [](const char* why) {
    error("priority/budget: init failed on an internal error: %s", why);
  });
}

int fini(void) {
  plugin_support::GuardedRun([] { plugin_support::StopAndReset(&g_thread); }, [](const char* why) {
    error("priority/budget: fini failed on an internal error: %s", why);
  });
  return SLURM_SUCCESS;
}

uint32_t priority_p_set(uint32_t last_prio, job_record_t* job_ptr) {
  try {
    g_state.MarkJobChanged(job_ptr->job_id);  // its cached view is rebuilt
    uint32_t priority = InitialPriority(job_ptr);
    debug2("priority/budget: initial priority of JobId=%u is %u", job_ptr->job_id, priority);
    return priority;
  } catch (...) {
    error("priority/budget: internal error computing the priority of JobId=%u; using 1", job_ptr->job_id);
    return 1;
  }
}

void priority_p_reconfig(bool assoc_clear) {
  try {
    if (!g_thread) return;
    // PreemptType may change at a reconfigure (SchedulerType may not).
    g_thread->SetStandingsRead(TimesliceConfigured());
    g_thread->RequestReconfigure();
  } catch (...) {
    error("priority/budget: reconfigure failed on an internal error");
  }
}

void priority_p_set_assoc_usage(slurmdb_assoc_rec_t* assoc) {}

double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm) {
  // Only sshare calls this, for Slurm's own fair-share display; the budget
  // order does not use association shares. Same formula as priority/basic.
  if (shares_norm <= 0.0 || std::isnan(static_cast<double>(shares_norm))) return 0.0;
  return std::pow(2.0, -static_cast<double>(usage_efctv / shares_norm));
}

#if SLURM_BUDGET_SLURM_SERIES >= 2311
// 23.11+: no request (sprio filters itself); the job, node and partition
// read locks are held.
List priority_p_get_priority_factors_list(uid_t uid) {
  const void* req_msg = nullptr;
#else
List priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg, uid_t uid) {
#endif
  try {
    std::shared_ptr<const budget_prio::OrderView> view = g_state.order();
    return static_cast<List>(budget_prio::BuildPriorityFactorsList(req_msg, uid, view.get()));
  } catch (...) {
    error("priority/budget: internal error building the sprio list");
    return nullptr;
  }
}

#if SLURM_BUDGET_SLURM_SERIES >= 2311
// 23.11+ requires these two. The recalc thread starts in init() and waits
// for the job list itself, so there is nothing to start here. `prio_boost`
// is what multifactor adds to every priority after a restart to stay above
// the old ones; the budget order recomputes every priority from the ledger
// at its first pass, so there is nothing to boost.
void priority_p_thread_start(void) {}

uint32_t priority_p_recover(uint32_t prio_boost) { return 0; }
#endif

void priority_p_job_end(job_record_t* job_ptr) {
  try {
    budget_prio::JobView job = budget_prio::ViewOfJob(job_ptr);
    job.phase = budget_prio::JobPhase::kFinished;
    if (job.end_time <= 0) job.end_time = time(nullptr);
    g_state.QueueEndedJob(std::move(job));
  } catch (...) {
    error("priority/budget: internal error recording the end of JobId=%u", job_ptr->job_id);
  }
}

}  // extern "C"
