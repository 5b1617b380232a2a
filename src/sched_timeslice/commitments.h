// Commitments, as the timeslice plugins read them from the job records: the
// translation of JobFacts into the core's commitments input
// (libbudget/commitments.h holds the rule and its why).
//
//   - running jobs: the contract records (RunningJobOf);
//   - granted preemptors: the waiting jobs that a preemption note on some
//     other job's Comment names as preemptor ("preempted by job P at T ...",
//     written by both timeslice modules and read with the core's
//     ParsePreemptionNote, libbudget/preemption_note.h), with the latest T.
//     Reading the grants from the job records is what lets a preemption by
//     Slurm's scheduler (preempt/timeslice) and one by the time slicing
//     thread (sched/timeslice) see each other.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_

#include <vector>

#include "libbudget/commitments.h"
#include "libbudget/standing.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

// The waiting jobs of `jobs` granted a preemption, as the core wants them.
std::vector<budget::GrantedPreemptor> GrantedPreemptorsOf(const std::vector<JobFacts>& jobs,
                                                          const StandingsView& view);

// view.standings with each allocation's window usage raised by its
// commitments at `now` (budget::AddCommitments).
std::vector<budget::Standing> StandingsWithCommitments(const std::vector<JobFacts>& jobs,
                                                       const StandingsView& view, budget::TimePoint now);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_COMMITMENTS_H_
