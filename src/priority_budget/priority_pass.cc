// Priority pass: see priority_pass.h.
#include "priority_budget/priority_pass.h"

#include <algorithm>

#include "priority_budget/usage_charging.h"

namespace budget_prio {

budget::PendingJob ToPendingJob(const OrderView& view, const JobView& job) {
  budget::PendingJob pending;
  pending.job_id = job.job_id;
  pending.node = view.tree.NodeFor(job.account, job.user);
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

budget::Status ComputePriorities(const budget::AllocationTree& tree, const budget::BudgetConfig& config,
                                 const std::vector<JobView>& jobs, double capacity_gpus,
                                 budget::TimePoint now, budget::Ledger* ledger, PassResult* result) {
  auto view = std::make_shared<OrderView>();
  view->tree = tree;
  view->config = config;
  view->computed_at = now;

  std::vector<double> usage(tree.size(), 0.0);
  for (size_t id = 0; id < tree.size(); ++id) {
    usage[id] = ledger->WindowUsage(tree.node(static_cast<budget::NodeId>(id)).path,
                                    budget::Ledger::Series::kAllocated, now);
  }
  std::vector<double> demand(tree.size(), 0.0);
  for (const JobView& job : jobs) {
    bool works = job.phase == JobPhase::kRunning || (job.phase == JobPhase::kPending && !job.held);
    if (!works) continue;
    budget::NodeId node = tree.NodeFor(job.account, job.user);
    if (node != budget::kNoNode) demand[node] += std::max(job.gpus, 1.0);
  }
  budget::Status st = view->order.Compute(tree, usage, demand, std::max(capacity_gpus, 1.0),
                                          ledger->options().window);
  if (!st.ok()) return st;

  std::vector<budget::PendingJob> pending;
  pending.reserve(jobs.size());
  for (const JobView& job : jobs) {
    if (WantsPriority(job)) pending.push_back(ToPendingJob(*view, job));
  }
  view->order.SortJobs(&pending);
  PassResult out;
  out.priorities.reserve(pending.size());
  for (const budget::PendingJob& job : pending) {
    out.priorities.emplace_back(job.job_id, view->order.Priority(job));
  }
  for (budget::NodeId node : view->order.ranked_nodes()) {
    if (view->order.has_demand(node)) out.ranked_paths_with_demand.push_back(tree.node(node).path);
  }
  out.view = std::move(view);
  *result = std::move(out);
  return budget::Status::Ok();
}

}  // namespace budget_prio
