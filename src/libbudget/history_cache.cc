// SubtreeHistoryCache: see history_cache.h.
#include "libbudget/history_cache.h"

#include <algorithm>

#include "libbudget/metrics.h"

namespace budget {

void AddOwnSlots(const Ledger& ledger, const std::string& path, TimePoint first, Seconds width, size_t from,
                 std::vector<double>* demand, std::vector<double>* delivered) {
  const size_t slots = demand->size();
  const TimePoint begin = first + static_cast<TimePoint>(from) * width;
  const TimePoint end = first + static_cast<TimePoint>(slots) * width;
  const struct {
    Ledger::Series series;
    std::vector<double>* into;
  } wanted[] = {{Ledger::Series::kDemand, demand}, {Ledger::Series::kAllocated, delivered}};
  for (const auto& w : wanted) {
    Ledger::History read = ledger.SeriesHistory(path, w.series, begin, end, width);
    for (size_t i = 0; i < read.gpu_seconds.size(); ++i) {
      int64_t slot = (read.start - first) / width + static_cast<int64_t>(i);
      if (slot >= static_cast<int64_t>(from) && static_cast<size_t>(slot) < slots) {
        (*w.into)[slot] += read.gpu_seconds[i];
      }
    }
  }
}

void SumSubtreesAndCapOwed(const AllocationTree& tree, double capacity_gpus, Seconds width, size_t from,
                           std::vector<SnapshotHistory>* series) {
  for (size_t id = tree.size(); id-- > 1;) {
    SnapshotHistory& child = (*series)[id];
    SnapshotHistory& parent = (*series)[static_cast<size_t>(tree.node(static_cast<NodeId>(id)).parent)];
    for (size_t k = from; k < child.owed.size(); ++k) {
      parent.owed[k] += child.owed[k];
      parent.delivered[k] += child.delivered[k];
    }
  }
  for (size_t id = 0; id < tree.size(); ++id) {
    const double entitlement = tree.node(static_cast<NodeId>(id)).entitlement;
    std::vector<double>& owed = (*series)[id].owed;
    for (size_t k = from; k < owed.size(); ++k) owed[k] = OwedInHour(owed[k], entitlement, capacity_gpus, width);
  }
}

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
  own_demand_.resize(n);
  own_delivered_.resize(n);
  subtree_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const TreeNode& node = tree.node(static_cast<NodeId>(i));
    paths_[i] = node.path;
    parents_[i] = node.parent;
    entitlements_[i] = node.entitlement;
    own_demand_[i].assign(slots, 0.0);
    own_delivered_[i].assign(slots, 0.0);
    subtree_[i].path = node.path;
    subtree_[i].width = width;
    subtree_[i].owed.assign(slots, 0.0);
    subtree_[i].delivered.assign(slots, 0.0);
  }
  capacity_gpus_ = capacity_gpus;
  window_ = window;
  width_ = width;
  slots_ = slots;
  valid_ = true;
}

void SubtreeHistoryCache::Shift(size_t shift) {
  auto shift_down = [shift](std::vector<double>* series) {
    std::move(series->begin() + static_cast<std::ptrdiff_t>(shift), series->end(), series->begin());
    std::fill(series->end() - static_cast<std::ptrdiff_t>(shift), series->end(), 0.0);
  };
  for (size_t i = 0; i < paths_.size(); ++i) {
    shift_down(&own_demand_[i]);
    shift_down(&own_delivered_[i]);
    shift_down(&subtree_[i].owed);
    shift_down(&subtree_[i].delivered);
  }
}

void SubtreeHistoryCache::Recompute(const AllocationTree& tree, Ledger* ledger, size_t from) {
  if (from >= slots_) return;
  const auto at = [from](std::vector<double>& v) { return v.begin() + static_cast<std::ptrdiff_t>(from); };
  // Each node's own reads, as SubtreeDeliveredAndOwedInto makes them: zero,
  // plus the ledger's sum per slot; then the subtrees from them.
  for (size_t id = 0; id < tree.size(); ++id) {
    std::fill(at(own_demand_[id]), own_demand_[id].end(), 0.0);
    std::fill(at(own_delivered_[id]), own_delivered_[id].end(), 0.0);
    if (ledger->HasPath(paths_[id])) {
      AddOwnSlots(*ledger, paths_[id], first_, width_, from, &own_demand_[id], &own_delivered_[id]);
    }
    std::copy(at(own_demand_[id]), own_demand_[id].end(), at(subtree_[id].owed));
    std::copy(at(own_delivered_[id]), own_delivered_[id].end(), at(subtree_[id].delivered));
  }
  slots_read_ += slots_ - from;
  SumSubtreesAndCapOwed(tree, capacity_gpus_, width_, from, &subtree_);
}

void SubtreeHistoryCache::SumHeads() {
  delivered_head_.assign(subtree_.size(), 0.0);
  owed_head_.assign(subtree_.size(), 0.0);
  for (size_t id = 0; id < subtree_.size(); ++id) {
    const SnapshotHistory& h = subtree_[id];
    for (size_t k = 0; k + 1 < h.delivered.size(); ++k) delivered_head_[id] += h.delivered[k];
    for (size_t k = 0; k + 1 < h.owed.size(); ++k) owed_head_[id] += h.owed[k];
  }
  heads_valid_ = true;
}

void SubtreeHistoryCache::Update(const AllocationTree& tree, double capacity_gpus, Seconds window, TimePoint now,
                                 Ledger* ledger) {
  slots_read_ = 0;
  kept_ = false;
  shift_ = 0;
  changed_from_ = 0;
  const TimePoint changed = ledger->TakeEarliestChange();
  const Seconds width = ledger->options().report_bucket_width;
  if (width <= 0 || window <= 0) {
    valid_ = false;
    paths_.clear();
    subtree_.assign(tree.size(), SnapshotHistory());
    delivered_head_.assign(tree.size(), 0.0);  // every series is empty: totals 0
    owed_head_.assign(tree.size(), 0.0);
    heads_valid_ = false;
    return;
  }
  const size_t slots = static_cast<size_t>(std::max<int64_t>(1, window / width));
  const TimePoint first = HistoryFirstSlot(now, window, width);
  size_t from = 0;
  if (!valid_ || !SameTree(tree) || capacity_gpus != capacity_gpus_ || window != window_ || width != width_ ||
      slots != slots_ || first < first_ || (first - first_) / width >= static_cast<TimePoint>(slots)) {
    Reset(tree, capacity_gpus, window, width, slots);
  } else {
    const size_t shift = static_cast<size_t>((first - first_) / width);
    if (shift > 0) Shift(shift);
    from = slots - shift;  // the new slots
    if (changed != Ledger::kNoneChanged) {
      const size_t changed_slot =
          changed < first ? 0 : static_cast<size_t>(std::min<TimePoint>((changed - first) / width, slots));
      from = std::min(from, changed_slot);
    }
    kept_ = true;
    shift_ = shift;
    changed_from_ = from;
  }
  first_ = first;
  for (SnapshotHistory& h : subtree_) h.start = first;
  Recompute(tree, ledger, from);
  // The heads stand while slots [0, slots - 1) are those they summed.
  if (!(heads_valid_ && kept_ && shift_ == 0 && changed_from_ + 1 >= slots_)) SumHeads();
}

}  // namespace budget
