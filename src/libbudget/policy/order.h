// FairShareOrder: the hierarchical fair-share order of the allocation tree
// at one instant, and the order and Slurm priority of pending jobs under it.
//
// Inputs of Compute(): the tree; per node its DIRECT allocated usage over the
// lookback window (GPU-seconds charged to that node itself, not its
// descendants: Ledger::WindowUsage(path, kAllocated, now)); per node its
// demand (> 0 when the node itself has running or pending work); the
// cluster's capacity in GPUs and the window length.
//
// Sibling ranking. At each node, with U = the sum of its children's subtree
// usage, a child c has
//     ratio(c) = (usage(c) / U) / normalized_share(c)     (0 when U == 0)
// i.e. the fraction of the siblings' usage it took over the fraction it is
// entitled to: < 1 under-served, > 1 over-served. Children are ranked by
//   1. demand: children with demand somewhere in their subtree first; a
//      child without demand never blocks a sibling;
//   2. share: children with normalized share 0 after all others (they are
//      entitled to nothing; they get what nobody else wants);
//   3. lower ratio first (most under-served). Ratios are compared after
//      rounding to 40 significant bits, so that ratios equal up to floating
//      point noise (3/0.3 vs 1/0.1) tie instead of depending on the last ulp;
//   4. higher normalized share first (the bigger allocation is owed more
//      GPU time for the same ratio);
//   5. name (byte order): siblings' names are unique, so the order is total
//      and the same on every controller.
// For zero-share children the ratio is undefined; they are ranked among
// themselves by usage(c) / U, and sibling_ratio() reports +inf (or 0 when
// they used nothing).
//
// Total order (ranks). Depth first over the ranked children gives the total
// order of the nodes that can hold jobs (AllocationTree::HoldsJobs: nodes
// bound to an account or inside an account's subtree); rank 0 is served
// first. Nodes above every account (the root, "llm") get kNoRank.
//
// Jobs charged to an interior node. A user without a node of their own in an
// account (carol in "posttrain", whose children are alice and bob) is
// charged to the account node. Such a node's own jobs rank right after all
// of its descendants (post-order): e.g. alice, bob, then posttrain itself.
// Why: the owners split posttrain's entitlement among its children
// explicitly; carol has no share of her own, so, like a zero-share child,
// she gets what alice and bob leave and never blocks them. Her usage still
// counts in posttrain's subtree usage, so posttrain as a whole is not
// favoured against its siblings because of her.
//
// Job order (JobBefore), a total order:
//   1. allocated (min-runtime > 0) before unallocated, always;
//   2. node rank (lower first); jobs on nodes without a rank (kNoRank, or a
//      node id outside the tree: a caller bug) last;
//   3. user priority, higher first; since ranks are unique per node this
//      only ever orders jobs of the same node: a user's priority never
//      jumps a job over another team's. (Ignored for jobs without a rank,
//      which may belong to different nodes.);
//   4. submit time, earlier first;  5. job id, lower first.
//
// Slurm priority (Priority), 32 bits, never 0 (Slurm holds priority-0 jobs):
//   bit 31                 allocated
//   next R bits            inverted rank: 2^R - 1 - rank (0 for kNoRank)
//   low U = 31 - R bits    min(user_priority, 2^U - 2) + 1  (1 without a rank)
// R = 15 (U = 16, user priorities up to 65534 exact) while fewer than 2^15
// nodes hold ranks; beyond that R grows to the bits needed (at most 17 for
// the tree's 100,000-node limit) and U shrinks to match (>= 14, user
// priorities up to 16382 exact). So the encoding always reproduces steps
// 1-3 of the job order exactly except that user priorities above 2^U - 2
// tie with each other (clamping is monotone: a higher user priority never
// encodes lower). Steps 4-5 are not encoded: Slurm breaks equal priorities
// itself (by submit time, then job id, in practice the same).
// Hence: JobBefore(a, b) implies Priority(a) >= Priority(b).
// The top value, kGrantedPriority (all 32 bits), is never made by Priority()
// (the top-ranked node's two highest user priorities tie one below it): it
// marks a job the time-slicing pass granted a preemption (timeslice_plan.h),
// which preempt/timeslice sets so that Slurm's scheduler, run when the
// victims end, tries that job first and starts it on the GPUs freed for it.
// priority/budget's next pass gives it back its own priority.
// R depends only on the number of ranked nodes (RankBitsFor), so whoever
// knows that number (the report snapshot's ranked nodes) can read a
// priority back into its factors (DecodePriority), as `sbudget explain`
// does for the pending jobs Slurm lists.
//
// Thread safety: Compute() mutates; const methods may run concurrently with
// each other but not with Compute(). A FairShareOrder keeps its buffers
// between passes: reuse one object so that a pass allocates nothing once
// the tree's size is stable.
#ifndef SLURM_BUDGET_LIBBUDGET_ORDER_H_
#define SLURM_BUDGET_LIBBUDGET_ORDER_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"

namespace budget {

// The priority of a job granted a preemption (see above).
constexpr uint32_t kGrantedPriority = 0xFFFFFFFFu;

struct PendingJob {
  uint32_t job_id = 0;
  NodeId node = kNoNode;
  bool allocated = false;  // min_runtime > 0
  uint32_t user_priority = 0;
  TimePoint submit_time = 0;
};

// The job order (see above) over `standings` indexed by NodeId, as
// FairShareOrder::standings() returns them (a node's rank is its Standing's
// rank; kNoNode and ids outside `standings` have no rank). For callers that
// hold a copy of the standings rather than the order (preempt/timeslice reads
// them from priority/budget's snapshot); FairShareOrder::JobBefore is this
// function over its own standings.
bool JobBefore(const std::vector<Standing>& standings, const PendingJob& a, const PendingJob& b);

// What Priority() was made of, for sprio-style display.
struct PriorityFactors {
  double fairshare = 0.0;  // 1 - rank / ranked_count(); 0 without a rank.
  uint32_t rank = 0;       // kNoRank without one.
  uint32_t user_priority = 0;  // As declared (before clamping).
  bool allocated = false;
};

// Reads a priority made by FairShareOrder::Priority() back into its
// factors, given the ranked_count() of the order that made it: allocated,
// rank (kNoRank when the rank field is 0), fairshare, and user_priority as
// encoded (clamped at 2^U - 2; 0 without a rank). Returns false, with *out
// unspecified, for a value Priority() cannot have made with that many ranked
// nodes (0, kGrantedPriority, a rank >= ranked_count, a user field of 0, or
// no rank with a user field other than 1): e.g. a priority an administrator set with
// `scontrol update priority=`, or one made by an older order of a tree of
// another size. REQUIRES: out != nullptr.
bool DecodePriority(uint32_t priority, uint32_t ranked_count, PriorityFactors* out);

class FairShareOrder {
 public:
  static constexpr uint32_t kNoRank = std::numeric_limits<uint32_t>::max();
  // Entitlements below this count as this in Standing::usage_ratio, so that
  // the ratio stays finite for zero-share nodes (standing.h).
  static constexpr double kMinEntitlementForRatio = 1e-12;
  static constexpr int kMinRankBits = 15;

  FairShareOrder() = default;

  // Recomputes every standing and rank. On error (InvalidArgument naming the
  // bad argument or the node) the previous order is kept.
  // REQUIRES: direct_usage.size() == demand.size() == tree.size(); usage
  // values finite and >= 0; demand finite; capacity_gpus > 0; window > 0.
  Status Compute(const AllocationTree& tree, const std::vector<double>& direct_usage,
                 const std::vector<double>& demand, double capacity_gpus, Seconds window);

  // Number of nodes of the last computed tree (0 before the first Compute).
  size_t size() const { return standings_.size(); }
  // Number of nodes with a rank (those that can hold jobs).
  uint32_t ranked_count() const { return static_cast<uint32_t>(ranked_nodes_.size()); }
  // Nodes with a rank, most under-served first: ranked_nodes()[r] has rank r.
  const std::vector<NodeId>& ranked_nodes() const { return ranked_nodes_; }

  // Indexed by NodeId. rank is kNoRank for nodes that hold no jobs.
  const std::vector<Standing>& standings() const { return standings_; }
  // REQUIRES: 0 <= id < size() (here and below).
  const Standing& standing(NodeId id) const { return standings_[id]; }
  // ratio(id) among its siblings (see above); 0 for the root.
  double sibling_ratio(NodeId id) const { return sibling_ratio_[id]; }
  // Position among its siblings in ranked order (0 = first); 0 for the root.
  uint32_t sibling_position(NodeId id) const { return sibling_position_[id]; }
  // Whether the node's subtree has demand.
  bool has_demand(NodeId id) const { return subtree_demand_[id] != 0; }
  // rank, or kNoRank for kNoNode / ids outside the tree / nodes without one.
  uint32_t RankOf(NodeId id) const {
    return id >= 0 && static_cast<size_t>(id) < standings_.size() ? standings_[id].rank
                                                                   : kNoRank;
  }

  // The job order (see above): whether `a` is served before `b`.
  bool JobBefore(const PendingJob& a, const PendingJob& b) const;
  // Sorts jobs into the job order.
  void SortJobs(std::vector<PendingJob>* jobs) const;
  // The 32-bit Slurm priority (see above), never 0; fills *factors if
  // non-null.
  uint32_t Priority(const PendingJob& job, PriorityFactors* factors = nullptr) const;
  // Bits of the priority holding the inverted rank (R above).
  int rank_bits() const { return rank_bits_; }
  // R for an order with `ranked_count` ranked nodes.
  static int RankBitsFor(uint32_t ranked_count);

 private:
  void RankChildren(const AllocationTree& tree, NodeId parent);
  void AssignRanks(const AllocationTree& tree, NodeId id);

  std::vector<Standing> standings_;
  std::vector<double> sibling_ratio_;
  std::vector<uint32_t> sibling_position_;
  std::vector<uint8_t> subtree_demand_;
  std::vector<NodeId> ranked_nodes_;
  int rank_bits_ = kMinRankBits;

  // Scratch of Compute(), kept to avoid reallocating every pass.
  std::vector<double> sort_key_;     // Rounded ratio (or usage fraction).
  std::vector<NodeId> ranked_children_;  // Every node's children, ranked.
  std::vector<int32_t> children_begin_;  // Offset into ranked_children_.
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_ORDER_H_
