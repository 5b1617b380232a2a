// TimesliceThread: see timeslice_thread.h.
#include "sched_timeslice/timeslice_thread.h"

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <set>
#include <utility>

#include "libbudget/config/config.h"
#include "libbudget/config/slurm_settings.h"
#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/pass_clock.h"
#include "libbudget/policy/preemption_note.h"
#include "libbudget/policy/timeslice_counts.h"
#include "sched_timeslice/job_actions.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/pass_inputs.h"
#include "sched_timeslice/slurm_headers.h"
#include "sched_timeslice/timeslice_locks.h"

namespace timeslice {

namespace {

// Seconds since the epoch, with their fraction.
double WallSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace

bool PreemptModeOff() {
  return (slurm_conf.preempt_mode & ~PREEMPT_MODE_GANG & ~PREEMPT_MODE_WITHIN) == PREEMPT_MODE_OFF;
}

namespace {

void Log(const std::string& line) { info("preempt/timeslice: %s", line.c_str()); }

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TimesliceThread::TimesliceThread(ThreadConfig config) : config_(config), standings_(config.state_dir, Log) {}

TimesliceThread::~TimesliceThread() { Stop(); }

void TimesliceThread::Start() {
  thread_ = std::thread([this] { Run(); });
  // Named, as priority/budget's threads are, so that a per-thread CPU table
  // (top -H, /proc/PID/task/*/stat, bench/ctld_scale_bench.sh) shows it.
  pthread_setname_np(thread_.native_handle(), "timeslice");
}

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
  double next_pass = 0;  // the periodic pass, wall-clock seconds
  bool pending = false;  // a pass is wanted, held back by the settle window
  for (;;) {
    bool due = false;
    budget::Seconds interval = 1;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(kWatchMillis), [this] { return stop_ || woken_; });
      if (stop_) return;
      due = woken_;
      woken_ = false;
      interval = config_.interval;
    }
    const double now = WallSeconds();
    if (due || now >= next_pass || ChangedSinceLastPass()) pending = true;
    if (next_notice_end_ != 0 && now >= double(next_notice_end_)) pending = true;
    // Never in the first kSliceSettle of a second: the jobs that end at it
    // are still ending, and priority/budget's recompute of that second
    // comes first (libbudget/policy/pass_clock.h).
    if (!pending || budget::InSettleWindow(now, budget::kSliceSettle)) continue;
    pending = false;
    next_pass = budget::NextAlignedTime(now, interval, budget::kSliceSettle);
    try {
      Pass();
    } catch (const std::exception& e) {
      error("preempt/timeslice: pass failed: %s", e.what());
    } catch (...) {
      error("preempt/timeslice: pass failed: unknown exception");
    }
  }
}

bool TimesliceThread::ChangedSinceLastPass() {
  if (JobEndCount() != job_ends_seen_) return true;  // a job ended since, even in the same second
  const budget::TimePoint changed = NodesLastChanged();
  if (changed != nodes_seen_) return true;
  // A change in the second of the last pass, after it, is not in
  // last_node_update's value (whole seconds): look again once that second
  // is over (Run holds the pass back until kSliceSettle into the next one).
  if (changed >= pass_second_ && time(nullptr) > pass_second_) return true;
  return standings_.SourceChanged();
}

void TimesliceThread::ReloadIfChanged() {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(mu_);
    path = config_.budget_conf;
  }
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0) return;
  if (conf_mtime_ < 0) {  // the values init() read
    conf_mtime_ = st.st_mtim.tv_sec;
    conf_mtime_ns_ = st.st_mtim.tv_nsec;
    return;
  }
  if (st.st_mtim.tv_sec == conf_mtime_ && st.st_mtim.tv_nsec == conf_mtime_ns_) return;
  conf_mtime_ = st.st_mtim.tv_sec;
  conf_mtime_ns_ = st.st_mtim.tv_nsec;
  budget::BudgetConfig config;
  bool missing = false;
  budget::Status status = budget::LoadBudgetConfig(path, &config, &missing);
  if (!status.ok()) {
    error("preempt/timeslice: %s changed but is not valid, the previous values stay: %s", path.c_str(),
          status.message().c_str());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.interval != config.timeslice_interval || config_.default_min_runtime != config.default_min_runtime)
    info("preempt/timeslice: %s re-read: TimesliceInterval=%ld s, DefaultMinRuntime=%ld s", path.c_str(),
         long(config.timeslice_interval), long(config.default_min_runtime));
  if (config_.preempt_notice != config.preempt_notice)
    info("preempt/timeslice: %s re-read: PreemptNotice=%ld s", path.c_str(), long(config.preempt_notice));
  if (config_.time_slicing != config.time_slicing)
    info("preempt/timeslice: %s re-read: time slicing %s", path.c_str(),
         budget::TimeSlicingOn(config.time_slicing, PreemptModeOff()) ? "on" : "off");
  config_.time_slicing = config.time_slicing;
  config_.interval = config.timeslice_interval;
  config_.default_min_runtime = config.default_min_runtime;
  config_.preempt_notice = config.preempt_notice;
  config_.quick = budget::QuickStartRule{config.quick_start_min_runtime, config.quick_start_gpus,
                                       config.quick_start_user_gpus, config.quick_start_reserve_nodes};
}

void TimesliceThread::Pass() {
  auto started = std::chrono::steady_clock::now();
  ReloadIfChanged();
  ThreadConfig config;
  {
    std::lock_guard<std::mutex> lock(mu_);
    config_.slicing = budget::TimeSlicingOn(config_.time_slicing, PreemptModeOff());
    config = config_;
  }
  std::vector<JobFacts> jobs;
  std::vector<NodeFacts> nodes;
  timeslice_lock_read();
  try {
    nodes_seen_ = NodesLastChanged();
    job_ends_seen_ = JobEndCount();
    pass_second_ = time(nullptr);
    SnapshotCluster(config.default_min_runtime, &jobs, &nodes);
  } catch (...) {
    timeslice_unlock_read();
    throw;
  }
  timeslice_unlock_read();

  budget::TimePoint now = time(nullptr);
  auto view = standings_.View(now);
  budget::PackingState packing;
  bool has_packing = budget::LoadPackingState(config.state_dir + "/" + budget::kPackingStateFile, &packing).ok();
  budget::TimesliceInputs in = PassInputsOf(jobs, nodes, *view, has_packing ? &packing : nullptr, config.quick, now);
  if (!config.slicing) in.waiting.clear();  // time slicing off: drains only
  budget::TimeslicePlan plan = planner_.Plan(in, now);
  for (const std::string& line : plan.log) Log(line);

  uint64_t preempted = 0;
  budget::TimesliceCounts added;
  // New grants of jobs that fit on free GPUs now: the only ones worth a
  // main-scheduler cycle. Standing grants are not counted, nor jobs that
  // wait for victims: a victim keeps its nodes until its epilog completes,
  // and slurmctld runs its scheduler on every epilog completion itself.
  uint64_t granted_fitting = 0;
  std::string granted;  // the jobs this pass gave the top priority, for the debug log
  std::vector<std::string> results;
  const budget::TimePoint notice_until = config.preempt_notice > 0 ? now + config.preempt_notice : 0;
  EndNotices(jobs, now, &results);
  if (!plan.preemptions.empty() || !plan.empty_by.empty() || !plan.starts.empty()) {
    // A job whose victims did not all leave does not get the GPUs.
    std::set<uint32_t> unserved;
    std::set<uint32_t> preemptors;
    for (const budget::PlannedPreemption& p : plan.preemptions)
      if (p.preemptor != 0) preemptors.insert(p.preemptor);
    timeslice_lock_write();
    try {
      for (const budget::PlannedPreemption& p : plan.preemptions) {
        std::string why;
        const bool done = notice_until != 0 ? NoticeRunningJob(p.job_id, p.start, notice_until, p.note, &why)
                                            : PreemptRunningJob(p.job_id, p.start, p.action, p.note, &why);
        if (done) {
          if (notice_until != 0 && (next_notice_end_ == 0 || notice_until < next_notice_end_))
            next_notice_end_ = notice_until;
          ++preempted;
          ++added.preemptions_by_rule[budget::PreemptionRuleName(p)];
          results.push_back(notice_until != 0 ? p.log + "; told now, leaves at " + budget::FormatLocalTime(notice_until)
                                              : p.log);
        } else {
          results.push_back("job " + std::to_string(p.job_id) + " not preempted: " + why);
          if (p.preemptor != 0) unserved.insert(p.preemptor);
        }
      }
      for (uint32_t job_id : plan.starts) {
        if (unserved.count(job_id) || !GrantTopPriority(job_id)) continue;
        granted += (granted.empty() ? "" : ",") + std::to_string(job_id);
        if (!preemptors.count(job_id)) ++granted_fitting;
      }
      for (const budget::PlannedEmptyBy& e : plan.empty_by) SetNodeEmptyBy(e.node_index, e.empty_at);
    } catch (...) {
      timeslice_unlock_write();
      throw;
    }
    timeslice_unlock_write();
  }
  for (const std::string& line : results) Log(line);
  if (!granted.empty()) debug("preempt/timeslice: pass gave job(s) %s the top priority", granted.c_str());
  if (preempted > 0 || plan.new_automated_drains > 0) {
    added.preemptions = preempted;
    added.automated_drains = plan.new_automated_drains;
    budget::TimesliceCounts counts;
    budget::Status st = budget::AddToCounts(config.state_dir + "/" + budget::kTimesliceStateFile, added, now, &counts);
    if (st.ok()) {
      Log("totals: " + std::to_string(counts.preemptions) + " preemptions, " + std::to_string(counts.automated_drains) +
          " automated drains");
    } else {
      error("preempt/timeslice: counts not saved: %s", st.message().c_str());
    }
  }
  // Each kick is a main-scheduler cycle over the whole queue (sorting it
  // costs ~20 ms at 5,000 jobs). A job that fits now but that Slurm did not
  // start (memory, CPUs, a held node) stays in plan.starts pass after pass,
  // and a preemption frees nothing before the victim's epilog: neither is
  // kicked for (doc/internals.md "Controller cost at scale"). Slurm's own
  // triggers (an epilog's completion, a node's change, its periodic pass)
  // start them.
  const bool kick = granted_fitting > 0;
  if (kick) KickScheduler();
  Summarize(MsSince(started), preempted, plan.new_automated_drains, plan.jobs_tried, kick, now);
}

void TimesliceThread::EndNotices(const std::vector<JobFacts>& jobs, budget::TimePoint now,
                                 std::vector<std::string>* results) {
  std::vector<const JobFacts*> over, left;
  next_notice_end_ = 0;
  for (const JobFacts& job : jobs) {
    if (job.left_in_notice && job.contract.resumable && !requeue_refused_.count(job.job_id)) left.push_back(&job);
    if (job.notice_until == 0) continue;
    if (job.notice_until <= now)
      over.push_back(&job);
    else if (next_notice_end_ == 0 || job.notice_until < next_notice_end_)
      next_notice_end_ = job.notice_until;
  }
  if (over.empty() && left.empty()) return;
  timeslice_lock_write();
  try {
    // A resumable job that left at its signal, as told, is requeued: Slurm
    // would otherwise record it as done (or failed), never to run again.
    for (const JobFacts* job : left) {
      std::string why;
      if (RequeueLeftJob(job->job_id, &why)) {
        results->push_back("job " + std::to_string(job->job_id) + " left in its notice: requeued (resumable)");
      } else {
        results->push_back("job " + std::to_string(job->job_id) + " left in its notice, not requeued: " + why);
        if (requeue_refused_.size() >= 10000) requeue_refused_.clear();  // their records are long purged
        requeue_refused_.insert(job->job_id);
      }
    }
    // Its note, written when it was told, stays.
    for (const JobFacts* job : over) {
      std::string why;
      const bool resumable = job->contract.resumable;
      const budget::PreemptAction action = resumable ? budget::PreemptAction::kRequeue : budget::PreemptAction::kCancel;
      if (PreemptRunningJob(job->job_id, job->start, action, "", &why))
        results->push_back("job " + std::to_string(job->job_id) + " leaves: its notice is over (" +
                           (resumable ? "requeued" : "cancelled") + ")");
      else
        results->push_back("job " + std::to_string(job->job_id) + " not ended at its notice's end: " + why);
    }
  } catch (...) {
    timeslice_unlock_write();
    throw;
  }
  timeslice_unlock_write();
}

void TimesliceThread::Summarize(double ms, uint64_t preempted, uint64_t drains, uint32_t tried, bool kicked,
                                budget::TimePoint now) {
  debug("preempt/timeslice: pass: %.3f ms, %u waiting job(s) tried, %lu preemption(s)", ms, tried,
        static_cast<unsigned long>(preempted));
  const std::string line = summary_.Record(ms, {tried, preempted, drains, kicked ? 1u : 0u}, now);
  if (!line.empty()) Log(line);
}

}  // namespace timeslice
