// Commitments: see commitments.h.
#include "sched_timeslice/commitments.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <unordered_map>

namespace timeslice {

bool ParsePreemptedBy(const std::string& comment, uint32_t* preemptor, budget::TimePoint* at) {
  static const char kPrefix[] = "preempted by job ";
  if (comment.compare(0, sizeof(kPrefix) - 1, kPrefix) != 0) return false;
  unsigned long id = 0;
  char when[32] = {0};
  if (std::sscanf(comment.c_str() + sizeof(kPrefix) - 1, "%lu at %31s", &id, when) != 2) return false;
  struct tm tm = {};
  const char* end = strptime(when, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end || id == 0 || id > 0xffffffffUL) return false;
  tm.tm_isdst = -1;
  *preemptor = static_cast<uint32_t>(id);
  *at = static_cast<budget::TimePoint>(mktime(&tm));
  return true;
}

std::vector<budget::GrantedPreemptor> GrantedPreemptorsOf(const std::vector<JobFacts>& jobs,
                                                          const StandingsView& view) {
  std::unordered_map<uint32_t, budget::TimePoint> latest_grant;
  for (const JobFacts& job : jobs) {
    uint32_t preemptor = 0;
    budget::TimePoint at = 0;
    if (!ParsePreemptedBy(job.comment, &preemptor, &at)) continue;
    auto [it, inserted] = latest_grant.emplace(preemptor, at);
    if (!inserted) it->second = std::max(it->second, at);
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
