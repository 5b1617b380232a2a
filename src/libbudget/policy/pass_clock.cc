// PassClock: see pass_clock.h.
#include "libbudget/policy/pass_clock.h"

#include <algorithm>
#include <cmath>

namespace budget {

double NextAlignedTime(double now, Seconds interval, double offset) {
  const double period = double(std::max<Seconds>(interval, 1));
  double next = std::floor((now - offset) / period) * period + offset;
  while (next <= now) next += period;
  return next;
}

bool InSettleWindow(double now, double settle) { return now - std::floor(now) < settle; }

}  // namespace budget
