// Subtree history: per tree node, delivered and owed GPU-s of its subtree,
// hour by hour over the lookback window, as metrics.h defines them for a
// subtree (ServiceFromHourlySums). The report's owed/delivered columns and
// its history series are these sums; SubtreeHistoryCache (history_cache.h)
// keeps them from one report to the next, and its tests compare it with
// SubtreeDeliveredAndOwedInto bitwise.
//
// Thread safety: plain values and functions.
#ifndef SLURM_BUDGET_LIBBUDGET_SUBTREE_HISTORY_H_
#define SLURM_BUDGET_LIBBUDGET_SUBTREE_HISTORY_H_

#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/tree.h"

namespace budget {

// Delivered against owed GPU time per history_width slot, for one node.
struct SnapshotHistory {
  std::string path;
  TimePoint start = 0;
  Seconds width = 3600;
  std::vector<double> delivered;  // GPU-s per slot
  std::vector<double> owed;       // same length as delivered
};

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

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_SUBTREE_HISTORY_H_
