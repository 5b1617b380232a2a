// Timeslice counts: how many jobs the timeslice plugins preempted and how
// many automated drains (drain at contract end) they ran, kept for reports in
// <StateSaveLocation>/timeslice_state.json:
//   { "preemptions": 12, "automated_drains": 1, "updated_at": T }
// preempt/timeslice's time-slicing thread adds to it (and sbudget reads it):
// each addition is a read-modify-write under
// flock() of "<file>.lock", and the new text replaces the old atomically
// (write "<file>.tmp", rename). A missing or unreadable file counts from 0.
//
// Thread safety: safe from any thread and process (flock).
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_STATE_COUNTS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_STATE_COUNTS_H_

#include <cstdint>
#include <string>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace timeslice {

constexpr char kStateFileName[] = "timeslice_state.json";

struct TimesliceCounts {
  uint64_t preemptions = 0;
  uint64_t automated_drains = 0;
};

// Reads `file`; a missing file gives zero counts (ok).
budget::Status ReadCounts(const std::string& file, TimesliceCounts* out);

// Adds the deltas to the counts in `file` and sets *after (may be null) to
// the new totals. IOError naming the file and the step on failure.
budget::Status AddToCounts(const std::string& file, uint64_t preemptions, uint64_t automated_drains,
                           budget::TimePoint now, TimesliceCounts* after);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_STATE_COUNTS_H_
