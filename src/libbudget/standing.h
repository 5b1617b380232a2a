// Standing: how well served one allocation is, as the fair-share order sees
// it at one instant. The order module (order.h) produces one Standing per
// tree node; the preemption and placement modules consume Standings only, so
// that they do not depend on how the order was computed.
//
// Invariants:
//   - rank is the position of the node's leaf in the total leaf order
//     (0 = most under-served, served first). Unique among leaves.
//   - usage_ratio = window usage / (entitlement x capacity x window), i.e.
//     delivered over entitled GPU time across the lookback window; 1.0 means
//     exactly on budget, 0 means unused, +inf never appears (entitlement 0
//     gives usage_ratio = 0 when unused and a large finite value otherwise).
//   - entitlement is the product of normalised shares along the path, in
//     [0, 1].
#ifndef SLURM_BUDGET_LIBBUDGET_STANDING_H_
#define SLURM_BUDGET_LIBBUDGET_STANDING_H_

#include <cstdint>

namespace budget {

// Seconds since the Unix epoch. The core never reads the clock: every
// time-dependent call takes `now` from its caller.
using TimePoint = int64_t;
// A length of time in seconds.
using Seconds = int64_t;

struct Standing {
  uint32_t rank = 0;
  double usage_ratio = 0.0;
  double entitlement = 0.0;
  // Allocated GPU-seconds charged to the node's subtree within the window.
  double window_usage = 0.0;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_STANDING_H_
