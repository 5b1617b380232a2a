// Usage charging: see usage_charging.h for the rules.
#include "priority_budget/usage_charging.h"

#include <algorithm>
#include <unordered_map>

#include "libbudget/policy/run_charging.h"
#include "priority_budget/priority_pass.h"

namespace budget_prio {

bool IsAllocatedWork(const JobView& job, const budget::BudgetConfig& config) {
  return budget::IsAllocatedWork(job.has_contract, job.contract, config);
}

namespace {

// Charges the run that began at `start` up to `now` (from its cursor on),
// at the weighted GPUs of the nodes it ran on (the core's rule,
// libbudget/policy/run_charging.h).
void ChargeRun(const JobView& job, budget::TimePoint start, const std::string& path,
               budget::Ledger::Series occupancy, budget::TimePoint now, const budget::FleetWorth& fleet,
               budget::Ledger* ledger, ChargeStats* stats) {
  const double rate = fleet.RunningJobRate(job.gpu_type(), job.gpus, job.nodes());
  stats->allocated_gpu_seconds += budget::ChargeRun(job.job_id, path, occupancy, start, now, rate, ledger);
}

}  // namespace

ChargeStats ChargeJobs(const std::vector<JobView>& jobs, const budget::AllocationTree& tree,
                       const budget::BudgetConfig& config, const budget::FleetWorth& fleet,
                       budget::TimePoint last_pass, budget::TimePoint now, budget::Ledger* ledger) {
  ChargeStats stats;
  // Which cursors still have their job: a lookup per job in the (small) set
  // of cursors, rather than a set of every job id (20,000 allocations a
  // pass on a big queue).
  std::unordered_map<uint32_t, bool> cursor_seen;
  for (const auto& cursor : ledger->JobCursors()) cursor_seen.emplace(cursor.first, false);
  // Pending demand is summed per node and charged once per node: one ledger
  // charge per node instead of one per job.
  std::vector<double> pending_gpus(tree.size(), 0.0);
  for (const JobView& job : jobs) {
    if (!cursor_seen.empty()) {
      auto seen = cursor_seen.find(job.job_id);
      if (seen != cursor_seen.end()) seen->second = true;
    }
    budget::NodeId node = NodeOf(tree, job);
    if (node == budget::kNoNode) continue;  // unknown account: never charged
    const std::string& path = tree.node(node).path;
    const budget::Ledger::Series occupancy = budget::OccupancyOf(IsAllocatedWork(job, config));
    switch (job.phase) {
      case JobPhase::kRunning:
        ChargeRun(job, job.start_time, path, occupancy, now, fleet, ledger, &stats);
        ++stats.running;
        break;
      case JobPhase::kSuspended:
        ledger->SetChargedUntil(job.job_id, now);
        break;
      case JobPhase::kFinished: {
        budget::TimePoint cursor = ledger->ChargedUntil(job.job_id);
        budget::TimePoint end = std::min(job.end_time, now);
        if (cursor == 0 && end <= last_pass) break;  // ended before we watched
        if (cursor >= end) break;                    // tail already charged
        ChargeRun(job, job.start_time, path, occupancy, end, fleet, ledger, &stats);
        ++stats.finished;
        break;
      }
      case JobPhase::kPending: {
        // Requeued (preempted, drained, scontrol requeue): back to pending
        // with end_time = when its run ended. The run since the last pass,
        // [cursor, end), is charged now. The cursor, not the view's start
        // time, says where: once Slurm has finished the requeue a pending
        // job's start_time is 0 or backfill's estimate. An end at or before
        // the cursor is an earlier run's, already charged. (end_time is
        // read only for a job with a cursor: it is outside the view's first
        // cache line, job_view.h.)
        const budget::TimePoint cursor = ledger->ChargedUntil(job.job_id);
        if (cursor > 0) {
          const budget::TimePoint end = std::min(job.end_time, now);
          if (end > cursor) {
            ChargeRun(job, cursor, path, occupancy, end, fleet, ledger, &stats);
            ++stats.requeued;
          }
        }
        if (!job.held && job.gpus > 0 && occupancy == budget::Ledger::Series::kAllocated)
          pending_gpus[node] += fleet.PendingJobRate(job.gpu_type(), job.gpus);
        ++stats.pending;
        break;
      }
    }
  }
  for (size_t node = 0; node < pending_gpus.size(); ++node) {
    if (pending_gpus[node] <= 0) continue;
    ledger->Charge(tree.node(static_cast<budget::NodeId>(node)).path, budget::Ledger::Series::kDemand, last_pass,
                   now, pending_gpus[node]);
  }
  for (const auto& [job_id, seen] : cursor_seen) {
    if (seen) continue;
    ledger->ForgetJob(job_id);
    ++stats.forgotten;
  }
  return stats;
}

}  // namespace budget_prio
