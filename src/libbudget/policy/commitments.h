// Commitments: GPU time an allocation is already bound to be charged beyond
// the window usage its Standing shows, so that the no-ping-pong projection of
// one preemption (preempt.h rule 6) counts the protected runs and preemptions
// already under way for the same team.
//
// Why: rule 6 projects ONE pending job's protected run. When a team has
// several jobs waiting, each judged against the same standings, every one of
// them passes, and the whole cluster swaps teams at each protection end
// (observed on a 2-node cluster: both nodes changed hands every 14 s).
// Raising the preemptor's window usage by its commitments makes the k-th
// preemption of a team project k protected runs.
//
//   committed(A) = sum over A's running allocated jobs still protected at now
//                    of gpus x (protection end - now)
//                + sum over A's waiting allocated jobs granted a preemption
//                    within the last kGrantTtl seconds (0 <= now -
//                    granted_at <= kGrantTtl) of gpus x min_runtime.
// A grant dated after now is refused: no pass before this one made it.
// The second term covers a preemptor between its grant and its start (the
// victim is still ending, or Slurm has not started the preemptor yet);
// once it runs, the first term counts it. A grant older than kGrantTtl is
// forgotten: a preemptor that still has not started by then is not on its
// way, and counting it forever would block its team.
//
// Only window_usage is raised: rank and usage_ratio stay the standings'
// judgement (a team's commitments are not yet delivered service); only the
// preemptor's projection reads window_usage.
//
// Invariants: committed values are >= 0; work with allocation kNoAllocation
// or outside [0, allocations), and unallocated work (min_runtime <= 0), is
// committed to nobody.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_COMMITMENTS_H_
#define SLURM_BUDGET_LIBBUDGET_COMMITMENTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/standing.h"

namespace budget {

// How long a granted preemption counts for a preemptor that has not started.
constexpr Seconds kGrantTtl = 60;

// A waiting job that was granted a preemption (it preempted some job) and
// has not started since.
struct GrantedPreemptor {
  uint32_t job_id = 0;  // for callers' logs only
  // Tree node it is charged to (index into the Standing vector), or
  // kNoAllocation.
  int32_t allocation = kNoAllocation;
  uint64_t gpus = 0;  // all nodes together
  Seconds min_runtime = 0;
  TimePoint granted_at = 0;  // its latest grant
};

// committed(A) for A = 0 .. allocations - 1 (see above). `running` are the
// running jobs as the contract rules see them (RunningJob::nodes gives
// their GPUs).
std::vector<double> CommittedUsage(const std::vector<RunningJob>& running,
                                   const std::vector<GrantedPreemptor>& granted, size_t allocations,
                                   TimePoint now);

// standings[A].window_usage += committed[A] for every A in both vectors.
void RaiseWindowUsage(const std::vector<double>& committed, std::vector<Standing>* standings);

// Both in one: the standings a preemption choice at `now` must judge with.
// REQUIRES: standings != nullptr.
void AddCommitments(const std::vector<RunningJob>& running, const std::vector<GrantedPreemptor>& granted,
                    TimePoint now, std::vector<Standing>* standings);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_COMMITMENTS_H_
