// RecalcThread: see recalc_thread.h.
#include "priority_budget/recalc_thread.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <sstream>
#include <unordered_set>
#include <utility>

#include "libbudget/state/ledger_generations.h"
#include "libbudget/state/ledger_migration.h"
#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/pass_clock.h"
#include "libbudget/policy/run_charging.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/config/time_string.h"
#include "priority_budget/priority_pass.h"
#include "priority_budget/report_writer.h"
#include "priority_budget/slurm_headers.h"
#include "priority_budget/slurmctld_locks.h"
#include "priority_budget/state_files.h"
#include "priority_budget/usage_charging.h"

namespace budget_prio {

struct PassTimes {
  double snapshot_ms = 0;
  double compute_ms = 0;
  double apply_ms = 0;
  double report_ms = 0;
  double report_cpu_ms = 0;
  double report_build_cpu_ms = 0;  // of report_cpu_ms: the builders (the rest is JSON + file)
  double ledger_save_cpu_ms = 0;
  double total_ms = 0;
  long page_faults = 0;  // the thread's, over the pass, the save and the report
  size_t views_built = 0;  // job views (re)built by the snapshot, job_view_cache.h
};

namespace {

// Seconds since the epoch, with their fraction.
double WallSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

using Clock = std::chrono::steady_clock;

// CPU time of the calling thread, in ms (the report's cost is mostly I/O
// wait on a busy disk; this separates the two).
double ThreadCpuMillis() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Page faults of the calling thread so far (minor + major): memory the pass
// gets back from the kernel costs more CPU than most of its arithmetic.
long ThreadPageFaults() {
  struct rusage usage;
  if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
  return usage.ru_minflt + usage.ru_majflt;
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The core's rule, shared with sbudget seed-ledger (run_charging.h).
budget::Ledger::Options LedgerOptions(const budget::BudgetConfig& config) { return budget::LedgerOptionsFor(config); }

// Logs a possibly multi-line message, one log line per line.
void LogErrorLines(const char* what, const std::string& message) {
  std::istringstream lines(message);
  std::string line;
  while (std::getline(lines, line)) error("priority/budget: %s: %s", what, line.c_str());
}

// "2026-12-01T15:04:05" in local time, as slurmctld.log's stamps.
std::string LocalTime(budget::TimePoint t) {
  time_t seconds = static_cast<time_t>(t);
  struct tm parts;
  char text[32];
  if (localtime_r(&seconds, &parts) == nullptr || strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts) == 0) {
    return std::to_string(t);
  }
  return text;
}

// GpuTypeWeights as logged.
std::string WeightsText(const std::string& weights) {
  return weights.empty() ? "none (every GPU 1.0)" : weights;
}

std::string JoinPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& path : paths) {
    if (!out.empty()) out += " > ";
    out += path;
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace

RecalcThread::RecalcThread(budget::BudgetConfig config, std::string budget_conf_path, std::string state_dir,
                           PluginState* state)
    : config_(std::move(config)),
      budget_conf_path_(std::move(budget_conf_path)),
      state_dir_(std::move(state_dir)),
      ledger_file_(StateFile(state_dir_, kLedgerFileName)),
      report_file_(StateFile(state_dir_, budget::kReportSnapshotFileName)),
      standings_file_(StateFile(state_dir_, budget::kStandingsSnapshotFileName)),
      gpu_weights_file_(StateFile(state_dir_, kGpuWeightsFileName)),
      state_(state),
      ledger_(LedgerOptions(config_)) {}

RecalcThread::~RecalcThread() { Stop(); }

budget::Status RecalcThread::Start() {
  TreeSource source;
  budget::Status st = TreeSource::FromSpec(config_.budget_tree, &source);
  if (!st.ok()) return budget::Status::InvalidArgument(budget_conf_path_ + ": " + st.message());
  source.set_timeouts(config_.tree_connect_timeout, config_.tree_fetch_timeout);
  st = budget::Ledger::CheckOptions(ledger_.options());
  if (!st.ok()) return budget::Status::InvalidArgument(budget_conf_path_ + ": " + st.message());
  LoadLedger();
  ReadChargedGpuWeights();
  NoteGpuWeightsInForce("at start");
  reloader_ = std::make_unique<TreeReloader>(source, StateFile(state_dir_, kLastGoodTreeFileName),
                                             config_.budget_refresh);
  st = reloader_->LoadLastGood();
  if (st.ok()) {
    info("priority/budget: loaded the last good tree from %s: %zu nodes", reloader_->tree_origin().c_str(),
         reloader_->tree().size());
  } else if (!st.IsNotFound()) {
    LogErrorLines("ignoring the last good tree", st.message());
  }
  // A first order, so that jobs submitted before the first pass get a
  // priority under the saved usage. Without a last good tree (a first
  // start), the source is read now, so that job_submit/contract has a tree
  // to check accounts against from the first submission (for a URL, this
  // waits up to TreeFetchTimeout, once; later fetches run in the fetcher's
  // thread).
  budget::TimePoint now = time(nullptr);
  if (!reloader_->has_tree()) {
    Clock::time_point fetch_start = Clock::now();
    ReloadOutcome outcome = reloader_->Reload(now);
    LogReloadOutcome(outcome, MillisSince(fetch_start) / 1000);
  }
  fetcher_ = std::make_unique<TreeFetcher>([this] {
    std::lock_guard<std::mutex> lock(mutex_);
    fetch_done_ = true;
    wake_.notify_all();
  });
  if (reloader_->has_tree()) {
    PassResult result;
    if (ComputePriorities(reloader_->shared_tree(), config_, {}, 1, now, &ledger_, &result).ok()) {
      state_->Publish(result.view);
    }
  }
  last_pass_ = now - config_.recalc_interval;
  thread_ = std::thread(&RecalcThread::Run, this);
  // Named, so that `top -H` and the benchmark's per-thread CPU table show it.
  pthread_setname_np(thread_.native_handle(), "budget_recalc");
  return budget::Status::Ok();
}

void RecalcThread::RequestReconfigure() {
  std::lock_guard<std::mutex> lock(mutex_);
  reconfigure_ = true;
  wake_.notify_all();
}

void RecalcThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  // After the recalc thread: it is the only one that starts fetches.
  if (fetcher_) {
    double seconds = 0;
    bool in_flight = fetcher_->busy(&seconds);
    fetcher_->Stop();
    if (in_flight) {
      info("priority/budget: cancelled the tree fetch from %s (in flight for %.0f s)", fetcher_source_.c_str(),
           seconds);
    }
    fetcher_.reset();
  }
}

void RecalcThread::Run() {
  info("priority/budget: recalc thread started: RecalcInterval=%lld s, BudgetRefresh=%s, LookbackWindow=%s, "
       "LedgerBucket=%s, GpuTypeWeights=%s, tree source %s",
       static_cast<long long>(config_.recalc_interval), budget::FormatDuration(config_.budget_refresh).c_str(),
       budget::FormatDuration(config_.lookback_window).c_str(),
       budget::FormatDuration(config_.ledger_bucket).c_str(),
       WeightsText(config_.gpu_type_weights.ToString()).c_str(), reloader_->source().description().c_str());
  while (true) {
    try {
      RunPass();
    } catch (const std::exception& e) {
      error("priority/budget: pass failed on an internal error (%s); priorities unchanged", e.what());
    } catch (...) {
      error("priority/budget: pass failed on an internal error; priorities unchanged");
    }
    std::unique_lock<std::mutex> lock(mutex_);
    // The next pass at the next whole multiple of RecalcInterval on the
    // wall clock, kRecalcOffset into its second (libbudget/policy/pass_clock.h).
    const double wall = WallSeconds();
    const double next = budget::NextAlignedTime(wall, config_.recalc_interval, budget::kRecalcOffset);
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(next - wall));
    // A finished fetch is adopted at once; a new tree starts a pass at
    // once, anything else leaves the pass where it was due.
    while (wake_.wait_until(lock, deadline, [this] { return stop_ || reconfigure_ || fetch_done_; }) && !stop_ &&
           !reconfigure_) {
      fetch_done_ = false;
      lock.unlock();
      bool loaded = AdoptFetchedTree();
      lock.lock();
      if (loaded) break;
    }
    if (stop_) break;
  }
  SaveLedger();
  info("priority/budget: recalc thread stopped; ledger saved to %s", ledger_file_.c_str());
}

void RecalcThread::ReloadConfigIfAsked() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reconfigure_) return;
    reconfigure_ = false;
  }
  budget::BudgetConfig config;
  bool missing = false;
  budget::Status st = budget::LoadBudgetConfig(budget_conf_path_, &config, &missing);
  if (!st.ok() || missing || config.budget_tree.empty()) {
    error("priority/budget: reconfigure: keeping the previous budget.conf: %s",
          !st.ok() ? st.message().c_str() : "BudgetTree is not set (or the file is missing)");
  } else {
    TreeSource source;
    st = TreeSource::FromSpec(config.budget_tree, &source);
    source.set_timeouts(config.tree_connect_timeout, config.tree_fetch_timeout);
    if (!st.ok()) {
      error("priority/budget: reconfigure: keeping the previous budget.conf: %s", st.message().c_str());
    } else {
      if (config.lookback_window != config_.lookback_window || config.ledger_bucket != config_.ledger_bucket) {
        info("priority/budget: reconfigure: LookbackWindow and LedgerBucket changes take effect at the next "
             "slurmctld restart");
        config.lookback_window = config_.lookback_window;
        config.ledger_bucket = config_.ledger_bucket;
      }
      // A new source or new timeouts; the fetch below is forced anyway. A
      // fetch of the old source (a URL that does not answer) is cut short,
      // so that the new one starts within a pass or two.
      if (config.budget_tree != config_.budget_tree) fetcher_->CancelInFlight();
      reloader_->set_source(source);
      reloader_->set_refresh(config.budget_refresh);
      config_ = config;
      NoteGpuWeightsInForce("at reconfigure");
    }
  }
  full_rebuild_ = true;  // a reconfigure may change what a view holds
  ReloadTreeIfDue(time(nullptr), /*forced=*/true);
}

void RecalcThread::ReloadTreeIfDue(budget::TimePoint now, bool forced) {
  if (forced) reload_asked_ = true;
  if (!reload_asked_ && !reloader_->ReloadDue(now)) return;
  double seconds = 0;
  if (fetcher_->busy(&seconds)) {
    // The pass goes on with the tree it has; the fetch's own timeout ends it.
    debug("priority/budget: the tree fetch from %s is still running after %.0f s (TreeFetchTimeout=%ld s); "
          "passes go on with the current tree",
          fetcher_source_.c_str(), seconds, reloader_->source().total_timeout());
    return;
  }
  TreeSource source = reloader_->BeginReload(now);
  std::string description = source.description();
  if (fetcher_->Start(std::move(source))) {
    reload_asked_ = false;
    fetcher_source_ = description;
  }
}

bool RecalcThread::AdoptFetchedTree() {
  FetchResult fetched;
  if (!fetcher_->TakeResult(&fetched)) return false;
  std::shared_ptr<const budget::AllocationTree> before = reloader_->shared_tree();
  ReloadOutcome outcome = reloader_->FinishReload(fetched.source, fetched.status, std::move(fetched.text));
  LogReloadOutcome(outcome, fetched.seconds);
  if (outcome.kind != ReloadOutcome::Kind::kLoaded) return false;
  // An account moved or renamed in the tree (sacctmgr's `set parent=`, an
  // edited document) keeps its window's usage (ledger_migration.h).
  if (before && !before->empty()) {
    for (const budget::Ledger::PathMove& move : budget::MigrateLedgerPaths(*before, reloader_->tree(), &ledger_))
      info("priority/budget: the usage of %s moved with it to %s", move.from.c_str(), move.to.c_str());
  }
  return true;
}

void RecalcThread::LogReloadOutcome(const ReloadOutcome& outcome, double fetch_seconds) {
  switch (outcome.kind) {
    case ReloadOutcome::Kind::kStale:
      debug("priority/budget: ignoring a tree fetched from %s, which budget.conf no longer names",
            outcome.message.c_str());
      break;
    case ReloadOutcome::Kind::kUnchanged:
      debug("priority/budget: tree source %s unchanged", reloader_->source().description().c_str());
      break;
    case ReloadOutcome::Kind::kLoaded:
      info("priority/budget: loaded the allocation tree from %s: %zu nodes", outcome.message.c_str(),
           reloader_->tree().size());
      for (const std::string& warning : outcome.warnings) {
        info("priority/budget: warning: %s", warning.c_str());
      }
      if (!outcome.save_status.ok()) LogErrorLines("cannot save the last good tree", outcome.save_status.message());
      break;
    case ReloadOutcome::Kind::kRefused:
      if (reloader_->has_tree()) {
        error("priority/budget: refused the tree from %s; keeping the last good tree (%zu nodes, from %s)",
              reloader_->source().description().c_str(), reloader_->tree().size(),
              reloader_->tree_origin().c_str());
      } else {
        error("priority/budget: refused the tree from %s and no last good tree exists: priorities are not "
              "computed until a good tree loads",
              reloader_->source().description().c_str());
      }
      LogErrorLines("refused tree", outcome.message);
      if (fetch_seconds >= 1) error("priority/budget: the tree fetch took %.1f s", fetch_seconds);
      break;
  }
}

void RecalcThread::RunPass() {
  ReloadConfigIfAsked();
  budget::TimePoint now = time(nullptr);
  AdoptFetchedTree();
  ReloadTreeIfDue(now, /*forced=*/false);
  if (!reloader_->has_tree()) {
    // Said at every pass, not once: a policy that is not running must not
    // look like one that is. Cursors stay put: nothing is lost.
    error("priority/budget: no allocation tree has loaded yet from %s: every job has priority 1 and no budget "
          "applies until one does (the errors above say why)",
          reloader_->source().description().c_str());
    // And said to sbudget, which would otherwise find no snapshot and
    // suggest that priority/budget is not configured.
    BuildNoTreeReport(config_, reloader_->source().description(), now, &report_);
    budget::Status st = report_writer_.Write(report_, report_file_, std::string(), nullptr, -1, ReportCopyFile());
    if (!st.ok()) error("priority/budget: cannot write the report snapshot: %s", st.message().c_str());
    return;
  }
  if (now < last_pass_) last_pass_ = now;  // the clock went back

  PassTimes times;
  const long faults_at_start = ThreadPageFaults();
  Clock::time_point start = Clock::now();
  std::unordered_set<uint32_t> with_cursor;
  for (const auto& cursor : ledger_.JobCursors()) with_cursor.insert(cursor.first);
  const bool full = full_rebuild_ || now < last_full_rebuild_ ||
                    now - last_full_rebuild_ >= JobViewCache::kFullRebuildSeconds;
  budget_lock_jobs_read();
  // Taken under the lock: priority_p_set() marks jobs under the job write
  // lock, so no mark can fall between this list and the snapshot.
  bool all_changed = false;
  std::vector<uint32_t> changed_jobs = state_->TakeChangedJobs(&all_changed);
  // The nodes' GPUs and what they are worth (GpuTypeWeights): capacity,
  // entitlement, owed and every charge are in weighted GPUs.
  budget::FleetWorth fleet(&config_.gpu_type_weights);
  SnapshotJobs(with_cursor, last_pass_, changed_jobs, full || all_changed, &job_views_, &fleet);
  budget_unlock_jobs_read();
  const double capacity_gpus = fleet.weighted_capacity();
  times.snapshot_ms = MillisSince(start);
  times.views_built = job_views_.built();
  if (full || all_changed) {
    full_rebuild_ = false;
    last_full_rebuild_ = now;
  }

  Clock::time_point compute_start = Clock::now();
  job_views_.AppendTransient(state_->TakeEndedJobs());
  const budget::AllocationTree& tree = reloader_->tree();
  job_views_.Resolve(tree, reloader_->generation(), &user_names_);
  const std::vector<JobView>& jobs = job_views_.views();
  ChargeStats charged = ChargeJobs(jobs, tree, config_, fleet, last_pass_, now, &ledger_);
  PassResult result;
  budget::Status st =
      ComputePriorities(reloader_->shared_tree(), config_, jobs, capacity_gpus, now, &ledger_, &result);
  times.compute_ms = MillisSince(compute_start);
  last_pass_ = now;
  if (!st.ok()) {
    LogErrorLines("order not computed; priorities unchanged", st.message());
    SaveLedger();
    return;
  }

  Clock::time_point apply_start = Clock::now();
  budget_lock_jobs_write();
  int changed = ApplyPriorities(result.priorities);
  budget_unlock_jobs_write();
  job_views_.NotePriorities(result.priorities);
  times.apply_ms = MillisSince(apply_start);
  times.total_ms = MillisSince(start);

  state_->Publish(result.view);
  double save_cpu_start = ThreadCpuMillis();
  SaveLedger();
  times.ledger_save_cpu_ms = ThreadCpuMillis() - save_cpu_start;
  if (ReportDue(now)) {
    Clock::time_point report_start = Clock::now();
    double report_cpu_start = ThreadCpuMillis();
    times.report_build_cpu_ms = WriteReport(result, jobs, capacity_gpus, times.total_ms, now);
    times.report_ms = MillisSince(report_start);
    times.report_cpu_ms = ThreadCpuMillis() - report_cpu_start;
    last_report_ = now;
    report_seconds_ = times.report_cpu_ms / 1000;
  }
  times.page_faults = ThreadPageFaults() - faults_at_start;
  LogOrderChange(result.ranked_paths_with_demand);
  LogPass(times, jobs.size(), result.prioritised, changed, now);
  (void)charged;
}

std::string RecalcThread::ReportCopyFile() const {
  return config_.report_dir.empty() ? std::string() : StateFile(config_.report_dir, budget::kReportSnapshotFileName);
}

bool RecalcThread::ReportDue(budget::TimePoint now) const {
  if (last_report_ == 0) return true;
  double interval = std::min<double>(kMaxReportIntervalSeconds, kReportCostFactor * report_seconds_);
  return now - last_report_ >= interval;
}

double RecalcThread::WriteReport(const PassResult& pass, const std::vector<JobView>& jobs, double capacity_gpus,
                                 double pass_ms, budget::TimePoint now) {
  double build_start = ThreadCpuMillis();
  budget::Status st = BuildReport(pass, jobs, capacity_gpus, reloader_->tree_origin(), now, &ledger_, &report_,
                                   &history_cache_);
  // select/topo's figure, from its state file beside ours.
  budget::Status frag = AddFragmentation(StateFile(state_dir_, budget::kPackingStateFile), &report_);
  if (!frag.ok()) error("priority/budget: the report has no fragmentation figure: %s", frag.message().c_str());
  report_.pass_seconds = pass_ms / 1000;
  double build_cpu_ms = ThreadCpuMillis() - build_start;
  // preempt/timeslice reads the standings alone: parsing the whole report
  // inside slurmctld would cost it ~0.3 s of CPU per report at 20,000 jobs.
  // Without a reader, the file is not written (about 0.5 ms a pass at
  // 1,000 accounts), and a stale one is removed so that a reader configured
  // later never takes it for current.
  const bool standings_read = standings_read_;
  if (!standings_read && !standings_removed_) {
    if (::unlink(standings_file_.c_str()) == 0) {
      info("priority/budget: removed %s: preempt/timeslice is not configured to read it",
           standings_file_.c_str());
    }
    standings_removed_ = true;
  }
  if (standings_read) standings_removed_ = false;
  if (st.ok()) {
    st = report_writer_.Write(report_, report_file_, standings_read ? standings_file_ : std::string(),
                              &history_cache_, kReportHistoryDepth, ReportCopyFile());
  }
  if (!st.ok()) error("priority/budget: cannot write the report snapshot: %s", st.message().c_str());
  return build_cpu_ms;
}

void RecalcThread::LogPass(const PassTimes& times, size_t jobs, size_t pending, int changed,
                           budget::TimePoint now) {
  ++passes_;
  // One line per pass: at debug level, or at info with DebugFlags=Priority
  // (what the benchmark parses). Slurm's info() and debug() are its
  // format_print at LOG_LEVEL_INFO and LOG_LEVEL_DEBUG: one line, either level.
  const log_level_t level = (slurm_conf.debug_flags & DEBUG_FLAG_PRIO) ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG;
  format_print(level,
               "priority/budget: pass %ld: %.3f ms (snapshot %.3f, compute %.3f, apply %.3f), %zu jobs, %zu pending "
               "prioritised, %d priorities changed, %zu job views built; report %.3f ms (cpu %.3f, of which build "
               "%.3f); ledger save cpu %.3f ms; %ld page faults",
               passes_, times.total_ms, times.snapshot_ms, times.compute_ms, times.apply_ms, jobs, pending, changed,
               times.views_built, times.report_ms, times.report_cpu_ms, times.report_build_cpu_ms,
               times.ledger_save_cpu_ms, times.page_faults);
  // The first pass at info level (the start is visible without debug),
  // then one line per kInfoEverySeconds.
  if (passes_ == 1) {
    info("priority/budget: pass 1: %.3f ms (snapshot %.3f, compute %.3f, apply %.3f), %zu jobs, %zu pending "
         "prioritised, %d priorities changed",
         times.total_ms, times.snapshot_ms, times.compute_ms, times.apply_ms, jobs, pending, changed);
  }
  const std::string line = summary_.Record(
      times.total_ms, {jobs, pending, static_cast<uint64_t>(std::max(changed, 0))}, now);
  if (!line.empty()) info("priority/budget: %s", line.c_str());
}

void RecalcThread::LogOrderChange(const std::vector<std::string>& ranked_paths) {
  std::vector<std::string> top(ranked_paths.begin(),
                               ranked_paths.begin() + std::min(ranked_paths.size(), kWatchedTopAllocations));
  if (top == top_allocations_) return;
  info("priority/budget: order of allocations with work is now: %s (was: %s)", JoinPaths(top).c_str(),
       JoinPaths(top_allocations_).c_str());
  top_allocations_ = std::move(top);
}

void RecalcThread::LoadLedger() {
  // Temp files a kill during a write left behind: never loaded, and removed
  // here so that they are not taken for state (the ledger's own are
  // removed by the core below).
  for (const std::string& removed : RemoveStaleTempFiles(state_dir_)) {
    info("priority/budget: removed %s, left by a write that a crash or kill interrupted", removed.c_str());
  }
  budget::LedgerLoadReport report;
  budget::Status st = budget::LoadNewestGoodLedger(ledger_file_, time(nullptr), &ledger_, &report);
  for (const std::string& removed : report.removed_tmp) {
    info("priority/budget: removed %s, left by a ledger save that a crash or kill interrupted", removed.c_str());
  }
  for (const std::string& problem : report.problems) {
    error("priority/budget: cannot load the ledger: %s", problem.c_str());
  }
  for (const std::string& moved : report.set_aside) {
    error("priority/budget: damaged ledger kept aside: %s", moved.c_str());
  }
  if (!st.ok()) {
    error("priority/budget: cannot read the ledger: %s; starting with no usage", st.message().c_str());
    return;
  }
  switch (report.outcome) {
    case budget::LedgerLoadReport::Outcome::kNoFile:
      info("priority/budget: no ledger at %s yet; starting with no usage", ledger_file_.c_str());
      break;
    case budget::LedgerLoadReport::Outcome::kNewest:
      info("priority/budget: loaded the ledger from %s: %zu paths, %zu job cursors", ledger_file_.c_str(),
           ledger_.path_count(), ledger_.job_count());
      break;
    case budget::LedgerLoadReport::Outcome::kPrevious:
      error("priority/budget: fell back to the previous ledger generation %s (saved %s): %zu paths, %zu job "
            "cursors; usage charged in the %lld s after its save is lost, except the runs of jobs slurmctld "
            "still records, which are charged again from their cursors",
            report.loaded_file.c_str(), LocalTime(report.loaded_saved_at).c_str(),
            ledger_.path_count(), ledger_.job_count(), static_cast<long long>(report.time_lost));
      break;
    case budget::LedgerLoadReport::Outcome::kNothingGood:
      error("priority/budget: no good ledger generation in %s (see above); starting with no usage: the "
            "window's usage of ended jobs is lost",
            state_dir_.c_str());
      break;
  }
}

void RecalcThread::ReadChargedGpuWeights() {
  std::string text;
  budget::Status st = ReadWholeFile(gpu_weights_file_, &text);
  // No file: the ledger was charged without weights (or is new).
  if (!st.ok() && !st.IsNotFound()) error("priority/budget: %s", st.message().c_str());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  charged_weights_ = text;
}

void RecalcThread::NoteGpuWeightsInForce(const char* when) {
  const std::string in_force = config_.gpu_type_weights.ToString();
  if (in_force == charged_weights_) return;
  info("priority/budget: GpuTypeWeights changed %s from %s to %s: usage is charged in the new weights from now "
       "on; what the ledger holds stays as charged, in the old weights, until it leaves the window "
       "(LookbackWindow=%s); capacity and owed time are in the new weights at once",
       when, WeightsText(charged_weights_).c_str(), WeightsText(in_force).c_str(),
       budget::FormatDuration(config_.lookback_window).c_str());
  budget::Status st = WriteFileAtomically(gpu_weights_file_, in_force + "\n");
  if (!st.ok()) error("priority/budget: cannot record the GpuTypeWeights in force: %s", st.message().c_str());
  charged_weights_ = in_force;
}

void RecalcThread::SaveLedger() {
  budget::Status st = budget::SaveLedgerGeneration(ledger_, ledger_file_);
  if (!st.ok()) error("priority/budget: cannot save the ledger: %s", st.message().c_str());
}

}  // namespace budget_prio
