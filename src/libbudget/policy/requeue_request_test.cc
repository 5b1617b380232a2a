// Tests of what --resumable, --requeue and --no-requeue make of a job
// (requeue_request.h).
#include "libbudget/testing/test_support.h"

#include <optional>

#include "libbudget/policy/requeue_request.h"

using budget::RequeueFlagFor;
using budget::RequeueRequest;
using budget::ResumableOf;

namespace {

constexpr std::optional<bool> kNeither = std::nullopt;

void test_requeue_and_resumable_declare_the_same_contract(void**) {
  struct Case {
    bool resumable_option;
    std::optional<bool> slurm_requeue;
    bool resumable;
  } cases[] = {
      {false, kNeither, false},  // nothing said: cancelled when preempted
      {true, kNeither, true},    // --resumable
      {false, true, true},       // --requeue: the same as --resumable
      {true, true, true},        // both: no contradiction
      {false, false, false},     // --no-requeue
  };
  for (const Case& c : cases) {
    bool resumable = !c.resumable;
    assert_true(ResumableOf(RequeueRequest{c.resumable_option, c.slurm_requeue}, &resumable).ok());
    assert_int_equal(resumable, c.resumable);
  }
}

void test_resumable_with_no_requeue_is_refused(void**) {
  bool untouched = true;
  budget::Status st = ResumableOf(RequeueRequest{true, false}, &untouched);
  assert_false(st.ok());
  assert_true(untouched);
  assert_string_equal(st.message().c_str(),
                      "--resumable and --no-requeue contradict each other (--resumable is the same as --requeue): "
                      "give one");
}

void test_slurms_flag_keeps_its_meaning(void**) {
  struct Case {
    bool resumable;
    std::optional<bool> slurm_requeue;
    std::optional<bool> flag;
  } cases[] = {
      // A resumable job must be requeueable, by the suite's preemption too.
      {true, kNeither, true},
      {true, true, true},
      // Not resumable: --no-requeue stays 0; neither flag: JobRequeue
      // decides (empty), so that an admin may requeue the job where
      // JobRequeue=1, Slurm's default.
      {false, false, false},
      {false, kNeither, kNeither},
  };
  for (const Case& c : cases) {
    std::optional<bool> flag = RequeueFlagFor(c.resumable, c.slurm_requeue);
    assert_int_equal(flag.has_value(), c.flag.has_value());
    if (flag) assert_int_equal(*flag, *c.flag);
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_requeue_and_resumable_declare_the_same_contract),
      cmocka_unit_test(test_resumable_with_no_requeue_is_refused),
      cmocka_unit_test(test_slurms_flag_keeps_its_meaning),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
