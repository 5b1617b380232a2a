// Usage charging: turns a snapshot of Slurm jobs into ledger charges, once
// per recompute pass. Slurm-free (the recalc thread calls it outside
// slurmctld's locks, on a snapshot).
//
// Rules (what must stay true):
//   - GPUs are weighted by type (budget.conf GpuTypeWeights): wherever a
//     rule below says "GPUs", it charges the weighted GPUs of the core's
//     rule (libbudget/policy/gpu_worth.h): a running, finished or requeued
//     job's by the nodes of its run, a pending job's by its requested type
//     (untyped: the fleet's mean weight). Without weights these are its
//     GPUs.
//   - A running job is charged its GPUs x [max(start, cursor), now) to its
//     tree node's path, as kAllocated if its contract has min_runtime > 0,
//     else kUnallocated; its cursor (Ledger::ChargedUntil) then moves to now.
//     The cursors are saved with the ledger, so after a crash and a restart
//     a job still running is charged from the last save on, never twice.
//   - A suspended job is not charged; its cursor moves to now, so its
//     suspension is never charged later.
//   - A finished job is charged its tail [max(start, cursor), end) once; its
//     cursor is set to its end, so seeing it again charges nothing. A
//     finished job without a cursor is charged only if it ended after the
//     previous pass (we saw it run); one that ended before a restart is not
//     charged again.
//   - A requeued job (pending again, with a cursor, and an end_time after
//     it) is charged the tail of its run, [cursor, end), like a finished
//     job: the time it ran stays charged. Its start_time is not used: Slurm
//     resets it once the requeue is done. Slurm also resets end_time then;
//     the snapshot reads the run's end from preempt/timeslice's preemption
//     or drain note instead (job_snapshot.cc RunEndOf). (A requeue without a note
//     that the pass sees only after Slurm reset end_time, or a job that
//     both ends and starts again between two passes, loses the tail: at
//     most RecalcInterval x GPUs.)
//   - Pending allocated jobs that are not held charge demand: GPUs x
//     [last_pass, now). Running allocated jobs charge demand with their
//     occupancy (Ledger::ChargeRunningJob). Free work (min_runtime 0) is no
//     demand: nobody is owed time for it (libbudget/state/metrics.h).
//   - Jobs whose account maps to no tree node (UnknownAccount=unallocated)
//     are never charged.
//   - Cursors of jobs that no longer appear (purged by slurmctld) are
//     forgotten.
//
// Thread safety: none; the caller owns the ledger.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_USAGE_CHARGING_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_USAGE_CHARGING_H_

#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/policy/gpu_worth.h"
#include "libbudget/state/ledger.h"
#include "libbudget/state/tree.h"
#include "priority_budget/job_view.h"

namespace budget_prio {

struct ChargeStats {
  int running = 0;
  int finished = 0;
  int requeued = 0;  // runs ended by a requeue, their tails charged
  int pending = 0;
  int forgotten = 0;
  double allocated_gpu_seconds = 0;  // charged this pass (weighted)
};

// Whether the job is allocated work: its contract record (AdminComment) has
// min_runtime > 0; a job without a record runs under DefaultMinRuntime.
bool IsAllocatedWork(const JobView& job, const budget::BudgetConfig& config);

// Charges `jobs` into `ledger` for the pass that ends at `now` and began at
// `last_pass` (REQUIRES: last_pass <= now), their GPUs weighted by `fleet`.
// Every job id of `jobs` counts as still present; cursors of other jobs are
// forgotten.
ChargeStats ChargeJobs(const std::vector<JobView>& jobs, const budget::AllocationTree& tree,
                       const budget::BudgetConfig& config, const budget::FleetWorth& fleet,
                       budget::TimePoint last_pass, budget::TimePoint now, budget::Ledger* ledger);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_USAGE_CHARGING_H_
