// preempt/timeslice (`PreemptType=preempt/timeslice`): minimum-runtime
// contracts, time slicing and drain at contract end, beside Slurm's own
// schedulers (`SchedulerType=sched/backfill`).
//
// Who preempts. Slurm's main scheduler and backfill schedule by the
// priorities priority/budget computes, and never preempt: this plugin tells
// them preemption is off (PREEMPT_DATA_ENABLED false), so their passes cost
// what they cost without a preempt plugin. Every preemption is made by this
// plugin's thread (timeslice_thread.h), every TimesliceInterval, through the
// core's planner (libbudget/policy/timeslice_plan.h): it counts a team's
// preemptions and protected runs under way before granting the next (no
// ping-pong), serves the waiting allocated jobs in the core's order, several
// a pass, and hands the freed GPUs to the job they were freed for
// (kGrantedPriority). Slurm's own preemption could do none of this: it
// judges each waiting job alone, against the same standings, and chooses
// victims by its own rules.
//
// Entry points:
//   init     budget.conf; in slurmctld warns once of each slurm.conf setting
//            that works against the suite (libbudget/config/slurm_settings.h) and
//            (unless scheduling is disabled) starts the thread. A bad
//            budget.conf stops slurmctld with one fatal line naming file,
//            line and key (elsewhere init() fails with it).
//   fini     stops the thread.
//   preempt_p_get_mode   REQUEUE if the job is resumable, CANCEL otherwise
//                        (what Slurm reads when it needs a job's preempt mode)
//   preempt_p_get_prio, preempt_p_get_grace_time   0
//   preempt_p_preemptable, preempt_p_job_preempt_check   they answer no.
//   Up to 24.11 Slurm asks preempt_p_get_data instead, which also says
//   whether preemption is enabled (false): slurm_compat/preempt_series_calls.cc.
// Every entry catches everything: slurmctld must never go down because of
// us.
#include <exception>
#include <memory>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/config/slurm_settings.h"
#include "plugin_support/budget_conf_location.h"
#include "plugin_support/guarded_call.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/slurm_headers.h"
#include "sched_timeslice/timeslice_thread.h"
#include "slurm_compat/reconfigure.h"

extern "C" {
#include "src/common/run_in_daemon.h"
extern const char plugin_name[] = "Preempt timeslice (minimum-runtime contracts, time slicing, drain) plugin";
extern const char plugin_type[] = "preempt/timeslice";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

budget::Seconds g_default_min_runtime = 0;
std::unique_ptr<timeslice::TimesliceThread> g_thread;

bool LoadThreadConfig(timeslice::ThreadConfig* out) {
  plugin_support::LoadOptions options;
  if (running_in_slurmctld() && slurm_conf.state_save_location) options.state_dir = slurm_conf.state_save_location;
  options.reconfiguring = running_in_slurmctld() && slurm_compat::SlurmctldReexecutedByReconfigure();
  plugin_support::LoadedBudgetConf conf;
  budget::Status st = plugin_support::LoadBudgetConf(slurm_conf.slurm_conf, options, &conf);
  const std::string& path = conf.path;
  const budget::BudgetConfig& config = conf.config;
  // A bad file at a reconfigure that re-executed slurmctld (23.11+): the
  // last good one is used, and the log says so as an error.
  if (st.ok() && !conf.fallback.empty()) error("preempt/timeslice: %s", conf.fallback.c_str());
  if (!st.ok()) {
    // The last line slurmctld prints, and the only one about it.
    if (running_in_slurmctld()) fatal("preempt/timeslice: %s", st.message().c_str());
    error("preempt/timeslice: %s", st.message().c_str());
    return false;
  }
  if (conf.missing) info("preempt/timeslice: %s does not exist: budget.conf defaults apply", path.c_str());
  out->budget_conf = path;
  out->interval = config.timeslice_interval;
  out->default_min_runtime = config.default_min_runtime;
  out->preempt_notice = config.preempt_notice;
  out->quick = budget::QuickStartRule{config.quick_start_min_runtime, config.quick_start_gpus,
                                       config.quick_start_user_gpus, config.quick_start_reserve_nodes};
  out->state_dir = slurm_conf.state_save_location ? slurm_conf.state_save_location : ".";
  out->time_slicing = config.time_slicing;
  out->slicing = running_in_slurmctld() && budget::TimeSlicingOn(config.time_slicing, timeslice::PreemptModeOff());
  return true;
}

void WarnOfConflictingSettings(const timeslice::ThreadConfig& config) {
  budget::SlurmSettings settings;
  settings.select_type = slurm_conf.select_type ? slurm_conf.select_type : "";
  settings.quick_start_reserve_nodes = config.quick.reserve_nodes;
  settings.preempt_mode_off = timeslice::PreemptModeOff();
  settings.time_slicing = config.time_slicing;
  settings.priority_type = slurm_conf.priority_type ? slurm_conf.priority_type : "";
  const uint32_t exempt = slurm_conf.preempt_exempt_time;
  settings.preempt_exempt_time = exempt == NO_VAL || exempt == INFINITE ? 0 : exempt;
  for (const std::string& line : budget::SuiteSettingWarnings(settings)) {
    info("preempt/timeslice: WARNING: %s", line.c_str());
  }
}

uint16_t ModeOf(job_record_t* job) {
  if (!job) return PREEMPT_MODE_REQUEUE;
  return timeslice::ContractOf(job, g_default_min_runtime).resumable ? PREEMPT_MODE_REQUEUE : PREEMPT_MODE_CANCEL;
}

int Init() {
  timeslice::ThreadConfig config;
  if (!LoadThreadConfig(&config)) return SLURM_ERROR;
  g_default_min_runtime = config.default_min_runtime;
  if (!running_in_slurmctld()) return SLURM_SUCCESS;
  WarnOfConflictingSettings(config);
  if (slurmctld_config.scheduling_disabled) {
    info("preempt/timeslice: scheduling is disabled: no time-slicing thread");
    return SLURM_SUCCESS;
  }
  g_thread = std::make_unique<timeslice::TimesliceThread>(config);
  g_thread->Start();
  info("preempt/timeslice: loaded; a pass every %ld s (drain at contract end, time slicing %s); Slurm's "
       "schedulers never preempt",
       static_cast<long>(config.interval), config.slicing ? "on" : "off");
  return SLURM_SUCCESS;
}

}  // namespace

extern "C" {

int init(void) {
  return plugin_support::GuardedCall(SLURM_ERROR, Init,
                                     [](const char* why) { error("preempt/timeslice: init: %s", why); });
}

void fini(void) {
  plugin_support::GuardedRun([] { plugin_support::StopAndReset(&g_thread); },
                             [](const char* why) { error("preempt/timeslice: fini: %s", why); });
}

bool preempt_p_job_preempt_check(job_queue_rec_t*, job_queue_rec_t*) { return false; }

bool preempt_p_preemptable(job_record_t*, job_record_t*) { return false; }

uint16_t preempt_p_get_mode(job_record_t* job) {
  try {
    return ModeOf(job);
  } catch (const std::exception& e) {
    error("preempt/timeslice: get_mode: %s", e.what());
  } catch (...) {
    error("preempt/timeslice: get_mode: unknown exception");
  }
  return PREEMPT_MODE_REQUEUE;
}

uint32_t preempt_p_get_prio(job_record_t*) { return 0; }

uint32_t preempt_p_get_grace_time(job_record_t*) { return 0; }

}  // extern "C"
