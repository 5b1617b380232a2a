// Timeslice counts: how many jobs preempt/timeslice preempted, by rule, and
// how many automated drains (drain at contract end) it ran, kept for reports
// in <StateSaveLocation>/timeslice_state.json:
//   { "preemptions": 12, "automated_drains": 1,
//     "preemptions_by_rule": { "unallocated": 7, "over-served allocation": 4,
//                              "drain at contract end": 1 },
//     "updated_at": T }
// Rule names are PreemptionRuleName()'s (timeslice_plan.h). Counters only
// grow. "preemptions_by_rule" came later than the other keys
// (doc/formats.md): a file without it reads as no rule counted, and the
// preemptions counted before it stay in "preemptions" only, so the rules may
// sum to less than "preemptions", never more.
//
// preempt/timeslice's time-slicing thread adds to it; `sbudget metrics`
// reads it. Each addition is a read-modify-write under flock() of
// "<file>.lock", and the new text replaces the old atomically (write
// "<file>.tmp", rename). A missing file counts from 0; a corrupt one is
// Corruption for a reader, and counted from 0 again by the next addition
// (the plugin never stops counting over a bad file).
//
// Thread safety: safe from any thread and process (flock).
#ifndef SLURM_BUDGET_LIBBUDGET_POLICY_TIMESLICE_COUNTS_H_
#define SLURM_BUDGET_LIBBUDGET_POLICY_TIMESLICE_COUNTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

constexpr char kTimesliceStateFile[] = "timeslice_state.json";

struct TimesliceCounts {
  uint64_t preemptions = 0;
  uint64_t automated_drains = 0;
  // Rule name -> preemptions under it; sums to at most `preemptions`.
  std::map<std::string, uint64_t> preemptions_by_rule;
  TimePoint updated_at = 0;  // 0: never written
};

// Reads `file`; a missing file gives zero counts (ok). Corruption naming the
// file when it is not a JSON object.
Status ReadCounts(const std::string& file, TimesliceCounts* out);

// Adds `added` (its updated_at ignored) to the counts in `file`, stamps
// them with `now`, and sets *after (may be null) to the new totals. IOError
// naming the file and the step on failure.
Status AddToCounts(const std::string& file, const TimesliceCounts& added, TimePoint now, TimesliceCounts* after);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_POLICY_TIMESLICE_COUNTS_H_
