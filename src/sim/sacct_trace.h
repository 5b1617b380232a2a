// The sacct trace: a site's own job history as Slurm's accounting prints it,
// so that budget-sim can replay it (budget-sim --format sacct). The command
// (doc/simulator.md, "Trace formats"), on one line:
//
//   TZ=UTC SLURM_TIME_FORMAT=standard sacct -a -X -P
//     --starttime 2026-11-01 --endtime 2026-12-01
//     --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment
//
// The fields are read by the core's sacct reader
// (src/libbudget/accounting/sacct_rows.h), which sbudget seed-ledger shares;
// this file says what the simulator makes of a row (ReadSacct,
// trace_formats.h):
//
//   - A job that ended (SacctRun::kEnded) and ran (SacctRow::ran) is
//     replayed: its GPUs (AllocTRES; the type is not kept: every job may
//     run on any GPU), its work (Elapsed, at least 1 s), its submit time.
//     Submit must not be before 1970 (the native writer's times).
//   - Not replayed, counted per reason: steps (sacct without -X); earlier
//     runs of requeued jobs (sacct -D: without it a job's last run is its
//     work); jobs still running or suspended (run time unknown); jobs that
//     never ran (cancelled while pending, pending array tasks, a Start but
//     no allocation); jobs that held no GPUs (or a site whose
//     AccountingStorageTRES lacks gres/gpu).
//   - Timelimit: a Slurm time string (1-02:03:04, 02:00:00, 30:00 is 30
//     minutes), rounded up to whole minutes; UNLIMITED, Partition_Limit or
//     empty: derived from the work (DeriveTimeLimit with
//     --time-limit-factor), as for a trace that gives none.
//   - AdminComment: the recorded contract when there is one; otherwise, and
//     without the column, the default contract (--default-min-runtime,
//     --default-resumable), cut to its time limit as the controller cuts
//     DefaultMinRuntime.
// A heterogeneous job's components (123+1) are jobs of their own: the
// simulator has no co-scheduling, so they may start apart, but each keeps
// its GPUs and run time.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_SACCT_TRACE_H_
#define SLURM_BUDGET_SIM_SACCT_TRACE_H_

#include "libbudget/accounting/sacct_rows.h"

#endif  // SLURM_BUDGET_SIM_SACCT_TRACE_H_
