#include "sim/workload.h"

#include <algorithm>
#include <cmath>

namespace budget {
namespace sim {

namespace {

int32_t Intern(const std::string& name, std::unordered_map<std::string, int32_t>* index,
               std::vector<std::string>* names) {
  auto it = index->find(name);
  if (it != index->end()) return it->second;
  int32_t id = static_cast<int32_t>(names->size());
  names->push_back(name);
  index->emplace(name, id);
  return id;
}

}  // namespace

Seconds DeriveTimeLimit(Seconds duration, double factor) {
  constexpr int64_t kMicro = 1000000;
  if (!(factor >= 1) || !std::isfinite(factor)) factor = 1;  // NaN fails >=
  if (duration < 1) duration = 1;
  // factor >= 1, so a duration at or past the maximum gives the maximum;
  // testing the product in doubles first keeps the integer product below
  // from overflowing (just under the boundary, where the double may be off,
  // both ways round up to the maximum, the integer one through the clamp).
  if (duration >= kMaxTimeLimit || double(duration) * factor >= double(kMaxTimeLimit))
    return kMaxTimeLimit;
  // Here duration x factor < 3.2e7 s, so duration x factor_micro < 3.2e13
  // (plus the rounding of the factor, < duration): far within int64.
  int64_t factor_micro = std::llround(factor * double(kMicro));
  int64_t scaled = duration * factor_micro;   // seconds x 1e6
  int64_t per_minute = 60 * kMicro;
  int64_t minutes = (scaled + per_minute - 1) / per_minute;
  return std::min(kMaxTimeLimit, std::max<Seconds>(60, minutes * 60));
}

int32_t Workload::InternAccount(const std::string& name) {
  if (account_index_.size() != accounts.size()) {
    account_index_.clear();
    for (size_t i = 0; i < accounts.size(); ++i) account_index_[accounts[i]] = int32_t(i);
  }
  return Intern(name, &account_index_, &accounts);
}

int32_t Workload::InternUser(const std::string& name) {
  if (name.empty()) return kNoUser;
  if (user_index_.size() != users.size()) {
    user_index_.clear();
    for (size_t i = 0; i < users.size(); ++i) user_index_[users[i]] = int32_t(i);
  }
  return Intern(name, &user_index_, &users);
}

int32_t Workload::InternGpuType(const std::string& name) {
  if (name.empty()) return kAnyGpuType;
  for (size_t i = 0; i < gpu_types.size(); ++i)
    if (gpu_types[i] == name) return int32_t(i);
  gpu_types.push_back(name);
  return int32_t(gpu_types.size() - 1);
}

const std::string& Workload::UserName(int32_t user) const {
  static const std::string kEmpty;
  return user == kNoUser ? kEmpty : users[user];
}

void Workload::SortAndNumber() {
  // Stable: rows submitted at the same second keep their input order.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<uint32_t>(i + 1);
}

Status Workload::Validate() const {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const TraceJob& j = jobs[i];
    std::string where = "job " + std::to_string(j.id) + ": ";
    if (j.id != i + 1) return Status::InvalidArgument(where + "ids must be 1..n in submit order");
    if (i > 0 && jobs[i - 1].submit > j.submit)
      return Status::InvalidArgument(where + "jobs must be sorted by submit time");
    if (j.gpus < 1) return Status::InvalidArgument(where + "gpus must be >= 1");
    if (j.submit < 0 || j.submit > kMaxSubmitTime)
      return Status::InvalidArgument(where + "submit must lie in [0, " + std::to_string(kMaxSubmitTime) + "]");
    if (j.duration < 1 || j.duration > kMaxJobDuration)
      return Status::InvalidArgument(where + "duration must lie in [1, " + std::to_string(kMaxJobDuration) + "] s");
    if (j.min_runtime < 0 || j.min_runtime > kMaxJobDuration)
      return Status::InvalidArgument(where + "min_runtime must lie in [0, " + std::to_string(kMaxJobDuration) + "] s");
    if (j.time_limit < 60 || j.time_limit % 60 != 0 || j.time_limit > kMaxTimeLimit)
      return Status::InvalidArgument(where + "time_limit must be a whole number of minutes, "
                                     "60 s to 365 days, got " +
                                     std::to_string(j.time_limit) + " s");
    if (j.account < 0 || size_t(j.account) >= accounts.size())
      return Status::InvalidArgument(where + "unknown account index");
    if (j.user != kNoUser && (j.user < 0 || size_t(j.user) >= users.size()))
      return Status::InvalidArgument(where + "unknown user index");
  }
  return Status::Ok();
}

}  // namespace sim
}  // namespace budget
