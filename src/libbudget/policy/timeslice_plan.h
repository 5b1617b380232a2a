// TimeslicePlanner: what one time-slicing pass decides, the part of the
// scheduling loop that Slurm does not do. preempt/timeslice's thread runs a
// pass every TimesliceInterval on a snapshot of the controller; the
// simulator runs the same pass on its own state (src/sim/engine.cc). Slurm's
// own schedulers never preempt under the suite (preempt/timeslice tells them
// preemption is off): every preemption is one of this planner's.
//
// (a) DRAIN AT CONTRACT END (drain.h PlanDrain): every job on a node in
//     DRAIN whose protection is over leaves now (requeue if resumable,
//     cancel otherwise); protected jobs are left alone; each draining node
//     is promised empty at its latest protection end. A node first seen
//     draining with jobs on it is one automated drain (counted once).
// (b) TIME SLICING (preempt.h ChoosePreemption). The waiting allocated jobs
//     are served in the core's job order (order.h JobBefore: rank, user
//     priority, submit time, job id; Slurm's own queue order), quick-start
//     jobs (contract.h QuickStartRule, preempt.h rule 3b) first, at most
//     kMaxJobsTried of them per pass (see Bound). For each, on the cluster as the pass
//     has changed it so far:
//       - it fits already: it is given the GPUs (plan.starts), nothing is
//         preempted;
//       - else the core's choice among the running jobs that are not
//         leaving already: past their protection, unallocated or of an
//         allocation ranked behind it under the no-ping-pong rule, gang-safe
//         and never more than needed. The victims leave and the job is
//         given the GPUs;
//       - else nothing, and the next job is tried: a job that cannot be
//         served does not block smaller jobs behind it (Slurm's backfill
//         would not either).
//     First of all, once a hero's planned start has come (hero_plan.h),
//     every job still on its held nodes is past its protection: they are
//     preempted for the hero whatever the ranks (rule "hero hold"), and
//     the hero is given the nodes.
//     A quick-start job is served as one only while its user's
//     quick-start runs still protected (running, or granted and on their
//     way), with it, hold at most QuickStartUserGpus GPUs; past that it
//     waits for one of them to end its protection (it is not tried as
//     ordinary work in that pass). So a user's stream of one-node
//     15-minute jobs cannot take GPUs across the fair-share order faster
//     than one debug node's worth at a time.
//     Either way its team is committed the job's protected run
//     (commitments.h), so that the team's next job in the same pass projects
//     both runs. Only the nodes the job may run on (WaitingJob::eligible,
//     eligibility.h) are targets: no job is preempted to free GPUs the
//     waiting job cannot use. Nodes held for a hero (hero_plan.h) are not
//     targets for a job that may not use them (MayUseHeldNodes), nor are
//     the quick-start reserve's for a job with a long protection
//     (quick_reserve.h MayUseReserve).
//
// Grants. A job given GPUs is remembered (its team's commitment,
// commitments.h) until it runs or kGrantTtl passes. The memory is the
// planner's own: nothing a user can write (a job's Comment, say) can make
// a grant, no note on a job is read back as one, and a grant is never
// dated after the pass that made it (commitments.h refuses one that is).
//
// Bound: a pass looks at the first kMaxJobsTried servable waiting jobs of
// its walk, quick-start jobs first (its window: deep enough that a small
// job of a team ranked last is reached behind hundreds of waiting jobs of
// the teams ahead, the case of a debug job at 2-3x demand), and calls
// ChoosePreemption at most kMaxChoices times. A job of the window is
// examined unless its shape class (ShapeClass: allocation, nodes, GPUs per
// node, min-runtime: all the choice depends on) already failed in this
// pass since a preemption last changed the cluster. An examined job is
// tried only after two necessary conditions: in O(1), free GPUs plus those
// of unprotected running jobs that are unallocated or rank behind the job
// cover it; in O(running), so do free GPUs plus those of the running jobs
// the pairwise rule lets it preempt. A class failing either, or the
// choice, is skipped from then on. O(window + (running log running) x
// choices) per pass; a walk that leaves out skipped classes (WaitingJobs)
// takes O(classes + examined) of it instead of O(window).
//
// Thread safety: one planner per thread of passes; Plan() updates the drain
// and grant memory.
#ifndef SLURM_BUDGET_LIBBUDGET_TIMESLICE_PLAN_H_
#define SLURM_BUDGET_LIBBUDGET_TIMESLICE_PLAN_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "libbudget/policy/preempt.h"
#include "libbudget/policy/quick_reserve.h"
#include "libbudget/standing.h"

namespace budget {

// A pending job that may start now (not held, no dependency, begin time
// passed), as the time-slicing pass sees it.
struct WaitingJob {
  JobShape shape;              // job_id, allocation, min_runtime, nodes, GPUs per node
  uint32_t user_priority = 0;  // inside its allocation, higher first
  TimePoint submit_time = 0;   // Slurm's (a requeue resets it)
  Seconds time_limit = -1;     // < 0: unlimited (the hero hold reads it)
  // The nodes it may run on (eligibility.h; null: every node). Equal sets
  // share one NodeSet, so that jobs of one shape and set form one class.
  EligibleNodes eligible;
  int64_t user = -1;  // its user (RunningJob::user)
};

// The cluster at the instant of a pass.
struct TimesliceInputs {
  // Every node; free_gpus is ignored (the running jobs say what is used).
  std::vector<NodeState> nodes;
  // NodeState::index -> name, for logs and reasons (index if missing).
  std::vector<std::string> node_names;
  // Indices of the nodes in DRAIN (draining or drained).
  std::vector<int32_t> draining;
  // Every running job (not completing), as the contract rules see it;
  // allocated work the tree cannot rank has allocation kNoAllocation.
  std::vector<RunningJob> running;
  // The waiting jobs in the core's job order (SortWaitingJobs). Only
  // allocated work is served; others are skipped.
  std::vector<WaitingJob> waiting;
  // Indexed by allocation; the standings the order was computed from.
  std::vector<Standing> standings;
  // Tree path per allocation, for logs ("" if unknown).
  std::vector<std::string> paths;
  ClusterScale scale;
  // The hero hold in force (inactive if none).
  HeroPlan hold;
  // The quick-start reserve (quick_reserve.h; empty if none): nodes where
  // the pass frees no GPUs for a job with a long protection.
  QuickReserve reserve;
  // Whether to write each preemption's note and log line (the
  // simulator's fast runs need neither).
  bool explain = true;
  // QuickStartRule::max_user_gpus (0: no bound).
  uint32_t quick_start_user_gpus = 8;
};

struct PlannedPreemption {
  uint32_t job_id = 0;
  TimePoint start = 0;  // the run to end (the applier re-checks it)
  PreemptAction action = PreemptAction::kCancel;
  bool for_drain = false;
  uint32_t preemptor = 0;  // 0 for a drain departure
  PreemptVerdict rule = PreemptVerdict::kAllowedUnallocated;
  std::string note;     // the job's visible reason (preemption_note.h, job_notes.h)
  std::string log;      // one line for the log
};

// The rule a preemption is counted under (timeslice_counts.h) and named by
// in its note: "drain at contract end" for a drain departure, else
// PreemptVerdictName(rule).
const char* PreemptionRuleName(const PlannedPreemption& p);

struct PlannedEmptyBy {
  int32_t node_index = 0;
  TimePoint empty_at = 0;
};

struct TimeslicePlan {
  std::vector<PlannedPreemption> preemptions;  // drains first, then slices
  std::vector<PlannedEmptyBy> empty_by;
  uint64_t new_automated_drains = 0;
  // The waiting jobs the pass gives GPUs to now, in order: each one granted
  // a preemption, and each one that fits already. The applier gives them
  // the top priority (order.h kGrantedPriority), so that Slurm's scheduler
  // starts them where the pass counted them, ahead of jobs the pass did not
  // serve (whose backfill reservations would otherwise keep a hole empty).
  std::vector<uint32_t> starts;
  uint32_t jobs_tried = 0;   // waiting jobs examined by (b) (see Bound)
  uint32_t jobs_served = 0;  // of those, granted a preemption
  std::vector<std::string> log;  // other lines worth logging
};

// Sorts `waiting` into the core's job order over `standings`.
void SortWaitingJobs(const std::vector<Standing>& standings, std::vector<WaitingJob>* waiting);

// All a preemption choice depends on besides the cluster: a pass that finds
// no way to serve one job of a class skips the rest of its class until a
// preemption changes the cluster (quick follows from the class too). The
// eligible nodes are compared by identity: callers share one NodeSet per
// distinct set (two equal sets held apart only cost a second try).
struct ShapeClass {
  int32_t allocation = kNoAllocation;
  uint32_t node_count = 0;
  uint32_t gpus_per_node = 0;
  Seconds min_runtime = 0;
  const NodeSet* eligible = nullptr;

  static ShapeClass Of(const JobShape& s, const NodeSet* eligible = nullptr) {
    return ShapeClass{s.allocation, s.node_count, s.gpus_per_node, s.min_runtime, eligible};
  }
  static ShapeClass Of(const WaitingJob& w) { return Of(w.shape, w.eligible.get()); }
  bool operator==(const ShapeClass& o) const {
    return allocation == o.allocation && node_count == o.node_count && gpus_per_node == o.gpus_per_node &&
           min_runtime == o.min_runtime && eligible == o.eligible;
  }
};

// Whether the pass may serve a waiting job at all: allocated work, of an
// allocation the tree ranks, asking for GPUs.
inline bool IsServable(const JobShape& s) {
  return s.allocated() && s.total_gpus() > 0 && s.allocation != kNoAllocation;
}

// The waiting jobs of a pass as it walks them: the quick-start jobs, then
// the others, each group in the core's job order, and of the servable jobs
// (IsServable) only the first TimeslicePlanner::kMaxJobsTried of that walk
// (the pass's window; see Bound). Plan(in, now) walks in.waiting; a caller
// that keeps its queue indexed by class (the simulator, src/sim/engine.cc)
// gives its own walk, which may leave out the classes the pass skips: the
// pass decides the same either way.
class WaitingJobs {
 public:
  virtual ~WaitingJobs() = default;
  // Starts the walk over the jobs whose shape.quick == quick.
  virtual void Begin(bool quick) = 0;
  // The next job of the walk, or null at its end. The pointer stays valid
  // until the next call.
  virtual const WaitingJob* Next() = 0;
  // The waiting job `job_id`, or null (the hero of a hold).
  virtual const WaitingJob* Find(uint32_t job_id) = 0;
  // Jobs of `c` may be left out of the walk from now on, until UnskipAll.
  virtual void Skip(const ShapeClass& c) { (void)c; }
  virtual void UnskipAll() {}
};

// The walk over a vector in the core's order.
class WaitingVector : public WaitingJobs {
 public:
  explicit WaitingVector(const std::vector<WaitingJob>& jobs) : jobs_(jobs) {}
  void Begin(bool quick) override {
    quick_ = quick;
    next_ = 0;
  }
  const WaitingJob* Next() override;
  const WaitingJob* Find(uint32_t job_id) override {
    for (const WaitingJob& w : jobs_)
      if (w.shape.job_id == job_id) return &w;
    return nullptr;
  }

 private:
  const std::vector<WaitingJob>& jobs_;
  bool quick_ = true;
  size_t next_ = 0;
  uint32_t servable_ = 0;  // servable jobs walked, both groups
};

class TimeslicePlanner {
 public:
  static constexpr uint32_t kMaxJobsTried = 1000;
  static constexpr uint32_t kMaxChoices = 100;

  // A pass over in.waiting.
  TimeslicePlan Plan(const TimesliceInputs& in, TimePoint now);
  // A pass over `waiting` (in.waiting is not read).
  TimeslicePlan Plan(const TimesliceInputs& in, WaitingJobs* waiting, TimePoint now);

  // The grants in force (for tests and logs): job id -> granted at.
  std::map<uint32_t, TimePoint> grants() const;

 private:
  struct Grant {
    int32_t allocation = kNoAllocation;
    uint64_t gpus = 0;
    Seconds min_runtime = 0;
    TimePoint at = 0;
    int64_t user = -1;
    bool quick = false;
  };
  void PlanDrains(const TimesliceInputs& in, TimePoint now, TimeslicePlan* plan);
  void PlanSlices(const TimesliceInputs& in, WaitingJobs* waiting, TimePoint now, TimeslicePlan* plan);

  std::set<int32_t> draining_counted_;             // nodes whose drain was counted
  std::map<int32_t, TimePoint> promised_;          // node -> empty_at last logged
  std::unordered_map<uint32_t, Grant> grants_;     // preemptor -> its grant
  // PlanSlices' running jobs that may be preempted, kept between passes
  // only as storage (refilled by each pass).
  std::vector<RunningJob> candidates_;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TIMESLICE_PLAN_H_
