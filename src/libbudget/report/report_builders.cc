// The report snapshot's builders (report_builders.h).
#include "libbudget/report/report_builders.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "libbudget/report/history_cache.h"
#include "libbudget/state/subtree_history.h"

namespace budget {

Status BuildSnapshotNodes(const AllocationTree& tree, const FairShareOrder& order,
                          const std::vector<NodeActivity>& activity, TimePoint now,
                          Ledger* ledger, ReportSnapshot* snapshot, int history_max_depth,
                          SubtreeHistoryCache* history_cache) {
  if (order.size() != tree.size()) {
    return Status::InvalidArgument("BuildSnapshotNodes: the order covers " +
                                   std::to_string(order.size()) + " nodes, the tree " +
                                   std::to_string(tree.size()));
  }
  if (!activity.empty() && activity.size() != tree.size()) {
    return Status::InvalidArgument("BuildSnapshotNodes: activity has " +
                                   std::to_string(activity.size()) + " entries, the tree " +
                                   std::to_string(tree.size()) + " nodes");
  }
  // With a history wanted and no cache, the series of every node are built
  // in snapshot->history itself (its memory is reused from the previous
  // report), then trimmed to the wanted depth.
  std::vector<SnapshotHistory> local_metrics;
  std::vector<SnapshotHistory>& built =
      history_max_depth >= 0 && history_cache == nullptr ? snapshot->history : local_metrics;
  if (history_cache != nullptr) {
    history_cache->Update(tree, snapshot->capacity_gpus, snapshot->window, now, ledger);
  } else {
    SubtreeDeliveredAndOwedInto(tree, snapshot->capacity_gpus, snapshot->window, now, *ledger, &built);
  }
  snapshot->history_width = ledger->options().report_bucket_width;
  // In place: a snapshot kept from one report to the next keeps its nodes'
  // memory (freed, the 1,000-node vector went back to the kernel and
  // faulted back in at every report).
  std::vector<SnapshotNode>& nodes = snapshot->nodes;
  nodes.resize(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    const NodeId id = static_cast<NodeId>(i);
    const TreeNode& t = tree.node(id);
    SnapshotNode& n = nodes[i];
    n.path = t.path;
    n.name = t.name;
    n.depth = t.depth;
    n.owners = t.owners;
    n.account = t.account;
    n.user = t.user;
    n.share = t.share;
    n.normalized_share = t.normalized_share;
    n.entitlement = t.entitlement;
    n.window_usage = order.standing(id).window_usage;
    n.usage_ratio = order.standing(id).usage_ratio;
    n.rank = order.standing(id).rank;
    n.sibling_ratio = order.sibling_ratio(id);
    n.unallocated = ledger->WindowUsage(t.path, Ledger::Series::kUnallocated, now);
    n.running_gpus = activity.empty() ? 0.0 : activity[i].running_gpus;
    n.pending_gpus = activity.empty() ? 0.0 : activity[i].pending_gpus;
    if (history_cache != nullptr) {
      n.delivered = history_cache->delivered_total(i);
      n.owed = history_cache->owed_total(i);
    } else {
      n.delivered = 0.0;
      n.owed = 0.0;
      for (double v : built[i].delivered) n.delivered += v;
      for (double v : built[i].owed) n.owed += v;
    }
  }
  // Subtree sums of the direct figures, children before parents.
  for (size_t i = tree.size(); i-- > 1;) {
    SnapshotNode& parent = nodes[tree.node(static_cast<NodeId>(i)).parent];
    parent.unallocated += nodes[i].unallocated;
    parent.running_gpus += nodes[i].running_gpus;
    parent.pending_gpus += nodes[i].pending_gpus;
  }
  if (history_max_depth >= 0 && history_cache != nullptr) {
    size_t kept = 0;  // pre-order kept
    for (size_t i = 0; i < tree.size(); ++i) {
      if (tree.node(static_cast<NodeId>(i)).depth > history_max_depth) continue;
      if (kept == snapshot->history.size()) snapshot->history.emplace_back();
      history_cache->CopySeries(i, &snapshot->history[kept++]);
    }
    snapshot->history.resize(kept);
  } else if (history_max_depth >= 0) {
    size_t kept = 0;  // pre-order kept: a stable partition by depth
    for (size_t i = 0; i < built.size(); ++i) {
      if (tree.node(static_cast<NodeId>(i)).depth > history_max_depth) continue;
      if (kept != i) std::swap(built[kept], built[i]);
      ++kept;
    }
    built.resize(kept);
  }
  return Status::Ok();
}

void BuildSnapshotHistory(const AllocationTree& tree, int max_depth, TimePoint now,
                          const Ledger& ledger, ReportSnapshot* snapshot) {
  std::vector<SnapshotHistory> metrics =
      SubtreeDeliveredAndOwed(tree, snapshot->capacity_gpus, snapshot->window, now, ledger);
  snapshot->history_width = ledger.options().report_bucket_width;
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (tree.node(static_cast<NodeId>(i)).depth <= max_depth) {
      snapshot->history.push_back(std::move(metrics[i]));
    }
  }
}

void RankSnapshotJobs(const AllocationTree& tree, const FairShareOrder& order,
                      std::vector<SnapshotJob>* jobs) {
  std::vector<PendingJob> pending;
  for (SnapshotJob& j : *jobs) {
    PendingJob p;
    p.job_id = j.job_id;
    p.node = j.has_node ? tree.Find(j.node_path) : kNoNode;
    // Work that maps to no node is unallocated whatever its contract says:
    // the priority plugin orders it so (priority_pass.h ToPendingJob).
    p.allocated = p.node != kNoNode && j.min_runtime > 0;
    p.user_priority = j.user_priority;
    p.submit_time = j.submit_time;
    PriorityFactors f;
    j.priority = order.Priority(p, &f);
    j.fairshare = f.fairshare;
    j.rank = f.rank;
    j.allocated = f.allocated;
    j.queue_position = SnapshotJob::kNoPosition;
    if (j.state == SnapshotJobState::kPending) pending.push_back(p);
  }
  order.SortJobs(&pending);
  // Job ids are unique among pending jobs; index them to assign positions.
  std::vector<std::pair<uint32_t, uint32_t>> position;  // (job id, position)
  position.reserve(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    position.emplace_back(pending[i].job_id, static_cast<uint32_t>(i));
  }
  std::sort(position.begin(), position.end());
  for (SnapshotJob& j : *jobs) {
    if (j.state != SnapshotJobState::kPending) continue;
    auto it = std::lower_bound(position.begin(), position.end(),
                               std::make_pair(j.job_id, uint32_t{0}));
    if (it != position.end() && it->first == j.job_id) j.queue_position = it->second;
  }
}

}  // namespace budget
