// Commitments: see commitments.h.
#include "libbudget/policy/commitments.h"

namespace budget {
namespace {

bool InRange(int32_t allocation, size_t allocations) {
  return allocation >= 0 && static_cast<size_t>(allocation) < allocations;
}

}  // namespace

std::vector<double> CommittedUsage(const std::vector<RunningJob>& running,
                                   const std::vector<GrantedPreemptor>& granted, size_t allocations,
                                   TimePoint now) {
  std::vector<double> committed(allocations, 0.0);
  for (const RunningJob& job : running) {
    if (!job.allocated() || !job.IsProtectedAt(now) || !InRange(job.allocation, allocations)) continue;
    committed[job.allocation] += double(job.total_gpus()) * double(job.protection_end() - now);
  }
  for (const GrantedPreemptor& job : granted) {
    if (!IsAllocatedWork(job.min_runtime) || !InRange(job.allocation, allocations)) continue;
    // A grant dated after `now` was not made by a pass before this one: it
    // would otherwise count for ever.
    if (job.granted_at > now || now - job.granted_at > kGrantTtl) continue;
    committed[job.allocation] += double(job.gpus) * double(job.min_runtime);
  }
  return committed;
}

void RaiseWindowUsage(const std::vector<double>& committed, std::vector<Standing>* standings) {
  for (size_t i = 0; i < standings->size() && i < committed.size(); ++i) {
    (*standings)[i].window_usage += committed[i];
  }
}

void AddCommitments(const std::vector<RunningJob>& running, const std::vector<GrantedPreemptor>& granted,
                    TimePoint now, std::vector<Standing>* standings) {
  RaiseWindowUsage(CommittedUsage(running, granted, standings->size(), now), standings);
}

}  // namespace budget
