#include "sim/fairtree_policy.h"

#include <cmath>

namespace budget {
namespace sim {

Status FairTreePolicy::Init(const SimContext& context) {
  ctx_ = context;
  if (ctx_.options->fairtree_half_life <= 0)
    return Status::InvalidArgument("--fairtree-half-life: must be > 0");
  size_t n = ctx_.tree->size();
  queue_.Resize(n + 1);
  decayed_usage_.assign(n, 0);
  accrued_until_.assign(n, 0);
  running_gpus_.assign(n, 0);
  node_jobs_.assign(n, 0);
  demand_.assign(n, 0);
  return Status::Ok();
}

bool FairTreePolicy::Admit(uint32_t job, Seconds*, std::string* why) { return !RefusedAsUnknownAccount(job, why); }

PendingQueue::Key FairTreePolicy::KeyOf(uint32_t job) const {
  return PendingQueue::KeyOf(job, 0, (*ctx_.jobs)[job].queue_submit);
}

size_t FairTreePolicy::LaneOf(uint32_t job) const {
  NodeId node = (*ctx_.jobs)[job].node;
  return node == kNoNode ? ctx_.tree->size() : size_t(node);
}

void FairTreePolicy::Enqueue(uint32_t job, TimePoint) {
  queue_.Add(LaneOf(job), KeyOf(job));
  NodeId node = (*ctx_.jobs)[job].node;
  if (node != kNoNode) ++node_jobs_[node];
}

void FairTreePolicy::Dequeue(uint32_t job) {
  queue_.Remove(LaneOf(job), KeyOf(job));
  NodeId node = (*ctx_.jobs)[job].node;
  if (node != kNoNode) --node_jobs_[node];
}

void FairTreePolicy::Accrue(NodeId node, TimePoint now) {
  // Usage of [accrued_until, now) is added undecayed, then the whole is
  // decayed by the elapsed time: exact for the old usage, an
  // overestimate of at most (1 - 2^(-dt/half_life)) for the new, which is
  // negligible at dt = RecalcInterval.
  double dt = double(now - accrued_until_[node]);
  if (dt <= 0) return;
  double decay = std::exp2(-dt / double(ctx_.options->fairtree_half_life));
  decayed_usage_[node] = decayed_usage_[node] * decay + running_gpus_[node] * dt;
  accrued_until_[node] = now;
}

void FairTreePolicy::OnStart(uint32_t job, TimePoint now) {
  const SimJob& j = (*ctx_.jobs)[job];
  if (j.node == kNoNode) return;
  ++node_jobs_[j.node];
  Accrue(j.node, now);
  running_gpus_[j.node] += double(j.shape.node_count) * j.shape.gpus_per_node;
}

void FairTreePolicy::OnStop(uint32_t job, TimePoint now) {
  const SimJob& j = (*ctx_.jobs)[job];
  if (j.node == kNoNode) return;
  --node_jobs_[j.node];
  Accrue(j.node, now);
  running_gpus_[j.node] -= double(j.shape.node_count) * j.shape.gpus_per_node;
}

void FairTreePolicy::Recompute(TimePoint now) {
  const AllocationTree& tree = *ctx_.tree;
  for (size_t i = 0; i < tree.size(); ++i) {
    Accrue(NodeId(i), now);
    demand_[i] = node_jobs_[i];
  }
  (void)order_.Compute(tree, decayed_usage_, demand_, double(ctx_.cluster->capacity()),
                       ctx_.options->fairtree_half_life);
  // Ratios that never refuse a swap: Slurm has no ping-pong guard. Ranks
  // decide (rule 5 of preempt.h).
  standings_ = order_.standings();
  for (Standing& s : standings_) s.usage_ratio = 1e300;
  lane_order_.clear();
  for (NodeId id : order_.ranked_nodes()) lane_order_.push_back(uint32_t(id));
  lane_order_.push_back(uint32_t(tree.size()));
}

JobShape FairTreePolicy::PendingShape(uint32_t job) const {
  JobShape s = BaseShape(job);
  s.min_runtime = (*ctx_.jobs)[job].node == kNoNode ? 0 : protection();
  return s;
}

RunningJob FairTreePolicy::RunningRecord(uint32_t job) const {
  RunningJob r = BaseRecord(job);
  r.min_runtime = (*ctx_.jobs)[job].node == kNoNode ? 0 : protection();
  return r;
}

ClusterScale FairTreePolicy::scale() const {
  return ClusterScale{ctx_.cluster->capacity(), ctx_.options->fairtree_half_life};
}

TimePoint FairTreePolicy::PreemptibleFrom(uint32_t job) const {
  return (*ctx_.jobs)[job].run_start + exempt();
}

}  // namespace sim
}  // namespace budget
