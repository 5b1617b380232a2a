// VictimKey: see victim_key.h.
#include "sched_timeslice/victim_key.h"

#include <algorithm>

namespace timeslice {

uint32_t VictimKey(const budget::RunningJob& job, const std::vector<budget::Standing>& standings,
                   budget::TimePoint now) {
  bool known = job.allocation >= 0 && static_cast<size_t>(job.allocation) < standings.size();
  uint32_t key = 0;
  if (job.allocated()) {
    key |= 1u << 31;
  } else if (known) {
    key |= 1u << 30;
  }
  uint32_t rank = known ? std::min<uint32_t>(standings[job.allocation].rank, 0x3fff) : 0x3fff;
  key |= (0x3fffu - rank) << 16;
  key |= std::min<uint32_t>(job.user_priority, 0xff) << 8;
  budget::Seconds age = std::max<budget::Seconds>(now - job.start, 0);
  key |= static_cast<uint32_t>(std::min<budget::Seconds>(age / 16, 0xff));
  return key;
}

}  // namespace timeslice
