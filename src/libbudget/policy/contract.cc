#include "libbudget/policy/contract.h"

namespace budget {

const char* PreemptActionName(PreemptAction action) {
  return action == PreemptAction::kRequeue ? "requeue" : "cancel";
}

}  // namespace budget
