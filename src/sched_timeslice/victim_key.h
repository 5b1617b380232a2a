// VictimKey: the core's victim order (preempt.h, VictimOrder) folded into the
// one 32-bit number Slurm sorts preemption candidates by
// (PREEMPT_DATA_PRIO; slurmctld sorts ascending and its select plugin takes
// candidates from the front, so LOWER = PREEMPTED FIRST).
//
//   bit 31      allocated work (unallocated work goes first)
//   bit 30      unallocated work that has an allocation (work with none first)
//   bits 16-29  0x3fff - rank of the job's allocation: the most over-served
//               (highest rank number) first
//   bits 8-15   user priority inside the allocation, lowest first (capped)
//   bits 0-7    run time so far in 16-s steps, youngest first (capped)
// It agrees with VictimOrder except among ranks above 0x3fff, user
// priorities above 255 and jobs younger than 16 s apart (and VictimOrder's
// usage-ratio tie break, which ranks make moot for leaves); Slurm then keeps
// its own order among equal keys. The time slicing thread uses
// ChoosePreemption itself and needs no key.
//
// Thread safety: a plain function.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_VICTIM_KEY_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_VICTIM_KEY_H_

#include <cstdint>
#include <vector>

#include "libbudget/contract.h"
#include "libbudget/standing.h"

namespace timeslice {

uint32_t VictimKey(const budget::RunningJob& job, const std::vector<budget::Standing>& standings,
                   budget::TimePoint now);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_VICTIM_KEY_H_
