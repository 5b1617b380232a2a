// JobView helpers that need no Slurm: see job_view.h.
#include "priority_budget/job_view.h"

namespace budget_prio {

uint32_t UserPriorityFromNice(int64_t nice) {
  int64_t priority = static_cast<int64_t>(kNeutralUserPriority) - nice;
  if (priority < 0) return 0;
  if (priority > kMaxUserPriority) return kMaxUserPriority;
  return static_cast<uint32_t>(priority);
}

const std::string& JobView::gpu_type() const {
  static const std::string kUntyped;
  return placement ? placement->gpu_type : kUntyped;
}

const std::vector<int32_t>& JobView::nodes() const {
  static const std::vector<int32_t> kNone;
  return placement ? placement->nodes : kNone;
}

std::shared_ptr<const JobPlacement> PlacementOf(std::string gpu_type, std::vector<int32_t> nodes) {
  if (gpu_type.empty() && nodes.empty()) return nullptr;
  return std::make_shared<const JobPlacement>(JobPlacement{std::move(gpu_type), std::move(nodes)});
}

}  // namespace budget_prio
