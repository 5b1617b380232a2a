// WaitingClasses: the waiting jobs of each lane, split by shape
// class (libbudget/timeslice_plan.h ShapeClass), each class in the lane's
// order (PendingQueue::Key). The time-slicing pass skips a class once one
// of its jobs cannot be served; with the jobs kept by class, the
// simulator's walk of the queue (engine.cc ClassWalk) leaves a skipped
// class out in O(1) instead of stepping over its jobs one by one, which at
// 2-3x demand are most of a thousand waiting jobs at every pass.
//
// A lane has a handful of classes (its team's job shapes); classes stay
// once created, empty or not, so that their ids are stable. Each lane also
// keeps its servable jobs of each group (quick-start or not) in one
// order-statistic tree, so that the k-th of them is found in O(log n): where
// the pass's window of TimeslicePlanner::kMaxJobsTried jobs ends.
//
// Thread safety: none.
#ifndef SLURM_BUDGET_SIM_WAITING_CLASSES_H_
#define SLURM_BUDGET_SIM_WAITING_CLASSES_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include "libbudget/policy/timeslice_plan.h"
#include "sim/pending_queue.h"

namespace budget {
namespace sim {

class WaitingClasses {
 public:
  struct Class {
    ShapeClass shape;
    bool quick = false;
    bool servable = false;  // the time-slicing pass may serve it (IsServable)
    uint32_t id = 0;  // 0 .. class_count() - 1
    std::set<PendingQueue::Key> jobs;
  };

  // Keys in order, with find_by_order / order_of_key in O(log n).
  using Ranked = __gnu_pbds::tree<PendingQueue::Key, __gnu_pbds::null_type, std::less<PendingQueue::Key>,
                                  __gnu_pbds::rb_tree_tag, __gnu_pbds::tree_order_statistics_node_update>;

  void Resize(size_t lanes) {
    lanes_.resize(lanes);
    ranked_.resize(2 * lanes);
  }
  // The servable jobs of `lane` whose class's quick == quick.
  const Ranked& servable(size_t lane, bool quick) const { return ranked_[2 * lane + (quick ? 1 : 0)]; }
  size_t lanes() const { return lanes_.size(); }
  size_t class_count() const { return count_; }
  const std::vector<Class>& lane(size_t lane) const { return lanes_[lane]; }

  // `eligible`: the job's nodes (one shared set per GPU type; null: every
  // node), part of its class.
  void Add(size_t lane, const JobShape& job, const EligibleNodes& eligible, const PendingQueue::Key& key) {
    const ShapeClass shape = ShapeClass::Of(job, eligible.get());
    Class* c = Find(lane, shape);
    if (!c) {
      lanes_[lane].push_back(Class{shape, job.quick, IsServable(job), uint32_t(count_++), {}});
      c = &lanes_[lane].back();
    }
    c->jobs.insert(key);
    if (c->servable) ranked_[2 * lane + (c->quick ? 1 : 0)].insert(key);
  }
  void Remove(size_t lane, const ShapeClass& shape, const PendingQueue::Key& key) {
    Class* c = Find(lane, shape);
    if (!c || !c->jobs.erase(key)) return;
    if (c->servable) ranked_[2 * lane + (c->quick ? 1 : 0)].erase(key);
  }
  // The class of `shape` in `lane`, or null.
  const Class* Get(size_t lane, const ShapeClass& shape) const {
    for (const Class& c : lanes_[lane])
      if (c.shape == shape) return &c;
    return nullptr;
  }

 private:
  Class* Find(size_t lane, const ShapeClass& shape) { return const_cast<Class*>(Get(lane, shape)); }

  std::vector<std::vector<Class>> lanes_;
  std::vector<Ranked> ranked_;  // [2 * lane + quick]
  size_t count_ = 0;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_WAITING_CLASSES_H_
