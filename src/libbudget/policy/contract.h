// Contract: the time-slicing bargain every job signs, and the records of jobs
// under it that the preemption, drain and placement rules work on.
//
// A job declares a minimum runtime and whether it is resumable.
//   - min_runtime > 0: ALLOCATED work, charged to its budget. It is protected
//     from preemption while now < protection end = start + min_runtime + 1:
//     through the second of start + min_runtime. Slurm records a start in
//     whole seconds, rounded down, so a run recorded at S began in [S, S+1)
//     and has surely had its min_runtime only once that second is over. A
//     job is never preempted short of its contract, and one whose work is
//     exactly its min-runtime is not preempted in the instant it ends.
//   - min_runtime == 0: UNALLOCATED work, free and never protected.
//   - Preempted, a resumable job is requeued and a non-resumable one is
//     cancelled. A requeued job starts again with a fresh protection window:
//     the caller passes the new start, nothing here remembers the old one.
//
// Invariants: a protection end is never before its start; min_runtime < 0 is
// treated as 0 (unallocated) by every function here, so that a bad record can
// never make a job protected forever.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_CONTRACT_H_
#define SLURM_BUDGET_LIBBUDGET_CONTRACT_H_

#include <cstdint>
#include <limits>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "libbudget/standing.h"

namespace budget {

// The allocation of work that maps to no tree node.
constexpr int32_t kNoAllocation = -1;

// What happens to a job when it is preempted.
enum class PreemptAction { kRequeue, kCancel };

// "requeue" or "cancel" (for logs).
const char* PreemptActionName(PreemptAction action);

// Requeue if resumable, cancel otherwise.
inline PreemptAction ActionWhenPreempted(bool resumable) {
  return resumable ? PreemptAction::kRequeue : PreemptAction::kCancel;
}

// True for allocated work (min_runtime > 0).
inline bool IsAllocatedWork(Seconds min_runtime) { return min_runtime > 0; }

// start + min_runtime + 1 (start itself for unallocated work): the first
// second the job may be preempted. Saturates rather than overflows: a
// corrupt record must not wrap around into the past (or into undefined
// behaviour). Inline: the time-slicing pass asks it of every running job
// several times a pass.
inline TimePoint ProtectionEnd(TimePoint start, Seconds min_runtime) {
  if (!IsAllocatedWork(min_runtime)) return start;
  if (start > std::numeric_limits<TimePoint>::max() - min_runtime - 1) return std::numeric_limits<TimePoint>::max();
  return start + min_runtime + 1;
}

// now < ProtectionEnd(start, min_runtime). Unallocated work is never
// protected.
inline bool IsProtected(TimePoint start, Seconds min_runtime, TimePoint now) {
  return IsAllocatedWork(min_runtime) && now < ProtectionEnd(start, min_runtime);
}

// GPUs a job holds on one node. `node` is a NodeState::index (packing.h).
struct NodeGpus {
  int32_t node = -1;
  uint32_t gpus = 0;
};

// A job that runs now, as the contract rules see it.
struct RunningJob {
  uint32_t job_id = 0;
  // Tree node the job is charged to (index into the Standing vector), or
  // kNoAllocation.
  int32_t allocation = kNoAllocation;
  // The start of the current run (after a requeue: the new start).
  TimePoint start = 0;
  Seconds min_runtime = 0;
  bool resumable = false;
  // Orders jobs inside one allocation only (higher = more important).
  uint32_t user_priority = 0;
  // Slurm's time limit of the run (< 0: unlimited): the run ends by
  // start + time_limit at the latest (backfill plans by it, the hero plan
  // releases a node by it).
  Seconds time_limit = -1;
  // Slurm's priority of the job (larger = its allocation ranks higher); the
  // hero plan's tie break between nodes.
  uint32_t priority = 0;
  // Its user (a uid, or any id of one user; < 0 unknown), and whether it
  // started as a quick-start job (QuickStartRule): the pass bounds each
  // user's protected quick-start runs (timeslice_plan.h).
  int64_t user = -1;
  bool quick = false;
  boost::container::small_vector<NodeGpus, 2> nodes;

  bool allocated() const { return IsAllocatedWork(min_runtime); }
  TimePoint protection_end() const { return ProtectionEnd(start, min_runtime); }
  bool IsProtectedAt(TimePoint now) const { return IsProtected(start, min_runtime, now); }
  PreemptAction action() const { return ActionWhenPreempted(resumable); }
  // Inline: every pass sums it for each running job, several times.
  uint64_t total_gpus() const {
    uint64_t sum = 0;
    for (const NodeGpus& n : nodes) sum += n.gpus;
    return sum;
  }
};

// A job that waits: what it needs. A job of more than one node takes whole
// nodes; a job of one node may share a node with others.
struct JobShape {
  uint32_t job_id = 0;
  int32_t allocation = kNoAllocation;
  Seconds min_runtime = 0;
  uint32_t node_count = 1;
  uint32_t gpus_per_node = 0;
  // A quick-start job (QuickStartRule below; preempt.h rule 3b).
  bool quick = false;

  bool allocated() const { return IsAllocatedWork(min_runtime); }
  uint64_t total_gpus() const { return uint64_t{node_count} * gpus_per_node; }
};

// Which waiting jobs start quickly (budget.conf QuickStartGpus,
// QuickStartMinRuntime): allocated work of one node with at most
// `max_gpus` GPUs and a min-runtime of at most `max_min_runtime` (a debug
// job: it only needs to show that it starts). max_gpus 0: none.
struct QuickStartRule {
  Seconds max_min_runtime = 15 * 60;
  uint32_t max_gpus = 1;
  // At most this many GPUs of one user's quick-start runs that are still
  // protected, at once (budget.conf QuickStartUserGpus; 0: no bound): the
  // debug QOS's MaxTRESPerUser, so that quick start is no way around the
  // fair-share order (timeslice_plan.h).
  uint32_t max_user_gpus = 8;
  // Nodes kept free of long protections for quick-start jobs
  // (quick_reserve.h; budget.conf QuickStartReserveNodes; 0: none).
  uint32_t reserve_nodes = 0;

  bool Applies(const JobShape& job) const {
    return max_gpus > 0 && job.allocated() && job.min_runtime <= max_min_runtime && job.node_count == 1 &&
           job.gpus_per_node <= max_gpus;
  }
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CONTRACT_H_
