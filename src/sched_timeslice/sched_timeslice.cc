// sched/timeslice (`SchedulerType=sched/timeslice`): Slurm's own scheduling
// plus the time slicing Slurm does not do.
//
// Scheduling: BUILTIN behaviour. slurmctld's own schedule() (run at every
// submission, job end and every sched_interval) starts jobs in priority
// order, and asks preempt/timeslice who may be preempted; this plugin starts
// no backfill thread. Why not backfill: slurmctld tests the SchedulerType
// string for "sched/backfill" (allocation replies, will-run), so a forwarded
// backfill would run half-wired; its reservations for top jobs would also
// compete with the time slicing below, which already makes room for the
// top-ranked allocated job; and the whole-node jobs it protects are held by
// select/topo's hero plan. (Jobs get no expected start time from us: the
// builtin plugin's start-time estimator is not run either.)
//
// The thread (timeslice_thread.h), every TimesliceInterval seconds of
// budget.conf: drain at contract end and time slicing (timeslice_pass.h).
//
// Entry points: init (budget.conf, the thread), fini (stops it),
// sched_p_reconfig (re-reads budget.conf, wakes it). Every entry catches
// everything; a bad budget.conf fails init() with file, line and key.
#include <exception>
#include <memory>
#include <string>

#include "libbudget/config.h"
#include "sched_timeslice/slurm_headers.h"
#include "sched_timeslice/timeslice_thread.h"

extern "C" {
extern const char plugin_name[] = "Sched timeslice (contract ends, drain at contract end, time slicing) plugin";
extern const char plugin_type[] = "sched/timeslice";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

std::unique_ptr<timeslice::TimesliceThread> g_thread;

bool LoadThreadConfig(timeslice::ThreadConfig* out) {
  const char* conf = slurm_conf.slurm_conf ? slurm_conf.slurm_conf : "/etc/slurm/slurm.conf";
  std::string path = budget::BudgetConfigPathBeside(conf);
  budget::BudgetConfig config;
  bool missing = false;
  budget::Status st = budget::LoadBudgetConfig(path, &config, &missing);
  if (!st.ok()) {
    error("sched/timeslice: %s", st.message().c_str());
    return false;
  }
  if (missing) info("sched/timeslice: %s does not exist: budget.conf defaults apply", path.c_str());
  out->interval = config.timeslice_interval;
  out->default_min_runtime = config.default_min_runtime;
  out->state_dir = slurm_conf.state_save_location ? slurm_conf.state_save_location : ".";
  return true;
}

}  // namespace

extern "C" {

int init(void) {
  try {
    timeslice::ThreadConfig config;
    if (!LoadThreadConfig(&config)) return SLURM_ERROR;
    if (slurmctld_config.scheduling_disabled) {
      info("sched/timeslice: scheduling is disabled: no time slicing thread");
      return SLURM_SUCCESS;
    }
    g_thread = std::make_unique<timeslice::TimesliceThread>(config);
    g_thread->Start();
    info("sched/timeslice: loaded; builtin scheduling plus a pass every %ld s (drain at contract end, "
         "time slicing)", static_cast<long>(config.interval));
    return SLURM_SUCCESS;
  } catch (const std::exception& e) {
    error("sched/timeslice: init: %s", e.what());
  } catch (...) {
    error("sched/timeslice: init: unknown exception");
  }
  return SLURM_ERROR;
}

void fini(void) {
  try {
    if (g_thread) g_thread->Stop();
    g_thread.reset();
  } catch (...) {
    error("sched/timeslice: fini: unknown exception");
  }
}

int sched_p_reconfig(void) {
  try {
    timeslice::ThreadConfig config;
    if (g_thread && LoadThreadConfig(&config)) g_thread->Reconfigure(config);
    return SLURM_SUCCESS;
  } catch (...) {
    error("sched/timeslice: reconfig: unknown exception");
  }
  return SLURM_ERROR;
}

}  // extern "C"
