// BudgetPolicy: the product's priorities and rules, through the core; the
// engine (engine.h) runs them through the loop production runs.
//   - admission: the job_submit/contract rule (ValidateContract against
//     budget.conf; an account in no tree node follows UnknownAccount);
//   - usage: allocated GPU-seconds charged to the job's tree node in a
//     Ledger of LookbackWindow / LedgerBucket (charges of a node are summed
//     over its running jobs before charging: Charge is linear, so this is the
//     plugins' per-job ChargeRunningJob to float rounding, at a fraction of
//     the cost);
//   - order: FairShareOrder::Compute every RecalcInterval on the window
//     usage and demand of each node; waiting jobs in the core's job order
//     (allocated before unallocated, node rank, user priority, submit, id);
//   - preemption: by the time-slicing pass (Preemption::kTimeslice: the
//     engine runs libbudget/policy/timeslice_plan.h's TimeslicePlanner on the
//     standings, shapes and contract records this policy gives), as
//     preempt/timeslice's thread does; Slurm's schedulers never preempt.
// The ledger's unallocated and demand series are not charged: only the
// allocated series ranks jobs, and the simulator measures service itself.
#ifndef SLURM_BUDGET_SIM_BUDGET_POLICY_H_
#define SLURM_BUDGET_SIM_BUDGET_POLICY_H_

#include <memory>

#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "sim/policy.h"

namespace budget {
namespace sim {

class BudgetPolicy : public Policy {
 public:
  const char* name() const override { return "budget"; }
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
  Preemption preemption() const override { return Preemption::kTimeslice; }
  JobShape PendingShape(uint32_t job) const override;
  RunningJob RunningRecord(uint32_t job) const override;
  const std::vector<Standing>& standings() const override { return order_.standings(); }
  ClusterScale scale() const override;
  TimePoint PreemptibleFrom(uint32_t job) const override;

  // For tests: the order of the last Recompute.
  const FairShareOrder& order() const { return order_; }

 private:
  void Flush(NodeId node, TimePoint now);

  std::unique_ptr<Ledger> ledger_;
  FairShareOrder order_;
  PendingQueue queue_;
  std::vector<uint32_t> lane_order_;
  std::vector<double> running_allocated_gpus_;  // per node
  std::vector<TimePoint> charged_until_;        // per node
  std::vector<uint32_t> node_jobs_;             // pending + running, per node
  std::vector<double> usage_, demand_;          // Compute() inputs
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_BUDGET_POLICY_H_
