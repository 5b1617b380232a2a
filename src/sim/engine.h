// Engine: replays a workload under one policy, jumping from event to event.
//
// Events: arrival (submission), finish, end of protection (when a run
// becomes preemptible: a chance to preempt it), and the periodic recompute
// every RecalcInterval, which is only due while jobs wait: idle stretches
// cost nothing, and the first arrival after one recomputes at once. All
// events at one instant are applied first, then ONE scheduling pass runs.
//
// The scheduling pass (shared by every policy; policies differ in order and
// preemption rule only):
//   - visits waiting jobs in the policy's order; a job that fits starts at
//     once, placed by the cluster's placement engine;
//   - a job that does not fit may preempt, at recompute ticks and ends of
//     protection only (the plugins' time-slicing passes), through the core's
//     ChoosePreemption on the policy's records; at most
//     max_preempt_attempts such calls per pass, and none for a shape that
//     already failed in this pass (nothing changed for it). A cheap
//     necessary condition is checked first (rules 1, 2, 3, 5 of preempt.h):
//     the job is allocated, and free GPUs plus the GPUs of unprotected
//     running jobs that are unallocated or rank behind its allocation cover
//     it (suffix sums over ranks, counted once per pass), then the same
//     count over the running jobs the pairwise rule (MayPreempt) allows;
//   - the first job that can neither start nor preempt gets a reservation
//     (computed lazily, when a later job fits)
//     (EASY backfill): the time the running jobs' ends free enough GPUs
//     (the simulator knows every run's end exactly; Slurm would use time
//     limits). Later jobs start only if they end before it or use GPUs it
//     leaves spare, and at most backfill_window jobs are looked at after it.
//
// Requeued and resubmitted jobs: see sim_job.h. The run ends at
// `until` (absolute; < 0: when every job has finished, but at most a bound
// far beyond any schedule: last submit + total GPU-seconds / capacity + 4 x
// the longest job).
//
// Thread safety: none; an Engine is used by one thread for one run.
#ifndef SLURM_BUDGET_SIM_ENGINE_H_
#define SLURM_BUDGET_SIM_ENGINE_H_

#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "libbudget/config.h"
#include "libbudget/scheduler_params.h"
#include "libbudget/tree.h"
#include "sim/cluster.h"
#include "sim/policy.h"
#include "sim/run_metrics.h"
#include "sim/sim_job.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// A node taken out of service (DRAIN) at `at`, and back in service at
// `resume_at` (< 0: never). `node` is the node's index (0-based; the node
// Slurm names n<node + 1> in scripts/cluster.sh's clusters).
struct NodeDrain {
  int32_t node = 0;
  TimePoint at = 0;
  TimePoint resume_at = -1;
};

struct EngineOptions {
  uint32_t nodes = 128;
  uint32_t gpus_per_node = 8;
  std::vector<int32_t> groups;  // topology group per node (optional)
  bool packing = true;
  TimePoint until = -1;
  uint32_t backfill_window = 100;
  uint32_t max_preempt_attempts = 8;
  ClassThresholds thresholds;
  PolicyOptions policy;
  // Slurm's schedulers as slurm.conf's SchedulerParameters configure them.
  SchedulerParams scheduler;
  // A requeued job may start again only this long after its requeue
  // (Slurm: the credential lifetime + 1 s; 121 s unless AuthInfo sets
  // cred_expire).
  Seconds requeue_delay = 121;
  // Nodes drained (and resumed) during the run, in any order.
  std::vector<NodeDrain> drains;
  bool record_timeline = false;
  bool record_decisions = false;
  // Called now and then with the simulated fraction done, in [0, 1].
  std::function<void(double)> progress;
};

// How a run ended.
enum class RunEnd : uint8_t {
  kRunning,    // still running when the simulation stopped
  kFinished,   // its work was done
  kPreempted,  // preempted to make room for another job (preempted_by)
  kTimeout,    // killed at its time limit
  kDrained,    // preempted because its node was drained (drain at contract end)
};

// "running", "finished", "preempted", "timeout", "drained".
const char* RunEndName(RunEnd end);

// One run of one job on some GPUs, for the per-GPU timeline and the
// per-run event list (--events-json).
struct Segment {
  uint32_t job = 0;  // index in the workload
  TimePoint start = 0, end = 0;
  TimePoint preemptible_from = 0;  // >= start; may be past end (never, for
                                   // policies that do not preempt)
  bool preempted = false;          // the run ended by a preemption (or a drain)
  RunEnd ended = RunEnd::kRunning;
  uint32_t preempted_by = 0;       // kPreempted: the trace id of the job it made room for
  Allocation allocation;
};

// One scheduling decision, for tests and comparisons.
struct Decision {
  enum class Kind { kStart, kPreempt, kFinish, kRecompute };
  Kind kind = Kind::kStart;
  TimePoint time = 0;
  uint32_t job_id = 0;     // the job started / preempted / finished (0: kRecompute)
  uint32_t by_job_id = 0;  // kPreempt: the job it made room for
  std::vector<int32_t> nodes;  // kStart: where
};

struct RunOutput {
  PolicyResult result;
  std::vector<Segment> timeline;
  std::vector<Decision> decisions;
};

// Replays `workload` under `policy`. Errors: a policy that fails Init, an
// invalid workload or cluster.
Status RunSimulation(const Workload& workload, const AllocationTree& tree,
                     const BudgetConfig& config, const EngineOptions& options, Policy* policy,
                     RunOutput* out);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_ENGINE_H_
