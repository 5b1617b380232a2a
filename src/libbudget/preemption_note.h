// PreemptionNote: the one line preempt/timeslice's time-slicing thread leaves in
// a preempted job's Comment, so that `scontrol show job`, `squeue -o %k` and
// `sbudget explain` can say who preempted the job, when, and by which rule:
//     preempted by job <id> at <YYYY-MM-DDTHH:MM:SS> (rule: <rule>)
// The time is the controller's local time, as Slurm prints times; <rule> is
// a PreemptVerdictName ("unallocated", "over-served allocation").
// FormatPreemptionNote writes it (both timeslice plugins), ParsePreemptionNote
// reads it back (sbudget explain, and the grants the commitments count,
// commitments.h). The text is an interface: sbudget and the integration
// tests read it, so it must not change.
//
// Local time: converting between TimePoint and the written time reads the
// process's time zone (TZ, /etc/localtime), never the clock. The round trip
// Parse(Format(t)).at_time == t holds except inside the hour a DST change
// repeats, where the written time is ambiguous (at most one hour off).
//
// Thread safety: plain functions over values (localtime_r/mktime).
#ifndef SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
#define SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "libbudget/standing.h"

namespace budget {

struct PreemptionNote {
  uint32_t preempted_by = 0;  // the preemptor's job id
  std::string at;             // as written: YYYY-MM-DDTHH:MM:SS
  TimePoint at_time = 0;      // `at` read as local time
  std::string rule;           // "unallocated", "over-served allocation", ...
};

// `t` as the notes write it, YYYY-MM-DDTHH:MM:SS in local time: the one
// time format of the suite's notes, node reasons and log lines.
std::string FormatLocalTime(TimePoint t);

// The note for a job preempted by job `preempted_by` at `at` by `rule`.
// REQUIRES: preempted_by > 0; rule non-empty and without ')'.
std::string FormatPreemptionNote(uint32_t preempted_by, TimePoint at, std::string_view rule);

// Reads a note at the start of `comment`. False (and *out untouched) when the
// comment holds no well-formed note (including a time that is no calendar
// time, e.g. month 13).
bool ParsePreemptionNote(std::string_view comment, PreemptionNote* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
