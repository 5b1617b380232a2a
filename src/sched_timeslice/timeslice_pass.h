// TimeslicePlanner: what one pass of sched/timeslice's thread decides, from
// copies of the job and node records (job_facts.h) and the standings
// (standings_cache.h), through the core's rules. Slurm-free: the thread
// (timeslice_thread.h) takes the snapshot under read locks, calls Plan()
// outside any lock, and applies the plan under write locks, re-checking each
// victim (job_actions.h).
//
// (a) Drain at contract end (core drain.h PlanDrain): every job on a node in
//     DRAIN whose protection is over leaves now (requeue if resumable, cancel
//     otherwise); protected jobs are left alone; each draining node's reason
//     gets "; empty by <latest protection end>". A node first seen draining
//     with jobs on it is one automated drain (counted once per drain).
// (b) Time slicing (core preempt.h ChoosePreemption): the top-ranked waiting
//     allocated job (first in the core's job order, order.h JobBefore over
//     the snapshot's standings: rank, user priority, submit time, job id;
//     the job Slurm's scheduler tries first) that cannot start gets
//     the set of running jobs the core chooses: past their protection, of
//     allocations ranked behind it under the no-ping-pong rule (its team's
//     usage raised by its commitments, libbudget/commitments.h), or
//     unallocated; gang-safe and never more than needed; nothing if no set
//     suffices. Jobs already leaving by (a) are not chosen again, and their
//     GPUs are not counted free (they are still held until they end).
//     Completing jobs hold no GPUs here: a job whose victims are still
//     ending "fits already" and gets no second set.
//
// Thread safety: one planner per thread; Plan() keeps the drain memory.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_PASS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_PASS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libbudget/contract.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

struct PlannedPreemption {
  uint32_t job_id = 0;
  budget::TimePoint start = 0;  // the run to end (re-checked when applied)
  budget::PreemptAction action = budget::PreemptAction::kCancel;
  bool for_drain = false;
  std::string comment;  // the job's visible reason
  std::string log;      // one line for slurmctld's log
};

struct PlannedEmptyBy {
  int32_t node_index = 0;
  budget::TimePoint empty_at = 0;
};

struct PassPlan {
  std::vector<PlannedPreemption> preemptions;
  std::vector<PlannedEmptyBy> empty_by;
  uint64_t new_automated_drains = 0;
  std::vector<std::string> log;  // other lines worth logging
};

class TimeslicePlanner {
 public:
  PassPlan Plan(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                const StandingsView& view, budget::TimePoint now);

 private:
  void PlanDrains(const std::vector<NodeFacts>& nodes, const std::vector<budget::RunningJob>& running,
                  budget::TimePoint now, PassPlan* plan);
  void PlanTimeslice(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                     const std::vector<budget::RunningJob>& running, const StandingsView& view,
                     budget::TimePoint now, PassPlan* plan);

  std::set<int32_t> draining_counted_;          // nodes whose drain was counted
  std::map<int32_t, budget::TimePoint> promised_;  // node -> empty_at last logged
};

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_PASS_H_
