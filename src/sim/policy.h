// Policy: what differs between the schedulers the simulator compares. The
// engine (engine.h) owns time, jobs, the cluster and the one placement
// engine; a policy owns the ORDER of waiting jobs and, if it preempts, the
// translation of jobs into the core's contract records, so that every
// preemption choice is the core's ChoosePreemption (gang-safe, never more
// than needed) under the policy's pairwise rule.
//
// Call protocol (engine -> policy), all with non-decreasing `now`:
//   Init once; then per job Admit at submission, Enqueue/Dequeue as it
//   enters and leaves the queue, OnStart/OnStop around each run; Recompute
//   every RecalcInterval while jobs wait. Between Recomputes the lane order
//   is fixed.
//
// Thread safety: none; one policy object per run.
#ifndef SLURM_BUDGET_SIM_POLICY_H_
#define SLURM_BUDGET_SIM_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/policy/contract.h"
#include "libbudget/policy/preempt.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"
#include "sim/cluster.h"
#include "sim/pending_queue.h"
#include "sim/run_metrics.h"
#include "sim/sim_job.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// Knobs of the baseline policies (the budget policy reads budget.conf).
struct PolicyOptions {
  // fairtree: usage half-life and the global PreemptExemptTime.
  Seconds fairtree_half_life = 7 * 86400;
  Seconds preempt_exempt_time = 3600;
  bool fairtree_preempts = true;
  // fairtree+qos (fairtree_qos_policy.h): the debug QOS's MaxWall, its
  // per-user limits on running jobs and GPUs (MaxJobsPerUser,
  // MaxTRESPerUser=gres/gpu), and the PreemptExemptTime of its preemption.
  Seconds debug_qos_max_wall = 30 * 60;
  uint32_t debug_qos_max_jobs_per_user = 2;
  uint32_t debug_qos_max_gpus_per_user = 8;
  Seconds qos_preempt_exempt_time = 30 * 60;
  // priority: a job declaring priority >= this is HIGH.
  uint32_t high_priority_threshold = 1;
};

// What a policy sees of the run; owned by the engine, valid for the run.
struct SimContext {
  const Workload* workload = nullptr;
  const AllocationTree* tree = nullptr;
  const BudgetConfig* config = nullptr;
  const PolicyOptions* options = nullptr;
  const std::vector<SimJob>* jobs = nullptr;
  const Cluster* cluster = nullptr;
  // The classes the run's metrics use (run_metrics.h): fairtree+qos gives
  // its debug QOS to the jobs of the debug class.
  const ClassThresholds* thresholds = nullptr;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual const char* name() const = 0;
  virtual Status Init(const SimContext& context) = 0;

  // At submission: may adjust the admitted contract (*min_runtime) or
  // refuse the job (false, *why says why). Default: admit as declared.
  virtual bool Admit(uint32_t job, Seconds* min_runtime, std::string* why);

  virtual void Enqueue(uint32_t job, TimePoint now) = 0;
  virtual void Dequeue(uint32_t job) = 0;
  virtual void OnStart(uint32_t job, TimePoint now) = 0;
  virtual void OnStop(uint32_t job, TimePoint now) = 0;
  virtual void Recompute(TimePoint now) = 0;

  // The queue and the order in which to visit its lanes.
  virtual const PendingQueue& queue() const = 0;
  virtual const std::vector<uint32_t>& lane_order() const = 0;
  // The lane a waiting job is in, and its key there.
  virtual size_t LaneOf(uint32_t job) const = 0;
  virtual PendingQueue::Key KeyOf(uint32_t job) const = 0;

  // Who preempts, and so which parts of the loop run (engine.h):
  //   kNever      nobody (fifo);
  //   kScheduler  Slurm's own scheduler, when a job it tries cannot start,
  //               by the policy's pairwise rule (the stock baselines);
  //   kTimeslice  the suite: the time-slicing pass of timeslice_plan.h
  //               every TimesliceInterval, drain at contract end and the
  //               hero hold; Slurm's schedulers never preempt.
  enum class Preemption { kNever, kScheduler, kTimeslice };
  virtual Preemption preemption() const { return Preemption::kNever; }
  bool preempts() const { return preemption() != Preemption::kNever; }
  // The core records, for ChoosePreemption. RunningRecord leaves `nodes`
  // empty (the engine fills them).
  virtual JobShape PendingShape(uint32_t job) const;
  virtual RunningJob RunningRecord(uint32_t job) const;
  virtual const std::vector<Standing>& standings() const;
  // Adjusts a copy of standings() before a preemption choice at `now`
  // by Slurm's scheduler (Preemption::kScheduler; default: none).
  // `running` are the core records of the running jobs.
  virtual void AddCommitments(const std::vector<RunningJob>& running, TimePoint now,
                              std::vector<Standing>* standings) const;
  virtual ClusterScale scale() const;

  // Slurm's per-user QOS limits (fairtree+qos). A job over them waits
  // (Slurm's reason QOSMaxJobsPerUserLimit) and Slurm's schedulers pass
  // over it without stopping. has_start_limits() false: no job is ever
  // held so, and the engine asks nothing. Otherwise the engine calls
  // BeginSchedulerPass once per walk of Slurm's queue, then MayStart for
  // each job the walk offers, in order: true counts the job as starting
  // for the rest of the walk (a walk cannot know which offered jobs start;
  // this counts each as started, so a user's later job may wait one pass
  // more than in Slurm).
  virtual bool has_start_limits() const { return false; }
  virtual void BeginSchedulerPass() {}
  virtual bool MayStart(uint32_t job);
  // When a run started at `start` becomes preemptible (start itself: at
  // once); the engine schedules a pass then.
  virtual TimePoint PreemptibleFrom(uint32_t job) const;

 protected:
  // The fields of PendingShape and RunningRecord every policy fills alike:
  // the job's id, its allocation (kNoAllocation without a tree node), its
  // shape; its run's start and resumable. min_runtime (the protection) is
  // 0: each policy sets its own. REQUIRES: Init has set ctx_.
  JobShape BaseShape(uint32_t job) const;
  RunningJob BaseRecord(uint32_t job) const;
  // budget.conf UnknownAccount=reject and the job's account in no tree
  // node: true, with *why "account 'x' in no tree node
  // (UnknownAccount=reject)" (rejections.h). Every policy admits by it.
  bool RefusedAsUnknownAccount(uint32_t job, std::string* why) const;

  SimContext ctx_;
  std::vector<Standing> no_standings_;
};

// "budget", "fairtree", "fairtree+qos", "priority", "fifo"; nullptr for
// anything else.
std::unique_ptr<Policy> MakePolicy(const std::string& name);
// The names MakePolicy knows, comma-separated.
const char* PolicyNames();

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_POLICY_H_
