#include "sim/rejections.h"

#include <algorithm>

#include "sim/run_metrics.h"

namespace budget {
namespace sim {

void RejectionCounter::Add(const std::string& reason, uint32_t job_id) {
  ++total_;
  auto [it, added] = index_.emplace(reason, reasons_.size());
  if (added) reasons_.push_back(RejectionReason{reason, 0, {}});
  RejectionReason& r = reasons_[it->second];
  ++r.jobs;
  if (r.first_job_ids.size() < RejectionReason::kKeptIds) r.first_job_ids.push_back(job_id);
}

Status CheckSomeJobAdmitted(const std::vector<PolicyResult>& results) {
  // Policies that refused alike share one clause.
  struct Clause {
    uint64_t jobs;
    std::string policies, reasons;
  };
  std::vector<Clause> clauses;
  for (const PolicyResult& r : results) {
    if (r.jobs == 0 || r.rejected < r.jobs) continue;
    std::string reasons;
    for (const RejectionReason& reason : r.rejections)
      reasons += (reasons.empty() ? "" : ", ") + std::to_string(reason.jobs) + " " + reason.reason;
    auto same = std::find_if(clauses.begin(), clauses.end(),
                             [&](const Clause& c) { return c.jobs == r.jobs && c.reasons == reasons; });
    if (same == clauses.end()) {
      clauses.push_back(Clause{r.jobs, r.policy, reasons});
    } else {
      same->policies += ", " + r.policy;
    }
  }
  if (clauses.empty()) return Status::Ok();
  std::string message;
  for (const Clause& c : clauses)
    message += (message.empty() ? "" : "; ") + std::string("every job (") + std::to_string(c.jobs) +
               ") was rejected under " + c.policies + ": " + c.reasons;
  return Status::InvalidArgument(message);
}

}  // namespace sim
}  // namespace budget
