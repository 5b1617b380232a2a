// The sacct trace: a site's own job history as Slurm's accounting prints it,
// so that budget-sim can replay it (budget-sim --format sacct). The command
// (doc/simulator.md, "Trace formats"):
//
//   TZ=UTC SLURM_TIME_FORMAT=standard sacct -a -X -P \
//     --starttime 2026-11-01 --endtime 2026-12-01 \
//     --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment
//
// The header line is required (no -n): columns are found by name, in any
// order, and columns the reader does not use are ignored. JobID, Account,
// User, Submit, Start, Elapsed, Timelimit, AllocTRES and State are
// required; AdminComment is optional. -p (a '|' after the last field) reads
// as -P does. Fields are taken as printed: no quoting.
//
// One row is one job allocation:
//   JobID      123 (a job), 123_4 (an array task: a job of its own),
//              123+1 (a heterogeneous job's component: a job of its own; the
//              simulator has no co-scheduling, so the components may start
//              apart, but each keeps its GPUs and run time), 123_[1-3] (an
//              array's tasks that never left the queue: never ran),
//              123.batch, 123.extern, 123.0 (steps, which sacct prints
//              without -X: not replayed, their job's own row counts).
//   State      first word ("CANCELLED by 1000" is CANCELLED). A job that
//              ended (COMPLETED, FAILED, TIMEOUT, CANCELLED, PREEMPTED,
//              NODE_FAIL, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY) is replayed
//              when it ran: Start is a time and AllocTRES is not empty. A
//              job cancelled while pending shows Start None; one slurmdbd
//              learnt of only after it ended may show a Start and an
//              Elapsed, but no allocation. PENDING and the pending holds
//              never ran;
//              RUNNING, SUSPENDED and the transient states are still
//              running, their run time unknown; REQUEUED, REQUEUE_HOLD,
//              REQUEUE_FED and SPECIAL_EXIT are earlier runs of a requeued
//              job (sacct -D prints them; without -D only a job's last run
//              is printed, and that run is its work). All of these are
//              counted per reason, not replayed. Any other state is an
//              error.
//   Submit     the job's submission; Start: the time or Unknown/None.
//              YYYY-MM-DDTHH:MM:SS, taken as UTC (hence TZ=UTC above: local
//              times would jump at daylight saving changes).
//   Elapsed    [D-]HH:MM:SS: the job's work (at least 1 s).
//   Timelimit  a Slurm time string (1-02:03:04, 02:00:00, 30:00 is 30
//              minutes), rounded up to whole minutes; UNLIMITED,
//              Partition_Limit or empty: derived from the work
//              (DeriveTimeLimit with --time-limit-factor), as for a trace
//              that gives none.
//   AllocTRES  the GPUs the job held: gres/gpu=N, or else the sum of the
//              typed gres/gpu:TYPE=N. None (the job held no GPUs, or the
//              site's AccountingStorageTRES lacks gres/gpu): not replayed,
//              counted. The type is not kept: every job may run on any GPU.
//   AdminComment  the contract job_submit/contract recorded
//              (contract:min_runtime=S,resumable=B,...), when there is one;
//              otherwise, and without the column, the job takes the default
//              contract (--default-min-runtime, --default-resumable), cut
//              to its time limit as the controller cuts DefaultMinRuntime.
// Rows not replayed are checked for JobID and State only.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_SACCT_TRACE_H_
#define SLURM_BUDGET_SIM_SACCT_TRACE_H_

#include <cstdint>
#include <string_view>

namespace budget {
namespace sim {

enum class SacctJobId { kJob, kArrayTask, kPendingArray, kHetComponent, kStep };

// What a JobID names; false when it is none of the forms above.
bool ParseSacctJobId(std::string_view text, SacctJobId* out);

// What a State says of the row's run.
enum class SacctRun { kEnded, kNeverRan, kStillRunning, kEarlierRun };

// False for a state Slurm does not print.
bool ParseSacctState(std::string_view text, SacctRun* out);

// The GPUs a TRES list holds (0 when it names none); false when a gres/gpu
// count is not a whole number or the total exceeds 2^20.
bool GpusOfTres(std::string_view tres, uint32_t* gpus);

// YYYY-MM-DDTHH:MM:SS as UTC seconds since the epoch.
bool ParseSacctTime(std::string_view text, int64_t* out);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SACCT_TRACE_H_
