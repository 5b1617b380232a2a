#include "libbudget/policy/contract.h"

#include <limits>

namespace budget {

const char* PreemptActionName(PreemptAction action) {
  return action == PreemptAction::kRequeue ? "requeue" : "cancel";
}

TimePoint ProtectionEnd(TimePoint start, Seconds min_runtime) {
  if (!IsAllocatedWork(min_runtime)) return start;
  // Saturate rather than overflow: a corrupt record must not wrap around
  // into the past (or into undefined behaviour).
  if (start > std::numeric_limits<TimePoint>::max() - min_runtime - 1) {
    return std::numeric_limits<TimePoint>::max();
  }
  return start + min_runtime + 1;
}

bool IsProtected(TimePoint start, Seconds min_runtime, TimePoint now) {
  return IsAllocatedWork(min_runtime) && now < ProtectionEnd(start, min_runtime);
}

uint64_t RunningJob::total_gpus() const {
  uint64_t sum = 0;
  for (const NodeGpus& n : nodes) sum += n.gpus;
  return sum;
}

}  // namespace budget
