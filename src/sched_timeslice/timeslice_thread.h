// TimesliceThread: the time-slicing thread preempt/timeslice runs in
// slurmctld. Every TimesliceInterval seconds, and within kWatchMillis of
// any change of a node's state (a job ended: JobEndCount, to the moment;
// a job started, a node drained or returned: NodesLastChanged, to the
// second) or of the standings priority/budget writes,
// it runs one pass:
//   1. under slurmctld READ locks (job, node, part): copy every running and
//      pending job and every node (job_facts.h);
//   2. outside any lock: translate them (pass_inputs.h) and ask the core's
//      planner (libbudget/policy/timeslice_plan.h: drain at contract end, then the
//      waiting allocated jobs served in the core's order, several a pass);
//   3. under WRITE locks (job, node; part and fed read): preempt each
//      planned victim that still runs the same run, give each job the pass
//      gave GPUs to the top priority (kGrantedPriority, libbudget/policy/order.h)
//      so that Slurm's scheduler starts it there, and write the draining
//      nodes' "empty by" promises (job_actions.h);
//   4. outside locks: log, add to the counts file (libbudget/policy/timeslice_counts.h), and ask
//      slurmctld's scheduler to run.
// Why passes follow those changes: GPUs a job frees go where the core's
// order says, before Slurm's backfill (every bf_interval, at a phase of
// its own) fills the hole with work the next pass would preempt again; a
// team that falls behind is served as soon as the standings say so; and
// neither outcome depends on where in its interval the thread happened to
// be, which is what the simulator models (src/sim/engine.cc: a pass at
// every end, drain, return and recompute, besides the periodic ones). A
// pass's own preemptions change nodes too: one more pass follows, which
// finds the freed GPUs free. At most one pass per kWatchMillis, and none in
// the first kSliceSettle of a second; the periodic pass is due at whole
// multiples of TimesliceInterval on the wall clock (libbudget/policy/pass_clock.h:
// the order of an instant's events and passes, as the simulator has it).
// budget.conf is re-read when it changes (a bad one keeps the previous
// values, and says so). Each pass's duration is logged at debug level, and every kSummarySeconds
// one info line sums the passes since the last one.
//
// Thread safety: Start/Stop/Wake/Reconfigure from any thread; Stop joins.
// REQUIRES: Stop() is never called with slurmctld locks held (the pass may
// be waiting for them).
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/policy/contract.h"
#include "libbudget/standing.h"
#include "libbudget/policy/timeslice_plan.h"
#include "plugin_support/pass_summary.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

struct ThreadConfig {
  // budget.conf, re-read at the first pass after it changes (preempt
  // plugins get no reconfigure call): TimesliceInterval, DefaultMinRuntime.
  std::string budget_conf;
  budget::Seconds interval = 30;
  budget::Seconds default_min_runtime = 0;
  budget::Seconds preempt_notice = 0;  // PreemptNotice
  budget::QuickStartRule quick;  // QuickStartGpus, QuickStartMinRuntime
  std::string state_dir;
  // budget.conf TimeSlicing, re-read with the rest.
  budget::TimeSlicingKey time_slicing = budget::TimeSlicingKey::kUnset;
  // Whether waiting jobs are served by preemption, at each pass:
  // TimeSlicingOn(time_slicing, PreemptModeOff()). Off: drains still run at
  // contract end, nothing is time sliced.
  bool slicing = true;
};

// slurm.conf PreemptMode is OFF (GANG and WITHIN aside), as slurmctld holds
// it now; read at every pass, since preempt plugins get no reconfigure call.
// REQUIRES: running in slurmctld, slurm_conf loaded.
bool PreemptModeOff();

class TimesliceThread {
 public:
  static constexpr budget::Seconds kSummarySeconds = plugin_support::PassSummary::kDefaultWindowSeconds;
  static constexpr int kWatchMillis = 100;

  explicit TimesliceThread(ThreadConfig config);
  ~TimesliceThread();

  void Start();
  void Stop();
  void Wake();
  void Reconfigure(ThreadConfig config);

 private:
  void Run();
  // A node changed since the last pass read them (whole seconds: a change
  // in the same second as that pass counts until the second is over), or
  // the standings did.
  bool ChangedSinceLastPass();
  void Pass();
  // Ends the runs whose notice is over (PreemptNotice), requeues the
  // resumable jobs that left by themselves in their notice, and sets
  // next_notice_end_. Takes the write locks when there is anything to do.
  void EndNotices(const std::vector<JobFacts>& jobs, budget::TimePoint now, std::vector<std::string>* results);
  void ReloadIfChanged();
  void Summarize(double ms, uint64_t preempted, uint64_t drains, uint32_t tried, bool kicked, budget::TimePoint now);

  std::mutex mu_;
  std::condition_variable cv_;
  ThreadConfig config_;  // guarded by mu_
  bool stop_ = false;
  bool woken_ = false;
  std::thread thread_;
  StandingsCache standings_;
  budget::TimeslicePlanner planner_;  // used by the thread only
  // What the passes did since the last summary line; used by the thread only.
  plugin_support::PassSummary summary_{"passes", {"waiting job(s) tried", "preemption(s)", "automated drain(s)",
                                                       "scheduler kick(s)"}};
  long conf_mtime_ = -1, conf_mtime_ns_ = -1;  // of budget.conf, as last read
  // Used by the thread only: NodesLastChanged() as the last pass read it,
  // and the second that pass ran in.
  budget::TimePoint nodes_seen_ = -1, pass_second_ = -1;
  // Used by the thread only: JobEndCount() as the last pass read it.
  uint64_t job_ends_seen_ = 0;
  // Used by the thread only: the earliest end of a notice still running
  // (0: none). A pass follows it, so that the job leaves when its notice
  // ends, not up to a TimesliceInterval later.
  budget::TimePoint next_notice_end_ = 0;
  // Used by the thread only: jobs that left in their notice whose requeue
  // Slurm refused, not tried (nor logged) again.
  std::set<uint32_t> requeue_refused_;
};

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_
