// Drain at contract end: a node marked DRAIN (for repair) empties itself as
// the contracts of its jobs allow, so nobody has to negotiate with owners.
//
// Rules (doc/admin-guide.md, "Scheduling", *Drain at contract end*):
//   - a job on a draining node whose protection is over (now >= start +
//     min_runtime; unallocated work always) leaves NOW, with its contract
//     action (requeue if resumable, cancel otherwise);
//   - a protected job is left alone and may leave at its protection end;
//   - a node is empty at the latest protection end among its jobs, or now if
//     every job on it leaves now (or it runs none). Jobs may end on their own
//     earlier: this is the latest time, the one to promise in the node's
//     reason.
//   - a job on several draining nodes is listed once.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_DRAIN_H_
#define SLURM_BUDGET_LIBBUDGET_DRAIN_H_

#include <cstdint>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

struct DrainDeparture {
  uint32_t job_id = 0;
  bool leave_now = false;
  // now if leave_now, else the job's protection end (> now).
  TimePoint leave_at = 0;
  PreemptAction action = PreemptAction::kCancel;
};

struct DrainedNode {
  int32_t node_index = 0;
  TimePoint empty_at = 0;  // >= now
};

struct DrainPlan {
  // Jobs on draining nodes, in the order of `running`.
  std::vector<DrainDeparture> departures;
  // One entry per draining node, in the order given.
  std::vector<DrainedNode> nodes;
};

// Plans the drain of `draining_nodes` (NodeState::index values) at `now`.
// Errors (*plan left empty): a negative or repeated node index.
Status PlanDrain(const std::vector<int32_t>& draining_nodes,
                 const std::vector<RunningJob>& running, TimePoint now, DrainPlan* plan);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_DRAIN_H_
