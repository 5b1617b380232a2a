// Run charging: how one run of a job is charged into the ledger, the rule
// priority/budget applies at every pass (src/priority_budget/usage_charging.h
// says when each job is charged) and sbudget seed-ledger applies to the
// runs Slurm's accounting recorded (accounting/ledger_seed.h). One rule, so
// that a seeded week and a charged week are the same figures.
//
// Rules (what must stay true):
//   - A job is allocated work when its contract record (AdminComment) has
//     min_runtime > 0; a job without a record runs under DefaultMinRuntime.
//     Allocated work occupies kAllocated (and demands), free work
//     kUnallocated (Ledger::ChargeRunningJob).
//   - A run is charged its rate (weighted GPUs, gpu_worth.h) x
//     [max(start, the job's cursor), until) to its tree path, and the job's
//     cursor moves to `until`, so an interval is never charged twice: not by
//     a later pass, not by a later run of the same job (a requeued job's
//     runs, charged in start order), not by the plugin after a seed.
//     A job without GPUs is charged nothing; its cursor still moves.
//
// Thread safety: none; the caller owns the ledger.
#ifndef SLURM_BUDGET_LIBBUDGET_RUN_CHARGING_H_
#define SLURM_BUDGET_LIBBUDGET_RUN_CHARGING_H_

#include <cstdint>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/policy/job_contract.h"
#include "libbudget/standing.h"
#include "libbudget/state/ledger.h"

namespace budget {

// Whether a job with this contract record (has_contract false: none) is
// allocated work under `config`.
bool IsAllocatedWork(bool has_contract, const JobContract& contract, const BudgetConfig& config);

// The series a job's run occupies.
inline Ledger::Series OccupancyOf(bool allocated) {
  return allocated ? Ledger::Series::kAllocated : Ledger::Series::kUnallocated;
}

// Charges job `job_id`'s run that began at `start` up to `until` (from its
// cursor on) at `rate` weighted GPUs to `path`, and moves the cursor to
// `until`. Returns the GPU-seconds charged to kAllocated (0 for free work).
// REQUIRES: `until` is not in the future (Ledger::Charge).
double ChargeRun(uint32_t job_id, const std::string& path, Ledger::Series occupancy, TimePoint start,
                 TimePoint until, double rate, Ledger* ledger);

// The ledger that budget.conf's LookbackWindow and LedgerBucket ask for:
// the report-only series keep hourly buckets unless the window is too
// short or not a multiple of an hour (time-compressed tests). Both the
// plugin and seed-ledger build theirs with it, so that a seeded file loads
// as the plugin's own.
Ledger::Options LedgerOptionsFor(const BudgetConfig& config);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_RUN_CHARGING_H_
