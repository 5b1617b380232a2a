// PassSummary: see pass_summary.h.
#include "plugin_support/pass_summary.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace plugin_support {

PassSummary::PassSummary(std::string noun, std::vector<std::string> count_names, budget::Seconds window_seconds)
    : noun_(std::move(noun)),
      count_names_(std::move(count_names)),
      window_seconds_(window_seconds),
      counts_(count_names_.size(), 0) {}

std::string PassSummary::Record(double ms, const std::vector<uint64_t>& counts, budget::TimePoint now) {
  if (passes_ == 0) window_start_ = now;
  ++passes_;
  total_ms_ += ms;
  max_ms_ = std::max(max_ms_, ms);
  for (size_t i = 0; i < counts_.size() && i < counts.size(); ++i) counts_[i] += counts[i];
  const budget::Seconds elapsed = now - window_start_;
  if (elapsed < window_seconds_) return "";

  char head[160];
  std::snprintf(head, sizeof(head), "%ld %s in %lld s: mean %.3f ms, max %.3f ms", passes_, noun_.c_str(),
                static_cast<long long>(elapsed), total_ms_ / double(passes_), max_ms_);
  std::string line = head;
  for (size_t i = 0; i < counts_.size(); ++i) {
    line += i == 0 ? "; " : ", ";
    line += std::to_string(counts_[i]) + " " + count_names_[i];
  }
  passes_ = 0;
  total_ms_ = 0;
  max_ms_ = 0;
  std::fill(counts_.begin(), counts_.end(), 0);
  window_start_ = 0;
  return line;
}

}  // namespace plugin_support
