// PreemptionNote: the one line sched/timeslice and preempt/timeslice leave in
// a preempted job's Comment, so that `scontrol show job`, `squeue -o %k` and
// `sbudget explain` can say who preempted the job, when, and by which rule:
//     preempted by job <id> at <YYYY-MM-DDTHH:MM:SS> (rule: <rule>)
// The time is the controller's local time, as Slurm prints times; <rule> is
// a PreemptVerdictName ("unallocated", "over-served allocation").
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
#define SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace budget {

struct PreemptionNote {
  uint32_t preempted_by = 0;  // the preemptor's job id
  std::string at;             // as written: YYYY-MM-DDTHH:MM:SS
  std::string rule;           // "unallocated", "over-served allocation", ...
};

// Reads a note at the start of `comment`. False (and *out untouched) when the
// comment holds no well-formed note.
bool ParsePreemptionNote(std::string_view comment, PreemptionNote* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PREEMPTION_NOTE_H_
