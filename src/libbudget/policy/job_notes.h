// JobNotes: what the suite's controller plugins say on a job, kept in the
// job's SystemComment. Everything the suite reads back from a job to decide
// (the end of a requeued run, priority/budget) or to explain (sbudget
// explain) is here, because in Slurm 22.05 no RPC sets a SystemComment:
// job_desc_msg_t has no such field, so neither `sbatch` nor `scontrol
// update` (not even an operator's) can write it; only code inside
// slurmctld can. A user's Comment, job name, wckey and the like are never
// read for a note. (AdminComment, which operators may write, holds the
// contract record, job_contract.h.)
//
// Layout: at most one note of each kind, in this order, joined by "; ":
//   <departure>  why the job last left its GPUs: a PreemptionNote or a
//                DrainNote (preemption_note.h), written by preempt/timeslice;
//   <refusal>    the last contract change job_submit/contract refused:
//                  contract change refused at <YYYY-MM-DDTHH:MM:SS>: <reason>
//                (22.05's job_modify has no err_msg: the requester sees
//                only the error code's text, e.g. "Access/permission
//                denied"; sbudget explain shows this reason).
// A departure note never holds "; "; the refusal goes last, so its reason
// may. Each writer replaces its own note and keeps the other.
//
// Notice (budget.conf PreemptNotice): a job told to leave keeps its GPUs
// until the notice ends, and its departure note then says until when:
//   <departure> with notice until <YYYY-MM-DDTHH:MM:SS>
// The departure's own time is when the job was told (signalled); the
// notice's is when it was gone by: the notice's end, or, for a job that
// left by itself sooner and was requeued, when it left (preempt/timeslice
// rewrites it then). Either way the end of its run.
//
// Strict: ParseJobNotes accepts exactly what FormatJobNotes writes (each
// note as its own parser accepts it, the reason printable ASCII of at most
// kMaxRefusalReason bytes). Any other SystemComment (one a later Slurm
// wrote itself, say) holds no note; the next write of a note replaces it.
//
// Dates: a note dated after the reader's `now` is refused (DepartureAt):
// the controller writes a note at the time it acts, so such a note says
// nothing true about the past (the clock was set back since).
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_JOB_NOTES_H_
#define SLURM_BUDGET_LIBBUDGET_JOB_NOTES_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "libbudget/standing.h"

namespace budget {

// The longest refusal reason kept; a longer one is cut (FormatRefusalNote).
constexpr size_t kMaxRefusalReason = 240;

struct JobNotes {
  std::string departure;  // a preemption or drain note's whole text, or ""
  // When the departure's notice ends (0: it has none, the job left when
  // told). Read only with a departure.
  TimePoint notice_until = 0;
  std::string refusal;    // a refusal note's whole text, or ""
};

// The SystemComment that holds `notes` ("" when both are empty).
std::string FormatJobNotes(const JobNotes& notes);

// Reads a SystemComment; false (and *out untouched) when it is not exactly
// one FormatJobNotes could have written from well-formed notes. "" is
// well-formed: no notes.
bool ParseJobNotes(std::string_view system_comment, JobNotes* out);

// The notes of `system_comment`, none if it holds none (a foreign text).
JobNotes JobNotesOf(std::string_view system_comment);

// `system_comment` with its departure note replaced by `departure` (a
// FormatPreemptionNote or FormatDrainNote text) with a notice until
// `notice_until` (0: none), the refusal kept.
std::string WithDeparture(std::string_view system_comment, std::string_view departure,
                          TimePoint notice_until = 0);

// `system_comment` with its refusal note replaced by `refusal`
// (FormatRefusalNote), the departure kept.
std::string WithRefusal(std::string_view system_comment, std::string_view refusal);

// When the job's last run ended, by its departure note (the end of its
// notice if it had one, else when it was told): false if there is none, or
// that time is after `now`.
bool DepartureAt(const JobNotes& notes, TimePoint now, TimePoint* at);

struct RefusalNote {
  std::string at;         // as written: YYYY-MM-DDTHH:MM:SS (local time)
  TimePoint at_time = 0;  // `at` read as local time
  std::string reason;
};

// The note for a contract change refused at `at` for `reason`. Control
// characters and bytes outside printable ASCII become '?', and the reason
// is cut to kMaxRefusalReason bytes (it may quote what a user typed). An
// empty reason is written as "refused".
std::string FormatRefusalNote(TimePoint at, std::string_view reason);

// Reads the refusal note that is the whole of `text`; false (and *out
// untouched) when `text` is not exactly one.
bool ParseRefusalNote(std::string_view text, RefusalNote* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_JOB_NOTES_H_
