// SubtreeHistoryCache: see history_cache.h.
#include "libbudget/report/history_cache.h"

#include <algorithm>
#include <atomic>

#include "libbudget/state/metrics.h"

namespace budget {

namespace {

// closed_generation() values are unique in the process, so that a caller
// never mistakes another cache's series for the ones it derived from.
uint64_t NextGeneration() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

bool SubtreeHistoryCache::SameTree(const AllocationTree& tree) const {
  if (tree.size() != paths_.size()) return false;
  for (size_t i = 0; i < tree.size(); ++i) {
    const TreeNode& node = tree.node(static_cast<NodeId>(i));
    if (node.parent != parents_[i] || node.entitlement != entitlements_[i] || node.path != paths_[i]) return false;
  }
  return true;
}

void SubtreeHistoryCache::Reset(const AllocationTree& tree, double capacity_gpus, Seconds window, Seconds width,
                                size_t slots) {
  const size_t n = tree.size();
  paths_.resize(n);
  parents_.resize(n);
  entitlements_.resize(n);
  depths_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const TreeNode& node = tree.node(static_cast<NodeId>(i));
    paths_[i] = node.path;
    parents_[i] = node.parent;
    entitlements_[i] = node.entitlement;
    depths_[i] = node.depth;
  }
  for (std::vector<double>* values : {&own_demand_, &own_delivered_, &owed_, &delivered_}) {
    values->assign(n * slots, 0.0);
  }
  capacity_gpus_ = capacity_gpus;
  window_ = window;
  width_ = width;
  slots_ = slots;
  base_ = 0;
  valid_ = true;
}

void SubtreeHistoryCache::Shift(size_t shift) {
  const size_t n = paths_.size();
  for (size_t k = 0; k < shift; ++k) {
    // The oldest row leaves the window and becomes the newest.
    const size_t row = Row(0);
    base_ = (base_ + 1) % slots_;
    for (std::vector<double>* values : {&own_demand_, &own_delivered_, &owed_, &delivered_}) {
      std::fill_n(values->begin() + static_cast<std::ptrdiff_t>(row), n, 0.0);
    }
  }
}

void SubtreeHistoryCache::Recompute(const Ledger& ledger, size_t from) {
  if (from >= slots_) return;
  const size_t n = paths_.size();
  // Own reads, one node at a time (one ledger lookup per node and series),
  // each slot's buckets added in time order from 0.
  for (size_t id = 0; id < n; ++id) {
    const Ledger::SeriesReader demand = ledger.Reader(paths_[id], Ledger::Series::kDemand);
    const Ledger::SeriesReader allocated = ledger.Reader(paths_[id], Ledger::Series::kAllocated);
    for (size_t k = from; k < slots_; ++k) {
      const TimePoint begin = first_ + static_cast<TimePoint>(k) * width_;
      own_demand_[Row(k) + id] = demand.Sum(begin, begin + width_);
      own_delivered_[Row(k) + id] = allocated.Sum(begin, begin + width_);
    }
  }
  slots_read_ += slots_ - from;
  // Then each slot's row: subtrees summed children before parents, owed
  // (the summed demand) capped at the entitlement.
  for (size_t k = from; k < slots_; ++k) {
    const size_t row = Row(k);
    double* owed = &owed_[row];
    double* delivered = &delivered_[row];
    std::copy_n(&own_demand_[row], n, owed);
    std::copy_n(&own_delivered_[row], n, delivered);
    for (size_t id = n; id-- > 1;) {
      owed[parents_[id]] += owed[id];
      delivered[parents_[id]] += delivered[id];
    }
    for (size_t id = 0; id < n; ++id) owed[id] = OwedInHour(owed[id], entitlements_[id], capacity_gpus_, width_);
  }
}

void SubtreeHistoryCache::SumHeads() {
  const size_t n = paths_.size();
  delivered_head_.assign(n, 0.0);
  owed_head_.assign(n, 0.0);
  for (size_t k = 0; k + 1 < slots_; ++k) {
    const size_t row = Row(k);
    for (size_t id = 0; id < n; ++id) {
      delivered_head_[id] += delivered_[row + id];
      owed_head_[id] += owed_[row + id];
    }
  }
  heads_valid_ = true;
}

void SubtreeHistoryCache::CopySeries(size_t id, SnapshotHistory* out) const {
  if (slots_ == 0) {  // as SubtreeDeliveredAndOwedInto leaves it
    *out = SnapshotHistory();
    return;
  }
  out->path = paths_[id];
  out->start = first_;
  out->width = width_;
  out->delivered.resize(slots_);
  out->owed.resize(slots_);
  for (size_t k = 0; k < slots_; ++k) {
    out->delivered[k] = delivered(id, k);
    out->owed[k] = owed(id, k);
  }
}

void SubtreeHistoryCache::Update(const AllocationTree& tree, double capacity_gpus, Seconds window, TimePoint now,
                                 Ledger* ledger) {
  slots_read_ = 0;
  const TimePoint changed = ledger->TakeEarliestChange();
  const Seconds width = ledger->options().report_bucket_width;
  if (width <= 0 || window <= 0) {  // no grid: no series, totals 0
    closed_generation_ = NextGeneration();
    Reset(tree, capacity_gpus, window, width, 0);
    valid_ = false;
    heads_valid_ = false;
    return;
  }
  const size_t slots = static_cast<size_t>(std::max<int64_t>(1, window / width));
  const TimePoint first = HistoryFirstSlot(now, window, width);
  size_t from = 0;
  bool kept = false;  // and not shifted
  if (!valid_ || !SameTree(tree) || capacity_gpus != capacity_gpus_ || window != window_ || width != width_ ||
      slots != slots_ || first < first_ || (first - first_) / width >= static_cast<TimePoint>(slots)) {
    Reset(tree, capacity_gpus, window, width, slots);
  } else {
    const size_t shift = static_cast<size_t>((first - first_) / width);
    Shift(shift);
    from = slots - shift;  // the new slots
    kept = shift == 0;
    if (changed != Ledger::kNoneChanged) {
      const size_t changed_slot =
          changed < first ? 0 : static_cast<size_t>(std::min<TimePoint>((changed - first) / width, slots));
      from = std::min(from, changed_slot);
    }
  }
  first_ = first;
  Recompute(*ledger, from);
  // Slots [0, slots - 1) hold what they held after the last Update unless
  // they moved or one was read again.
  const bool closed_unchanged = kept && from + 1 >= slots_;
  if (!closed_unchanged) closed_generation_ = NextGeneration();
  if (!(heads_valid_ && closed_unchanged)) SumHeads();
}

}  // namespace budget
