// Tests of the preemption and drain notes (preemption_note.h).
#include "libbudget/testing/test_support.h"

#include <stdlib.h>
#include <time.h>

#include <string>

#include "libbudget/policy/preemption_note.h"

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
      "preempted by job 8 at 2026-13-29T10:02:16 (rule: unallocated)",  // month 13
      "preempted by job 8 at 2026-11-29T25:02:16 (rule: unallocated)",  // hour 25
      "preempted by job 8 at 2026-11-29Txx:02:16 (rule: unallocated)",
      // Strict: only what FormatPreemptionNote writes.
      "preempted by job 8 at 0999-11-29T10:02:16 (rule: unallocated)",  // year below 1000
      "preempted by job 8 at 0000-01-01T00:00:00 (rule: unallocated)",
      "preempted by job 8 at \t999-11-29T10:02:16 (rule: unallocated)",  // year padded with a TAB
      "preempted by job 8 at  999-11-29T10:02:16 (rule: unallocated)",   // ... or a space
      "preempted by job 8 at 2026-\t1-29T10:02:16 (rule: unallocated)",  // month padded
      "preempted by job 8 at 2026-11- 9T10:02:16 (rule: unallocated)",   // day padded
      "preempted by job 8 at 2026-11-29T\t0:02:16 (rule: unallocated)",  // hour padded
      "preempted by job 8 at 2026-11-29T10: 2:16 (rule: unallocated)",   // minute padded
      "preempted by job 8 at 2026-11-29T10:02:+6 (rule: unallocated)",   // a sign
      "preempted by job 8 at 2026-11-31T10:02:16 (rule: unallocated)",   // 31 November
      "preempted by job 8 at 2026-11-29 10:02:16 (rule: unallocated)",   // no T
      "preempted by job 08 at 2026-11-29T10:02:16 (rule: unallocated)",  // leading zero
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: unallocated) and more",  // trailing text
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: unallocated)\n",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: un\tallocated)",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule:  unallocated)",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: Unallocated)",
      " preempted by job 8 at 2026-11-29T10:02:16 (rule: unallocated)",
  };
  for (const char* text : bad) {
    budget::PreemptionNote n;
    n.preempted_by = 77;
    if (budget::ParsePreemptionNote(text, &n)) fail_msg("accepted: \"%s\"", text);
    assert_int_equal(n.preempted_by, 77);  // untouched
  }
}

// Runs with the process's time zone set to `zone`, restoring it after.
class ZoneForTest {
 public:
  explicit ZoneForTest(const char* zone) {
    const char* old = getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ZoneForTest() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  bool had_ = false;
  std::string old_;
};

void test_format_writes_the_exact_text(void**) {
  ZoneForTest utc("UTC");
  // 1'800'000'000 s = 20833 days + 28800 s; day 20833 after 1970-01-01 is
  // 2027-01-15, and 28800 s = 08:00:00.
  assert_string_equal(budget::FormatPreemptionNote(8, 1'800'000'000, "over-served allocation").c_str(),
                      "preempted by job 8 at 2027-01-15T08:00:00 (rule: over-served allocation)");
  // The same instant in Berlin (UTC+1 in January) reads 09:00:00.
  ZoneForTest berlin("Europe/Berlin");
  assert_string_equal(budget::FormatPreemptionNote(4294967295u, 1'800'000'000, "unallocated").c_str(),
                      "preempted by job 4294967295 at 2027-01-15T09:00:00 (rule: unallocated)");
}

void test_format_then_parse_round_trips(void**) {
  struct Case {
    const char* zone;
    uint32_t id;
    budget::TimePoint at;
    const char* rule;
  } cases[] = {
      {"UTC", 8, 1'800'000'000, "over-served allocation"},
      {"UTC", 1, 0, "unallocated"},                            // the epoch itself
      {"Europe/Berlin", 13, 1'800'000'000, "unallocated"},     // winter, UTC+1
      {"Europe/Berlin", 13, 1'800'000'000 + 182 * 86400, "over-served allocation"},  // summer, UTC+2
      {"America/New_York", 4294967295u, 1'790'000'000, "over-served allocation"},
  };
  for (const Case& c : cases) {
    ZoneForTest zone(c.zone);
    std::string text = budget::FormatPreemptionNote(c.id, c.at, c.rule);
    budget::PreemptionNote n;
    if (!budget::ParsePreemptionNote(text, &n)) fail_msg("not read back: \"%s\" (%s)", text.c_str(), c.zone);
    // Every field comes back as written.
    assert_int_equal(n.preempted_by, c.id);
    assert_int_equal(n.at_time, c.at);
    assert_string_equal(n.rule.c_str(), c.rule);
    // "preempted by job " + id + " at " is followed by n.at.
    assert_int_equal(text.find(n.at), std::string("preempted by job " + std::to_string(c.id) + " at ").size());
  }
}

// Every time the writer writes in the years the reader accepts comes back,
// the first and last second of those years included, and a time the writer
// cannot write (the hour a DST change skips) is refused.
void test_round_trip_at_the_edges_of_the_years_read(void**) {
  ZoneForTest utc("UTC");
  // The first and last second of the years 1000-9999 in UTC (the format
  // check below shows they are).
  const budget::TimePoint kFirst = -30'610'224'000;
  const budget::TimePoint kLast = 253'402'300'799;
  assert_string_equal(budget::FormatLocalTime(kFirst).c_str(), "1000-01-01T00:00:00");
  assert_string_equal(budget::FormatLocalTime(kLast).c_str(), "9999-12-31T23:59:59");
  for (budget::TimePoint at : {kFirst, kLast}) {
    std::string text = budget::FormatPreemptionNote(8, at, "unallocated");
    budget::PreemptionNote n;
    if (!budget::ParsePreemptionNote(text, &n)) fail_msg("not read back: \"%s\"", text.c_str());
    assert_int_equal(n.at_time, at);
  }
  // One second before: year 999, which strftime writes with three digits;
  // the reader refuses it rather than misread it.
  budget::PreemptionNote n;
  assert_false(budget::ParsePreemptionNote(
      budget::FormatPreemptionNote(8, kFirst - 1, "unallocated"), &n));
  ZoneForTest berlin("Europe/Berlin");
  // 2027-03-28: clocks go from 02:00 to 03:00 in Berlin; 02:30 does not exist.
  assert_false(budget::ParsePreemptionNote("preempted by job 8 at 2027-03-28T02:30:00 (rule: unallocated)", &n));
  assert_true(budget::ParsePreemptionNote("preempted by job 8 at 2027-03-28T03:30:00 (rule: unallocated)", &n));
}

void test_parse_reads_the_time_as_local_time(void**) {
  budget::PreemptionNote n;
  ZoneForTest utc("UTC");
  assert_true(budget::ParsePreemptionNote("preempted by job 8 at 2027-01-15T08:00:00 (rule: unallocated)", &n));
  // As above: 2027-01-15T08:00:00 UTC = 1'800'000'000.
  assert_int_equal(n.at_time, 1'800'000'000);
  ZoneForTest berlin("Europe/Berlin");
  assert_true(budget::ParsePreemptionNote("preempted by job 8 at 2027-01-15T08:00:00 (rule: unallocated)", &n));
  // 08:00 in Berlin (UTC+1) is 07:00 UTC: 1'800'000'000 - 3600.
  assert_int_equal(n.at_time, 1'800'000'000 - 3600);
}

// The drain at contract end leaves its own note (timeslice_plan.cc); sbudget
// explain reads it to say why a requeued job left its node.
void test_drain_note_reads_back_and_refuses_anything_else(void**) {
  ZoneForTest utc("UTC");
  // 1'800'000'000 s is 2027-01-15T08:00:00 UTC (above).
  std::string requeued = budget::FormatDrainNote(budget::PreemptAction::kRequeue, 1'800'000'000, "n1");
  assert_string_equal(requeued.c_str(),
                      "requeued at 2027-01-15T08:00:00: node n1 is draining (rule: drain at contract end)");
  budget::DrainNote n;
  assert_true(budget::ParseDrainNote(requeued, &n));
  assert_true(n.action == budget::PreemptAction::kRequeue);
  assert_string_equal(n.at.c_str(), "2027-01-15T08:00:00");
  assert_int_equal(n.at_time, 1'800'000'000);
  assert_string_equal(n.node.c_str(), "n1");
  assert_true(budget::ParseDrainNote(
      budget::FormatDrainNote(budget::PreemptAction::kCancel, 1'800'000'000, "gpu-a17"), &n));
  assert_true(n.action == budget::PreemptAction::kCancel);
  assert_string_equal(n.node.c_str(), "gpu-a17");
  const char* bad[] = {
      "",
      "preempted by job 8 at 2026-11-29T10:02:16 (rule: unallocated)",
      "requeued at 2026-11-29T10:02:16: node n1 is down",
      "requeued at 2026-11-29T10:02:16: node  is draining (rule: drain at contract end)",
      "requeued at 2026-11-29T10:02:16: node n 1 is draining (rule: drain at contract end)",
      "requeued at 2026-13-29T10:02:16: node n1 is draining (rule: drain at contract end)",
      "suspended at 2026-11-29T10:02:16: node n1 is draining (rule: drain at contract end)",
      "requeued at 0999-11-29T10:02:16: node n1 is draining (rule: drain at contract end)",
      "requeued at \t999-11-29T10:02:16: node n1 is draining (rule: drain at contract end)",
      "requeued at 2026-11-29T10:02:16: node n\t1 is draining (rule: drain at contract end)",
      "requeued at 2026-11-29T10:02:16: node n1 is draining (rule: drain at contract end) x",
      "requeued at 2026-11-29T10:02:16: node n1;x is draining (rule: drain at contract end)",
  };
  for (const char* text : bad) {
    budget::DrainNote untouched;
    untouched.node = "kept";
    if (budget::ParseDrainNote(text, &untouched)) fail_msg("accepted: \"%s\"", text);
    assert_string_equal(untouched.node.c_str(), "kept");
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_the_note_sched_timeslice_writes),
      cmocka_unit_test(test_anything_else_is_not_a_note),
      cmocka_unit_test(test_format_writes_the_exact_text),
      cmocka_unit_test(test_format_then_parse_round_trips),
      cmocka_unit_test(test_round_trip_at_the_edges_of_the_years_read),
      cmocka_unit_test(test_parse_reads_the_time_as_local_time),
      cmocka_unit_test(test_drain_note_reads_back_and_refuses_anything_else),
  };
  return cmocka_run_group_tests_name("preemption_note", tests, nullptr, nullptr);
}
