// Fuzz target: the notes the suite writes on a job. The input is a job's
// SystemComment, read by JobNotesOf / ParseJobNotes and DepartureAt
// (priority/budget, sbudget explain), and each note alone, read by
// ParsePreemptionNote, ParseDrainNote and ParseRefusalNote.
// Properties (src/libbudget/policy/job_notes.h): ParseJobNotes accepts exactly what
// FormatJobNotes writes, so what it reads formats back to the same text; and
// each writer replaces its own note and keeps the other's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "libbudget/policy/job_notes.h"
#include "libbudget/policy/preemption_note.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  budget::PreemptionNote note;
  (void)budget::ParsePreemptionNote(text, &note);
  budget::DrainNote drain;
  (void)budget::ParseDrainNote(text, &drain);
  budget::RefusalNote refusal;
  (void)budget::ParseRefusalNote(text, &refusal);

  budget::JobNotes notes;
  if (budget::ParseJobNotes(text, &notes)) {
    FUZZ_CHECK(budget::FormatJobNotes(notes) == text, "FormatJobNotes(ParseJobNotes(s)) == s");
  }
  const budget::JobNotes of = budget::JobNotesOf(text);
  budget::TimePoint at = 0;
  (void)budget::DepartureAt(of, 1'800'000'000, &at);

  const std::string departure = budget::FormatPreemptionNote(8, 1'700'000'000, "unallocated");
  budget::JobNotes after;
  FUZZ_CHECK(budget::ParseJobNotes(budget::WithDeparture(text, departure), &after) &&
                 after.departure == departure && after.refusal == of.refusal,
             "WithDeparture writes its note and keeps the refusal");
  const std::string refused = budget::FormatRefusalNote(1'700'000'000, text);
  FUZZ_CHECK(budget::ParseJobNotes(budget::WithRefusal(text, refused), &after) &&
                 after.refusal == refused && after.departure == of.departure,
             "WithRefusal writes its note, whatever the reason, and keeps the departure");
  return 0;
}
