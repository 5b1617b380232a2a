// SubtreeHistoryCache: SubtreeDeliveredAndOwed (report_snapshot.h), kept
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
// What Update recomputes, per node, before summing subtrees and capping
// owed (in the same order of additions as SubtreeDeliveredAndOwedInto, so
// the values are bitwise the same; the test compares them):
//   - every slot, the first time, or when the tree (paths, parents,
//     entitlements), the capacity, the window or the slot width changed, or
//     the slots moved other than forward;
//   - otherwise, when the slots moved forward (a new hour), the kept slots
//     shift down and the new ones are read;
//   - and every slot from the earliest one the ledger changed.
// Buckets leaving the window are not changes: the ledger retains every
// bucket of the first slot (its window starts before it).
//
// The cache must be the ledger's only TakeEarliestChange() consumer.
// Thread safety: none.
#ifndef SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_
#define SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "libbudget/ledger.h"
#include "libbudget/report_snapshot.h"
#include "libbudget/tree.h"

namespace budget {

// The two steps of SubtreeDeliveredAndOwed (report_snapshot.h), over the
// slots [from, slots) of the grid of `width`-wide slots that starts at
// `first`, shared by it and the cache so that the rule lives once:
//   - AddOwnSlots adds `path`'s own demand and allocated GPU-s per slot
//     (one ledger read each) into demand[k] and delivered[k], which hold
//     the grid's slot count;
//   - SumSubtreesAndCapOwed adds each node's series into its parent's,
//     children before parents (a child's id is above its parent's:
//     tree.h), then caps each owed value at the node's entitlement
//     (metrics.h OwedInHour).
void AddOwnSlots(const Ledger& ledger, const std::string& path, TimePoint first, Seconds width, size_t from,
                 std::vector<double>* demand, std::vector<double>* delivered);
void SumSubtreesAndCapOwed(const AllocationTree& tree, double capacity_gpus, Seconds width, size_t from,
                           std::vector<SnapshotHistory>* series);

class SubtreeHistoryCache {
 public:
  // Brings histories() to SubtreeDeliveredAndOwed(tree, capacity_gpus,
  // window, now, *ledger). REQUIRES: window > 0, capacity_gpus >= 0.
  void Update(const AllocationTree& tree, double capacity_gpus, Seconds window, TimePoint now, Ledger* ledger);
  // Indexed by NodeId of the tree last given.
  const std::vector<SnapshotHistory>& histories() const { return subtree_; }
  // The sums of histories()[id]'s delivered and owed values over the whole
  // window, as a loop from the first slot to the last would add them (so
  // bitwise equal to it): the sum of all slots but the last is kept from
  // one Update to the next while those slots are unchanged, which is every
  // pass within the same hour; a report then reads two values per node
  // rather than its 2 x 168 (2.7 MB over 1,000 nodes).
  double delivered_total(size_t id) const { return Total(delivered_head_[id], subtree_[id].delivered); }
  double owed_total(size_t id) const { return Total(owed_head_[id], subtree_[id].owed); }
  // Slots read from the ledger by the last Update (per node); for tests.
  size_t slots_read() const { return slots_read_; }
  // What the last Update changed: with kept(), every series moved down by
  // shift() slots and its values from slot changed_from() on may differ;
  // without, everything may differ (the first Update, another tree, ...).
  bool kept() const { return kept_; }
  size_t shift() const { return shift_; }
  size_t changed_from() const { return changed_from_; }

 private:
  bool SameTree(const AllocationTree& tree) const;
  void Reset(const AllocationTree& tree, double capacity_gpus, Seconds window, Seconds width, size_t slots);
  // Shifts every kept series down by `shift` slots (zeros at the end).
  void Shift(size_t shift);
  // Reads the nodes' own series from slot `from` on, then sums subtrees
  // and caps owed over those slots.
  void Recompute(const AllocationTree& tree, Ledger* ledger, size_t from);

  static double Total(double head, const std::vector<double>& series) {
    return series.empty() ? 0.0 : head + series.back();
  }
  // Sums every series' slots but the last into the heads.
  void SumHeads();

  bool valid_ = false;
  std::vector<std::string> paths_;
  std::vector<NodeId> parents_;
  std::vector<double> entitlements_;
  double capacity_gpus_ = 0.0;
  Seconds window_ = 0;
  Seconds width_ = 0;
  size_t slots_ = 0;
  TimePoint first_ = 0;
  // Per node: its own demand and allocated GPU-s per slot (not summed).
  std::vector<std::vector<double>> own_demand_;
  std::vector<std::vector<double>> own_delivered_;
  std::vector<SnapshotHistory> subtree_;
  // Per node: the sum of subtree_'s slots [0, slots - 1), when heads_valid_.
  std::vector<double> delivered_head_;
  std::vector<double> owed_head_;
  bool heads_valid_ = false;
  size_t slots_read_ = 0;
  bool kept_ = false;
  size_t shift_ = 0;
  size_t changed_from_ = 0;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_HISTORY_CACHE_H_
