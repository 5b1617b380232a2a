// StartEstimate: when time slicing can start a pending allocated job, read
// from a report snapshot's running jobs (`sbudget explain`).
//
// Slurm's own estimate (squeue --start) is backfill's: it plans by time
// limits and knows nothing of time slicing, so a job that the time-slicing
// pass will start at the next protection end of lower-ranked work is shown
// as starting when that work's time limit ends. This estimate counts what
// the pass may take for the job (timeslice_plan.h):
//   - GPUs free now (capacity minus the running jobs' GPUs);
//   - a running unallocated job's GPUs, now;
//   - a running allocated job's GPUs from the second after its protection
//     end (the snapshot's last protected second; now if past), when its
//     tree node ranks behind the job's;
// each GPU a preemption frees coming free `notice` later (PreemptNotice:
// the victim keeps it that long after it is told);
// in time order, after the GPUs of the allocated jobs waiting ahead of it
// (they are served first). The estimate is the first time those GPUs
// cover the job's plus those ahead; the pass then starts it at its next
// run (TimesliceInterval).
// What it does not know, said by the caller: work of nodes ranked ahead
// (or its own) that ends early, new work of teams ahead, GPUs counted in
// total rather than per node, the no-ping-pong projection, holds for a hero
// or the quick-start reserve, and node eligibility. So it is a plan under
// today's order, not a promise; unknown when the GPUs never add up (the
// job waits for work ranked ahead of it to end).
//
// Thread safety: a plain function over values.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_START_ESTIMATE_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_START_ESTIMATE_H_

#include <cstdint>
#include <vector>

#include "libbudget/report/report_snapshot.h"

namespace budget {

struct StartEstimate {
  bool known = false;
  TimePoint at = 0;               // known: when the GPUs add up (>= now)
  uint64_t gpus_needed = 0;       // the job's GPUs plus those of the jobs ahead
  uint64_t gpus_free_now = 0;     // free, or held by unallocated work
  uint64_t gpus_releasable = 0;   // all the rules above could ever give it
};

// `job`: the pending job (its rank and GPUs); `ahead`: the allocated jobs
// waiting ahead of it in Slurm's order; `running`: the snapshot's running
// jobs; `capacity_gpus` and `notice`: the snapshot's (capacity_gpus,
// preempt_notice). A job of no rank (unallocated, or an account outside
// the tree) gets no estimate.
StartEstimate EstimateStart(const SnapshotJob& job, const std::vector<SnapshotJob>& ahead,
                            const std::vector<SnapshotJob>& running, double capacity_gpus, TimePoint now,
                            Seconds notice = 0);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_START_ESTIMATE_H_
