// RunMetrics: what one policy's run delivered, measured while it runs.
//
//   occupancy          busy GPU-seconds / (capacity x measured period)
//   unallocated_share  GPU-seconds of runs the policy held as unallocated
//                      (RunningJob::allocated() false: free work under
//                      budget, preemptible runs under priority) / busy
//   preemptions        runs ended by a preemption
//   fragmentation      the core's Fragmentation() averaged over time,
//                      weighted by the free GPUs at each instant: the share
//                      of idle GPU-time stranded on partially free nodes
//                      (an unweighted average would count a cluster with
//                      one stranded GPU as 100% fragmented)
//   stranded_of_all    the same stranded GPU-time over all GPU-time
//                      (capacity x measured period): the count the AI21
//                      write-up gives (15% -> 8% of the cluster)
//   wait               submit -> first start, per class; a job still waiting
//                      at the end counts with its wait so far (a lower
//                      bound), so that starvation is not hidden
//   teams              per account, the core's service metrics (metrics.h):
//                      owed = sum over hours of min(entitlement x capacity,
//                      demand), demand = GPUs of the team's running and
//                      waiting FUNDED jobs (min-runtime > 0); delivered =
//                      the GPU-seconds its funded jobs ran. Free work
//                      (min-runtime 0) is owed nothing and counted apart
//                      (free_gpu_hours), under every policy alike, so that
//                      policies compare on the same footing.
//   top_teams          the same for each child of the tree's root (the
//                      teams the cluster is split between), over the runs
//                      and demand of all the accounts below it: owed =
//                      sum over hours of min(its entitlement x capacity,
//                      its accounts' demand). Under a hierarchical fair
//                      share a team's sub-teams share its turn, so one that
//                      used more than its part delays its siblings, never
//                      another team: an account can fall short of its own
//                      part while its team gets its due (a team that is
//                      itself an account has its account's figures).
// Classes (by the trace's contract): debug = allocated work (min_runtime >
// 0) with min_runtime <= debug_max_min_runtime and gpus <= debug_max_gpus;
// unallocated work (min_runtime 0) is free filler, not debugging, and would
// otherwise count as "debug" whatever its size in time. hero = gpus >=
// hero_min_gpus.
//
// The team figures come from a private Ledger whose window spans the whole
// run in 1-hour buckets (the policy's own ledger forgets after
// LookbackWindow), read with MeasureServiceByPath.
//
// Thread safety: none.
#ifndef SLURM_BUDGET_SIM_RUN_METRICS_H_
#define SLURM_BUDGET_SIM_RUN_METRICS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/metrics.h"
#include "libbudget/state/tree.h"
#include "sim/rejections.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

struct ClassThresholds {
  Seconds debug_max_min_runtime = 15 * 60;
  uint32_t debug_max_gpus = 8;
  uint32_t hero_min_gpus = 64;
};

struct WaitStats {
  uint64_t count = 0;
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

struct TeamResult {
  std::string account;
  double entitlement = 0;
  double owed_gpu_hours = 0;
  double delivered_gpu_hours = 0;
  double delivered_over_owed = 1;
  double owed_delivered_fraction = 1;
  // GPU-hours of the team's free work (min-runtime 0), which is neither
  // owed nor counted in delivered (libbudget/state/metrics.h).
  double free_gpu_hours = 0;
  // Waits of the team's debug jobs (the debug class above).
  WaitStats debug_wait;
  std::vector<HourlyService> hours;  // for the usage picture
};

struct PolicyResult {
  std::string policy;
  // The what-if the run made ("builtin", "exact-runtimes"); empty: the loop
  // production runs.
  std::string what_if;
  double occupancy = 0;
  double unallocated_share = 0;
  uint64_t preemptions = 0;
  double fragmentation = 0;
  double stranded_of_all = 0;
  double wall_seconds = 0;
  WaitStats wait_all, wait_debug, wait_hero;
  std::vector<TeamResult> teams;
  std::vector<TeamResult> top_teams;  // the root's children (above); no debug waits
  // Counts, for the table.
  uint64_t jobs = 0, finished = 0, rejected = 0, still_waiting = 0, still_running = 0;
  // The `rejected` jobs per reason (rejections.h).
  std::vector<RejectionReason> rejections;
  uint64_t timeouts = 0;  // of the finished: killed at their time limit
  TimePoint start = 0, end = 0;
  uint64_t capacity = 0;
};

// Percentiles by nearest rank (the smallest value with at least p% of the
// values at or below it); zeros when empty. Sorts *values.
WaitStats ComputeWaitStats(std::vector<double>* values);

class RunMetrics {
 public:
  // Measures [start, end). REQUIRES: start <= end.
  RunMetrics(const Workload& workload, const AllocationTree& tree, uint64_t capacity,
             TimePoint start, TimePoint end, const ClassThresholds& thresholds);
  ~RunMetrics();

  // Integrates the cluster state held since the previous call up to `now`
  // (clamped to the period). Call before changing anything at `now`.
  void AdvanceTo(TimePoint now, uint64_t busy_gpus, uint64_t unallocated_gpus,
                 double fragmentation);
  // A team's running (delivered) or running+waiting (demand) GPUs change.
  // `funded`: the job declared a min-runtime > 0 (the trace's contract,
  // whatever a policy made of it); only funded work is demand and
  // delivered, free work is counted apart.
  void ChangeDelivered(int32_t account, TimePoint now, double delta_gpus, bool funded);
  void ChangeDemand(int32_t account, TimePoint now, double delta_gpus);
  void RecordWait(uint32_t job, Seconds wait);
  void RecordPreemption() { ++preemptions_; }

  // Ends the period earlier than announced (a run that drained early).
  // REQUIRES: no AdvanceTo/Change* call after `end` was passed.
  void ShrinkEnd(TimePoint end) { end_ = std::max(start_, std::min(end_, end)); }

  // Closes the period and fills *out (policy, wall_seconds and the counts
  // are the caller's).
  void Finish(PolicyResult* out);

 private:
  void Charge(int32_t account, Ledger::Series series, TimePoint now, double* rate,
              TimePoint* since, double delta);

  const Workload& workload_;
  const AllocationTree& tree_;
  uint64_t capacity_;
  TimePoint start_, end_;
  ClassThresholds thresholds_;
  std::unique_ptr<Ledger> ledger_;
  TimePoint last_ = 0;
  double busy_seconds_ = 0, unallocated_seconds_ = 0, free_seconds_ = 0, stranded_seconds_ = 0;
  uint64_t preemptions_ = 0;
  // Per account, the ledger key of its top-level team (the root's child
  // at or above it, under a prefix no account name has); "" for none.
  std::vector<std::string> top_team_key_;
  std::vector<double> delivered_rate_, demand_rate_, free_rate_;
  std::vector<TimePoint> delivered_since_, demand_since_, free_since_;
  std::vector<double> waits_all_, waits_debug_, waits_hero_;
  std::vector<std::vector<double>> waits_debug_by_account_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_RUN_METRICS_H_
