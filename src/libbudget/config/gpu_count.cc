// GPU counts from Slurm's strings: see gpu_count.h.
#include "libbudget/config/gpu_count.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace budget {

double GpuCountFromTres(std::string_view tres) {
  constexpr std::string_view kKey = "gres/gpu=";
  size_t pos = 0;
  while (pos < tres.size()) {
    size_t end = tres.find(',', pos);
    if (end == std::string_view::npos) end = tres.size();
    std::string_view entry = tres.substr(pos, end - pos);
    if (entry.substr(0, kKey.size()) == kKey) {
      std::string digits(entry.substr(kKey.size()));
      char* rest = nullptr;
      double value = std::strtod(digits.c_str(), &rest);
      // strtod also reads "inf", "nan" and 1e400 (as inf): no GPU count.
      if (rest != digits.c_str() && std::isfinite(value) && value > 0) return value;
      return 0;
    }
    pos = end + 1;
  }
  return 0;
}

double GpuCountFromGresSpec(std::string_view spec) {
  double total = 0;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view entry = spec.substr(pos, end - pos);
    pos = end + 1;
    // A node's Gres may carry its socket binding: "gpu:8(S:0-1)".
    size_t paren = entry.find('(');
    if (paren != std::string_view::npos) entry = entry.substr(0, paren);
    if (entry.substr(0, 5) == "gres:" || entry.substr(0, 5) == "gres/") entry.remove_prefix(5);
    size_t name_end = entry.find_first_of(":=");
    if (entry.substr(0, name_end) != "gpu") continue;
    if (name_end == std::string_view::npos) {
      total += 1;  // "gpu" alone: one
      continue;
    }
    // The count is the last field ("gpu:a100:2", "gpu=2"); a type alone
    // ("gpu:a100") means one.
    size_t last = entry.find_last_of(":=");
    std::string digits(entry.substr(last + 1));
    char* rest = nullptr;
    double value = std::strtod(digits.c_str(), &rest);
    // "inf" or "nan" after the last ':' is a type name to Slurm, not a
    // count; 1e400 is no count either.
    if (rest != digits.c_str() && *rest == '\0' && std::isfinite(value)) {
      if (value > 0) total += value;
    } else {
      total += 1;
    }
  }
  return total;
}

double JobGpuCount(const JobGpuStrings& job) {
  double gpus = GpuCountFromTres(job.tres);
  if (gpus > 0) return gpus;
  gpus = GpuCountFromGresSpec(job.per_job);
  if (gpus > 0) return gpus;
  gpus = GpuCountFromGresSpec(job.per_node) * std::max(job.nodes, 1.0);
  if (gpus > 0) return gpus;
  return GpuCountFromGresSpec(job.per_task) * std::max(job.tasks, 1.0);
}

}  // namespace budget
