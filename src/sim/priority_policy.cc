#include "sim/priority_policy.h"

#include <cmath>

namespace budget {
namespace sim {

Status PriorityPolicy::Init(const SimContext& context) {
  ctx_ = context;
  size_t n = ctx_.tree->size();
  queue_.Resize(2);
  cap_.assign(n, 0);
  protected_gpus_.assign(n, 0);
  run_protected_.assign(ctx_.workload->jobs.size(), 0);
  standings_.assign(n, Standing());
  for (size_t i = 0; i < n; ++i)
    cap_[i] = uint64_t(std::llround(ctx_.tree->node(NodeId(i)).entitlement *
                                    double(ctx_.cluster->capacity())));
  return Status::Ok();
}

bool PriorityPolicy::Admit(uint32_t job, Seconds* min_runtime, std::string* why) {
  if (RefusedAsUnknownAccount(job, why)) return false;
  if ((*ctx_.jobs)[job].node == kNoNode) *min_runtime = 0;
  return true;
}

PendingQueue::Key PriorityPolicy::KeyOf(uint32_t job) const {
  return PendingQueue::KeyOf(job, 0, (*ctx_.jobs)[job].queue_submit);
}

size_t PriorityPolicy::LaneOf(uint32_t job) const {
  return ctx_.workload->jobs[job].priority >= ctx_.options->high_priority_threshold ? 0 : 1;
}

void PriorityPolicy::Enqueue(uint32_t job, TimePoint) {
  queue_.Add(LaneOf(job), KeyOf(job));
}

void PriorityPolicy::Dequeue(uint32_t job) {
  queue_.Remove(LaneOf(job), KeyOf(job));
}

bool PriorityPolicy::WithinCap(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  if (j.node == kNoNode || j.min_runtime <= 0) return false;
  uint64_t gpus = uint64_t{j.shape.node_count} * j.shape.gpus_per_node;
  return protected_gpus_[j.node] + gpus <= cap_[j.node];
}

void PriorityPolicy::OnStart(uint32_t job, TimePoint) {
  const SimJob& j = (*ctx_.jobs)[job];
  run_protected_[job] = WithinCap(job);
  if (run_protected_[job]) protected_gpus_[j.node] += uint64_t{j.shape.node_count} * j.shape.gpus_per_node;
}

void PriorityPolicy::OnStop(uint32_t job, TimePoint) {
  const SimJob& j = (*ctx_.jobs)[job];
  if (run_protected_[job]) protected_gpus_[j.node] -= uint64_t{j.shape.node_count} * j.shape.gpus_per_node;
  run_protected_[job] = 0;
}

JobShape PriorityPolicy::PendingShape(uint32_t job) const {
  JobShape s = BaseShape(job);
  s.min_runtime = WithinCap(job) ? kForever : 0;
  return s;
}

RunningJob PriorityPolicy::RunningRecord(uint32_t job) const {
  RunningJob r = BaseRecord(job);
  r.min_runtime = run_protected_[job] ? kForever : 0;
  return r;
}

ClusterScale PriorityPolicy::scale() const {
  return ClusterScale{ctx_.cluster->capacity(), 86400};
}

TimePoint PriorityPolicy::PreemptibleFrom(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  return run_protected_[job] ? j.run_start + kForever : j.run_start;
}

}  // namespace sim
}  // namespace budget
