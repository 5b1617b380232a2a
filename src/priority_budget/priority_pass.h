// Priority pass: from a job snapshot, the ledger and the tree, the
// fair-share order (the core's FairShareOrder) and the Slurm priority of
// every pending job. Slurm-free; the recalc thread runs it outside
// slurmctld's locks and applies the answer under the job write lock.
//
// The adapter adds no rule of its own; it only translates:
//   - node of a job: tree.NodeFor(account, user) (NodeOf: resolved once
//     per view and tree by the recalc thread); kNoNode for an account
//     bound nowhere (UnknownAccount=unallocated: ordered after all
//     allocated work, priority of unallocated work without a rank);
//   - allocated: the job's contract says min_runtime > 0 (usage_charging.h)
//     and its account is in the tree;
//   - user priority: from the job's nice (job_view.h);
//   - per-node direct usage: Ledger::WindowUsage(path, kAllocated, now);
//   - per-node demand (which children have work, order.h): the GPUs of the
//     node's pending (not held) and running jobs, a job without GPUs
//     counting as 1 so that CPU-only work still counts as work.
//
// An OrderView is immutable once built and shared (shared_ptr) between the
// recalc thread, priority_p_set() and sprio's RPC: any number of threads may
// read it.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_PRIORITY_PASS_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_PRIORITY_PASS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"
#include "priority_budget/job_view.h"

namespace budget_prio {

// The order of one pass, with the tree and configuration it was computed
// under (node ids are only meaningful with their tree).
struct OrderView {
  // Shared with the tree reloader (and earlier views): never copied.
  std::shared_ptr<const budget::AllocationTree> tree_owner;
  const budget::AllocationTree& tree() const { return *tree_owner; }
  budget::FairShareOrder order;
  budget::BudgetConfig config;
  budget::TimePoint computed_at = 0;
};

// The node `job` is charged to under `tree`: job.node when the recalc
// thread resolved it for this tree (job_view_cache.h), else
// tree.NodeFor(account, user).
budget::NodeId NodeOf(const budget::AllocationTree& tree, const JobView& job);

// The core's PendingJob for `job` under `view`.
budget::PendingJob ToPendingJob(const OrderView& view, const JobView& job);

// The priority of `job` under `view` (never 0), and what it was made of.
uint32_t PriorityUnder(const OrderView& view, const JobView& job,
                       budget::PriorityFactors* factors = nullptr);

struct PassResult {
  std::shared_ptr<const OrderView> view;
  // (job id, priority) for every pending job that is not held and has no
  // operator-set priority, whose priority differs from the one it had when
  // copied (JobView::priority): what the pass must write. In the order of
  // the jobs given; Slurm orders the queue by the priorities themselves.
  std::vector<std::pair<uint32_t, uint32_t>> priorities;
  // How many pending jobs got a priority (written or already right).
  size_t prioritised = 0;
  // For the report (report_writer.h), gathered in the same sweep over the
  // jobs as the demand: per tree node, the GPUs of its running and of its
  // pending (not held) jobs; and the positions in `jobs` of the running
  // jobs.
  std::vector<budget::NodeActivity> activity;
  std::vector<size_t> running_jobs;
  // Tree paths of the ranked nodes that have demand, in rank order (for the
  // "order of top allocations changed" log line).
  std::vector<std::string> ranked_paths_with_demand;
};

// Computes the order and priorities. On error (the core refused the input)
// returns it and leaves *result untouched.
// REQUIRES: tree != nullptr.
budget::Status ComputePriorities(const std::shared_ptr<const budget::AllocationTree>& tree,
                                 const budget::BudgetConfig& config,
                                 const std::vector<JobView>& jobs, double capacity_gpus,
                                 budget::TimePoint now, budget::Ledger* ledger, PassResult* result);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_PRIORITY_PASS_H_
