// Commitments: GPU time an allocation is already guaranteed to be charged,
// beyond what the standings snapshot shows, so that the no-ping-pong
// projection of one preemption counts the preemptions and protected runs
// already under way for the same team.
//
// Why: the core's pairwise rule (preempt.h rule 6) projects ONE pending job's
// protected run. When a team has several jobs waiting, each judged against
// the same snapshot, every one of them passes and the whole cluster swaps
// teams at each protection end (observed on a 2-node cluster: both nodes
// changed hands every 14 s). Adding the commitments to the preemptor's
// window usage makes the k-th preemption project k protected runs.
//
// committed(X) = sum over X's running jobs still protected of
//                  gpus x (protection end - now)
//              + sum over X's pending jobs that preempted some job within
//                  the last kGrantTtl seconds (a victim's Comment says
//                  "preempted by job P at T") of gpus x min_runtime.
// Both timeslice modules derive it from the job records, so a preemption by
// Slurm's scheduler (preempt/timeslice) and one by the time slicing thread
// (sched/timeslice) see each other.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

constexpr budget::Seconds kGrantTtl = 60;

// Reads "preempted by job <id> at <YYYY-MM-DDTHH:MM:SS>" (local time) from
// a job's Comment. False if the comment is not one.
bool ParsePreemptedBy(const std::string& comment, uint32_t* preemptor, budget::TimePoint* at);

// committed(X) for every allocation of `view` (indexed as view.standings).
std::vector<double> CommittedUsage(const std::vector<JobFacts>& jobs, const StandingsView& view,
                                   budget::TimePoint now);

// view.standings with each window_usage raised by its commitment.
std::vector<budget::Standing> WithCommitments(const StandingsView& view, const std::vector<double>& committed);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_
