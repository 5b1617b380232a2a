// SimJob: the simulator's state of one job of the workload while one policy
// is replayed (the trace record itself stays in the Workload).
//
// Life: kFuture (not submitted yet) -> kPending <-> kRunning -> kDone, or
// kCancelled (preempted and not resumable... see below), or kRejected
// (admission refused it: unknown account, bad contract, larger than the
// cluster).
// A preempted resumable job is requeued: it returns to kPending needing
// only its remaining work, and may start again after the requeue delay; a
// preempted non-resumable job is cancelled by its contract and, as its
// owner would, resubmitted at once: it returns to kPending needing its
// whole work again. Both queue as Slurm queues them (queue_submit is the
// requeue or resubmission time), and waits are measured from the trace's
// submission. A run that reaches its time limit ends (Slurm's TIMEOUT):
// the job is done without its work.
//
// Invariants: remaining in [1, duration] while not done; serial counts the
// starts, so an event stamped with an older serial is stale.
#ifndef SLURM_BUDGET_SIM_SIM_JOB_H_
#define SLURM_BUDGET_SIM_SIM_JOB_H_

#include <cstdint>

#include "libbudget/standing.h"
#include "libbudget/state/tree.h"
#include "sim/cluster.h"

namespace budget {
namespace sim {

enum class JobState : uint8_t { kFuture, kPending, kRunning, kDone, kRejected };

struct SimJob {
  JobState state = JobState::kFuture;
  Shape shape;
  NodeId node = kNoNode;   // tree node charged (AllocationTree::NodeFor)
  Seconds remaining = 0;   // work still needed
  Seconds min_runtime = 0; // as admitted (clamped by the contract rules)
  TimePoint first_start = -1;
  TimePoint run_start = 0;
  // Slurm's submit time, the queue's tie break: the submission, reset to the
  // requeue time by a requeue, the resubmission time after a cancellation.
  TimePoint queue_submit = 0;
  // A requeued job may start again only from then (Slurm's begin time).
  TimePoint eligible_at = 0;
  uint32_t serial = 0;
  int32_t running_slot = -1;  // index in the engine's running list
  uint32_t preemptions = 0;
  bool allocated_run = false;  // the current run is allocated work
  // Told to leave (budget.conf PreemptNotice): when, until when, why and
  // for whom; notice_until < 0 when not. It keeps its GPUs until then.
  TimePoint notice_from = -1, notice_until = -1;
  uint8_t notice_end = 0;     // a RunEnd: kPreempted or kDrained
  uint32_t notice_by = 0;     // the preemptor's job id (0: a drain)
  // The nodes it may run on (its GPU type's; null: every node).
  EligibleNodes eligible;
  Allocation allocation;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SIM_JOB_H_
