// Preemption: which running jobs a pending job may displace, and the set to
// displace so that it can start: gang-safe, never more than needed.
//
// PAIRWISE RULE (JudgePreemption / MayPreempt). A pending job P may preempt
// a running job V iff, checked in this order:
//   1. V is not protected: now >= V.start + V.min_runtime;
//   2. P is allocated work (min_runtime > 0): unallocated work preempts
//      nothing;
//   3. V is unallocated work (min_runtime == 0): ALLOWED, rule
//      "unallocated". This holds whatever V's allocation, including P's own:
//      a team's free work never blocks that team's funded work;
//   4. V is allocated work of another allocation than P's (never P's own);
//      3b. then if P is a quick-start job (JobShape::quick, contract.h
//      QuickStartRule: one node, few GPUs, a short min-runtime): ALLOWED,
//      rule "quick start", whatever the ranks. A debug job must start in
//      seconds whatever its team's standing; its protected run is short
//      and small, and it is charged to its team like any run;
//   5. P's allocation ranks strictly ahead of V's (lower rank);
//   6. NO PING-PONG: P's projected usage ratio after the swap,
//        projected = (P.window_usage + P.gpus x P.min_runtime)
//                    / (P.entitlement x capacity_gpus x window),
//      is <= V's usage_ratio. Then ALLOWED, rule "over-served allocation".
//      P's protected run will charge at least gpus x min_runtime, so after it
//      P's team is still no better served than V's was: V's team cannot
//      preempt back until it has fallen behind by that same margin, and two
//      teams at equal share alternate in slices of at least twice the
//      protection instead of thrashing (preempt_test shows it). Entitlement
//      0 (or capacity or window 0) gives projected = +inf: never allowed.
//
// VICTIM ORDER (VictimOrder): unallocated work first; then allocated work of
// the most over-served allocation first (highest rank number, then highest
// usage ratio, then highest allocation id); within an allocation the lowest
// user priority first, then the youngest (latest start), then the highest
// job id. Unallocated jobs are ordered among themselves by the same keys
// (work with no allocation at all first).
//
// SET CHOICE (ChoosePreemption), for a pending job that cannot start:
//   - only usable nodes with total_gpus >= gpus_per_node are targets;
//   - ONE-NODE job: on each target node, the eligible victims on it are
//     taken in victim order until free + freed >= gpus_per_node, then any
//     taken victim no longer needed is dropped again (most valuable first),
//     so no proper subset would do. The node whose set is cheapest wins:
//     its most valuable victim is the least valuable, then fewer victims,
//     then fewer GPUs preempted, then lower node index. A node that already
//     fits the job costs nothing (plan with no victims).
//   - MULTI-NODE job: takes whole nodes, so a target node must be emptied:
//     every job on it must be eligible. The cheapest nodes (same cost order)
//     are chosen; whole free nodes cost nothing.
//   - A victim holding several nodes is preempted whole or not at all: it
//     frees its GPUs on every node it holds, and it is listed once.
//   - If no node (or not enough nodes) can be freed, NOTHING is preempted
//     (feasible = false).
//   Running jobs are indexed by node once per call: O(jobs log jobs).
//   Node indices in RunningJob::nodes that are not in `nodes` are ignored
//   (a job may straddle a partition boundary).
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_PREEMPT_H_
#define SLURM_BUDGET_LIBBUDGET_PREEMPT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/packing.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

// The verdict of the pairwise rule; IsAllowed says which allow.
enum class PreemptVerdict {
  kAllowedUnallocated,         // rule 3
  kAllowedOverServed,          // rule 6
  kRefusedProtected,           // rule 1
  kRefusedPreemptorUnallocated,  // rule 2
  kRefusedSameAllocation,      // rule 4
  kRefusedRanksBehind,         // rule 5
  kRefusedPingPong,            // rule 6
  kAllowedQuickStart,          // rule 3b
  kAllowedHeroHold,            // hero_plan.h: a hero's planned start on its held nodes
};

inline bool IsAllowed(PreemptVerdict v) {
  return v == PreemptVerdict::kAllowedUnallocated || v == PreemptVerdict::kAllowedOverServed ||
         v == PreemptVerdict::kAllowedQuickStart || v == PreemptVerdict::kAllowedHeroHold;
}

// "unallocated", "over-served allocation", "protected", "preemptor
// unallocated", "same allocation", "ranks behind", "ping-pong", "quick
// start", "hero hold".
const char* PreemptVerdictName(PreemptVerdict v);

// What the projection needs besides the standings.
struct ClusterScale {
  uint64_t capacity_gpus = 0;  // usable GPUs of the cluster
  Seconds window = 0;          // lookback window of the ledger
};

// P's usage ratio after its protected run: rule 6 above.
double ProjectedRatio(const JobShape& preemptor, const Standing& preemptor_standing,
                      const ClusterScale& scale);

// The pairwise rule. Standings of unallocated jobs are not read.
PreemptVerdict JudgePreemption(const JobShape& preemptor, const Standing& preemptor_standing,
                               const RunningJob& preemptee, const Standing& preemptee_standing,
                               const ClusterScale& scale, TimePoint now);

inline bool MayPreempt(const JobShape& preemptor, const Standing& preemptor_standing,
                       const RunningJob& preemptee, const Standing& preemptee_standing,
                       const ClusterScale& scale, TimePoint now) {
  return IsAllowed(
      JudgePreemption(preemptor, preemptor_standing, preemptee, preemptee_standing, scale, now));
}

// Strict weak order of running jobs in victim order (first = preempted
// first). An allocation outside `standings` sorts as unallocated work with no
// allocation. Keeps a reference to `standings`.
class VictimOrder {
 public:
  explicit VictimOrder(const std::vector<Standing>& standings) : standings_(standings) {}
  bool operator()(const RunningJob& a, const RunningJob& b) const;

 private:
  const std::vector<Standing>& standings_;
};

struct Victim {
  uint32_t job_id = 0;
  PreemptAction action = PreemptAction::kCancel;
  PreemptVerdict rule = PreemptVerdict::kAllowedUnallocated;
  int32_t allocation = kNoAllocation;
  double preemptee_ratio = 0.0;             // its allocation's usage ratio (0 if none)
  double preemptor_projected_ratio = 0.0;   // ProjectedRatio of the pending job
  uint64_t gpus = 0;                        // GPUs it frees, over all its nodes
};

struct PreemptionPlan {
  // True if the pending job fits once the victims are gone (victims may be
  // empty: it fits already). False: preempt nothing.
  bool feasible = false;
  std::vector<Victim> victims;  // in victim order
  std::vector<int32_t> target_nodes;  // NodeState::index, ascending
  // Why infeasible (one line), empty when feasible.
  std::string why_not;
};

// The set choice described above. Errors (nothing chosen): an invalid node
// list, a pending job of 0 nodes or 0 GPUs, an allocated job (pending or
// running) whose allocation has no Standing. Running jobs are told apart by
// their position in `running`, not by job id.
Status ChoosePreemption(const JobShape& pending, const std::vector<RunningJob>& running,
                        const std::vector<NodeState>& nodes,
                        const std::vector<Standing>& standings, const ClusterScale& scale,
                        TimePoint now, PreemptionPlan* plan);

// ChoosePreemption for many pending jobs over the same running jobs: what
// depends only on them (their standings checked, their nodes indexed, their
// victim keys) is computed once. The choice is ChoosePreemption's exactly.
// REQUIRES: `running` outlives the chooser; every `nodes` given to Choose
// lists the nodes of the construction's `nodes` in the same order (free
// GPUs and usability may differ); the standings given to Choose rank as the
// construction's (window usage may differ: only the pending job's
// projection reads it). The index of the running jobs is made at the
// first choice that needs one (a job that fits already needs none). The
// construction checks the nodes; Choose checks only their free GPUs (the
// whole list if its length differs).
// Thread safety: one thread per chooser (Choose fills the index).
class PreemptionChooser {
 public:
  PreemptionChooser(const std::vector<RunningJob>& running, const std::vector<NodeState>& nodes,
                    const std::vector<Standing>& standings);
  Status Choose(const JobShape& pending, const std::vector<NodeState>& nodes, const std::vector<Standing>& standings,
                const ClusterScale& scale, TimePoint now, PreemptionPlan* plan) const;

  struct Index;  // preempt.cc

 private:
  const Index& IndexFor(const std::vector<NodeState>& nodes, const std::vector<Standing>& standings) const;

  const std::vector<RunningJob>& running_;
  Status valid_;
  size_t node_count_;  // of the construction's nodes
  mutable std::shared_ptr<const Index> index_;  // null until a choice needs it
};

// One log line explaining `plan` for `pending`, e.g.
// "job 7 (alloc 2, 8 GPUs x 1 node): preempt job 3 (requeue, rule
//  over-served allocation, preemptee ratio 0.900, preemptor projected 0.400)
//  on nodes 12".
std::string DescribePlan(const JobShape& pending, const PreemptionPlan& plan);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PREEMPT_H_
