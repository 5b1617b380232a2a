// StandingsCache: see standings_cache.h.
#include "sched_timeslice/standings_cache.h"

#include <sys/stat.h>

#include <limits>
#include <utility>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_reader.h"

namespace timeslice {

namespace {

constexpr char kLastGoodTreeFileName[] = "budget_tree.last_good.json";  // priority/budget's state_files.h

const budget::Standing kNeutral{};
const std::string kNoPath;

}  // namespace

int32_t StandingsView::AllocationOf(std::string_view account, std::string_view user) const {
  if (!ranked) return 0;
  if (has_tree) {
    budget::NodeId id = tree.NodeFor(account, user);
    if (id == budget::kNoNode) return budget::kNoAllocation;
    auto it = index_of_path.find(tree.node(id).path);
    return it == index_of_path.end() ? budget::kNoAllocation : it->second;
  }
  auto it = index_of_account.find(std::string(account));
  return it == index_of_account.end() ? budget::kNoAllocation : it->second;
}

const budget::Standing& StandingsView::StandingOf(int32_t allocation) const {
  if (allocation < 0 || static_cast<size_t>(allocation) >= standings.size()) return kNeutral;
  return standings[allocation];
}

const std::string& StandingsView::PathOf(int32_t allocation) const {
  if (allocation < 0 || static_cast<size_t>(allocation) >= paths.size()) return kNoPath;
  return paths[allocation];
}

std::shared_ptr<const StandingsView> MakeDegradedView() {
  auto view = std::make_shared<StandingsView>();
  view->standings.push_back(budget::Standing{});
  view->paths.push_back("");
  return view;
}

StandingsCache::StandingsCache(std::string state_dir, LogFn log)
    : standings_path_(state_dir + "/" + budget::kStandingsSnapshotFileName),
      report_path_(state_dir + "/" + budget::kReportSnapshotFileName),
      tree_path_(state_dir + "/" + kLastGoodTreeFileName),
      log_(std::move(log)),
      degraded_view_(MakeDegradedView()) {}

StandingsCache::FileStamp StandingsCache::StampOf(const std::string& path) {
  FileStamp stamp;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return stamp;
  stamp.exists = true;
  stamp.mtime = st.st_mtim.tv_sec;
  stamp.mtime_ns = st.st_mtim.tv_nsec;
  stamp.size = st.st_size;
  return stamp;
}

void StandingsCache::Note(const std::string& line) {
  if (line == last_note_) return;
  last_note_ = line;
  if (log_) log_(line);
}

void StandingsCache::Rebuild() {
  budget::ReportSnapshot snapshot;
  budget::Status st = budget::ReadReportSnapshot(source_path_, &snapshot);
  if (!st.ok()) {
    ranked_view_.reset();
    Note("no usable standings (" + st.message() +
         "): every allocated job is ranked equal; only unallocated work is preempted");
    return;
  }
  auto view = std::make_shared<StandingsView>();
  view->ranked = true;
  view->scale.capacity_gpus = snapshot.capacity_gpus > 0 ? static_cast<uint64_t>(snapshot.capacity_gpus) : 0;
  view->scale.window = snapshot.window;
  for (const budget::SnapshotNode& node : snapshot.nodes) {
    budget::Standing s;
    s.rank = node.rank;
    s.usage_ratio = node.usage_ratio;
    s.entitlement = node.entitlement;
    s.window_usage = node.window_usage;
    int32_t index = static_cast<int32_t>(view->standings.size());
    view->standings.push_back(s);
    view->paths.push_back(node.path);
    view->index_of_path.emplace(node.path, index);
    if (!node.account.empty()) view->index_of_account.emplace(node.account, index);
  }
  budget::AllocationTree tree;
  if (budget::AllocationTree::ParseFile(tree_path_, &tree, nullptr).ok()) {
    view->tree = tree;
    view->has_tree = true;
  }
  generated_at_ = snapshot.generated_at;
  stale_after_ = snapshot.StaleAfter();
  ranked_view_ = view;
  Note("standings from " + source_path_ + ": " + std::to_string(view->standings.size()) + " tree nodes, " +
       std::to_string(view->scale.capacity_gpus) + " GPUs" +
       (view->has_tree ? "" : " (no last good tree: jobs mapped by account only)"));
}

bool StandingsCache::SourceChanged() {
  std::lock_guard<std::mutex> lock(mu_);
  if (source_path_.empty() || StampOf(source_path_) == report_stamp_) return false;
  last_stat_ = std::numeric_limits<budget::TimePoint>::min() / 2;  // View() stats again
  return true;
}

std::shared_ptr<const StandingsView> StandingsCache::View(budget::TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (now - last_stat_ >= kStatPeriod || now < last_stat_) {
    last_stat_ = now;
    // The standings file; the whole report only from a priority/budget
    // that does not write one (an older version).
    FileStamp report = StampOf(standings_path_);
    const std::string& source = report.exists ? standings_path_ : report_path_;
    if (!report.exists) report = StampOf(report_path_);
    FileStamp tree = StampOf(tree_path_);
    if (source != source_path_ || !(report == report_stamp_) || !(tree == tree_stamp_) ||
        (!ranked_view_ && last_note_.empty())) {
      source_path_ = source;
      report_stamp_ = report;
      tree_stamp_ = tree;
      Rebuild();
    }
    if (ranked_view_) {
      bool stale = now - generated_at_ > stale_after_;
      if (stale != stale_) {
        stale_ = stale;
        Note(stale ? "the standings snapshot is stale (priority/budget has missed passes): every allocated "
                     "job is ranked equal; only unallocated work is preempted"
                   : "the standings snapshot is fresh again");
      }
    }
  }
  if (ranked_view_ && !stale_) return ranked_view_;
  return degraded_view_;
}

}  // namespace timeslice
