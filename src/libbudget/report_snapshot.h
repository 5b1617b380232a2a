// ReportSnapshot: what the priority plugin knew at the end of one recompute
// pass, written for the report tool (`sbudget`) and for anyone who can read
// the StateSaveLocation.
//
// sbudget never talks to the plugin and never recomputes a rule; it shows
// what the plugin decided: the snapshot's ranks, ratios and owed/delivered
// time, and the priorities the plugin set on the pending jobs, which it
// asks Slurm for (with the jobs' own records).
//
// File. `<StateSaveLocation>/budget_report.json` (kReportSnapshotFileName),
// JSON, written atomically (WriteReportSnapshot: `file.tmp`, fsync, rename,
// directory fsync; the plugin's ReportFileWriter: the same without the
// fsyncs) with mode 0644 so that users can read it. Layout,
// version 3 (every time in seconds since the epoch, every duration in
// seconds, every GPU time in GPU-seconds):
//   { "format": "slurm-budget-report", "version": 3,
//     "generated_at": T, "tree_source": "/etc/slurm/budget-tree.json",
//     "window": 604800, "bucket_width": 300, "history_width": 3600,
//     "recalc_interval": 30, "capacity_gpus": 64,
//     "fragmentation": 0.125 | null,
//     "tree_loaded": true,
//     "nodes": [ { "path": "llm/pretrain", "name": "pretrain", "depth": 2,
//                  "owners": [..], "account": "pretrain", "user": "",
//                  "share": 70, "normalized_share": 0.7, "entitlement": 0.35,
//                  "window_usage": 3600, "usage_ratio": 0.2,
//                  "unallocated": 0, "owed": 7200, "delivered": 3600,
//                  "running_gpus": 8, "pending_gpus": 16,
//                  "sibling_ratio": 0.8 | null, "rank": 0 | null }, .. ],
//     "job_fields": ["job_id", "state", "user", "account", "node_path",
//                    "gpus", "contract_known", "min_runtime", "resumable",
//                    "user_priority", "priority", "fairshare", "rank",
//                    "allocated", "queue_position", "submit_time",
//                    "start_time", "protection_end", "preemption"],
//     "jobs": [ [12, "running", "alice", "pretrain", "llm/pretrain" | null,
//                8, true, 900, true, 0, P, 1.0, 0 | null, true, 0 | null, T,
//                T | null, T | null,
//                { "preempted_by": 13, "rule": "unallocated",
//                  "action": "requeue", "at": T } | null ], .. ],
//     "history": [ { "path": "llm", "start": T, "width": 3600,
//                    "delivered": [..], "owed": [..] } ] }
// Which jobs. Version 3 lists the RUNNING jobs only (what protects them,
// what they are charged to). Pending jobs are not listed: each one's place
// is its Slurm priority, which the plugin sets every pass and Slurm holds;
// `sbudget explain` asks slurmctld for the pending jobs when someone asks,
// and reads each priority back into its factors (order.h DecodePriority,
// with the number of ranked nodes of this snapshot). Versions 1 and 2 also
// listed every pending job, with its priority and queue position; at
// 20,000 pending jobs that was 2.8 MB of rows and most of the plugin's CPU
// per pass, rewritten every pass for a question asked now and then.
// Readers still read such files (the pending rows are read, and ignored by
// sbudget explain, which asks Slurm).
// Jobs are rows: one array per job whose values are the columns that
// job_fields names, in its order (the names once, not once per job). A
// reader maps the columns BY NAME, so a writer may add or reorder columns
// without a new version: a reader ignores columns it does not know, and
// refuses (Corruption naming the place) a file that lacks one it needs
// (every column above but "preemption", whose absence means no preemption
// records) or a row whose length is not job_fields'.
// History values are written rounded to 0.001 GPU-s (a computed owed value
// such as 6156.615661566157 is 8 bytes instead of 17; the history was half
// the file), so they read back within 0.0005 GPU-s of what was computed.
// Version 1 wrote each job as an object with the keys of job_fields
// ("preemption" absent instead of null); readers still accept it, so an
// sbudget upgraded before the plugin reads the old plugin's file.
// Nodes are in the tree's pre-order (a parent before its children), so a
// reader can indent by depth. A non-finite number (a zero-share sibling's
// ratio is +inf) is written as null and read back as +inf; rank null is
// FairShareOrder::kNoRank.
//
// No tree. While no allocation tree has ever loaded (a first start whose
// tree source is missing or invalid), priority/budget computes nothing and
// writes, every pass, a snapshot with "tree_loaded": false, no nodes, no
// jobs and tree_source naming the source, so that sbudget says so instead
// of "no snapshot" (which reads as "priority/budget is not configured").
// A file without the key (written before it existed) had a tree.
//
// Fragmentation. select/topo publishes its figure in its own state file
// (packing_state.h); priority/budget copies it into each report it writes
// (null when select/topo has written none), so that a reader of the report
// alone, on any host, has it.
//
// Versions. A reader accepts every version <= kReportSnapshotVersion and
// refuses a newer one by name ("written by a newer slurm-budget"), so an
// old sbudget never misreads a new plugin's file. Keys a reader does not know
// are ignored (a later version may add some without bumping the version).
//
// Age. A snapshot is stale when it is older than kStaleIntervals recompute
// intervals (and at least kMinStaleAge): the plugin has then missed several
// passes (controller down or the plugin not loaded) and the report says so.
//
// Thread safety: plain values and functions; WriteReportSnapshot may run
// concurrently with readers of the same file (rename is atomic).
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_

#include <sys/uio.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/ledger.h"
#include "libbudget/order.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"
#include "libbudget/tree.h"

namespace budget {

class JsonWriter;
class SubtreeHistoryCache;

// Written by priority/budget in its StateSaveLocation.
constexpr char kReportSnapshotFileName[] = "budget_report.json";
// The same document without job rows and history, written with each report
// (WriteStandingsSnapshot): what preempt/timeslice reads inside slurmctld.
constexpr char kStandingsSnapshotFileName[] = "budget_standings.json";
constexpr char kReportSnapshotFormat[] = "slurm-budget-report";
constexpr int kReportSnapshotVersion = 3;
constexpr int kStaleIntervals = 3;
constexpr Seconds kMinStaleAge = 90;
// Upper bound on the file a reader accepts. For scale (measured,
// bench/report_snapshot_bench.cc): 1,000 accounts with a week of hourly
// history per node and 1,000 running jobs is 2.6 MB, most of it history.
constexpr size_t kMaxReportSnapshotBytes = 256u << 20;

// One allocation tree node at the time of the snapshot. GPU times are
// subtree sums (the node and every descendant) over the lookback window.
struct SnapshotNode {
  std::string path;  // "" for the root
  std::string name;
  int depth = 0;
  std::vector<std::string> owners;
  std::string account;
  std::string user;
  double share = 0.0;
  double normalized_share = 1.0;
  double entitlement = 1.0;
  double window_usage = 0.0;  // allocated GPU-s (what ranks the node)
  // Standing::usage_ratio: window_usage / (entitlement x capacity x window).
  double usage_ratio = 0.0;
  double unallocated = 0.0;   // unallocated GPU-s
  double owed = 0.0;          // GPU-s owed over the window (metrics)
  double delivered = 0.0;     // GPU-s delivered over the window (metrics)
  double running_gpus = 0.0;
  double pending_gpus = 0.0;
  // FairShareOrder::sibling_ratio(); +inf for a zero-share sibling that used
  // something.
  double sibling_ratio = 0.0;
  uint32_t rank = FairShareOrder::kNoRank;

  bool has_rank() const { return rank != FairShareOrder::kNoRank; }
  // delivered / owed; 1 when nothing was owed (nothing was missed).
  double DeliveredOverOwed() const { return owed > 0 ? delivered / owed : 1.0; }
};

// Why and by whom a job was preempted (from the preemption decision).
struct PreemptionRecord {
  uint32_t preempted_by = 0;  // the job that needed the GPUs
  std::string rule;           // PreemptVerdictName(), e.g. "unallocated"
  std::string action;         // "requeue" or "cancel"
  TimePoint at = 0;
};

enum class SnapshotJobState { kPending, kRunning, kPreempted };
// "pending", "running", "preempted".
const char* SnapshotJobStateName(SnapshotJobState state);

// A job of interest: running (version 3 lists no others); pending or
// preempted in files of versions 1 and 2, and in what sbudget explain builds
// from Slurm's pending jobs.
struct SnapshotJob {
  static constexpr TimePoint kNoTime = std::numeric_limits<TimePoint>::min();
  static constexpr uint32_t kNoPosition = std::numeric_limits<uint32_t>::max();

  uint32_t job_id = 0;
  SnapshotJobState state = SnapshotJobState::kPending;
  std::string user;
  std::string account;
  std::string node_path;  // the tree node it is charged to; "" for the root
  bool has_node = false;  // false: its (account, user) maps to no node
  uint32_t gpus = 0;      // total GPUs asked for (or held)
  bool contract_known = false;  // a contract record was found on the job
  Seconds min_runtime = 0;
  bool resumable = false;
  uint32_t user_priority = 0;
  uint32_t priority = 0;     // FairShareOrder::Priority()
  double fairshare = 0.0;    // PriorityFactors::fairshare
  uint32_t rank = FairShareOrder::kNoRank;
  bool allocated = false;    // min_runtime > 0
  uint32_t queue_position = kNoPosition;  // pending jobs: 0 = next to start
  TimePoint submit_time = 0;
  TimePoint start_time = kNoTime;      // running jobs: the current run's start
  TimePoint protection_end = kNoTime;  // running allocated jobs
  bool has_preemption = false;
  PreemptionRecord preemption;
};

// Delivered against owed GPU time per history_width slot, for one node.
struct SnapshotHistory {
  std::string path;
  TimePoint start = 0;
  Seconds width = 3600;
  std::vector<double> delivered;  // GPU-s per slot
  std::vector<double> owed;       // same length as delivered
};

struct ReportSnapshot {
  int version = kReportSnapshotVersion;
  TimePoint generated_at = 0;
  std::string tree_source;
  Seconds window = 0;
  Seconds bucket_width = 0;
  Seconds history_width = 3600;
  Seconds recalc_interval = 30;
  double capacity_gpus = 0.0;
  bool has_fragmentation = false;
  double fragmentation = 0.0;  // packing.h's figure, in [0, 1]
  // False: no allocation tree has loaded yet (see "No tree" above); the
  // snapshot then has no nodes and tree_source names the source.
  bool tree_loaded = true;
  std::vector<SnapshotNode> nodes;       // pre-order
  std::vector<SnapshotJob> jobs;
  std::vector<SnapshotHistory> history;

  // The node with this path, or nullptr.
  const SnapshotNode* FindNode(std::string_view path) const;
  // The job with this id, or nullptr.
  const SnapshotJob* FindJob(uint32_t job_id) const;
  // now - generated_at (negative if the clocks disagree).
  Seconds Age(TimePoint now) const { return now - generated_at; }
  // Age beyond max(kStaleIntervals x recalc_interval, kMinStaleAge).
  Seconds StaleAfter() const;
  bool IsStale(TimePoint now) const { return Age(now) > StaleAfter(); }
};

// Writes `snapshot` to `file` atomically with mode 0644. IOError naming the
// file and the failing step; `file` is then unchanged.
Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file);
// The same, formatting into `*scratch` (FormatReportSnapshotInto), which the
// caller keeps from one write to the next: a writer that runs every pass
// then neither allocates nor page-faults a fresh multi-MB buffer each time.
// *scratch holds the file's text afterwards (whatever the status).
// REQUIRES: scratch != nullptr, used by one thread at a time.
Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file,
                           std::string* scratch);

// Writes the standings of `report` to `file` the same way: the report's
// document with every field but the job rows and the history ("jobs" and
// "history" are empty arrays), so ReadReportSnapshot reads it. For a reader
// that needs only the tree nodes' standings inside slurmctld: reading the
// benchmark's report (1,011 nodes with a week of history, 1,000 running
// jobs: 2.6 MB) takes 69 ms of CPU, its standings 6.4 ms (bench
// report_snapshot_read_cpu and standings_snapshot_read_cpu).
// REQUIRES: scratch != nullptr (as above).
Status WriteStandingsSnapshot(const ReportSnapshot& report, const std::string& file,
                              std::string* scratch);

// Writes a plugin's report and standings files pass after pass, with the
// same bytes WriteReportSnapshot and WriteStandingsSnapshot write, reusing
// what did not change since the previous Write:
//   - the nodes are formatted once for both files, and the text of their
//     tree fields (path to entitlement) is kept while those stay the same;
//   - with a SubtreeHistoryCache (the one BuildSnapshotNodes just updated
//     for this report), the history is that cache's series of the nodes
//     down to history_max_depth, as BuildSnapshotNodes would have copied
//     them into report.history (which is then not read). The text of every
//     slot but the last is kept in one buffer while the cache's closed
//     slots stand (SubtreeHistoryCache::closed_generation), so a pass within
//     an hour formats two values per node and writes the rest from where it
//     lies. At 1,011 nodes with a week of hourly history that
//     is 340,000 numbers, most of the report's formatting, formatted once an
//     hour instead of once a pass. Without a cache, report.history is
//     formatted whole;
//   - each file is written with writev from those pieces, not copied into
//     one buffer first.
// The files are derived data, rewritten every pass and again by the first
// pass after a restart: they are replaced atomically (write file.tmp,
// rename) with mode 0644, but not fsynced. A crash of the machine can at
// worst leave an empty or partial file, which readers refuse with a message
// naming it ("empty file", Corruption) until the next pass rewrites it; the
// state that matters (the ledger) is fsynced by its own writer.
// Thread safety: one thread at a time.
class ReportFileWriter {
 public:
  // Writes `report` to report_file, the same bytes to report_copy (skipped
  // if empty: budget.conf's ReportDir), then its standings to
  // standings_file (skipped if empty). IOError naming the file and the
  // step (the first that failed; the other files are still written); a
  // file whose write failed is unchanged.
  Status Write(const ReportSnapshot& report, const std::string& report_file, const std::string& standings_file,
               const SubtreeHistoryCache* history = nullptr, int history_max_depth = -1,
               const std::string& report_copy = std::string());
  // How many history values the last Write formatted (the others kept
  // their text); for tests and the benchmark.
  size_t history_values_formatted() const { return history_values_formatted_; }
  // How many times the nodes' tree fields (path to entitlement) were
  // formatted: once, and again whenever the nodes or those fields change.
  size_t tree_formats() const { return tree_formats_; }

 private:
  // The "nodes" array into nodes_text_, the tree's fields from tree_text_
  // (formatted again when they changed).
  void FormatNodes(const std::vector<SnapshotNode>& nodes);
  void FormatTreeFields(const std::vector<SnapshotNode>& nodes);
  // Formats the closed text of `cache`'s series down to max_depth.
  void FormatClosedHistory(const SubtreeHistoryCache& cache, int max_depth);
  void AppendValue(double value, std::string* out);
  // Appends to pieces_ (skipped if empty).
  void AddPiece(const char* data, size_t size);
  // The "history" array's pieces: the closed text with each series' last
  // value (formatted into last_text_).
  void AddHistoryPieces(const SubtreeHistoryCache& cache);

  // Per history entry, two parts of its text, one after the other in
  // closed_text_: everything before its last delivered value, then
  // everything between that and its last owed value; closed_ends_ holds
  // where each part ends, closed_nodes_ the entry's node.
  std::string closed_text_;
  std::vector<uint32_t> closed_ends_;
  std::vector<size_t> closed_nodes_;
  uint64_t closed_generation_ = 0;  // the cache's, when formatted; 0: none
  int closed_depth_ = -1;
  std::string history_text_;  // the history, formatted whole (no cache)
  // Each history entry's last delivered and owed values, one after the
  // other (last_ends_: where each ends).
  std::string last_text_;
  std::vector<uint32_t> last_ends_;
  std::vector<iovec> pieces_;  // what the file being written holds, in order
  // Per node, the start of its object up to its tree fields, one after the
  // other in tree_text_ (tree_ends_: where each ends), and those fields as
  // formatted (tree_nodes_: the nodes they were formatted from).
  std::string tree_text_;
  std::vector<uint32_t> tree_ends_;
  std::vector<SnapshotNode> tree_nodes_;
  size_t tree_formats_ = 0;
  std::string nodes_text_;
  std::string value_text_;
  std::string text_;
  size_t history_values_formatted_ = 0;
};

// Reads `file`. NotFound if it does not exist; Corruption naming the file and
// the JSON path for a malformed document or a version newer than this build
// reads; IOError for a read error. *out is replaced only on success.
// REQUIRES: out != nullptr.
Status ReadReportSnapshot(const std::string& file, ReportSnapshot* out);

// The JSON text WriteReportSnapshot writes, and its parser (`source` names
// the document in errors); exposed for tests and for `sbudget --json`.
std::string FormatReportSnapshot(const ReportSnapshot& snapshot);
// Replaces *out by FormatReportSnapshot(snapshot), keeping *out's capacity.
// REQUIRES: out != nullptr.
void FormatReportSnapshotInto(const ReportSnapshot& snapshot, std::string* out);
Status ParseReportSnapshot(std::string_view json, const std::string& source,
                           ReportSnapshot* out);

// --- Builders: keep the plugin's code a translation of Slurm's records. ---

// What the plugin counts per tree node from its job lists (direct, not
// subtree: the builder sums subtrees).
struct NodeActivity {
  double running_gpus = 0.0;
  double pending_gpus = 0.0;
};

// Fills snapshot->nodes from the tree, the order computed at `now` over the
// same tree, and the ledger: every tree node in pre-order with its shares,
// rank, sibling ratio, subtree window usage (allocated and unallocated),
// owed and delivered GPU-s over the window (metrics.h, hour by hour: see
// SubtreeDeliveredAndOwed), and running/pending GPUs summed over the
// subtree. `activity` is indexed by NodeId (empty: all zero). Uses
// snapshot->capacity_gpus and ->window; sets ->history_width to the
// ledger's report_bucket_width (the metrics' hour).
// With history_max_depth >= 0 it also replaces snapshot->history as
// BuildSnapshotHistory(tree, history_max_depth, ...) would, from the same
// ledger reads (the costly part: about two reads of each charged path's
// buckets: ~0.06 ms per charged path of a 7-day window of 5-min buckets,
// measured on a loaded 2-core machine).
// With a `history_cache` (history_cache.h; a caller that builds a report
// every pass keeps one), the owed/delivered figures come from it, read
// again only where the ledger changed; the values are the same. A caller
// that writes with ReportFileWriter passes history_max_depth -1 and gives
// the writer the cache instead: copying a week of series per node into
// snapshot->history every pass is what the cache saves.
// InvalidArgument if the order was not computed over this tree or activity
// has the wrong size; the snapshot is then untouched.
// The ledger is not const because its queries expire old buckets lazily.
Status BuildSnapshotNodes(const AllocationTree& tree, const FairShareOrder& order,
                          const std::vector<NodeActivity>& activity, TimePoint now,
                          Ledger* ledger, ReportSnapshot* snapshot,
                          int history_max_depth = -1,
                          SubtreeHistoryCache* history_cache = nullptr);

// Appends to snapshot->history one series per tree node (pre-order) down
// to `max_depth`, over the window ending at `now`, hour by hour: delivered
// and owed GPU-s as in BuildSnapshotNodes. (The file must stay small: 7 days
// x 168 hours x 2 values x 1,000 nodes is ~3 MB of JSON.) Uses
// snapshot->capacity_gpus and ->window; sets ->history_width.
void BuildSnapshotHistory(const AllocationTree& tree, int max_depth, TimePoint now,
                          const Ledger& ledger, ReportSnapshot* snapshot);

// Per tree node (indexed by NodeId), delivered and owed GPU-s of its subtree
// per "hour" (the ledger's report_bucket_width), over the slots of the
// window that ends at `now` (the last slot holds now), as metrics.h defines
// them for the node's subtree (ServiceFromHourlySums):
//   delivered[k] = the subtree's allocated GPU-s in slot k;
//   owed[k]      = min(entitlement x capacity x hour, the subtree's demand
//                  GPU-s in slot k).
// REQUIRES: window > 0, capacity_gpus >= 0.
std::vector<SnapshotHistory> SubtreeDeliveredAndOwed(const AllocationTree& tree,
                                                     double capacity_gpus, Seconds window,
                                                     TimePoint now, const Ledger& ledger);
// The same into *out (resized to the tree; each series keeps its vectors'
// memory, so a caller that keeps *out from one report to the next
// allocates nothing). REQUIRES: out != nullptr.
void SubtreeDeliveredAndOwedInto(const AllocationTree& tree, double capacity_gpus, Seconds window,
                                 TimePoint now, const Ledger& ledger,
                                 std::vector<SnapshotHistory>* out);
// Where the first of the slots of SubtreeDeliveredAndOwed starts: slots of `width` aligned on
// multiples of it, max(1, window / width) of them, the last holding `now`.
TimePoint HistoryFirstSlot(TimePoint now, Seconds window, Seconds width);

// Fills, for every job, has_node/rank/allocated/priority/fairshare from the
// order (the job's node_path looked up in `tree`; a job with no node, or
// whose path the tree does not hold, is unallocated whatever its
// min_runtime), and queue_position of the
// pending jobs by the core's job order (FairShareOrder::SortJobs). The
// plugin fills the raw facts (id, state, user, account, node_path, gpus,
// contract, times, preemption) and calls this last.
void RankSnapshotJobs(const AllocationTree& tree, const FairShareOrder& order,
                      std::vector<SnapshotJob>* jobs);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_
