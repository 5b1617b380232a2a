// PriorityPolicy: the legacy scheme of the Ai2 article, as a baseline.
//   - each team (tree node) has a cap of non-preemptible GPUs:
//     round(entitlement x capacity);
//   - a job that asks for protection (min_runtime > 0) runs non-preemptible
//     if its team's non-preemptible GPUs plus its own stay within the cap,
//     and preemptible otherwise ("preemptible work beyond the caps");
//     a job with min_runtime 0 always runs preemptible;
//   - order: HIGH (declared priority >= PolicyOptions::
//     high_priority_threshold) before LOW, then submit time;
//   - preemption: a waiting job that would run non-preemptible may preempt
//     preemptible jobs of any team at any moment; non-preemptible jobs are
//     never preempted. The core chooses the set: the records say
//     "allocated, protected for ever" for non-preemptible runs and
//     "unallocated" for preemptible ones, which is the legacy rule.
#ifndef SLURM_BUDGET_SIM_PRIORITY_POLICY_H_
#define SLURM_BUDGET_SIM_PRIORITY_POLICY_H_

#include "sim/policy.h"

namespace budget {
namespace sim {

class PriorityPolicy : public Policy {
 public:
  // "For ever": a protection no simulation outlives (100 years).
  static constexpr Seconds kForever = Seconds{100} * 366 * 86400;

  const char* name() const override { return "priority"; }
  Status Init(const SimContext& context) override;
  bool Admit(uint32_t job, Seconds* min_runtime, std::string* why) override;
  void Enqueue(uint32_t job, TimePoint now) override;
  void Dequeue(uint32_t job) override;
  void OnStart(uint32_t job, TimePoint now) override;
  void OnStop(uint32_t job, TimePoint now) override;
  void Recompute(TimePoint) override {}
  const PendingQueue& queue() const override { return queue_; }
  const std::vector<uint32_t>& lane_order() const override { return lane_order_; }
  size_t LaneOf(uint32_t job) const override;
  PendingQueue::Key KeyOf(uint32_t job) const override;
  Preemption preemption() const override { return Preemption::kScheduler; }
  JobShape PendingShape(uint32_t job) const override;
  RunningJob RunningRecord(uint32_t job) const override;
  const std::vector<Standing>& standings() const override { return standings_; }
  ClusterScale scale() const override;
  TimePoint PreemptibleFrom(uint32_t job) const override;

  uint64_t cap(NodeId node) const { return cap_[node]; }

 private:
  bool WithinCap(uint32_t job) const;

  PendingQueue queue_;
  std::vector<uint32_t> lane_order_{0, 1};
  std::vector<uint64_t> cap_;               // per node
  std::vector<uint64_t> protected_gpus_;    // per node, running non-preemptible
  std::vector<uint8_t> run_protected_;      // per job, current run
  std::vector<Standing> standings_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_PRIORITY_POLICY_H_
