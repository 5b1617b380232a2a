// Workload: the jobs a simulation replays, as read from a trace or made by
// the scenario generator, before any policy has touched them.
//
// Invariants (established by every reader and the generator, checked by
// Workload::Validate):
//   - jobs are sorted by submit time, then by id; ids are 1..n in that order;
//   - gpus >= 1, duration >= 1, 0 <= min_runtime;
//   - account/user are indices into accounts/users (user may be kNoUser).
// A job's `duration` is the work it needs: a preempted resumable job later
// needs only its remaining work, a non-resumable one starts over.
//
// Thread safety: a plain value.
#ifndef SLURM_BUDGET_SIM_WORKLOAD_H_
#define SLURM_BUDGET_SIM_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {
namespace sim {

constexpr int32_t kNoUser = -1;

struct TraceJob {
  uint32_t id = 0;
  TimePoint submit = 0;
  int32_t account = 0;
  int32_t user = kNoUser;
  uint32_t gpus = 1;
  Seconds duration = 1;
  Seconds min_runtime = 0;
  bool resumable = false;
  uint32_t priority = 0;
};

class Workload {
 public:
  std::vector<TraceJob> jobs;
  std::vector<std::string> accounts;
  std::vector<std::string> users;

  // Index of `name`, added on first use.
  int32_t InternAccount(const std::string& name);
  int32_t InternUser(const std::string& name);
  // "" for kNoUser.
  const std::string& UserName(int32_t user) const;

  // Sorts jobs by (submit, input order) and renumbers ids 1..n.
  void SortAndNumber();
  // Checks the invariants above; the message names the first bad job.
  Status Validate() const;

 private:
  std::unordered_map<std::string, int32_t> account_index_;
  std::unordered_map<std::string, int32_t> user_index_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_WORKLOAD_H_
