// FairTreeQosPolicy ("fairtree+qos"): stock Slurm as a careful admin sets it
// up for a GPU lab, the baseline the suite must beat (doc/simulator.md):
//   - Fair Tree over the same tree (FairTreePolicy: decayed usage, Level FS);
//   - a debug QOS, which a job gets when it is of the debug class of the
//     run's metrics (run_metrics.h ClassThresholds: allocated work of at
//     most debug_max_gpus GPUs and a min-runtime of at most
//     debug_max_min_runtime, as a user would pick --qos=debug) and its
//     time limit is within the QOS's MaxWall (PolicyOptions
//     debug_qos_max_wall, 30 min; Slurm refuses a longer one in the QOS, so
//     such a job is submitted in the normal QOS). Its priority is above
//     every fair-share priority (PriorityWeightQOS dominating): the QOS is
//     one lane walked before the tree's lanes;
//   - the QOS's per-user limits: at most debug_qos_max_jobs_per_user
//     running jobs and debug_qos_max_gpus_per_user GPUs (MaxJobsPerUser,
//     MaxTRESPerUser=gres/gpu); a job over them waits without stopping
//     Slurm's pass (policy.h has_start_limits);
//   - PreemptType=preempt/qos, PreemptMode=REQUEUE: a debug job that cannot
//     start preempts normal-QOS work (any team's, its own included, free or
//     not) that has run PreemptExemptTime (qos_preempt_exempt_time); debug
//     jobs are never preempted, and normal-QOS jobs preempt nothing (preempt
//     /qos preempts only across QOS). The set is the core's choice
//     (ChoosePreemption: gang-safe, minimal), fed the debug job as a quick
//     start job of a pseudo-allocation that no running job has, so that
//     the rank and ping-pong rules never refuse it (preempt.h rule 3b);
//   - backfill: the engine's model of Slurm's (engine.h), as for every
//     policy.
// Users without a name in the trace count as one user per account.
#ifndef SLURM_BUDGET_SIM_FAIRTREE_QOS_POLICY_H_
#define SLURM_BUDGET_SIM_FAIRTREE_QOS_POLICY_H_

#include <unordered_map>

#include "sim/fairtree_policy.h"

namespace budget {
namespace sim {

class FairTreeQosPolicy : public FairTreePolicy {
 public:
  const char* name() const override { return "fairtree+qos"; }
  Status Init(const SimContext& context) override;
  void OnStart(uint32_t job, TimePoint now) override;
  void OnStop(uint32_t job, TimePoint now) override;
  void Recompute(TimePoint now) override;
  size_t LaneOf(uint32_t job) const override;
  Preemption preemption() const override { return Preemption::kScheduler; }
  JobShape PendingShape(uint32_t job) const override;
  RunningJob RunningRecord(uint32_t job) const override;
  void AddCommitments(const std::vector<RunningJob>& running, TimePoint now,
                      std::vector<Standing>* standings) const override;
  TimePoint PreemptibleFrom(uint32_t job) const override;
  bool has_start_limits() const override { return true; }
  void BeginSchedulerPass() override { offered_.clear(); }
  bool MayStart(uint32_t job) override;

  // Whether `job` runs in the debug QOS (fixed at submission).
  bool InDebugQos(uint32_t job) const { return in_qos_[job] != 0; }

 private:
  struct UserUse {
    uint32_t jobs = 0;
    uint64_t gpus = 0;
  };
  // The key of the job's user for the per-user limits.
  int64_t UserKey(uint32_t job) const;
  uint64_t Gpus(uint32_t job) const;
  // The lane of the debug QOS and the pseudo-allocation its jobs preempt as.
  size_t qos_lane() const { return ctx_.tree->size() + 1; }
  int32_t qos_allocation() const { return int32_t(ctx_.tree->size()); }
  Seconds exempt() const { return std::max<Seconds>(1, ctx_.options->qos_preempt_exempt_time); }

  std::vector<uint8_t> in_qos_;                     // per job
  std::unordered_map<int64_t, UserUse> running_;    // debug QOS jobs running, per user
  std::unordered_map<int64_t, UserUse> offered_;    // offered in this walk of the queue
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FAIRTREE_QOS_POLICY_H_
