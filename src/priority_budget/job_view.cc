// JobView helpers that need no Slurm: see job_view.h.
#include "priority_budget/job_view.h"

#include <cstdlib>

namespace budget_prio {

uint32_t UserPriorityFromNice(int64_t nice) {
  int64_t priority = static_cast<int64_t>(kNeutralUserPriority) - nice;
  if (priority < 0) return 0;
  if (priority > kMaxUserPriority) return kMaxUserPriority;
  return static_cast<uint32_t>(priority);
}

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
      if (rest != digits.c_str() && value > 0) return value;
      return 0;
    }
    pos = end + 1;
  }
  return 0;
}

}  // namespace budget_prio
