// QuickReserve: a few nodes kept free of long protection, so that a
// quick-start job (contract.h QuickStartRule: a debug job) always finds
// GPUs it may take in one pass, even when contracts protect every other
// GPU of the cluster (budget.conf QuickStartReserveNodes).
//
// Rules:
//   - A LONG protection is a run's protection longer than a quick start's
//     (min_runtime > QuickStartRule::max_min_runtime), while it lasts. A
//     node is OPEN when long protections leave at least the quick-start
//     size (QuickStartRule::max_gpus, or the whole node if smaller) of its
//     GPUs: free, or held by unallocated work, by runs past their
//     protection (preempt.h rule 1) or by quick-start runs, so a debug job
//     may take them now or within a quick start's protection.
//   - The reserve (ChooseQuickReserve) is made of usable open nodes that no
//     hero hold takes: every one that holds a quick-start run still
//     protected, and `reserve_nodes` more (budget.conf
//     QuickStartReserveNodes), the first in Slurm's node order. So it
//     grows with the debug work running (a node that took a debug job stays
//     reserved until its protection ends) and keeps `reserve_nodes` spare
//     nodes for the next debug jobs. Slurm's order keeps it on the same
//     nodes from one decision to the next, without any state: a reserved
//     node stays open, since no long protection may start there.
//   - A job whose protection is long and whose time limit is not that short
//     either (MayUseReserve) may not land on a reserve node: not where
//     Slurm's schedulers start it (select/topo, slurm_model.h), not where
//     the time-slicing pass preempts for it (timeslice_plan.h), not where a
//     hero is planned (its nodes are chosen outside the reserve). Quick
//     starts, unallocated work and runs within a quick start's length may.
//     So a debug job finds its GPUs open there, free or held by work the
//     pass may preempt for it (rule "quick start").
//   - Fewer open nodes than that: the reserve is what there is; it grows
//     back as long protections end, since no new one starts on it.
//
// Cost, measured over the workload family (doc/simulator.md): the spare
// nodes refuse long protections, so they idle when no free work, run past
// its protection or debug job uses them.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_QUICK_RESERVE_H_
#define SLURM_BUDGET_LIBBUDGET_QUICK_RESERVE_H_

#include <cstdint>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "libbudget/standing.h"

namespace budget {

// The spare nodes are at most one usable GPU node in kMaxSpareShare: a
// small cluster keeps most of its nodes for long work (fewer than
// kMaxSpareShare nodes: no spare node).
constexpr size_t kMaxSpareShare = 8;

struct QuickReserve {
  std::vector<int32_t> nodes;        // NodeState::index; empty: no reserve
  Seconds max_min_runtime = 15 * 60;  // the quick-start protection bound

  bool Holds(int32_t index) const;
};

// The reserve at `now` by the rules above (rule.reserve_nodes spare
// nodes). `hero` is the hero hold in force (its nodes are never reserved).
// The running jobs say what each node uses (NodeState::free_gpus is not
// read). rule.reserve_nodes 0, or max_gpus 0 (no quick start): no reserve.
// O(nodes log nodes + running).
QuickReserve ChooseQuickReserve(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running,
                                const HeroPlan& hero, const QuickStartRule& rule, TimePoint now);

// `nodes` with the reserve's marked unusable: the nodes a hero may be
// planned on (a hero's protection is long; it may not use the reserve).
std::vector<NodeState> WithoutReserve(std::vector<NodeState> nodes, const QuickReserve& reserve);

// May `job` land on a reserve node? See the rules above.
bool MayUseReserve(const QuickReserve& reserve, const StartingJob& job);

// Every hold a starting job may meet: the hero's (hero_plan.h) and the
// quick-start reserve. Built from a HeroPlan alone, it holds no reserve.
struct NodeHolds {
  NodeHolds() = default;
  NodeHolds(HeroPlan h) : hero(std::move(h)) {}  // NOLINT: a hero hold is a NodeHolds
  NodeHolds(HeroPlan h, QuickReserve r) : hero(std::move(h)), reserve(std::move(r)) {}
  HeroPlan hero;
  QuickReserve reserve;
};

// Bits of NodeHolds: which holds a node is in (HoldsOn) and which a job may
// not use (HoldsBarring); a job may use a node iff the two share no bit.
constexpr uint8_t kHeroHoldBit = 1;
constexpr uint8_t kReserveHoldBit = 2;
uint8_t HoldsOn(const NodeHolds& holds, int32_t index);
uint8_t HoldsBarring(const NodeHolds& holds, const StartingJob& job, TimePoint now);

// Marks unusable, in `view`, the nodes of the holds `job` may not use.
void RemoveBarredNodes(const NodeHolds& holds, const StartingJob& job, TimePoint now, std::vector<NodeState>* view);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_QUICK_RESERVE_H_
