// Tests of the time-slicing contract (contract.h).
#include "libbudget/testing/test_support.h"

#include <cstring>
#include <limits>

#include "libbudget/policy/contract.h"

using budget::IsProtected;
using budget::PreemptAction;
using budget::ProtectionEnd;
using budget::RunningJob;
using budget::Seconds;
using budget::TimePoint;

namespace {

struct ProtectionCase {
  TimePoint start;
  Seconds min_runtime;
  TimePoint now;
  TimePoint expected_end;
  bool expected_protected;
};

const ProtectionCase kProtection[] = {
    // 1000 + 900 + 1 = 1901; 1000 < 1901: protected from the first second.
    {1000, 900, 1000, 1901, true},
    // Slurm's start is whole seconds, rounded down: a run recorded at 1000
    // may have begun at 1000.9, so it has had its 900 s only after 1900.9.
    // 1900 < 1901: protected through the second of start + min_runtime.
    {1000, 900, 1900, 1901, true},
    // 1901 < 1901 is false: free from the next second.
    {1000, 900, 1901, 1901, false},
    // 5000 > 1901: long past.
    {1000, 900, 5000, 1901, false},
    // Unallocated (min_runtime 0): end = start, never protected, even at start.
    {1000, 0, 1000, 1000, false},
    // A negative min_runtime is unallocated work, not a protection.
    {1000, -50, 1000, 1000, false},
    // Before the start (clock skew): 500 < 1901, protected.
    {1000, 900, 500, 1901, true},
};

void test_protection_window(void**) {
  for (const ProtectionCase& c : kProtection) {
    TimePoint end = ProtectionEnd(c.start, c.min_runtime);
    if (end != c.expected_end) {
      fail_msg("start %lld min %lld: end %lld, want %lld", (long long)c.start,
               (long long)c.min_runtime, (long long)end, (long long)c.expected_end);
    }
    bool p = IsProtected(c.start, c.min_runtime, c.now);
    if (p != c.expected_protected) {
      fail_msg("start %lld min %lld now %lld: protected %d, want %d", (long long)c.start,
               (long long)c.min_runtime, (long long)c.now, p, c.expected_protected);
    }
  }
}

void test_protection_end_saturates(void**) {
  const TimePoint kMax = std::numeric_limits<TimePoint>::max();
  // kMax - 10 + 100 would overflow: saturates at kMax, still protected.
  assert_true(ProtectionEnd(kMax - 10, 100) == kMax);
  assert_true(IsProtected(kMax - 10, 100, kMax - 1));
}

void test_action_requeue_or_cancel(void**) {
  // Resumable: requeued.
  assert_int_equal(int(budget::ActionWhenPreempted(true)), int(PreemptAction::kRequeue));
  // Not resumable: cancelled.
  assert_int_equal(int(budget::ActionWhenPreempted(false)), int(PreemptAction::kCancel));
  assert_string_equal(budget::PreemptActionName(PreemptAction::kRequeue), "requeue");
  assert_string_equal(budget::PreemptActionName(PreemptAction::kCancel), "cancel");
}

void test_requeue_gets_fresh_window(void**) {
  RunningJob job;
  job.start = 0;
  job.min_runtime = 600;
  job.resumable = true;
  // 0 + 600 + 1 = 601 <= 700: preemptable at 700.
  assert_false(job.IsProtectedAt(700));
  assert_int_equal(int(job.action()), int(PreemptAction::kRequeue));
  // Requeued, it starts again at 1000: protected through 1000 + 600.
  job.start = 1000;
  assert_true(job.protection_end() == 1601);
  assert_true(job.IsProtectedAt(1600));
  assert_false(job.IsProtectedAt(1601));
}

void test_allocated_and_gpus(void**) {
  RunningJob job;
  job.min_runtime = 1;
  job.nodes.push_back({3, 8});
  job.nodes.push_back({4, 8});
  job.nodes.push_back({5, 2});
  // 8 + 8 + 2 = 18 GPUs over three nodes.
  assert_true(job.total_gpus() == 18);
  // min_runtime 1 > 0: allocated work.
  assert_true(job.allocated());
  job.min_runtime = 0;
  assert_false(job.allocated());
  budget::JobShape shape;
  shape.node_count = 4;
  shape.gpus_per_node = 8;
  // 4 x 8 = 32.
  assert_true(shape.total_gpus() == 32);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_protection_window),
      cmocka_unit_test(test_protection_end_saturates),
      cmocka_unit_test(test_action_requeue_or_cancel),
      cmocka_unit_test(test_requeue_gets_fresh_window),
      cmocka_unit_test(test_allocated_and_gpus),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
