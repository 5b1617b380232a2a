// ReportSnapshot: what the priority plugin knew at the end of one recompute
// pass, written for the report tool (`sbudget`) and for anyone who can read
// the StateSaveLocation.
//
// sbudget never talks to the plugin and never recomputes a rule; it shows
// what the plugin decided: the snapshot's ranks, ratios and owed/delivered
// time, and the priorities the plugin set on the pending jobs, which it
// asks Slurm for (with the jobs' own records).
//
// The code. This header is the schema (the values and the layout below);
// report_format.h writes the JSON text, report_reader.h reads it,
// report_file.h writes the files, report_builders.h fills a snapshot from
// the core's tree, order and ledger; subtree_history.h holds the history
// sums. doc/formats.md has the format's version history.
//
// File. `<StateSaveLocation>/budget_report.json` (kReportSnapshotFileName),
// JSON, written atomically (report_file.h: `file.tmp`, rename) with mode
// 0644 so that users can read it. Layout,
// version 3 (every time in seconds since the epoch, every duration in
// seconds, every GPU time in GPU-seconds):
//   { "format": "slurm-budget-report", "version": 3,
//     "generated_at": T, "tree_source": "/etc/slurm/budget-tree.json",
//     "window": 604800, "bucket_width": 300, "history_width": 3600,
//     "recalc_interval": 30, "preempt_notice": 30, "capacity_gpus": 64,
//     "fragmentation": 0.125 | null,
//     "tree_loaded": true, "pass_seconds": 0.012,
//     "gpu_weights": { "b200": 2, "h100": 1 },
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
// with the number of ranked nodes of this snapshot). Earlier versions
// (doc/formats.md) are still read.
// Jobs are rows: one array per job whose values are the columns that
// job_fields names, in its order (the names once, not once per job). A
// reader maps the columns BY NAME, so a writer may add or reorder columns
// without a new version: a reader ignores columns it does not know, and
// refuses (Corruption naming the place) a file that lacks one it needs
// (every column above but "preemption", whose absence means no preemption
// records) or a row whose length is not job_fields'.
// History values are written rounded to 0.001 GPU-s, so they read back
// within 0.0005 GPU-s of what was computed.
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
// Unit. Every GPU time and capacity_gpus is in weighted GPUs when the
// plugin ran with GpuTypeWeights (budget.conf; policy/gpu_worth.h):
// "gpu_weights" holds the weights in force when the snapshot was written,
// {} without them (plain GPU-hours). running_gpus and pending_gpus stay
// GPU counts. The ledger keeps what it charged under earlier weights
// until it leaves the window: the weights recorded are the current ones,
// not those of every bucket. A file without the key had none.
//
// Fragmentation. select/topo publishes its figure in its own state file
// (packing_state.h); priority/budget copies it into each report it writes
// (null when select/topo has written none), so that a reader of the report
// alone, on any host, has it.
//
// Pass duration. "pass_seconds": the wall time of the recompute pass that
// wrote the report (snapshot of the jobs, compute, apply: the "pass N: X ms"
// of priority/budget's pass line), for `sbudget metrics`. Absent when not
// recorded (a file written before the key, or a report without a pass: no
// tree); it came without a new version (doc/formats.md).
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
// Thread safety: plain values.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/config/gpu_type_weights.h"
#include "libbudget/policy/order.h"
#include "libbudget/standing.h"
#include "libbudget/state/subtree_history.h"

namespace budget {

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

struct ReportSnapshot {
  int version = kReportSnapshotVersion;
  TimePoint generated_at = 0;
  std::string tree_source;
  Seconds window = 0;
  Seconds bucket_width = 0;
  Seconds history_width = 3600;
  Seconds recalc_interval = 30;
  // budget.conf PreemptNotice: how long a job told to leave keeps its GPUs
  // (start_estimate.h counts it). Optional: 0 when absent (snapshots
  // written before it was recorded).
  Seconds preempt_notice = 0;
  double capacity_gpus = 0.0;
  bool has_fragmentation = false;
  double fragmentation = 0.0;  // packing.h's figure, in [0, 1]
  // False: no allocation tree has loaded yet (see "No tree" above); the
  // snapshot then has no nodes and tree_source names the source.
  bool tree_loaded = true;
  // The GpuTypeWeights in force (see "Unit" above); empty: GPU-hours.
  GpuTypeWeights gpu_type_weights;
  // The writing pass's wall time (see "Pass duration"); < 0: not recorded.
  double pass_seconds = -1.0;
  bool has_pass_seconds() const { return pass_seconds >= 0; }
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

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_SNAPSHOT_H_
