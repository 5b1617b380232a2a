// Fuzz target: time strings (--min-runtime, MaxMinRuntime=, HeroWait=, ...),
// through ParseDuration, and the round trip time_string.h promises:
// ParseDuration(FormatDuration(s)) == s for 0 <= s <= kMaxDuration.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "libbudget/config/time_string.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  budget::Seconds s = -12345;
  budget::Status st = budget::ParseDuration(text, &s);
  if (!st.ok()) {
    FUZZ_CHECK(s == -12345, "a refused time string leaves *out untouched");
    return 0;
  }
  if (s < 0 || s > budget::kMaxDuration) return 0;
  budget::Seconds back = -1;
  FUZZ_CHECK(budget::ParseDuration(budget::FormatDuration(s), &back).ok() && back == s,
             "ParseDuration(FormatDuration(s)) == s");
  return 0;
}
