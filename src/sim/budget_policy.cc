#include "sim/budget_policy.h"

#include "libbudget/policy/job_contract.h"
#include "libbudget/config/time_string.h"

namespace budget {
namespace sim {

Status BudgetPolicy::Init(const SimContext& context) {
  ctx_ = context;
  Ledger::Options lo;
  lo.window = ctx_.config->lookback_window;
  lo.bucket_width = ctx_.config->ledger_bucket;
  lo.report_bucket_width = lo.window % 3600 == 0 && 3600 % lo.bucket_width == 0 ? 3600 : lo.bucket_width;
  Status st = Ledger::CheckOptions(lo);
  if (!st.ok()) return Status::InvalidArgument("budget.conf: " + st.message());
  ledger_ = std::make_unique<Ledger>(lo);
  size_t n = ctx_.tree->size();
  queue_.Resize(2 * (n + 1));
  running_allocated_gpus_.assign(n, 0);
  charged_until_.assign(n, 0);
  node_jobs_.assign(n, 0);
  usage_.assign(n, 0);
  demand_.assign(n, 0);
  return Status::Ok();
}

bool BudgetPolicy::Admit(uint32_t job, Seconds* min_runtime, std::string* why) {
  const TraceJob& t = ctx_.workload->jobs[job];
  if (RefusedAsUnknownAccount(job, why)) return false;
  if ((*ctx_.jobs)[job].node == kNoNode) {
    *min_runtime = 0;  // UnknownAccount=unallocated: runs as free work
    return true;
  }
  JobContract contract;
  Status st = ValidateContract(FormatDuration(*min_runtime).c_str(), t.resumable, t.time_limit,
                               *ctx_.config, &contract);
  if (!st.ok()) {
    // The rule, not the job's values, so that jobs refused alike count
    // together (rejections.h); ValidateContract's message for any other.
    const Seconds max = ctx_.config->max_min_runtime;
    *why = *min_runtime > max ? "min-runtime over MaxMinRuntime=" + FormatDuration(max) + " (contract)"
           : *min_runtime > t.time_limit ? std::string("min-runtime longer than the job's time limit (contract)")
                                         : "contract: " + st.message();
    return false;
  }
  *min_runtime = contract.min_runtime;
  return true;
}

size_t BudgetPolicy::LaneOf(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  size_t n = ctx_.tree->size();
  size_t node = j.node == kNoNode ? n : size_t(j.node);
  return (IsAllocatedWork(j.min_runtime) ? 0 : n + 1) + node;
}

PendingQueue::Key BudgetPolicy::KeyOf(uint32_t job) const {
  // Jobs without a tree node have no rank: Slurm sees one priority for
  // them all (order.h), so they queue by submit time and id only.
  const SimJob& j = (*ctx_.jobs)[job];
  uint32_t user_priority = j.node == kNoNode ? 0 : ctx_.workload->jobs[job].priority;
  return PendingQueue::KeyOf(job, user_priority, j.queue_submit);
}

void BudgetPolicy::Enqueue(uint32_t job, TimePoint) {
  queue_.Add(LaneOf(job), KeyOf(job));
  NodeId node = (*ctx_.jobs)[job].node;
  if (node != kNoNode) ++node_jobs_[node];
}

void BudgetPolicy::Dequeue(uint32_t job) {
  queue_.Remove(LaneOf(job), KeyOf(job));
  NodeId node = (*ctx_.jobs)[job].node;
  if (node != kNoNode) --node_jobs_[node];
}

void BudgetPolicy::Flush(NodeId node, TimePoint now) {
  if (running_allocated_gpus_[node] > 0 && now > charged_until_[node])
    ledger_->Charge(ctx_.tree->node(node).path, Ledger::Series::kAllocated, charged_until_[node],
                    now, running_allocated_gpus_[node]);
  charged_until_[node] = now;
}

void BudgetPolicy::OnStart(uint32_t job, TimePoint now) {
  const SimJob& j = (*ctx_.jobs)[job];
  if (j.node == kNoNode) return;
  ++node_jobs_[j.node];
  if (!IsAllocatedWork(j.min_runtime)) return;
  Flush(j.node, now);
  running_allocated_gpus_[j.node] += double(j.shape.node_count) * j.shape.gpus_per_node;
}

void BudgetPolicy::OnStop(uint32_t job, TimePoint now) {
  const SimJob& j = (*ctx_.jobs)[job];
  if (j.node == kNoNode) return;
  --node_jobs_[j.node];
  if (!IsAllocatedWork(j.min_runtime)) return;
  Flush(j.node, now);
  running_allocated_gpus_[j.node] -= double(j.shape.node_count) * j.shape.gpus_per_node;
}

void BudgetPolicy::Recompute(TimePoint now) {
  const AllocationTree& tree = *ctx_.tree;
  for (size_t i = 0; i < tree.size(); ++i) {
    if (!tree.HoldsJobs(NodeId(i))) continue;
    Flush(NodeId(i), now);
    usage_[i] = ledger_->WindowUsage(tree.node(NodeId(i)).path, Ledger::Series::kAllocated, now);
    demand_[i] = node_jobs_[i];
  }
  // Inputs are valid by construction; on an error the previous order stays,
  // as in the plugin.
  (void)order_.Compute(tree, usage_, demand_, double(ctx_.cluster->capacity()),
                       ledger_->options().window);
  lane_order_.clear();
  size_t n = tree.size();
  for (size_t cls = 0; cls < 2; ++cls) {
    size_t base = cls * (n + 1);
    for (NodeId id : order_.ranked_nodes()) lane_order_.push_back(uint32_t(base + id));
    lane_order_.push_back(uint32_t(base + n));  // jobs without a node: last
  }
}

JobShape BudgetPolicy::PendingShape(uint32_t job) const {
  JobShape s = BaseShape(job);
  s.min_runtime = (*ctx_.jobs)[job].min_runtime;
  s.quick = QuickStartRule{ctx_.config->quick_start_min_runtime, ctx_.config->quick_start_gpus}.Applies(s);
  return s;
}

RunningJob BudgetPolicy::RunningRecord(uint32_t job) const {
  RunningJob r = BaseRecord(job);
  r.min_runtime = (*ctx_.jobs)[job].min_runtime;
  r.user_priority = ctx_.workload->jobs[job].priority;
  r.user = ctx_.workload->jobs[job].user;
  r.quick = PendingShape(job).quick;
  return r;
}

ClusterScale BudgetPolicy::scale() const {
  return ClusterScale{ctx_.cluster->capacity(), ledger_->options().window};
}

TimePoint BudgetPolicy::PreemptibleFrom(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  return ProtectionEnd(j.run_start, j.min_runtime);
}

}  // namespace sim
}  // namespace budget
