// StandingsCache: how the timeslice plugins learn the fair-share standings
// that priority/budget computed, without talking to it.
//
// Source: priority/budget's standings snapshot
// (<StateSaveLocation>/budget_standings.json: the report snapshot of
// report_snapshot.h without job rows and history; the whole report,
// budget_report.json, when it is missing) for each tree node's rank, usage
// ratio, entitlement and window usage, the cluster's capacity and window;
// and its last good tree (<StateSaveLocation>/budget_tree.last_good.json)
// to map a job's (account, user) to its node with the core's
// AllocationTree::NodeFor.
//
// Caching: files are stat()ed at most once per kStatPeriod seconds and
// re-parsed only when their mtime or size changed, so a call on the
// scheduling path costs a mutex and a shared_ptr copy.
//
// Degraded mode (no snapshot, an unreadable one, or a stale one, see
// ReportSnapshot::IsStale): every allocated job maps to the single
// allocation 0, so allocated work never preempts allocated work (the core's
// "same allocation" refusal) while unallocated work stays preemptible. Logged
// once per change of mode through the `log` callback.
//
// Thread safety: View() may be called from any thread; the returned view is
// immutable and stays valid while held.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_STANDINGS_CACHE_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_STANDINGS_CACHE_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libbudget/policy/preempt.h"
#include "libbudget/standing.h"
#include "libbudget/state/tree.h"

namespace timeslice {

// An immutable picture of the standings at one snapshot.
struct StandingsView {
  // False in degraded mode (see above).
  bool ranked = false;
  // Indexed by allocation; in degraded mode one neutral entry.
  std::vector<budget::Standing> standings;
  // Tree path of each allocation ("" in degraded mode), for logs.
  std::vector<std::string> paths;
  budget::ClusterScale scale;

  // The allocation a job of (account, user) is charged to; kNoAllocation if
  // its account is bound nowhere (such work is treated as unallocated).
  int32_t AllocationOf(std::string_view account, std::string_view user) const;
  // The standing of `allocation` (a neutral one if out of range).
  const budget::Standing& StandingOf(int32_t allocation) const;
  const std::string& PathOf(int32_t allocation) const;

  // Mapping data (ranked mode only).
  budget::AllocationTree tree;
  bool has_tree = false;
  std::unordered_map<std::string, int32_t> index_of_path;
  std::unordered_map<std::string, int32_t> index_of_account;  // fallback without a tree
};

class StandingsCache {
 public:
  static constexpr budget::TimePoint kStatPeriod = 1;
  using LogFn = std::function<void(const std::string&)>;

  // `state_dir` = StateSaveLocation. `log` receives one line per mode change
  // or unreadable file (may be empty).
  StandingsCache(std::string state_dir, LogFn log);

  // The current view at `now` (refreshing from disk when due).
  std::shared_ptr<const StandingsView> View(budget::TimePoint now);
  // Whether priority/budget has written new standings since the view was
  // read (one stat()); if so the next View() reads them, whatever
  // kStatPeriod says.
  bool SourceChanged();

 private:
  struct FileStamp {
    bool exists = false;
    time_t mtime = 0;
    long mtime_ns = 0;
    off_t size = 0;
    bool operator==(const FileStamp& o) const {
      return exists == o.exists && mtime == o.mtime && mtime_ns == o.mtime_ns && size == o.size;
    }
  };
  static FileStamp StampOf(const std::string& path);
  void Rebuild();
  void Note(const std::string& line);

  const std::string standings_path_;
  const std::string report_path_;
  const std::string tree_path_;
  LogFn log_;
  std::mutex mu_;
  budget::TimePoint last_stat_ = 0;
  std::string source_path_;  // the file the view was read from
  FileStamp report_stamp_, tree_stamp_;
  budget::TimePoint generated_at_ = 0;
  budget::Seconds stale_after_ = 0;
  bool stale_ = false;
  std::shared_ptr<const StandingsView> ranked_view_;    // from the files (may be null)
  std::shared_ptr<const StandingsView> degraded_view_;  // always set
  std::string last_note_;
};

// The neutral view of degraded mode.
std::shared_ptr<const StandingsView> MakeDegradedView();

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_STANDINGS_CACHE_H_
