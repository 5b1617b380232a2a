// select/topo (`SelectType=select/topo`): Slurm's select/cons_tres with GPU
// packing. This file is the plugin's face: it loads cons_tres as a plugin
// of its own and forwards every select_p_* call to it (36 on 22.05, 31 on
// 24.11, 12 on 25.11 and 13 on 26.05: slurm_compat/select_api.h; the calls
// only some series have are in slurm_compat/select_series_calls.cc), so
// all of cons_tres's behaviour (CPU/memory/GPU allocation, GPU binding,
// preemption, steps, state save and restore, the clients' node and job
// info) is kept. Only select_p_job_test is steered (topo_steer.h), and the
// calls after which allocations change publish the fragmentation figure.
//
// Plugin identity:
//   - plugin_id (slurm_compat::kSelectTopoPluginId): 150 up to 24.11,
//     unique and >= 100, as select.c requires of every select_*.so in
//     PluginDir (Slurm's own use 101-110); cons_tres's 109 from 25.05 on,
//     where select.c loads the SelectType alone and asks the id whether
//     the plugin is cons_tres.
//   - plugin_type "select/topo" must equal SelectType: select.c picks the
//     default select plugin by that string.
//   - Slurm's core asks `strstr(SelectType, "cons_tres")` in a few places;
//     see doc/admin-guide.md "## select/topo" for what that means here.
//     The ones that matter at run time ask the plugin instead
//     (select_g_get_info_from_plugin(SELECT_CR_PLUGIN) -> cons_tres answers
//     SELECT_TYPE_CONS_TRES, so shared GRES, e.g. MPS, keep working).
//
// The plugin is loaded by every client too (sinfo, squeue, scontrol, srun):
// it steers, logs and publishes only when running_in_slurmctld().
//
// Failure: init() fails (and slurmctld with it, as for any bad SelectType)
// when cons_tres cannot be loaded. At run time every C++ path catches
// everything and falls back to plain cons_tres.
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

#include "libbudget/config/config.h"
#include "plugin_support/budget_conf_location.h"
#include "plugin_support/guarded_call.h"
#include "plugin_support/pass_summary.h"
#include "select_topo/select_forwarding.h"
#include "select_topo/slurm_headers.h"
#include "select_topo/topo_steer.h"
#include "slurm_compat/reconfigure.h"

extern "C" {
extern const char plugin_name[] = "GPU packing over Trackable RESources (cons_tres) selection";
extern const char plugin_type[] = "select/topo";
extern const uint32_t plugin_id = slurm_compat::kSelectTopoPluginId;
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace select_topo {

slurm_select_ops_t g_cons_tres;

// Publishes the packing state after a call that may change allocations;
// never lets an error out.
void AfterChange() {
  if (!running_in_slurmctld()) return;
  try {
    topo::PublishPackingState();
  } catch (...) {
    error("select/topo: internal error while publishing the packing state");
  }
}

}  // namespace select_topo

namespace {

using select_topo::AfterChange;
using select_topo::g_cons_tres;

constexpr char kWrapped[] = "select/cons_tres";

plugin_context_t* g_context = nullptr;

std::string StateSaveDir() { return slurm_conf.state_save_location ? slurm_conf.state_save_location : ""; }

// slurmctld up to 24.11 loads every select_*.so in PluginDir, whatever
// SelectType says; only the SelectType steers, and only it reads budget.conf.
bool SteersHere() {
  return running_in_slurmctld() && slurm_conf.select_type && std::string(slurm_conf.select_type) == plugin_type;
}

// budget.conf beside slurm.conf: HeroWait and DefaultMinRuntime. A missing
// file means the defaults. A bad one stops slurmctld at init with one fatal
// line naming file, line and key (the last line it prints: were init() to
// fail instead, Slurm would end with "Can't find plugin for select/topo");
// on reconfigure it keeps the previous values.
// `at_init`: log the values even if they did not change, and stop on error.
bool LoadSteeringConfig(bool at_init) {
  static budget::Seconds announced_hero_wait = -1;
  static uint32_t announced_hero_min_nodes = 0;
  plugin_support::LoadOptions options;
  options.state_dir = StateSaveDir();
  options.reconfiguring = at_init && slurm_compat::SlurmctldReexecutedByReconfigure();
  plugin_support::LoadedBudgetConf conf;
  budget::Status st = plugin_support::LoadBudgetConf(slurm_conf.slurm_conf, options, &conf);
  const std::string& path = conf.path;
  const budget::BudgetConfig& config = conf.config;
  if (!st.ok()) {
    if (at_init) fatal("select/topo: %s", st.message().c_str());
    error("select/topo: %s; keeping the previous values", st.message().c_str());
    return false;
  }
  // A bad file at a reconfigure that re-executed slurmctld (23.11+): the
  // last good one is used, and the log says so as an error.
  if (!conf.fallback.empty()) error("select/topo: %s", conf.fallback.c_str());
  if (conf.missing) info("select/topo: %s not found, using the defaults", path.c_str());
  topo::ConfigureSteering(config, StateSaveDir());
  if (!at_init && config.hero_wait == announced_hero_wait && config.hero_min_nodes == announced_hero_min_nodes)
    return true;
  announced_hero_wait = config.hero_wait;
  announced_hero_min_nodes = config.hero_min_nodes;
  info("select/topo: packing GPUs over %s; HeroWait=%ld s, HeroMinNodes=%u; state in %s/select_topo_state.json",
       kWrapped, long(config.hero_wait), config.hero_min_nodes, StateSaveDir().c_str());
  return true;
}

// select/topo has no thread: what it costs is its job_test calls (every
// placement and will-run test of the main scheduler and backfill). Each
// call's time goes into one info line per five minutes, by kind of call,
// and into a debug2 line (a line per call at debug would flood the log
// at a backfill cycle's thousands of will-run tests).
// The calls run under slurmctld's job write lock, so they do not overlap;
// the mutex keeps the summary right should a caller ever hold less.
std::mutex g_job_test_mu;
plugin_support::PassSummary g_job_test_summary("job_test calls",
                                               {"run-now", "test-only", "will-run", "cons_tres call(s)"});

void RecordJobTest(std::chrono::steady_clock::time_point started, uint32_t job_id, uint16_t mode, int rc,
                   int cons_tres_calls) {
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const uint16_t kind = mode & SELECT_MODE_BASE;
  debug2("select/topo: job_test JobId=%u mode %u: %.3f ms, rc %d, %d cons_tres call(s)", job_id, unsigned(kind), ms,
         rc, cons_tres_calls);
  try {
    std::string line;
    {
      std::lock_guard<std::mutex> lock(g_job_test_mu);
      line = g_job_test_summary.Record(ms,
                                       {kind == SELECT_MODE_RUN_NOW ? 1u : 0u, kind == SELECT_MODE_TEST_ONLY ? 1u : 0u,
                                        kind == SELECT_MODE_WILL_RUN ? 1u : 0u, uint64_t(cons_tres_calls)},
                                       time(nullptr));
    }
    if (!line.empty()) info("select/topo: %s", line.c_str());
  } catch (...) {
    // A summary that cannot be kept (no memory) loses a line, not a placement.
  }
}

}  // namespace

extern "C" {

int init(void) {
  g_context = plugin_context_create("select", kWrapped, reinterpret_cast<void**>(&g_cons_tres),
                                    slurm_compat::kSelectSyms, sizeof(slurm_compat::kSelectSyms));
  if (!g_context) {
    error("select/topo: cannot load %s", kWrapped);
    return SLURM_ERROR;
  }
  if (!SteersHere()) return SLURM_SUCCESS;
  return plugin_support::GuardedCall(
      SLURM_ERROR, [] { return LoadSteeringConfig(true) ? SLURM_SUCCESS : SLURM_ERROR; },
      [](const char* why) { error("select/topo: init failed on an internal error: %s", why); });
}

int fini(void) {
  int rc = SLURM_SUCCESS;
  if (g_context) rc = plugin_context_destroy(g_context);
  g_context = nullptr;
  return rc;
}

int select_p_node_init(void) {
  int rc = g_cons_tres.node_init();
  AfterChange();
  return rc;
}

int select_p_job_test(job_record_t* job_ptr, bitstr_t* bitmap, uint32_t min_nodes, uint32_t max_nodes,
                      uint32_t req_nodes, uint16_t mode, List preemptee_candidates, List* preemptee_job_list,
                      SELECT_EXCLUSIONS_PARAMS) {
  if (running_in_slurmctld()) {
    const auto started = std::chrono::steady_clock::now();
    int rc = SLURM_ERROR;
    bool steered = false;
    int calls = 0;
    try {
      rc = topo::SteerJobTest(g_cons_tres.job_test, job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
                              preemptee_candidates, preemptee_job_list, &calls, SELECT_EXCLUSIONS_ARGS);
      steered = true;
    } catch (...) {
      // The steering allocates only before it calls cons_tres; falling back
      // to plain cons_tres on the caller's untouched bitmap is safe.
      error("select/topo: internal error while steering JobId=%u; cons_tres decides alone", job_ptr->job_id);
    }
    // Recorded outside the try: once cons_tres has answered, the bitmap is
    // its answer, and nothing may send the call to cons_tres a second time.
    if (steered) {
      RecordJobTest(started, job_ptr->job_id, mode, rc, calls);
      return rc;
    }
  }
  return g_cons_tres.job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates,
                              preemptee_job_list, SELECT_EXCLUSIONS_ARGS);
}

int select_p_job_begin(job_record_t* job_ptr) { return g_cons_tres.job_begin(job_ptr); }

int select_p_job_ready(job_record_t* job_ptr) { return g_cons_tres.job_ready(job_ptr); }

int select_p_job_expand(job_record_t* from_job_ptr, job_record_t* to_job_ptr) {
  int rc = g_cons_tres.job_expand(from_job_ptr, to_job_ptr);
  AfterChange();
  return rc;
}

int select_p_job_resized(job_record_t* job_ptr, node_record_t* node_ptr) {
  int rc = g_cons_tres.job_resized(job_ptr, node_ptr);
  AfterChange();
  return rc;
}

int select_p_job_fini(job_record_t* job_ptr) {
  int rc = g_cons_tres.job_fini(job_ptr);
  AfterChange();
  return rc;
}

int select_p_job_suspend(job_record_t* job_ptr, bool indf_susp) {
  int rc = g_cons_tres.job_suspend(job_ptr, indf_susp);
  AfterChange();
  return rc;
}

int select_p_job_resume(job_record_t* job_ptr, bool indf_susp) {
  int rc = g_cons_tres.job_resume(job_ptr, indf_susp);
  AfterChange();
  return rc;
}

int select_p_select_nodeinfo_set_all(void) { return g_cons_tres.nodeinfo_set_all(); }

// Called once a job's allocation is committed (select_nodes) and for every
// job at start-up: cons_tres adds the job's GPUs to the nodes' gres state
// here, so this is where a start changes the fragmentation.
int select_p_select_nodeinfo_set(job_record_t* job_ptr) {
  int rc = g_cons_tres.nodeinfo_set(job_ptr);
  AfterChange();
  return rc;
}

int select_p_reconfigure(void) {
  int rc = g_cons_tres.reconfigure();
  if (SteersHere()) {
    try {
      LoadSteeringConfig(false);  // a bad budget.conf keeps the previous values
    } catch (...) {
      error("select/topo: internal error while reloading budget.conf");
    }
  }
  AfterChange();
  return rc;
}

}  // extern "C"
