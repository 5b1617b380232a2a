// FifoPolicy: first come, first served, with the engine's backfill; never
// preempts. The floor every other policy is compared against.
#ifndef SLURM_BUDGET_SIM_FIFO_POLICY_H_
#define SLURM_BUDGET_SIM_FIFO_POLICY_H_

#include "sim/policy.h"

namespace budget {
namespace sim {

class FifoPolicy : public Policy {
 public:
  const char* name() const override { return "fifo"; }
  Status Init(const SimContext& context) override {
    ctx_ = context;
    queue_.Resize(1);
    return Status::Ok();
  }
  bool Admit(uint32_t job, Seconds*, std::string* why) override { return !RefusedAsUnknownAccount(job, why); }
  void Enqueue(uint32_t job, TimePoint) override {
    queue_.Add(0, KeyOf(job));
  }
  void Dequeue(uint32_t job) override {
    queue_.Remove(0, KeyOf(job));
  }
  void OnStart(uint32_t, TimePoint) override {}
  void OnStop(uint32_t, TimePoint) override {}
  void Recompute(TimePoint) override {}
  const PendingQueue& queue() const override { return queue_; }
  const std::vector<uint32_t>& lane_order() const override { return lane_order_; }
  size_t LaneOf(uint32_t) const override { return 0; }
  PendingQueue::Key KeyOf(uint32_t job) const override {
    return PendingQueue::KeyOf(job, 0, (*ctx_.jobs)[job].queue_submit);
  }
  // Free work is still free work in the accounting (unallocated_share).
  RunningJob RunningRecord(uint32_t job) const override {
    RunningJob r;
    r.job_id = ctx_.workload->jobs[job].id;
    r.min_runtime = (*ctx_.jobs)[job].min_runtime;
    return r;
  }

 private:
  PendingQueue queue_;
  std::vector<uint32_t> lane_order_{0};
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FIFO_POLICY_H_
