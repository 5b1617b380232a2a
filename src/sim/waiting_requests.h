// WaitingRequests: the waiting jobs of each lane by GPU request (nodes x
// GPUs per node), with each lane's keys in an order-statistic tree, so that
// the position in the lane walk of the first job of a request is found in
// O(log n) without walking the lane.
//
// What it is for: Slurm's backfill (libbudget/policy/slurm_model.h
// RunBackfill) tests up to bf_max_job_test jobs of the queue and starts
// only jobs that fit in the GPUs free now; at 2-3x demand most passes test
// 500 jobs and start none. Whether any job of the first N of the walk could
// fit now is a question about requests and positions, which this index
// answers (engine.cc BackfillCouldStart) so that such a pass is known to
// start nothing without walking the queue. It also counts each lane's
// waiting jobs by account, so that a walk looking for the first job of
// another account (engine.cc AccountRanksFirst) steps over a lane of one
// account without walking it.
//
// A lane has a handful of requests (its team's job shapes); entries stay
// once created, empty or not.
//
// Thread safety: none.
#ifndef SLURM_BUDGET_SIM_WAITING_REQUESTS_H_
#define SLURM_BUDGET_SIM_WAITING_REQUESTS_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include "libbudget/policy/packing.h"
#include "sim/pending_queue.h"

namespace budget {
namespace sim {

class WaitingRequests {
 public:
  struct Request {
    GpuRequest request;
    std::set<PendingQueue::Key> jobs;  // in the lane's order
  };
  using Ranked = __gnu_pbds::tree<PendingQueue::Key, __gnu_pbds::null_type, std::less<PendingQueue::Key>,
                                  __gnu_pbds::rb_tree_tag, __gnu_pbds::tree_order_statistics_node_update>;

  void Resize(size_t lanes) {
    requests_.resize(lanes);
    all_.resize(lanes);
    accounts_.resize(lanes);
  }
  size_t lanes() const { return requests_.size(); }
  const std::vector<Request>& requests(size_t lane) const { return requests_[lane]; }
  // Jobs in `lane`.
  size_t size(size_t lane) const { return all_[lane].size(); }
  // The number of jobs of `lane` ahead of `key` in its order.
  size_t position(size_t lane, const PendingQueue::Key& key) const { return all_[lane].order_of_key(key); }

  // The account of every waiting job of `lane` if there is one such,
  // else -1 (no job, or jobs of several accounts).
  int32_t only_account(size_t lane) const {
    int32_t only = -1;
    for (const auto& [account, jobs] : accounts_[lane]) {
      if (jobs == 0) continue;
      if (only >= 0) return -1;
      only = account;
    }
    return only;
  }

  // REQUIRES: account >= 0.
  void Add(size_t lane, const GpuRequest& request, const PendingQueue::Key& key, int32_t account) {
    Request* r = Find(lane, request);
    if (!r) {
      requests_[lane].push_back(Request{request, {}});
      r = &requests_[lane].back();
    }
    if (!r->jobs.insert(key).second) return;
    all_[lane].insert(key);
    ++AccountCount(lane, account);
  }
  void Remove(size_t lane, const GpuRequest& request, const PendingQueue::Key& key, int32_t account) {
    Request* r = Find(lane, request);
    if (!r || !r->jobs.erase(key)) return;
    all_[lane].erase(key);
    --AccountCount(lane, account);
  }

 private:
  Request* Find(size_t lane, const GpuRequest& request) {
    for (Request& r : requests_[lane])
      if (r.request.node_count == request.node_count && r.request.gpus_per_node == request.gpus_per_node) return &r;
    return nullptr;
  }

  uint32_t& AccountCount(size_t lane, int32_t account) {
    for (auto& entry : accounts_[lane])
      if (entry.first == account) return entry.second;
    return accounts_[lane].emplace_back(account, 0).second;
  }

  std::vector<std::vector<Request>> requests_;
  std::vector<Ranked> all_;
  std::vector<std::vector<std::pair<int32_t, uint32_t>>> accounts_;  // per lane: (account, waiting jobs)
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_WAITING_REQUESTS_H_
