// Tests of the preemption note read back from a job's Comment.
#include "libbudget/test_support.h"

#include "libbudget/preemption_note.h"

namespace {

void test_reads_the_note_sched_timeslice_writes(void**) {
  budget::PreemptionNote n;
  // The exact text the plugins put on a preempted job.
  assert_true(budget::ParsePreemptionNote(
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: over-served allocation)", &n));
  assert_int_equal(n.preempted_by, 8);
  assert_string_equal(n.at.c_str(), "2026-11-29T10:02:16");
  assert_string_equal(n.rule.c_str(), "over-served allocation");
  assert_true(budget::ParsePreemptionNote("preempted by job 4294967295 at 2026-01-01T00:00:00 (rule: unallocated)", &n));
  // 2^32 - 1 is the largest job id.
  assert_int_equal(n.preempted_by, 4294967295u);
}

void test_anything_else_is_not_a_note(void**) {
  const char* bad[] = {
      "",
      "a user comment",
      "preempted by job x at 2026-11-29T10:02:16 (rule: unallocated)",
      "preempted by job 0 at 2026-11-29T10:02:16 (rule: unallocated)",
      "preempted by job 4294967296 at 2026-11-29T10:02:16 (rule: unallocated)",
      "preempted by job 8 at 10:02:16 (rule: unallocated)",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: )",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: unallocated",
      "preempted by job 8",
  };
  for (const char* text : bad) {
    budget::PreemptionNote n;
    n.preempted_by = 77;
    if (budget::ParsePreemptionNote(text, &n)) fail_msg("accepted: \"%s\"", text);
    assert_int_equal(n.preempted_by, 77);  // untouched
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_the_note_sched_timeslice_writes),
      cmocka_unit_test(test_anything_else_is_not_a_note),
  };
  return cmocka_run_group_tests_name("preemption_note", tests, nullptr, nullptr);
}
