// Commitments: see commitments.h.
#include "sched_timeslice/commitments.h"

#include <algorithm>
#include <unordered_map>

#include "libbudget/preemption_note.h"

namespace timeslice {

std::vector<budget::GrantedPreemptor> GrantedPreemptorsOf(const std::vector<JobFacts>& jobs,
                                                          const StandingsView& view) {
  std::unordered_map<uint32_t, budget::TimePoint> latest_grant;
  for (const JobFacts& job : jobs) {
    budget::PreemptionNote note;
    if (!budget::ParsePreemptionNote(job.comment, &note)) continue;
    auto [it, inserted] = latest_grant.emplace(note.preempted_by, note.at_time);
    if (!inserted) it->second = std::max(it->second, note.at_time);
  }
  std::vector<budget::GrantedPreemptor> granted;
  for (const JobFacts& job : jobs) {
    if (!job.pending) continue;
    auto grant = latest_grant.find(job.job_id);
    if (grant == latest_grant.end()) continue;
    budget::GrantedPreemptor g;
    g.job_id = job.job_id;
    g.allocation = view.AllocationOf(job.account, job.user);
    g.gpus = uint64_t{job.gpus_per_node} * job.node_count;
    g.min_runtime = job.contract.min_runtime;
    g.granted_at = grant->second;
    granted.push_back(g);
  }
  return granted;
}

std::vector<budget::Standing> StandingsWithCommitments(const std::vector<JobFacts>& jobs,
                                                       const StandingsView& view, budget::TimePoint now) {
  std::vector<budget::RunningJob> running;
  for (const JobFacts& job : jobs) {
    if (job.running) running.push_back(RunningJobOf(job, view));
  }
  std::vector<budget::Standing> standings = view.standings;
  budget::AddCommitments(running, GrantedPreemptorsOf(jobs, view), now, &standings);
  return standings;
}

}  // namespace timeslice
