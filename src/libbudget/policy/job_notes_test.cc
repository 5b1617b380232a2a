// Tests of the notes kept in a job's SystemComment (job_notes.h).
#include "libbudget/testing/test_support.h"

#include <stdlib.h>
#include <time.h>

#include <string>

#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/preemption_note.h"

namespace {

// 1'800'000'000 s is 2027-01-15T08:00:00 UTC (preemption_note_test.cc).
constexpr budget::TimePoint kAt = 1'800'000'000;
const char kPreempted[] = "preempted by job 8 at 2027-01-15T08:00:00 (rule: over-served allocation)";
const char kDrained[] = "requeued at 2027-01-15T08:00:00: node n1 is draining (rule: drain at contract end)";
const char kRefused[] =
    "contract change refused at 2027-01-15T08:00:00: the contract of a running job cannot be changed; ask an operator";

// The notes are read in UTC here.
class Utc {
 public:
  Utc() {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

void test_each_writer_keeps_the_other_note(void**) {
  Utc utc;
  // A preemption on an empty SystemComment, then a refusal, then a drain:
  // each replaces its own note only.
  std::string sc = budget::WithDeparture("", budget::FormatPreemptionNote(8, kAt, "over-served allocation"));
  assert_string_equal(sc.c_str(), kPreempted);
  sc = budget::WithRefusal(
      sc, budget::FormatRefusalNote(kAt, "the contract of a running job cannot be changed; ask an operator"));
  assert_string_equal(sc.c_str(), (std::string(kPreempted) + "; " + kRefused).c_str());
  sc = budget::WithDeparture(sc, budget::FormatDrainNote(budget::PreemptAction::kRequeue, kAt, "n1"));
  assert_string_equal(sc.c_str(), (std::string(kDrained) + "; " + kRefused).c_str());
  budget::JobNotes notes;
  assert_true(budget::ParseJobNotes(sc, &notes));
  assert_string_equal(notes.departure.c_str(), kDrained);
  assert_string_equal(notes.refusal.c_str(), kRefused);
  // A refusal alone.
  assert_true(budget::ParseJobNotes(kRefused, &notes));
  assert_string_equal(notes.departure.c_str(), "");
  assert_string_equal(notes.refusal.c_str(), kRefused);
  assert_true(budget::ParseJobNotes("", &notes));
  assert_string_equal(notes.refusal.c_str(), "");
}

void test_only_what_the_writers_write_is_read(void**) {
  Utc utc;
  const std::string p = kPreempted, r = kRefused;
  const std::string bad[] = {
      "a user's text",
      p + " ",                     // trailing space
      p + ";" + r,                 // the separator is "; "
      p + "; ",                    // a separator and nothing after it
      p + "; " + p,                // two departures
      "x " + p,
      "contract change refused at 2027-01-15T08:00:00: ",          // no reason
      "contract change refused at 2027-01-15T08:00:00 reason",     // no ": "
      "contract change refused at 0999-01-15T08:00:00: reason",    // year below 1000
      "contract change refused at \t999-01-15T08:00:00: reason",   // TAB padding
      "contract change refused at 2027-01-15T08:00:00: a\nforged line",  // control character
      "contract change refused at 2027-01-15T08:00:00: " + std::string(budget::kMaxRefusalReason + 1, 'x'),
  };
  for (const std::string& text : bad) {
    budget::JobNotes untouched;
    untouched.departure = "kept";
    if (budget::ParseJobNotes(text, &untouched)) fail_msg("accepted: \"%s\"", text.c_str());
    assert_string_equal(untouched.departure.c_str(), "kept");
    // ... and holds no note: the next writer replaces it whole.
    assert_string_equal(budget::JobNotesOf(text).departure.c_str(), "");
    assert_string_equal(budget::WithDeparture(text, kPreempted).c_str(), kPreempted);
  }
  // The refusal goes last and its reason is free text: a departure after it
  // is part of the reason, never a departure note.
  budget::JobNotes notes;
  assert_true(budget::ParseJobNotes(r + "; " + p, &notes));
  assert_string_equal(notes.departure.c_str(), "");
  assert_string_equal(notes.refusal.c_str(), (r + "; " + p).c_str());
}

void test_refusal_reason_is_made_printable_and_capped(void**) {
  Utc utc;
  // A newline and a TAB become '?'; 300 bytes are cut to kMaxRefusalReason (240).
  std::string note = budget::FormatRefusalNote(kAt, "bad\nvalue\t" + std::string(300, 'y'));
  budget::RefusalNote r;
  assert_true(budget::ParseRefusalNote(note, &r));
  assert_int_equal(r.reason.size(), budget::kMaxRefusalReason);
  assert_string_equal(r.reason.substr(0, 10).c_str(), "bad?value?");
  assert_string_equal(r.at.c_str(), "2027-01-15T08:00:00");
  assert_int_equal(r.at_time, kAt);
  // An empty reason still gives a note that reads back.
  assert_true(budget::ParseRefusalNote(budget::FormatRefusalNote(kAt, ""), &r));
  assert_string_equal(r.reason.c_str(), "refused");
}

// The end of a requeued run comes from the departure note, never from a
// note dated after now (the clock was set back, or someone wrote it).
void test_departure_at_refuses_a_future_date(void**) {
  Utc utc;
  budget::JobNotes notes = budget::JobNotesOf(kPreempted);
  budget::TimePoint at = 0;
  assert_true(budget::DepartureAt(notes, kAt, &at));  // dated exactly now
  assert_int_equal(at, kAt);
  assert_true(budget::DepartureAt(budget::JobNotesOf(kDrained), kAt + 60, &at));
  assert_int_equal(at, kAt);
  at = 7;
  assert_false(budget::DepartureAt(notes, kAt - 1, &at));  // one second in the future
  assert_int_equal(at, 7);
  assert_false(budget::DepartureAt(budget::JobNotesOf(kRefused), kAt + 60, &at));  // no departure
  assert_int_equal(at, 7);
}

// A departure with a notice: told at kAt, to be gone 45 s later. The run
// ends at the notice's end; the suffix is read only as the writer writes it.
void test_a_notice_reads_back_and_dates_the_run_end(void**) {
  Utc utc;
  std::string sc = budget::WithDeparture(kRefused, kPreempted, kAt + 45);
  assert_string_equal(sc.c_str(), (std::string(kPreempted) + " with notice until 2027-01-15T08:00:45; " + kRefused).c_str());
  budget::JobNotes notes;
  assert_true(budget::ParseJobNotes(sc, &notes));
  assert_string_equal(notes.departure.c_str(), kPreempted);  // the note itself, as its parser reads it
  assert_int_equal(notes.notice_until, kAt + 45);
  assert_string_equal(budget::FormatJobNotes(notes).c_str(), sc.c_str());
  budget::TimePoint at = 0;
  assert_false(budget::DepartureAt(notes, kAt + 44, &at));  // still in its notice: its run has not ended
  assert_true(budget::DepartureAt(notes, kAt + 45, &at));
  assert_int_equal(at, kAt + 45);
  // A drain departure takes one too; a new departure without one drops it.
  notes = budget::JobNotesOf(budget::WithDeparture("", kDrained, kAt + 60));
  assert_string_equal(notes.departure.c_str(), kDrained);
  assert_int_equal(notes.notice_until, kAt + 60);
  assert_int_equal(budget::JobNotesOf(budget::WithDeparture(sc, kDrained)).notice_until, 0);
  // Not as the writer writes it: no note at all.
  const std::string p = kPreempted;
  for (const std::string& text : {p + " with notice until 2027-13-15T08:00:45", p + " with notice until 2027-01-15T08:00:4",
                                  p + " with notice until  2027-01-15T08:00:45", std::string(" with notice until 2027-01-15T08:00:45")}) {
    if (budget::ParseJobNotes(text, &notes)) fail_msg("accepted: \"%s\"", text.c_str());
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_writer_keeps_the_other_note),
      cmocka_unit_test(test_only_what_the_writers_write_is_read),
      cmocka_unit_test(test_refusal_reason_is_made_printable_and_capped),
      cmocka_unit_test(test_departure_at_refuses_a_future_date),
      cmocka_unit_test(test_a_notice_reads_back_and_dates_the_run_end),
  };
  return cmocka_run_group_tests_name("job_notes", tests, nullptr, nullptr);
}
