// Engine: replays a workload under one policy, jumping from event to event,
// through the scheduling loop production runs (one loop, in the core,
// modelled by its parameters):
//
//   - Slurm's MAIN SCHEDULER (libbudget/policy/slurm_model.h RunMainScheduler) at
//     every submission and job end, default_queue_depth jobs deep, and every
//     sched_interval over the whole queue: jobs in the policy's priority
//     order start where they fit; the first that does not stops the pass.
//   - Slurm's BACKFILL (RunBackfill) every bf_interval, planned by time
//     limits (--what-if exact-runtimes: by the true remaining work instead,
//     the optimistic case; --what-if builtin: no backfill at all).
//   - Preemption, by the policy's kind (policy.h): the suite's
//     TIME-SLICING PASS (libbudget/policy/timeslice_plan.h) every
//     TimesliceInterval, which also drains DRAIN nodes at contract end; or,
//     for the stock baselines, Slurm's scheduler itself when its main pass
//     stops at a job (at most max_preempt_attempts core choices a pass).
//   - The policy's priorities are recomputed every RecalcInterval.
//   - Under the suite, select/topo's HERO HOLD (libbudget/policy/hero_plan.h) is
//     refreshed at each backfill tick and time-slicing pass, at most once
//     per second as select/topo refreshes it at Slurm's node tests (the
//     main scheduler between two ticks sees the last one), and binds both
//     schedulers and the time-slicing pass.
// Periodic passes keep their phase (first submission + k x interval) and
// run only while jobs wait (or, for the time-slicing pass, while a
// draining node still runs jobs): idle stretches cost nothing. Within one
// instant: arrivals, ends, drains and returns first; then the recompute, the
// time-slicing pass, the main scheduler, backfill.
//
// Runs: a run ends when its work is done, at its time limit (TIMEOUT), or
// by a preemption or a drain. Victims leave at once (Slurm requeues in well
// under a second); a requeued job may start again after requeue_delay
// (Slurm's credential lifetime + 1 s), a cancelled one is resubmitted at
// once (sim_job.h). The run ends at `until` (absolute; < 0: when every job
// has finished, but at most a bound far beyond any schedule: last submit +
// total GPU-seconds / capacity + 4 x the longest job).
//
// Thread safety: none; an Engine is used by one thread for one run.
#ifndef SLURM_BUDGET_SIM_ENGINE_H_
#define SLURM_BUDGET_SIM_ENGINE_H_

#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/policy/scheduler_params.h"
#include "libbudget/state/tree.h"
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
  // GPU type per node (optional; a mixed fleet, --gpu-types): node i has
  // GPUs of type gpu_types[i] and the node feature of that name. A job
  // asking for a type runs only on its nodes (libbudget/policy/eligibility.h).
  std::vector<std::string> gpu_types;
  bool packing = true;
  TimePoint until = -1;
  // Baselines that preempt in Slurm's scheduler: core choices per main pass.
  uint32_t max_preempt_attempts = 8;
  // What-ifs, labelled as such in the output (the defaults model
  // production): no backfill (sched/builtin), or backfill that knows every
  // run's true remaining work instead of its time limit.
  bool builtin_scheduler = false;
  bool exact_runtimes = false;
  // How the time-slicing pass walks the queue: by shape class, leaving out
  // the classes it skips (the default), or over a vector of every waiting
  // job, as the plugin gives it. Both decide alike (engine_test checks it);
  // the vector costs O(waiting jobs) per pass.
  bool walk_by_class = true;
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
  // A node resumed from a drain takes jobs this long after the resume:
  // slurmctld marks it not responding until its slurmd answers a ping
  // (src/slurmctld/node_mgr.c, _require_node_reg), which the controller's
  // background loop, waking about once a second, sends. Real seconds, so
  // the same under any compression. 0: at once.
  Seconds node_answer_delay = 1;
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
