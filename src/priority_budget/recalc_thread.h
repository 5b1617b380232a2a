// RecalcThread: priority/budget's own thread. Every RecalcInterval it
//   1. adopts a tree the fetcher's thread has fetched, and starts a fetch
//      when one is due (tree_fetcher.h, tree_reloader.h): a pass never
//      waits on the network, and never fetches under slurmctld's locks; a
//      fetch that ends wakes this thread, and a new tree starts a pass;
//   2. snapshots the jobs under the job READ lock (job_snapshot.h);
//   3. outside every lock: charges the ledger (usage_charging.h), computes
//      the order and the pending jobs' priorities (priority_pass.h);
//   4. applies the priorities under the job WRITE lock, briefly;
//   5. publishes the order (plugin_state.h) for priority_p_set() and sprio,
//      saves the ledger (atomic, the core's SaveLedger), writes the report
//      snapshot for sbudget (report_writer.h; also into budget.conf's
//      ReportDir) and logs. While no tree has loaded, it writes the
//      report that says so (report_snapshot.h, "No tree").
// scontrol reconfigure wakes it (RequestReconfigure): it re-reads
// budget.conf and starts a fetch of the tree, never inline.
// At Stop() it finishes the pass in progress, saves the ledger and exits.
//
// The ledger is owned by this thread alone (no lock): priority_p_job_end()
// queues ended jobs in PluginState instead of charging them.
//
// Thread safety: Start/RequestReconfigure/Stop may be called from any
// slurmctld thread; RequestReconfigure never blocks on a pass.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_RECALC_THREAD_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_RECALC_THREAD_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/report/history_cache.h"
#include "libbudget/state/ledger.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "libbudget/status.h"
#include "plugin_support/pass_summary.h"
#include "priority_budget/job_snapshot.h"
#include "priority_budget/plugin_state.h"
#include "priority_budget/tree_fetcher.h"
#include "priority_budget/tree_reloader.h"

namespace budget_prio {

class RecalcThread {
 public:
  // One info line sums the passes of each this many seconds.
  static constexpr budget::Seconds kInfoEverySeconds = plugin_support::PassSummary::kDefaultWindowSeconds;
  // How many of the first allocations are watched for order changes.
  static constexpr size_t kWatchedTopAllocations = 5;
  // The report snapshot for sbudget is written after a pass when the time
  // since the last one is at least kReportCostFactor x the CPU the last one
  // took (so it never takes more than 1% of a core), and at least every
  // kMaxReportIntervalSeconds (sbudget calls a report stale after 90 s).
  static constexpr double kReportCostFactor = 100;
  static constexpr double kMaxReportIntervalSeconds = 60;

  RecalcThread(budget::BudgetConfig config, std::string budget_conf_path, std::string state_dir,
               PluginState* state);
  ~RecalcThread();

  // Loads the ledger and the last good tree, publishes a first order and
  // starts the thread. An error (bad BudgetTree value) means init() fails.
  budget::Status Start();
  void RequestReconfigure();
  // Whether a plugin that reads the standings file is configured
  // (preempt/timeslice): without one, the file is not
  // written, and one left from another configuration is removed. Set before
  // Start() and at each reconfigure; any thread.
  void SetStandingsRead(bool read) { standings_read_ = read; }
  void Stop();

 private:
  void Run();
  void RunPass();
  void ReloadConfigIfAsked();
  // Starts a fetch when due (or forced) and none is in flight.
  void ReloadTreeIfDue(budget::TimePoint now, bool forced);
  // Hands a finished fetch to the reloader; true if a new tree loaded.
  bool AdoptFetchedTree();
  void LogReloadOutcome(const ReloadOutcome& outcome, double fetch_seconds);
  void LoadLedger();
  void SaveLedger();
  // Logs once when the GpuTypeWeights in force differ from those the
  // ledger was last charged under (kGpuWeightsFileName), and records them:
  // the ledger keeps what it was charged, in the old weights, until it
  // leaves the window. `when`: "at start", "at reconfigure".
  void NoteGpuWeightsInForce(const char* when);
  void ReadChargedGpuWeights();
  bool ReportDue(budget::TimePoint now) const;
  // Returns the thread CPU ms of building the snapshot (the rest of the
  // write is JSON text and the file).
  // <ReportDir>/budget_report.json, or "" without ReportDir (budget.conf).
  std::string ReportCopyFile() const;
  // pass_ms: the pass's wall time, which the report carries
  // (report_snapshot.h "Pass duration").
  double WriteReport(const PassResult& pass, const std::vector<JobView>& jobs, double capacity_gpus,
                     double pass_ms, budget::TimePoint now);
  void LogPass(const struct PassTimes& times, size_t jobs, size_t pending, int changed,
               budget::TimePoint now);
  void LogOrderChange(const std::vector<std::string>& ranked_paths);

  // Set at construction / by the thread itself.
  budget::BudgetConfig config_;
  const std::string budget_conf_path_;
  const std::string state_dir_;
  const std::string ledger_file_;
  const std::string report_file_;
  const std::string standings_file_;
  const std::string gpu_weights_file_;
  PluginState* const state_;
  budget::Ledger ledger_;
  std::unique_ptr<TreeReloader> reloader_;
  std::unique_ptr<TreeFetcher> fetcher_;
  bool reload_asked_ = false;  // a forced fetch not yet started
  std::string fetcher_source_;  // what the fetch in flight fetches
  UserNames user_names_;
  // The job views, rebuilt only for jobs that changed (job_view_cache.h);
  // every view at a reconfigure and every kFullRebuildSeconds.
  JobViewCache job_views_;
  bool full_rebuild_ = true;
  budget::TimePoint last_full_rebuild_ = 0;
  // Working memory of the report, kept between passes: freed, these
  // megabytes would go back to the kernel and fault back in at every pass.
  budget::ReportSnapshot report_;
  budget::SubtreeHistoryCache history_cache_;  // the report's owed/delivered
  budget::ReportFileWriter report_writer_;
  budget::TimePoint last_pass_ = 0;
  // The weights the ledger was last charged under ("b200:2,h100:1").
  std::string charged_weights_;
  std::atomic<bool> standings_read_{true};
  bool standings_removed_ = false;  // since standings_read_ was last true
  std::vector<std::string> top_allocations_;
  budget::TimePoint last_report_ = 0;
  double report_seconds_ = 0;  // CPU of the last report
  long passes_ = 0;
  // What the passes did since the last info line.
  plugin_support::PassSummary summary_{
      "passes", {"job(s) seen", "pending job(s) prioritised", "priorities changed"}, kInfoEverySeconds};

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;         // GUARDED_BY(mutex_)
  bool reconfigure_ = false;  // GUARDED_BY(mutex_)
  bool fetch_done_ = false;   // GUARDED_BY(mutex_)
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_RECALC_THREAD_H_
