#include "libbudget/policy/requeue_request.h"

namespace budget {

Status ResumableOf(const RequeueRequest& request, bool* resumable) {
  if (request.resumable_option && request.slurm_requeue == false) {
    return Status::InvalidArgument(
        "--resumable and --no-requeue contradict each other (--resumable is the same as --requeue): give one");
  }
  *resumable = request.resumable_option || request.slurm_requeue == true;
  return Status::Ok();
}

std::optional<bool> RequeueFlagFor(bool resumable, std::optional<bool> slurm_requeue) {
  if (resumable) return true;
  return slurm_requeue;
}

}  // namespace budget
