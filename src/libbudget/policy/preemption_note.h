// The notes preempt/timeslice's time-slicing thread leaves on a job (in its
// SystemComment, which no user can write: job_notes.h), so that `scontrol
// show job`, `squeue -O system_comment` and `sbudget explain` can say why the
// job left its GPUs:
//   - PreemptionNote: who preempted the job, when, and by which rule:
//       preempted by job <id> at <YYYY-MM-DDTHH:MM:SS> (rule: <rule>)
//     <rule> is a PreemptVerdictName ("unallocated", "over-served
//     allocation"). Whether the job was then requeued or ended is not in the
//     note: Slurm's record says (the job is pending again, or PREEMPTED).
//   - DrainNote: a job that left a draining node at its contract end
//     (timeslice_plan.cc, the drain at contract end):
//       requeued at <YYYY-MM-DDTHH:MM:SS>: node <name> is draining (rule: drain at contract end)
//     or "cancelled at ..." for a job that is not resumable.
// The time is the controller's local time, as Slurm prints times.
// Format* write them (the time-slicing planner), Parse* read them back
// (sbudget explain; priority/budget, for the end of a requeued run). Parse*
// accept exactly what Format* write: the whole text is the note, every
// field as the writer spells it (a four-digit year >= 1000, two-digit
// fields of digits only, no padding; a rule of lowercase words, a node
// name without spaces), and a time that is a calendar time of the zone.
// The texts are an interface: sbudget and the integration tests read them,
// so they must not change.
//
// Local time: converting between TimePoint and the written time reads the
// process's time zone (TZ, /etc/localtime), never the clock. The round trip
// Parse(Format(t)).at_time == t holds for every t in the years 1000-9999,
// except inside the hour a DST change repeats, where the written time is
// ambiguous (at most one hour off). Times outside those years are not read
// back (no controller clock is there).
//
// Thread safety: plain functions over values (localtime_r/mktime).
#ifndef SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
#define SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "libbudget/policy/contract.h"
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

// Reads a time FormatLocalTime wrote, the whole of `text`; false (and *out
// untouched) for anything else (see above: the writer's exact spelling, a
// calendar time of the zone).
bool ParseLocalTime(std::string_view text, TimePoint* out);

// The note for a job preempted by job `preempted_by` at `at` by `rule`.
// REQUIRES: preempted_by > 0; rule non-empty and without ')'.
std::string FormatPreemptionNote(uint32_t preempted_by, TimePoint at, std::string_view rule);

// Reads the note that is the whole of `text`. False (and *out untouched)
// when `text` is not exactly a note the writer could have written
// (including a time that is no calendar time, e.g. month 13 or 31 November,
// or text before or after the note).
bool ParsePreemptionNote(std::string_view text, PreemptionNote* out);

struct DrainNote {
  PreemptAction action = PreemptAction::kRequeue;  // requeued, or cancelled
  std::string at;         // as written: YYYY-MM-DDTHH:MM:SS
  TimePoint at_time = 0;  // `at` read as local time
  std::string node;       // the draining node
};

// The note for a job that left draining node `node` at `at`.
// REQUIRES: node non-empty and without spaces (a Slurm node name).
std::string FormatDrainNote(PreemptAction action, TimePoint at, std::string_view node);

// Reads the drain note that is the whole of `text`; false (and *out
// untouched) when `text` is not exactly one.
bool ParseDrainNote(std::string_view text, DrainNote* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
