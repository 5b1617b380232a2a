// SchedulerParams: see scheduler_params.h.
#include "libbudget/policy/scheduler_params.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace budget {

namespace {

// A modelled key: where it goes and Slurm's own accepted range.
struct Key {
  const char* name;
  int64_t min, max;
  int64_t scale;  // seconds per unit (bf_window is in minutes)
  Seconds SchedulerParams::*seconds;
  uint32_t SchedulerParams::*count;
};

// Ranges from Slurm 22.05 (job_scheduler.c, backfill.c). bf_interval=-1
// (backfill disabled) is not modelled: the model always runs backfill.
constexpr Key kKeys[] = {
    {"sched_interval", 1, 1 << 30, 1, &SchedulerParams::sched_interval, nullptr},
    {"default_queue_depth", 0, 1 << 30, 1, nullptr, &SchedulerParams::default_queue_depth},
    {"sched_max_job_start", 0, 1 << 30, 1, nullptr, &SchedulerParams::sched_max_job_start},
    {"bf_interval", 1, 10800, 1, &SchedulerParams::bf_interval, nullptr},
    {"bf_window", 1, 30 * 24 * 60, 60, &SchedulerParams::bf_window, nullptr},
    {"bf_resolution", 1, 3600, 1, &SchedulerParams::bf_resolution, nullptr},
    {"bf_max_job_test", 1, 1000000, 1, nullptr, &SchedulerParams::bf_max_job_test},
    {"bf_max_job_start", 0, 10000, 1, nullptr, &SchedulerParams::bf_max_job_start},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Status ParseNumber(const Key& key, std::string_view value, int64_t* out) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  long long v = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || v < key.min || v > key.max) {
    return Status::InvalidArgument("SchedulerParameters: " + std::string(key.name) + "=" + text +
                                   ": expected a whole number in [" + std::to_string(key.min) + ", " +
                                   std::to_string(key.max) + "]");
  }
  *out = v;
  return Status::Ok();
}

}  // namespace

Status ParseSchedulerParameters(const std::string& text, SchedulerParams* out) {
  SchedulerParams params;
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view value = eq == std::string_view::npos ? std::string_view() : Trim(item.substr(eq + 1));
    if (name == "bf_continue") {
      if (eq != std::string_view::npos)
        return Status::InvalidArgument("SchedulerParameters: bf_continue takes no value");
      params.bf_continue = true;
      continue;
    }
    const Key* key = nullptr;
    for (const Key& k : kKeys) {
      if (name == k.name) key = &k;
    }
    if (!key) {
      params.not_modelled.emplace_back(name);
      continue;
    }
    if (eq == std::string_view::npos)
      return Status::InvalidArgument("SchedulerParameters: " + std::string(name) + " needs a value (" +
                                     std::string(name) + "=N)");
    int64_t v = 0;
    Status st = ParseNumber(*key, value, &v);
    if (!st.ok()) return st;
    if (key->seconds) params.*(key->seconds) = v * key->scale;
    if (key->count) params.*(key->count) = static_cast<uint32_t>(v);
  }
  *out = std::move(params);
  return Status::Ok();
}

std::string FormatSchedulerParameters(const SchedulerParams& p) {
  std::string s;
  for (const Key& k : kKeys) {
    int64_t v = k.seconds ? p.*(k.seconds) / k.scale : int64_t{p.*(k.count)};
    s += (s.empty() ? "" : ",") + std::string(k.name) + "=" + std::to_string(v);
  }
  if (p.bf_continue) s += ",bf_continue";
  return s;
}

}  // namespace budget
