// StartEstimate: see start_estimate.h.
#include "libbudget/report/start_estimate.h"

#include <algorithm>
#include <utility>

namespace budget {

StartEstimate EstimateStart(const SnapshotJob& job, const std::vector<SnapshotJob>& ahead,
                            const std::vector<SnapshotJob>& running, double capacity_gpus, TimePoint now,
                            Seconds notice) {
  StartEstimate e;
  if (!job.allocated || job.rank == FairShareOrder::kNoRank) return e;
  e.gpus_needed = job.gpus;
  for (const SnapshotJob& a : ahead)
    if (a.allocated) e.gpus_needed += a.gpus;
  uint64_t busy = 0;
  std::vector<std::pair<TimePoint, uint64_t>> releases;  // (when, GPUs)
  for (const SnapshotJob& r : running) {
    busy += r.gpus;
    if (!r.allocated) {
      releases.emplace_back(now, r.gpus);
    } else if (r.rank != FairShareOrder::kNoRank && r.rank > job.rank) {
      // The snapshot's protection_end is the last protected second
      // (report_snapshot.h); the pass may take the GPUs from the next.
      const TimePoint free_from = r.protection_end == SnapshotJob::kNoTime ? now : r.protection_end + 1;
      releases.emplace_back(std::max(now, free_from), r.gpus);
    }
  }
  const uint64_t capacity = capacity_gpus > 0 ? uint64_t(capacity_gpus) : 0;
  uint64_t have = capacity > busy ? capacity - busy : 0;
  std::sort(releases.begin(), releases.end());
  for (const auto& [when, gpus] : releases)
    if (when == now) e.gpus_free_now += gpus;
  e.gpus_free_now += have;
  e.gpus_releasable = have;
  for (const auto& r : releases) e.gpus_releasable += r.second;
  if (have >= e.gpus_needed) {
    e.known = true;
    e.at = now;
    return e;
  }
  // A preemption takes them when it may; its victims keep them for their
  // notice.
  for (const auto& [when, gpus] : releases) {
    have += gpus;
    if (have >= e.gpus_needed) {
      e.known = true;
      e.at = when + std::max<Seconds>(0, notice);
      return e;
    }
  }
  return e;
}

}  // namespace budget
