// Tests of when the periodic passes run (pass_clock.h).
#include "libbudget/testing/test_support.h"

#include <cstdio>

#include "libbudget/policy/pass_clock.h"

namespace {

struct AlignedCase {
  double now;
  budget::Seconds interval;
  double offset;
  double expected;
};

const AlignedCase kAligned[] = {
    // 1000.1 s, every 30 s, 0.2 into the second: 1020 is the next multiple
    // of 30, so 1020.2.
    {1000.1, 30, 0.2, 1020.2},
    // 1020.1 < 1020.2: the pass of 1020 is still to come.
    {1020.1, 30, 0.2, 1020.2},
    // Exactly at it: the next one, 1050.2.
    {1020.2, 30, 0.2, 1050.2},
    // Every second: the next second's 0.4.
    {7.5, 1, 0.4, 8.4},
    {7.3, 1, 0.4, 7.4},
    // An interval below 1 s is 1 s.
    {7.3, 0, 0.4, 7.4},
};

void test_next_aligned_time(void**) {
  for (const AlignedCase& c : kAligned) {
    double got = budget::NextAlignedTime(c.now, c.interval, c.offset);
    if (got < c.expected - 1e-6 || got > c.expected + 1e-6)
      fail_msg("now %.3f every %lld s + %.1f: %.3f, want %.3f", c.now, (long long)c.interval, c.offset, got,
               c.expected);
  }
}

void test_settle_window(void**) {
  // The first 0.4 s of a second: a job that ends at that second may still
  // be ending.
  assert_true(budget::InSettleWindow(1000.0, 0.4));
  assert_true(budget::InSettleWindow(1000.39, 0.4));
  assert_false(budget::InSettleWindow(1000.41, 0.4));
  assert_false(budget::InSettleWindow(1000.99, 0.4));
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_next_aligned_time),
      cmocka_unit_test(test_settle_window),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
