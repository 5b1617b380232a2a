// TimesliceThread: see timeslice_thread.h.
#include "sched_timeslice/timeslice_thread.h"

#include <chrono>
#include <exception>
#include <utility>

#include "sched_timeslice/job_actions.h"
#include "sched_timeslice/slurm_headers.h"
#include "sched_timeslice/state_counts.h"
#include "sched_timeslice/timeslice_locks.h"

namespace timeslice {

namespace {

void Log(const std::string& line) { info("sched/timeslice: %s", line.c_str()); }

}  // namespace

TimesliceThread::TimesliceThread(ThreadConfig config)
    : config_(config), standings_(config.state_dir, Log) {}

TimesliceThread::~TimesliceThread() { Stop(); }

void TimesliceThread::Start() { thread_ = std::thread([this] { Run(); }); }

void TimesliceThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TimesliceThread::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void TimesliceThread::Reconfigure(ThreadConfig config) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    config_ = std::move(config);
    woken_ = true;
  }
  cv_.notify_all();
}

void TimesliceThread::Run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::seconds(std::max<budget::Seconds>(config_.interval, 1)),
                   [this] { return stop_ || woken_; });
      if (stop_) return;
      woken_ = false;
    }
    try {
      Pass();
    } catch (const std::exception& e) {
      error("sched/timeslice: pass failed: %s", e.what());
    } catch (...) {
      error("sched/timeslice: pass failed: unknown exception");
    }
  }
}

void TimesliceThread::Pass() {
  ThreadConfig config;
  {
    std::lock_guard<std::mutex> lock(mu_);
    config = config_;
  }
  ++passes_;
  std::vector<JobFacts> jobs;
  std::vector<NodeFacts> nodes;
  timeslice_lock_read();
  try {
    SnapshotCluster(config.default_min_runtime, &jobs, &nodes);
  } catch (...) {
    timeslice_unlock_read();
    throw;
  }
  timeslice_unlock_read();

  budget::TimePoint now = time(nullptr);
  auto view = standings_.View(now);
  PassPlan plan = planner_.Plan(jobs, nodes, *view, now);
  for (const std::string& line : plan.log) Log(line);
  if (plan.preemptions.empty() && plan.empty_by.empty() && plan.new_automated_drains == 0) return;

  uint64_t preempted = 0;
  std::vector<std::string> results;
  timeslice_lock_write();
  try {
    for (const PlannedPreemption& p : plan.preemptions) {
      std::string why;
      if (PreemptRunningJob(p.job_id, p.start, p.action, p.comment, &why)) {
        ++preempted;
        results.push_back(p.log);
      } else {
        results.push_back("job " + std::to_string(p.job_id) + " not preempted: " + why);
      }
    }
    for (const PlannedEmptyBy& e : plan.empty_by) SetNodeEmptyBy(e.node_index, e.empty_at);
  } catch (...) {
    timeslice_unlock_write();
    throw;
  }
  timeslice_unlock_write();

  for (const std::string& line : results) Log(line);
  if (preempted == 0 && plan.new_automated_drains == 0) return;
  TimesliceCounts counts;
  budget::Status st = AddToCounts(config.state_dir + "/" + kStateFileName, preempted, plan.new_automated_drains,
                                  now, &counts);
  if (st.ok()) {
    Log("totals: " + std::to_string(counts.preemptions) + " preemptions, " +
        std::to_string(counts.automated_drains) + " automated drains");
  } else {
    error("sched/timeslice: counts not saved: %s", st.message().c_str());
  }
  if (preempted) KickScheduler();
}

}  // namespace timeslice
