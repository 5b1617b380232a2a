// PassSummary: what a plugin's periodic work did over a window (by default
// five minutes), for one info-level line per window: how many passes (or
// calls), their mean and longest duration, and the plugin's own counts of
// what they did (jobs tried, preemptions, priorities changed, ...).
//
// The plugin times each pass itself and passes the time in (`now`, whole
// seconds, as Slurm's time_t): nothing here reads a clock, so the tests are
// exact. The window starts at the first pass recorded after the last line;
// the line is returned by the first Record() at or after window_seconds
// from that start, and the counts start again from zero.
//
// Thread safety: none; a caller whose passes can run concurrently holds its
// own lock around Record().
#ifndef SLURM_BUDGET_PLUGIN_SUPPORT_PASS_SUMMARY_H_
#define SLURM_BUDGET_PLUGIN_SUPPORT_PASS_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/standing.h"

namespace plugin_support {

class PassSummary {
 public:
  static constexpr budget::Seconds kDefaultWindowSeconds = 300;

  // `noun`: what one pass is called in the line ("passes", "job_test
  // calls"). `count_names`: the labels of the counts Record() takes, in
  // order ("preemption(s)").
  PassSummary(std::string noun, std::vector<std::string> count_names,
              budget::Seconds window_seconds = kDefaultWindowSeconds);

  // Adds one pass of `ms` milliseconds that did `counts` (one value per
  // count name; missing values count as 0, extra ones are ignored).
  // Returns the summary line when the window is over, else "". The line:
  //   "<n> <noun> in <s> s: mean <x> ms, max <y> ms; <c1> <name1>, ..."
  // (without the part after ';' when there are no count names).
  std::string Record(double ms, const std::vector<uint64_t>& counts, budget::TimePoint now);

 private:
  std::string noun_;
  std::vector<std::string> count_names_;
  budget::Seconds window_seconds_;
  // Since the last line: invariant passes_ == 0 iff the window has not
  // started (then the other fields are zero).
  long passes_ = 0;
  double total_ms_ = 0, max_ms_ = 0;
  std::vector<uint64_t> counts_;  // one per count name
  budget::TimePoint window_start_ = 0;
};

}  // namespace plugin_support

#endif  // SLURM_BUDGET_PLUGIN_SUPPORT_PASS_SUMMARY_H_
