// Tests of the timeslice counts file (timeslice_counts.h): additions sum per
// rule, a file written before the rules were counted still reads, and a bad
// file or directory is named.
#include "libbudget/testing/test_files.h"

#include <cstring>
#include <string>

#include "libbudget/policy/timeslice_counts.h"

using budget::AddToCounts;
using budget::ReadCounts;
using budget::TimesliceCounts;
using budget::testing::MakeTempDir;
using budget::testing::WriteWholeFile;

namespace {

constexpr budget::TimePoint kNow = 1700000000;

TimesliceCounts Added(uint64_t unallocated, uint64_t over_served, uint64_t drains) {
  TimesliceCounts c;
  c.preemptions = unallocated + over_served;
  c.automated_drains = drains;
  if (unallocated > 0) c.preemptions_by_rule["unallocated"] = unallocated;
  if (over_served > 0) c.preemptions_by_rule["over-served allocation"] = over_served;
  return c;
}

void test_counts_add_up_by_rule(void**) {
  std::string file = MakeTempDir("timeslice_counts_test") + "/timeslice_state.json";
  TimesliceCounts after;
  assert_true(AddToCounts(file, Added(2, 0, 0), kNow, &after).ok());
  assert_true(AddToCounts(file, Added(1, 1, 1), kNow + 30, &after).ok());
  // 2 + 1 unallocated, 0 + 1 over-served: 4 preemptions; 0 + 1 drains.
  assert_int_equal(after.preemptions, 4);
  assert_int_equal(after.automated_drains, 1);
  assert_int_equal(after.preemptions_by_rule["unallocated"], 3);
  assert_int_equal(after.preemptions_by_rule["over-served allocation"], 1);
  TimesliceCounts read;
  assert_true(ReadCounts(file, &read).ok());
  assert_int_equal(read.preemptions, 4);
  assert_int_equal(read.preemptions_by_rule.size(), 2);
  assert_int_equal(read.preemptions_by_rule["unallocated"], 3);
  assert_int_equal(read.updated_at, kNow + 30);
}

void test_a_file_without_rules_still_reads(void**) {
  // The layout before "preemptions_by_rule" (doc/formats.md).
  std::string file = MakeTempDir("timeslice_counts_test") + "/timeslice_state.json";
  WriteWholeFile(file, "{ \"preemptions\": 12, \"automated_drains\": 1, \"updated_at\": 1700000000 }\n");
  TimesliceCounts read;
  assert_true(ReadCounts(file, &read).ok());
  assert_int_equal(read.preemptions, 12);
  assert_int_equal(read.automated_drains, 1);
  assert_true(read.preemptions_by_rule.empty());
  // Adding to it keeps the 12 in the total; only the new one has a rule.
  TimesliceCounts after;
  assert_true(AddToCounts(file, Added(1, 0, 0), kNow, &after).ok());
  assert_int_equal(after.preemptions, 13);
  assert_int_equal(after.preemptions_by_rule["unallocated"], 1);
}

void test_a_missing_file_is_zero_and_a_corrupt_one_named(void**) {
  std::string dir = MakeTempDir("timeslice_counts_test");
  TimesliceCounts read;
  assert_true(ReadCounts(dir + "/none.json", &read).ok());
  assert_int_equal(read.preemptions, 0);
  WriteWholeFile(dir + "/bad.json", "{\"preemptions\": 1");
  budget::Status st = ReadCounts(dir + "/bad.json", &read);
  assert_true(st.IsCorruption());
  assert_non_null(strstr(st.message().c_str(), "bad.json"));
  // The plugin counts on from 0 over a corrupt file.
  TimesliceCounts after;
  assert_true(AddToCounts(dir + "/bad.json", Added(1, 0, 0), kNow, &after).ok());
  assert_int_equal(after.preemptions, 1);
}

void test_an_unwritable_file_is_named(void**) {
  budget::Status st = AddToCounts("/nonexistent-dir/timeslice_state.json", Added(1, 0, 0), kNow, nullptr);
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "/nonexistent-dir/timeslice_state.json"));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_add_up_by_rule),
      cmocka_unit_test(test_a_file_without_rules_still_reads),
      cmocka_unit_test(test_a_missing_file_is_zero_and_a_corrupt_one_named),
      cmocka_unit_test(test_an_unwritable_file_is_named),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
