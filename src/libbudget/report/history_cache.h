// SubtreeHistoryCache: SubtreeDeliveredAndOwed (subtree_history.h), kept
// from one report to the next and recomputed only where it can have
// changed.
//
// Why. The report's owed and delivered figures are hour-by-hour sums over
// the whole window: for 1,110 tree nodes and a week of hours, two ledger
// reads per node over every retained bucket, 370,000 slot values summed up
// the tree and capped, at every pass. Between two passes in the same hour
// only the current hour changes, unless a charge reached further back (a
// job's tail charged from its cursor, a restart): the ledger says how far
// back (Ledger::TakeEarliestChange).
//
// What Update recomputes, before summing subtrees and capping owed:
//   - every slot, the first time, or when the tree (paths, parents,
//     entitlements), the capacity, the window or the slot width changed, or
//     the slots moved other than forward;
//   - otherwise, when the slots moved forward (a new hour), the kept slots
//     move down and the new ones are read;
//   - and every slot from the earliest one the ledger changed.
// Buckets leaving the window are not changes: the ledger retains every
// bucket of the first slot (its window starts before it).
//
// Layout. The values are held slot by slot: one row per slot with every
// node's value, the rows a ring (a new hour reuses the oldest row). A pass
// within an hour reads and writes one row of each series: 8 KB at 1,000
// nodes, where a series per node put each node's current value on a page of
// its own, and a pass of a controller that had run other work for a minute
// paid a cache and TLB miss for each (perf on the live benchmark: the
// copies and fills of those single values were a quarter of the pass).
//
// The values are bitwise SubtreeDeliveredAndOwedInto's, which states the
// rule plainly and serves as the tests' reference: per node and slot its
// own demand and allocated GPU-s (each slot's buckets added in time order
// from 0), then children added into parents from the highest node id down
// (a child's id is above its parent's: tree.h), then owed capped at the
// node's entitlement (metrics.h OwedInHour).
//
// The cache must be the ledger's only TakeEarliestChange() consumer.
// Thread safety: none.
#ifndef SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_
#define SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/subtree_history.h"
#include "libbudget/state/tree.h"

namespace budget {

class SubtreeHistoryCache {
 public:
  // Brings the series to SubtreeDeliveredAndOwed(tree, capacity_gpus,
  // window, now, *ledger). REQUIRES: window > 0, capacity_gpus >= 0.
  void Update(const AllocationTree& tree, double capacity_gpus, Seconds window, TimePoint now, Ledger* ledger);

  // The grid of the last Update: slots() slots of width() seconds from
  // start(), the last holding `now`; no slots when the ledger has no
  // report width. Nodes are the NodeIds of the tree last given.
  size_t node_count() const { return paths_.size(); }
  size_t slots() const { return slots_; }
  TimePoint start() const { return first_; }
  Seconds width() const { return width_; }
  const std::string& path(size_t id) const { return paths_[id]; }
  int depth(size_t id) const { return depths_[id]; }
  // Subtree GPU-s of node `id` in slot `slot` (0 = the oldest).
  double delivered(size_t id, size_t slot) const { return delivered_[Row(slot) + id]; }
  double owed(size_t id, size_t slot) const { return owed_[Row(slot) + id]; }
  // Node `id`'s two series as one SnapshotHistory.
  void CopySeries(size_t id, SnapshotHistory* out) const;

  // The sums of a node's delivered and owed values over the whole window,
  // as a loop from the first slot to the last would add them (so bitwise
  // equal to it): the sum of all slots but the last is kept from one
  // Update to the next while those slots are unchanged, which is every
  // pass within the same hour; a report then reads two values per node
  // rather than its 2 x 168.
  double delivered_total(size_t id) const { return Total(delivered_head_, delivered_, id); }
  double owed_total(size_t id) const { return Total(owed_head_, owed_, id); }

  // Moves whenever a value of any slot but the last may have changed (the
  // first Update, another tree, a new hour, a charge reaching back): what
  // a caller derived from those slots stands while it does not move. Never
  // the same for two caches of one process, and never 0.
  uint64_t closed_generation() const { return closed_generation_; }
  // Slots read from the ledger by the last Update (per node); for tests.
  size_t slots_read() const { return slots_read_; }

 private:
  size_t Row(size_t slot) const { return (base_ + slot) % slots_ * paths_.size(); }
  double Total(const std::vector<double>& head, const std::vector<double>& values, size_t id) const {
    return slots_ == 0 ? 0.0 : head[id] + values[Row(slots_ - 1) + id];
  }
  bool SameTree(const AllocationTree& tree) const;
  void Reset(const AllocationTree& tree, double capacity_gpus, Seconds window, Seconds width, size_t slots);
  // Moves the ring `shift` slots forward: the oldest rows become the
  // newest, zeroed.
  void Shift(size_t shift);
  // Reads the nodes' own values of slots [from, slots) from the ledger,
  // then sums subtrees and caps owed in those slots.
  void Recompute(const Ledger& ledger, size_t from);
  // Sums every node's slots but the last into the heads.
  void SumHeads();

  bool valid_ = false;
  std::vector<std::string> paths_;
  std::vector<NodeId> parents_;
  std::vector<double> entitlements_;
  std::vector<int> depths_;
  double capacity_gpus_ = 0.0;
  Seconds window_ = 0;
  Seconds width_ = 0;
  size_t slots_ = 0;
  size_t base_ = 0;  // the row of slot 0
  TimePoint first_ = 0;
  // Rows of node_count() values, slots_ rows each: the nodes' own demand
  // and allocated GPU-s (not summed), and the subtree series.
  std::vector<double> own_demand_;
  std::vector<double> own_delivered_;
  std::vector<double> owed_;
  std::vector<double> delivered_;
  // Per node: the sum of its slots [0, slots - 1), when heads_valid_.
  std::vector<double> delivered_head_;
  std::vector<double> owed_head_;
  bool heads_valid_ = false;
  uint64_t closed_generation_ = 0;
  size_t slots_read_ = 0;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_
