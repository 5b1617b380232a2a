#include "libbudget/policy/contract.h"

namespace budget {

const char* PreemptActionName(PreemptAction action) {
  return action == PreemptAction::kRequeue ? "requeue" : "cancel";
}

uint64_t RunningJob::total_gpus() const {
  uint64_t sum = 0;
  for (const NodeGpus& n : nodes) sum += n.gpus;
  return sum;
}

}  // namespace budget
