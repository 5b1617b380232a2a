// IsoTime: see iso_time.h.
#include "sched_timeslice/iso_time.h"

#include <ctime>

namespace timeslice {

std::string IsoTime(budget::TimePoint t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&tt, &tm);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
  return text;
}

}  // namespace timeslice
