// The report snapshot's builders: the core's figures (tree, order, ledger,
// subtree history) turned into a ReportSnapshot's nodes, history and job
// ranks, so that the plugin's code stays a translation of Slurm's records.
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_BUILDERS_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_BUILDERS_H_

#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"

namespace budget {

class SubtreeHistoryCache;

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
// SubtreeDeliveredAndOwed in subtree_history.h), and running/pending GPUs summed over the
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

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_BUILDERS_H_
