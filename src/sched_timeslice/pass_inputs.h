// Pass inputs: one time-slicing pass's view of the controller, as the
// core's planner wants it (libbudget/policy/timeslice_plan.h): the thread's copies
// of the job and node records (job_facts.h) translated through the
// standings priority/budget published (standings_cache.h) and the hero hold
// select/topo published (libbudget/policy/packing_state.h). Slurm-free.
//
//   running  every running job (not completing), allocation from the tree
//   waiting  pending jobs waiting only for resources or priority, with
//            GPUs, in the core's job order (SortWaitingJobs)
//   nodes    every node: GPUs, usable (takes new jobs: slurm_compat/node_state.h);
//            draining: the nodes in DRAIN
//   hold     the hero plan in force, its nodes by name; none when
//            select/topo publishes none (or no select/topo)
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_PASS_INPUTS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_PASS_INPUTS_H_

#include <vector>

#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/timeslice_plan.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

// `packing` may be null (no state published); `quick` says which waiting
// jobs are quick-start jobs (budget.conf QuickStart*) and how many nodes
// the quick-start reserve keeps at `now` (quick_reserve.h).
budget::TimesliceInputs PassInputsOf(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                                     const StandingsView& view, const budget::PackingState* packing,
                                     const budget::QuickStartRule& quick, budget::TimePoint now);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_PASS_INPUTS_H_
