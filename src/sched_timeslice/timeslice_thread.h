// TimesliceThread: sched/timeslice's own thread. Every TimesliceInterval
// seconds (or sooner when woken) it runs one pass:
//   1. under slurmctld READ locks (job, node, part): copy every running and
//      pending job and every node (job_facts.h);
//   2. outside any lock: plan drains and the time slice (timeslice_pass.h)
//      on the standings priority/budget published (standings_cache.h);
//   3. under WRITE locks (job, node; part and fed read): preempt each
//      planned victim that still runs the same run (job_actions.h), write
//      the draining nodes' "empty by" reasons;
//   4. outside locks: log, add to the counts file (state_counts.h), and ask
//      slurmctld's scheduler to use the freed GPUs.
//
// Thread safety: Start/Stop/Wake/SetInterval from any thread; Stop joins.
// REQUIRES: Stop() is never called with slurmctld locks held (the pass may
// be waiting for them).
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "libbudget/standing.h"
#include "sched_timeslice/standings_cache.h"
#include "sched_timeslice/timeslice_pass.h"

namespace timeslice {

struct ThreadConfig {
  budget::Seconds interval = 30;
  budget::Seconds default_min_runtime = 0;
  std::string state_dir;
};

class TimesliceThread {
 public:
  explicit TimesliceThread(ThreadConfig config);
  ~TimesliceThread();

  void Start();
  void Stop();
  void Wake();
  void Reconfigure(ThreadConfig config);

 private:
  void Run();
  void Pass();

  std::mutex mu_;
  std::condition_variable cv_;
  ThreadConfig config_;  // guarded by mu_
  bool stop_ = false;
  bool woken_ = false;
  std::thread thread_;
  StandingsCache standings_;
  TimeslicePlanner planner_;  // used by the thread only
  long passes_ = 0;
};

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_THREAD_H_
