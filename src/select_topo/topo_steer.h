// Steering: how select/topo bends cons_tres's node choice to the core's
// packing and hero rules, and what it publishes. The adapter's whole policy
// is "ask the core, then let cons_tres check": cons_tres still decides CPUs,
// memory, GPU binding and preemption; it only sees fewer nodes first.
//
// job_test (RUN_NOW):
//   1. Nodes held for a hero job (hero_plan.h) are removed from the job's
//      candidate nodes unless the hold lets this job use them.
//   2. If the packing rule can model the job's GPU request (topo_view.h
//      JobGpuRequest), the core's ChooseNodes picks nodes among the rest;
//      cons_tres is asked to place the job on exactly those nodes, without
//      preemption. If it refuses (CPUs or memory the core does not see),
//      those nodes are set aside and the core is asked again, up to
//      kMaxPackingTries times.
//   3. Last, cons_tres gets the whole remaining bitmap with the preemption
//      candidates, exactly as without this plugin; so a job never becomes
//      unschedulable because of the packing, only (for a bounded time, until
//      the hero starts) because of a hold.
// job_test (WILL_RUN): step 1 only, so backfill's plans agree with RUN_NOW.
// job_test (TEST_ONLY, RESV): forwarded untouched.
//
// Publishing: after every change of allocations or node states, the
// fragmentation figure is logged (when it changed) and the state file
// StateSaveLocation/select_topo_state.json is rewritten (packing_state.h).
//
// Thread safety: every function takes the module's mutex; callers hold the
// slurmctld locks their select_p_* call is made with. Call only in
// slurmctld.
#ifndef SLURM_BUDGET_SELECT_TOPO_TOPO_STEER_H_
#define SLURM_BUDGET_SELECT_TOPO_TOPO_STEER_H_

#include <string>

#include "libbudget/config/config.h"
#include "select_topo/slurm_headers.h"

namespace topo {

constexpr int kMaxPackingTries = 4;

using JobTestFn = int (*)(job_record_t* job_ptr, bitstr_t* bitmap, uint32_t min_nodes, uint32_t max_nodes,
                          uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
                          List* preemptee_job_list, SELECT_EXCLUSIONS_PARAMS);

// Sets the budget.conf values used (HeroWait, DefaultMinRuntime) and the
// directory of the state file.
void ConfigureSteering(const budget::BudgetConfig& config, const std::string& state_dir);

// select_p_job_test with the steering above; `cons_tres_job_test` is
// cons_tres's own. Same contract as select_p_job_test. *cons_tres_calls
// gets how many times cons_tres was asked (1 without steering, up to
// kMaxPackingTries + 1 with it): what the steering cost.
int SteerJobTest(JobTestFn cons_tres_job_test, job_record_t* job_ptr, bitstr_t* bitmap, uint32_t min_nodes,
                 uint32_t max_nodes, uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
                 List* preemptee_job_list, int* cons_tres_calls, SELECT_EXCLUSIONS_PARAMS);

// Logs the fragmentation figure if it changed and rewrites the state file
// if anything in it changed (free GPUs, usable nodes, hero plan).
void PublishPackingState();

}  // namespace topo

#endif  // SLURM_BUDGET_SELECT_TOPO_TOPO_STEER_H_
