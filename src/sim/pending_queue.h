// PendingQueue: waiting jobs in lanes, so that a policy orders the queue by
// ordering its lanes (a handful: tree nodes, priority classes) instead of
// sorting every waiting job at every pass.
//
// A lane holds jobs sorted by (user priority, higher first; submit time;
// job id): steps 3-5 of the core's job order (order.h), which is all that
// orders jobs of one tree node. A policy that ignores user priority enqueues
// with priority 0. Iterating the lanes in the policy's lane order therefore
// visits jobs in the policy's total order; for the budget policy that is
// FairShareOrder::SortJobs' order exactly (budget_policy_test checks it).
//
// Thread safety: none.
#ifndef SLURM_BUDGET_SIM_PENDING_QUEUE_H_
#define SLURM_BUDGET_SIM_PENDING_QUEUE_H_

#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "libbudget/standing.h"

namespace budget {
namespace sim {

class PendingQueue {
 public:
  // (inverted user priority, submit, job index)
  using Key = std::tuple<uint32_t, TimePoint, uint32_t>;
  using Lane = std::set<Key>;

  explicit PendingQueue(size_t lane_count = 0) : lanes_(lane_count) {}
  void Resize(size_t lane_count) { lanes_.resize(lane_count); }
  size_t lane_count() const { return lanes_.size(); }

  static Key KeyOf(uint32_t job, uint32_t user_priority, TimePoint submit) {
    return Key{UINT32_MAX - user_priority, submit, job};
  }
  static uint32_t JobOf(const Key& key) { return std::get<2>(key); }

  void Add(size_t lane, const Key& key) {
    lanes_[lane].insert(key);
    ++size_;
  }
  void Remove(size_t lane, const Key& key) { size_ -= lanes_[lane].erase(key); }
  const Lane& lane(size_t i) const { return lanes_[i]; }
  size_t size() const { return size_; }

 private:
  std::vector<Lane> lanes_;
  size_t size_ = 0;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_PENDING_QUEUE_H_
