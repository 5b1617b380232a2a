// Rejections: the jobs a run refused at submission, counted per reason, so
// that a run that simulated nothing says why (budget-sim's table, --json
// and exit status; doc/budget-sim.1, EXIT STATUS).
//
// A reason names a rule and what broke it, never a job's own values, so
// that jobs refused alike count together: "account 'x' in no tree node
// (UnknownAccount=reject)", "asks for more GPUs than the cluster has
// (16)", "min-runtime over MaxMinRuntime=08:00:00 (contract)".
//
// Thread safety: plain values; a RejectionCounter is used by one run.
#ifndef SLURM_BUDGET_SIM_REJECTIONS_H_
#define SLURM_BUDGET_SIM_REJECTIONS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "libbudget/status.h"

namespace budget {
namespace sim {

struct RejectionReason {
  std::string reason;
  uint64_t jobs = 0;
  // The trace ids of the first jobs refused for it, at most kKeptIds.
  std::vector<uint32_t> first_job_ids;
  static constexpr size_t kKeptIds = 5;
};

class RejectionCounter {
 public:
  void Add(const std::string& reason, uint32_t job_id);
  uint64_t total() const { return total_; }
  // In the order the reasons first came up.
  const std::vector<RejectionReason>& reasons() const { return reasons_; }

 private:
  uint64_t total_ = 0;
  std::vector<RejectionReason> reasons_;
  std::unordered_map<std::string, size_t> index_;
};

struct PolicyResult;

// InvalidArgument when some policy refused every job of the workload (then
// it simulated nothing, and its figures are zeros that look like a result):
// "every job (6) was rejected under budget, fifo: 4 account 'x' in no tree
// node (UnknownAccount=reject), 2 asks for more GPUs ..." (one clause per
// set of such policies that refused alike). Ok when every policy admitted a
// job, or there were no jobs.
Status CheckSomeJobAdmitted(const std::vector<PolicyResult>& results);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_REJECTIONS_H_
