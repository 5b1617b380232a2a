// Workload: the jobs a simulation replays, as read from a trace or made by
// the scenario generator, before any policy has touched them.
//
// Invariants (established by every reader and the generator, checked by
// Workload::Validate):
//   - jobs are sorted by submit time, then by id; ids are 1..n in that order;
//   - gpus >= 1, duration >= 1, 0 <= min_runtime;
//   - 60 <= time_limit <= kMaxTimeLimit and time_limit % 60 == 0: Slurm's
//     --time is whole minutes, so a limit that is not cannot come from Slurm;
//   - account/user are indices into accounts/users (user may be kNoUser).
// A job's `duration` is the work it needs: a preempted resumable job later
// needs only its remaining work, a non-resumable one starts over.
// Its `time_limit` is what Slurm knows of it in advance: backfill plans by
// it, and a run is killed when it reaches it. Nothing ties it to duration:
// a job may need more than its limit (then it cannot finish in one run),
// or much less (the usual case: users ask for more time than they use).
// Nor is it checked against min_runtime: the plugins refuse a min-runtime
// longer than the time limit at submission (src/libbudget/policy/job_contract.h),
// but a workload may hold such a job; admitting it is the policy's call.
//
// Thread safety: a plain value.
#ifndef SLURM_BUDGET_SIM_WORKLOAD_H_
#define SLURM_BUDGET_SIM_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/config/time_string.h"
#include "libbudget/status.h"

namespace budget {
namespace sim {

constexpr int32_t kNoUser = -1;

// The longest time limit a workload holds: 365 days (525,600 minutes), far
// beyond any real job. Longer derived or requested limits are clamped to
// it, so that an absurd value in a trace cannot overflow time arithmetic.
constexpr Seconds kMaxTimeLimit = 365 * 86400;
// The times a workload holds, what every trace reader accepts and the
// native writer can write back (trace_reader.h): submit times from
// 1970-01-01 00:00:00 to 9999-12-31 23:59:59 UTC (the years a philly
// timestamp can name), durations and min-runtimes up to 10 years
// (kMaxDuration, the longest Slurm time string the suite reads). Beyond
// them a value is an error in the trace, not a job to replay.
constexpr TimePoint kMaxSubmitTime = 253402300799;
constexpr Seconds kMaxJobDuration = kMaxDuration;
// The factor of DeriveTimeLimit when none is given (--time-limit-factor).
constexpr double kDefaultTimeLimitFactor = 2.0;

// The time limit of a job whose source gives none (a philly job, a native
// row without one, a generated job, an SWF job without a requested time):
//   ceil(duration x factor / 60) x 60 seconds, at least 60, at most
//   kMaxTimeLimit (a longer one is clamped, not an error).
// The same rule for every source, so that one --time-limit-factor means the
// same thing whatever the workload came from. With factor 1 it is the
// duration rounded up to whole minutes, which is also how a requested time
// in seconds (SWF) becomes a limit.
// `factor` is used to a millionth, in integers, so that 1800 s x 1.1 is
// 1980 s (33 minutes) exactly: in doubles it is 1980.0000000000002, which
// would round up to 2040. Precondition: factor is finite and >= 1 (the
// option and spec parsers check it); a smaller or non-finite one is taken
// as 1, a duration < 1 as 1.
Seconds DeriveTimeLimit(Seconds duration, double factor);

struct TraceJob {
  uint32_t id = 0;
  TimePoint submit = 0;
  int32_t account = 0;
  int32_t user = kNoUser;
  uint32_t gpus = 1;
  Seconds duration = 1;
  Seconds min_runtime = 0;
  // 0 until the reader or generator sets it: a job nobody gave a limit fails
  // Validate instead of running under a made-up one.
  Seconds time_limit = 0;
  bool resumable = false;
  uint32_t priority = 0;
  // The GPU type it asks for (Workload::gpu_types), or kAnyGpuType.
  int32_t gpu_type = -1;
};

constexpr int32_t kAnyGpuType = -1;

class Workload {
 public:
  std::vector<TraceJob> jobs;
  std::vector<std::string> accounts;
  std::vector<std::string> users;
  std::vector<std::string> gpu_types;  // the types jobs ask for

  // Index of `name`, added on first use.
  int32_t InternAccount(const std::string& name);
  int32_t InternUser(const std::string& name);
  // "" is kAnyGpuType.
  int32_t InternGpuType(const std::string& name);
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
