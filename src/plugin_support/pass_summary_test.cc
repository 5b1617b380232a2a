// Tests of PassSummary (pass_summary.h): a window of passes, table-driven,
// with the time passed in.
// <string> first: cmocka's fail() macro breaks the standard headers.
#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/testing/test_support.h"

#include "plugin_support/pass_summary.h"

namespace {

using plugin_support::PassSummary;

struct Pass {
  double ms;
  std::vector<uint64_t> counts;
  budget::TimePoint now;
  const char* expected;  // Record()'s answer
};

void RunPasses(PassSummary* summary, const std::vector<Pass>& passes) {
  for (size_t i = 0; i < passes.size(); ++i) {
    const Pass& p = passes[i];
    const std::string got = summary->Record(p.ms, p.counts, p.now);
    if (got != p.expected) fail_msg("pass %zu at %lld: got \"%s\", expected \"%s\"", i, (long long)p.now, got.c_str(), p.expected);
  }
}

// A 300 s window that starts at the first pass (t=1000): nothing until a
// pass at or after t=1300; then the line, and the next window starts at the
// next pass.
void TestOneLinePerWindowWithMeanMaxAndCounts(void**) {
  PassSummary summary("passes", {"job(s) tried", "preemption(s)"});
  RunPasses(&summary, {
      {2.0, {10, 0}, 1000, ""},
      {4.0, {5, 1}, 1150, ""},
      {1.0, {0, 0}, 1299, ""},  // 299 s in: not yet
      // 4 passes, 2+4+1+5 = 12 ms, mean 3 ms, max 5 ms; 10+5+0+7 tried,
      // 0+1+0+2 preemptions.
      {5.0, {7, 2}, 1300, "4 passes in 300 s: mean 3.000 ms, max 5.000 ms; 22 job(s) tried, 3 preemption(s)"},
      // The counts started again: the next window is t=1400..1700.
      {0.5, {1, 0}, 1400, ""},
      {1.5, {0, 0}, 1750, "2 passes in 350 s: mean 1.000 ms, max 1.500 ms; 1 job(s) tried, 0 preemption(s)"},
  });
}

// Calls without counts (select/topo's will-run tests have only a time), a
// shorter window, and a gap longer than it: the first pass after the gap
// closes the window it is in.
void TestNoCountsAndAGapLongerThanTheWindow(void**) {
  PassSummary summary("job_test calls", {}, 60);
  RunPasses(&summary, {
      {0.25, {}, 0, ""},
      // 2 calls, 0.25+0.75 = 1 ms: mean 0.5 ms, max 0.75 ms.
      {0.75, {}, 500, "2 job_test calls in 500 s: mean 0.500 ms, max 0.750 ms"},
      {2.0, {}, 501, ""},
  });
}

// A single pass is a window when the window is 0 s; counts missing from a
// call count 0, extra ones are ignored.
void TestZeroWindowAndShortOrLongCounts(void**) {
  PassSummary summary("passes", {"a", "b"}, 0);
  RunPasses(&summary, {
      {1.0, {3}, 10, "1 passes in 0 s: mean 1.000 ms, max 1.000 ms; 3 a, 0 b"},
      {2.0, {1, 2, 99}, 11, "1 passes in 0 s: mean 2.000 ms, max 2.000 ms; 1 a, 2 b"},
  });
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestOneLinePerWindowWithMeanMaxAndCounts),
      cmocka_unit_test(TestNoCountsAndAGapLongerThanTheWindow),
      cmocka_unit_test(TestZeroWindowAndShortOrLongCounts),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
