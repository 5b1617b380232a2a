// Priority pass: see priority_pass.h.
#include "priority_budget/priority_pass.h"

#include <algorithm>

#include "priority_budget/usage_charging.h"

namespace budget_prio {

budget::NodeId NodeOf(const budget::AllocationTree& tree, const JobView& job) {
  return job.node_resolved ? job.node : tree.NodeFor(job.account, job.user);
}

budget::PendingJob ToPendingJob(const OrderView& view, const JobView& job) {
  budget::PendingJob pending;
  pending.job_id = job.job_id;
  pending.node = NodeOf(view.tree(), job);
  pending.allocated = pending.node != budget::kNoNode && IsAllocatedWork(job, view.config);
  pending.user_priority = UserPriorityFromNice(job.nice);
  pending.submit_time = job.submit_time;
  return pending;
}

uint32_t PriorityUnder(const OrderView& view, const JobView& job, budget::PriorityFactors* factors) {
  return view.order.Priority(ToPendingJob(view, job), factors);
}

namespace {

bool WantsPriority(const JobView& job) {
  return job.phase == JobPhase::kPending && !job.held && !job.fixed_priority;
}

}  // namespace

budget::Status ComputePriorities(const std::shared_ptr<const budget::AllocationTree>& shared_tree,
                                 const budget::BudgetConfig& config, const std::vector<JobView>& jobs,
                                 double capacity_gpus, budget::TimePoint now, budget::Ledger* ledger,
                                 PassResult* result) {
  const budget::AllocationTree& tree = *shared_tree;
  auto view = std::make_shared<OrderView>();
  view->tree_owner = shared_tree;
  view->config = config;
  view->computed_at = now;

  std::vector<double> usage(tree.size(), 0.0);
  for (size_t id = 0; id < tree.size(); ++id) {
    usage[id] = ledger->WindowUsage(tree.node(static_cast<budget::NodeId>(id)).path,
                                    budget::Ledger::Series::kAllocated, now);
  }
  PassResult out;
  std::vector<double> demand(tree.size(), 0.0);
  out.activity.assign(tree.size(), budget::NodeActivity());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobView& job = jobs[i];
    const bool running = job.phase == JobPhase::kRunning;
    if (!running && !(job.phase == JobPhase::kPending && !job.held)) continue;
    if (running) out.running_jobs.push_back(i);
    budget::NodeId node = NodeOf(tree, job);
    if (node == budget::kNoNode) continue;
    demand[node] += std::max(job.gpus, 1.0);
    (running ? out.activity[node].running_gpus : out.activity[node].pending_gpus) += job.gpus;
  }
  budget::Status st = view->order.Compute(tree, usage, demand, std::max(capacity_gpus, 1.0),
                                          ledger->options().window);
  if (!st.ok()) return st;

  for (const JobView& job : jobs) {
    if (!WantsPriority(job)) continue;
    ++out.prioritised;
    uint32_t priority = view->order.Priority(ToPendingJob(*view, job));
    if (priority != job.priority) out.priorities.emplace_back(job.job_id, priority);
  }
  for (budget::NodeId node : view->order.ranked_nodes()) {
    if (view->order.has_demand(node)) out.ranked_paths_with_demand.push_back(tree.node(node).path);
  }
  out.view = std::move(view);
  *result = std::move(out);
  return budget::Status::Ok();
}

}  // namespace budget_prio
