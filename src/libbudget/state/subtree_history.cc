// Subtree history (subtree_history.h): the hour-by-hour delivered and owed
// sums of each node's subtree.
#include "libbudget/state/subtree_history.h"

#include <algorithm>
#include <cstdint>

#include "libbudget/state/metrics.h"

namespace budget {

TimePoint HistoryFirstSlot(TimePoint now, Seconds window, Seconds width) {
  int64_t slots = std::max<int64_t>(1, window / width);
  int64_t last = now >= 0 ? now / width : -((-now + width - 1) / width);
  return (last - slots + 1) * width;
}

namespace {

// The two steps of SubtreeDeliveredAndOwed, over every slot of the grid of
// `width`-wide slots that starts at `first` (SubtreeHistoryCache
// computes the same in its own layout; its tests compare the two bitwise):
//   - AddOwnSlots adds `path`'s own demand and allocated GPU-s per slot
//     (one ledger read each) into demand[k] and delivered[k], which hold
//     the grid's slot count;
//   - SumSubtreesAndCapOwed adds each node's series into its parent's,
//     children before parents (a child's id is above its parent's:
//     tree.h), then caps each owed value at the node's entitlement
//     (metrics.h OwedInHour).
void AddOwnSlots(const Ledger& ledger, const std::string& path, TimePoint first, Seconds width,
                 std::vector<double>* demand, std::vector<double>* delivered) {
  const size_t slots = demand->size();
  const TimePoint end = first + static_cast<TimePoint>(slots) * width;
  const struct {
    Ledger::Series series;
    std::vector<double>* into;
  } wanted[] = {{Ledger::Series::kDemand, demand}, {Ledger::Series::kAllocated, delivered}};
  for (const auto& w : wanted) {
    Ledger::History read = ledger.SeriesHistory(path, w.series, first, end, width);
    for (size_t i = 0; i < read.gpu_seconds.size(); ++i) {
      int64_t slot = (read.start - first) / width + static_cast<int64_t>(i);
      if (slot >= 0 && static_cast<size_t>(slot) < slots) (*w.into)[slot] += read.gpu_seconds[i];
    }
  }
}

void SumSubtreesAndCapOwed(const AllocationTree& tree, double capacity_gpus, Seconds width,
                           std::vector<SnapshotHistory>* series) {
  for (size_t id = tree.size(); id-- > 1;) {
    SnapshotHistory& child = (*series)[id];
    SnapshotHistory& parent = (*series)[static_cast<size_t>(tree.node(static_cast<NodeId>(id)).parent)];
    for (size_t k = 0; k < child.owed.size(); ++k) {
      parent.owed[k] += child.owed[k];
      parent.delivered[k] += child.delivered[k];
    }
  }
  for (size_t id = 0; id < tree.size(); ++id) {
    const double entitlement = tree.node(static_cast<NodeId>(id)).entitlement;
    for (double& owed : (*series)[id].owed) owed = OwedInHour(owed, entitlement, capacity_gpus, width);
  }
}

}  // namespace

void SubtreeDeliveredAndOwedInto(const AllocationTree& tree, double capacity_gpus, Seconds window,
                                 TimePoint now, const Ledger& ledger,
                                 std::vector<SnapshotHistory>* out) {
  out->resize(tree.size());
  const Seconds width = ledger.options().report_bucket_width;
  if (width <= 0 || window <= 0) {
    for (SnapshotHistory& h : *out) h = SnapshotHistory();
    return;
  }
  const size_t slots = static_cast<size_t>(std::max<int64_t>(1, window / width));
  const TimePoint first = HistoryFirstSlot(now, window, width);
  // Each node's own hourly demand and delivery (one ledger read per charged
  // path), then subtrees summed in one reverse scan, then each node's summed
  // demand capped at its entitlement (history_cache.h: the steps are shared
  // with SubtreeHistoryCache). O(nodes x hours), not O(nodes x depth x
  // buckets). `owed` holds the demand until the cap; assign() keeps the
  // vectors' memory, so a caller that keeps *out allocates nothing.
  for (size_t id = 0; id < tree.size(); ++id) {
    SnapshotHistory& h = (*out)[id];
    h.path = tree.node(static_cast<NodeId>(id)).path;
    h.start = first;
    h.width = width;
    h.delivered.assign(slots, 0.0);
    h.owed.assign(slots, 0.0);
    if (ledger.HasPath(h.path)) AddOwnSlots(ledger, h.path, first, width, &h.owed, &h.delivered);
  }
  SumSubtreesAndCapOwed(tree, capacity_gpus, width, out);
}

std::vector<SnapshotHistory> SubtreeDeliveredAndOwed(const AllocationTree& tree,
                                                     double capacity_gpus, Seconds window,
                                                     TimePoint now, const Ledger& ledger) {
  std::vector<SnapshotHistory> out;
  SubtreeDeliveredAndOwedInto(tree, capacity_gpus, window, now, ledger, &out);
  return out;
}

}  // namespace budget
