// FairTreePolicy: Slurm's Fair Tree as a baseline.
//   - usage: GPU-seconds per tree node with exponential decay of half-life
//     PolicyOptions::fairtree_half_life (Slurm's PriorityDecayHalfLife);
//   - order: Fair Tree ranks siblings by Level FS = S / U (normalised share
//     over normalised usage), highest first, depth first; that is the core
//     FairShareOrder's sibling ratio (usage fraction over share fraction,
//     lowest first), so the core ranks the decayed usage. Jobs of a node by
//     submit time (Slurm's age factor); no contract classes;
//   - preemption: a global PreemptExemptTime: after it, any job may be
//     preempted by a waiting job of a strictly higher-ranked account; no
//     ping-pong guard (Slurm has none). The set choice is the core's
//     (gang-safe, minimal), fed records whose protection is the exempt time
//     and whose ratios never refuse a swap.
#ifndef SLURM_BUDGET_SIM_FAIRTREE_POLICY_H_
#define SLURM_BUDGET_SIM_FAIRTREE_POLICY_H_

#include "libbudget/policy/order.h"
#include "sim/policy.h"

namespace budget {
namespace sim {

class FairTreePolicy : public Policy {
 public:
  const char* name() const override { return "fairtree"; }
  Status Init(const SimContext& context) override;
  bool Admit(uint32_t job, Seconds* min_runtime, std::string* why) override;
  void Enqueue(uint32_t job, TimePoint now) override;
  void Dequeue(uint32_t job) override;
  void OnStart(uint32_t job, TimePoint now) override;
  void OnStop(uint32_t job, TimePoint now) override;
  void Recompute(TimePoint now) override;
  const PendingQueue& queue() const override { return queue_; }
  const std::vector<uint32_t>& lane_order() const override { return lane_order_; }
  size_t LaneOf(uint32_t job) const override;
  PendingQueue::Key KeyOf(uint32_t job) const override;
  Preemption preemption() const override {
    return ctx_.options->fairtree_preempts ? Preemption::kScheduler : Preemption::kNever;
  }
  JobShape PendingShape(uint32_t job) const override;
  RunningJob RunningRecord(uint32_t job) const override;
  const std::vector<Standing>& standings() const override { return standings_; }
  ClusterScale scale() const override;
  TimePoint PreemptibleFrom(uint32_t job) const override;

 protected:
  void Accrue(NodeId node, TimePoint now);
  Seconds exempt() const { return std::max<Seconds>(1, ctx_.options->preempt_exempt_time); }
  // Slurm exempts a run while now < start + PreemptExemptTime; the core
  // protects it through start + min_runtime (contract.h). exempt - 1 as the
  // core's min-runtime is Slurm's rule (for an exempt time of 1 s, 1 s
  // more: a min-runtime of 0 would make the job unallocated work).
  Seconds protection() const { return std::max<Seconds>(1, exempt() - 1); }

  FairShareOrder order_;
  PendingQueue queue_;
  std::vector<uint32_t> lane_order_;
  std::vector<double> decayed_usage_;  // GPU-seconds, as of accrued_until_
  std::vector<TimePoint> accrued_until_;
  std::vector<double> running_gpus_;
  std::vector<uint32_t> node_jobs_;
  std::vector<double> demand_;
  std::vector<Standing> standings_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FAIRTREE_POLICY_H_
