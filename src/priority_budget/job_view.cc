// JobView helpers that need no Slurm: see job_view.h.
#include "priority_budget/job_view.h"

namespace budget_prio {

uint32_t UserPriorityFromNice(int64_t nice) {
  int64_t priority = static_cast<int64_t>(kNeutralUserPriority) - nice;
  if (priority < 0) return 0;
  if (priority > kMaxUserPriority) return kMaxUserPriority;
  return static_cast<uint32_t>(priority);
}

}  // namespace budget_prio
