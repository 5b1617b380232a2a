// Commitments: see commitments.h.
#include "sched_timeslice/commitments.h"

#include <cstdio>
#include <ctime>
#include <unordered_set>

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

std::vector<double> CommittedUsage(const std::vector<JobFacts>& jobs, const StandingsView& view,
                                   budget::TimePoint now) {
  std::vector<double> committed(view.standings.size(), 0.0);
  std::unordered_set<uint32_t> granted;
  for (const JobFacts& job : jobs) {
    uint32_t preemptor = 0;
    budget::TimePoint at = 0;
    if (ParsePreemptedBy(job.comment, &preemptor, &at) && now - at <= kGrantTtl) granted.insert(preemptor);
  }
  for (const JobFacts& job : jobs) {
    if (job.contract.min_runtime <= 0) continue;
    int32_t allocation = view.AllocationOf(job.account, job.user);
    if (allocation < 0 || static_cast<size_t>(allocation) >= committed.size()) continue;
    double gpus = double(job.gpus_per_node) * job.node_count;
    if (job.running) {
      budget::TimePoint end = job.start + job.contract.min_runtime;
      if (end > now) committed[allocation] += gpus * double(end - now);
    } else if (job.pending && granted.count(job.job_id)) {
      committed[allocation] += gpus * double(job.contract.min_runtime);
    }
  }
  return committed;
}

std::vector<budget::Standing> WithCommitments(const StandingsView& view, const std::vector<double>& committed) {
  std::vector<budget::Standing> standings = view.standings;
  for (size_t i = 0; i < standings.size() && i < committed.size(); ++i) standings[i].window_usage += committed[i];
  return standings;
}

}  // namespace timeslice
