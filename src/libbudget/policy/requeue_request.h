// RequeueRequest: what a submission says about being requeued, in Slurm's
// words (`sbatch --requeue` / `--no-requeue`) and in the suite's
// (`--resumable`), and how the job contract and Slurm's Requeue flag follow.
//
// Two things, kept apart (doc/admin-guide.md, "Requeue: the contract and
// Slurm's flag"):
//   - the contract's `resumable` (job_contract.h): what the suite's own
//     preemption does with the job (requeue, or cancel). --resumable and
//     --requeue both declare it; --no-requeue declares the job not
//     resumable; neither: not resumable. --resumable with --no-requeue
//     contradict each other and are refused.
//   - Slurm's Requeue flag (job_desc->requeue, JobRequeue): whether Slurm
//     may requeue the job at all: an admin's `scontrol requeue`, a node
//     failure. It keeps Slurm's meaning: 1 for a resumable job, 0 with
//     --no-requeue, and when neither flag was given Slurm's JobRequeue
//     decides (its default, 1, lets an admin requeue any batch job).
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_REQUEUE_REQUEST_H_
#define SLURM_BUDGET_LIBBUDGET_REQUEUE_REQUEST_H_

#include <optional>

#include "libbudget/status.h"

namespace budget {

struct RequeueRequest {
  bool resumable_option = false;      // --resumable (spank/contract)
  std::optional<bool> slurm_requeue;  // --requeue: true, --no-requeue: false, neither: empty
};

// Whether the request declares a resumable job; an error (for the user at
// the terminal) when --resumable meets --no-requeue.
Status ResumableOf(const RequeueRequest& request, bool* resumable);

// The Requeue flag to give Slurm for a job whose contract is `resumable`,
// sent with `slurm_requeue`: empty leaves it to Slurm (JobRequeue).
std::optional<bool> RequeueFlagFor(bool resumable, std::optional<bool> slurm_requeue);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REQUEUE_REQUEST_H_
