// Ledger seed: the usage ledger filled from Slurm's accounting for the
// window before a site switched to priority/budget (sbudget seed-ledger), so
// that the first week's order follows the week before instead of starting
// from nothing.
//
// Input: `sacct -P` output (sacct_rows.h) of the command SeedSacctArguments
// gives: every run (-D: a requeued job's earlier runs too) of every job
// allocation (-X) that ran in [since, now], with JobIDRaw (the job's own
// id, for its charge cursor).
//
// Rules (what must stay true):
//   - Every run that held GPUs is charged as priority/budget would have
//     charged it, by the core's rule (policy/run_charging.h): to
//     tree.NodeFor(account, user)'s path, allocated or free by its contract
//     record (else DefaultMinRuntime), at its weighted GPUs
//     (policy/gpu_worth.h; sacct gives no nodes, so a run is valued as the
//     core values a job whose nodes are unknown: each gres/gpu:TYPE=N of
//     AllocTRES at its type's weight, untyped GPUs at the fleet's mean
//     weight, 1.0 when `fleet` has no nodes), over
//     [max(start, since), min(start + Elapsed, now)).
//   - The runs of one job are charged in start order, each from the job's
//     cursor on: no interval twice. Each charged job keeps its cursor (the
//     end of its last run) in the ledger, so that priority/budget, once it
//     runs, charges a job that was still running from there on and a job
//     that had ended not again.
//   - Skipped and counted, per reason (SeedReport::skipped): steps (sacct
//     without -X), rows that never ran (cancelled before start, pending),
//     runs without GPUs, runs whose account is in no node of the tree
//     (never charged by the plugin either; the accounts are listed), runs
//     that ended before `since`.
//   - Malformed input is an error, never a skip, and *ledger is then left
//     as it was given: a missing header or column (JobIDRaw included), a
//     row with another field count than the header, a field that does not
//     parse, text that does not end in a newline (sacct's output was cut).
//     The error names "<file>:<line>:<column>" and the field.
//   - Demand of pending work is not seeded (the report's owed and delivered
//     figures for the seeded window count running work only).
//
// Thread safety: plain functions; the caller owns the ledger.
#ifndef SLURM_BUDGET_LIBBUDGET_ACCOUNTING_LEDGER_SEED_H_
#define SLURM_BUDGET_LIBBUDGET_ACCOUNTING_LEDGER_SEED_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/policy/gpu_worth.h"
#include "libbudget/standing.h"
#include "libbudget/state/ledger.h"
#include "libbudget/state/tree.h"
#include "libbudget/status.h"

namespace budget {

// The --format seed-ledger asks sacct for.
constexpr char kSeedSacctFormat[] =
    "JobID,JobIDRaw,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment";

// sacct's arguments (without the program name) for the runs of [since,
// now]: -a -X -D -P --starttime/--endtime in UTC (run it with TZ=UTC and
// SLURM_TIME_FORMAT=standard in its environment) --format=kSeedSacctFormat.
std::vector<std::string> SeedSacctArguments(TimePoint since, TimePoint now);

// "YYYY-MM-DDTHH:MM:SS" in UTC.
std::string SacctTimeText(TimePoint t);

struct SeedReport {
  uint64_t rows = 0;          // data rows (not the header)
  uint64_t runs_read = 0;     // rows that held an allocation
  uint64_t runs_charged = 0;  // runs charged (some of [since, now) held GPUs)
  uint64_t jobs_charged = 0;  // distinct jobs among them (their cursors)
  // Rows not charged, per reason, in the order first seen, e.g.
  // ("never ran (cancelled before start, or pending)", 3).
  std::vector<std::pair<std::string, uint64_t>> skipped;
  // Accounts of runs skipped because the tree binds them nowhere, sorted.
  std::vector<std::string> unknown_accounts;
  // Weighted GPU-seconds charged to kAllocated per top-level team (the
  // root's children, by name, in tree order; the root itself as the
  // root's name when an account is bound there), teams without usage
  // included; and the totals.
  std::vector<std::pair<std::string, double>> team_allocated;
  double allocated_gpu_seconds = 0;
  double unallocated_gpu_seconds = 0;
};

// Charges the runs of `text` (sacct's output, `file` naming it in
// messages) into *ledger for [since, now) (see above). REQUIRES: since <
// now; `ledger` is empty or holds only this seed's charges.
Status SeedLedgerFromSacct(std::string_view text, const std::string& file, const AllocationTree& tree,
                           const BudgetConfig& config, const FleetWorth& fleet, TimePoint since, TimePoint now,
                           Ledger* ledger, SeedReport* report);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_ACCOUNTING_LEDGER_SEED_H_
