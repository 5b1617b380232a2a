// SlurmModel: what Slurm 22.05's own schedulers do with the priorities the
// suite computes, so that the simulator replays the loop production runs
// (SchedulerType=sched/backfill under the suite's time slicing). Production
// runs the real schedulers; this model is what budget-sim runs in their
// place, and scripts/replay.sh measures how well the two agree.
//
// What is modelled (src/slurmctld/job_scheduler.c schedule(),
// src/plugins/sched/backfill/backfill.c, select/cons_tres's will-run test),
// GPUs as the only resource, each job on the nodes it may run on
// (eligibility.h: the partitions, GPU types and features of a mixed
// fleet):
//
// MAIN SCHEDULER (RunMainScheduler): run at job submission and job end and
// every sched_interval. It tests the pending jobs in Slurm's queue order
// (priority, then submit time, then job id) and starts each that fits now;
// the first one that does not fit stops the pass: the partition is failed
// and nothing behind it starts (fail_by_part). At most `depth` jobs are
// tested (default_queue_depth for event passes; the periodic pass tests
// the whole queue) and at most sched_max_job_start started.
//
// BACKFILL (RunBackfill): run every bf_interval. It tests at most
// bf_max_job_test jobs in queue order. A job that fits now on nodes that no
// earlier job of this pass has reserved for the job's whole time limit
// starts now. Otherwise its earliest start is planned by TIME LIMITS, never
// true durations: a running job frees its GPUs at start + time limit (never,
// when unlimited); the candidate starts are now, those ends and the ends of
// reservations. If that start is within bf_window, the chosen NODES are
// reserved, whole, from the start rounded down to bf_resolution to start +
// time limit rounded down (at least one resolution step), as Slurm's
// node_space map does: a later job may use a reserved node only if its own
// time limit ends before the reservation begins. At most bf_max_job_start
// jobs start. bf_continue changes nothing here (scheduler_params.h).
//
// PLACEMENT, in both: the core's packing (packing.h ChooseNodes, what
// select/topo asks cons_tres for; Placement::kFirstFit models cons_tres
// alone), never on nodes held for a hero job that
// the job may not use (hero_plan.h MayUseHeldNodes) nor, for a long
// protection, on the quick-start reserve (quick_reserve.h), as select/topo
// removes them in RUN_NOW and WILL_RUN tests alike. A reservation's nodes
// are the packing's choice on the GPUs free at the planned start.
//
// NOT modelled: preemption by Slurm's schedulers (preempt/timeslice turns
// it off; the time-slicing pass, timeslice_plan.h, preempts); a queue per
// partition (one queue and one fail_by_part for all), QOS and association
// limits, advance reservations, licenses; CPUs and memory (a job that fits in GPUs fits); time a pass
// takes (passes are instantaneous, so bf_max_time and yielding never cut
// one short).
//
// Cost: a job that cannot start costs O(nodes x log(jobs on a node)) to
// plan; a pass stops planning as soon as no GPU is free now (nothing else
// could start), so a full cluster costs O(1) per pass.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_SLURM_MODEL_H_
#define SLURM_BUDGET_LIBBUDGET_SLURM_MODEL_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "libbudget/policy/quick_reserve.h"
#include "libbudget/policy/scheduler_params.h"
#include "libbudget/standing.h"

namespace budget {

// A pending job Slurm may start now, as its schedulers see it.
struct SlurmJob {
  uint32_t job_id = 0;
  GpuRequest request;       // nodes x GPUs per node
  Seconds time_limit = -1;  // < 0: unlimited
  Seconds min_runtime = 0;  // for the hero hold
  bool quick = false;       // a quick-start job (contract.h), for the hero hold
  EligibleNodes eligible;   // the nodes it may run on (null: every node)
};

// Slurm's queue: the jobs that may start now (eligible, not held, begin
// time passed) in Slurm's order: priority (higher first), then submit time,
// then job id. A pass walks it once from the start.
class SlurmQueue {
 public:
  virtual ~SlurmQueue() = default;
  // The next job in order; false at the end.
  virtual bool Next(SlurmJob* job) = 0;
};

// A SlurmQueue over a vector already in Slurm's order (tests, small callers).
class VectorQueue : public SlurmQueue {
 public:
  explicit VectorQueue(std::vector<SlurmJob> jobs) : jobs_(std::move(jobs)) {}
  bool Next(SlurmJob* job) override {
    if (next_ >= jobs_.size()) return false;
    *job = jobs_[next_++];
    return true;
  }

 private:
  std::vector<SlurmJob> jobs_;
  size_t next_ = 0;
};

struct SlurmStart {
  uint32_t job_id = 0;
  std::vector<int32_t> nodes;  // NodeState::index, ascending
};

// A backfill reservation: the job's planned start and nodes.
struct SlurmReservation {
  uint32_t job_id = 0;
  TimePoint start = 0;         // as planned (not rounded)
  std::vector<int32_t> nodes;  // NodeState::index
};

struct SlurmPass {
  std::vector<SlurmStart> starts;
  // Backfill: the reservations the pass made. A job is planned only when a
  // job behind it could start now (its reservation is then in the way), so
  // jobs after the last such job are not planned and not listed.
  std::vector<SlurmReservation> reservations;
  uint32_t tested = 0;                         // jobs looked at
  // Main: the job the pass stopped at (0: it reached the end or a limit).
  uint32_t blocked_by = 0;
};

constexpr TimePoint kNeverEnds = std::numeric_limits<TimePoint>::max();

// How nodes are chosen: select/topo's packing (packing.h ChooseNodes), or
// the lowest-index nodes that fit (select/cons_tres alone, as far as GPUs
// go: the baseline the packing is measured against).
enum class Placement { kBestFit, kFirstFit };

// The nodes `placement` chooses for `request` on `nodes`.
Status ChooseWith(Placement placement, const std::vector<NodeState>& nodes, const GpuRequest& request,
                  NodeChoice* choice);

// The main scheduler's pass over `queue` at `now` on `nodes` (free GPUs as
// now). `depth` jobs at most (0: no limit).
SlurmPass RunMainScheduler(const SchedulerParams& params, uint32_t depth, std::vector<NodeState> nodes,
                           const NodeHolds& holds, SlurmQueue* queue, TimePoint now,
                           Placement placement = Placement::kBestFit);

// Backfill's pass. `running`: every running job, with its nodes and GPUs,
// start and time_limit (its planned end).
SlurmPass RunBackfill(const SchedulerParams& params, std::vector<NodeState> nodes,
                      const std::vector<RunningJob>& running, const NodeHolds& holds, SlurmQueue* queue,
                      TimePoint now, Placement placement = Placement::kBestFit);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_SLURM_MODEL_H_
