// PassClock: when the controller's periodic passes run, on the wall clock.
//
// Slurm stamps every event in whole seconds, and a job that ends "at" second
// T (a replayed job, src/sim's jobs) is still ending in T's first moments: its
// end reaches slurmctld a few tens of milliseconds later. The simulator
// handles an instant's events first and then its passes, in this order:
// ends and submissions, priority/budget's recompute, preempt/timeslice's
// pass, Slurm's schedulers (src/sim/engine.cc). The plugins keep that order
// by the clock:
//   - priority/budget's pass runs at whole multiples of RecalcInterval,
//     kRecalcOffset into that second (the simulator's recompute ticks at
//     whole multiples of RecalcInterval from the trace's start);
//   - preempt/timeslice never passes in the first kSliceSettle of a second
//     (after the recompute of that second), and its periodic pass is due at
//     whole multiples of TimesliceInterval, kSliceSettle into the second.
// The settle is short: Slurm's own schedulers run at phases of their own,
// and one that comes before the pass may fill GPUs an end freed with work
// the pass then preempts (the simulator gives the pass those GPUs first).
// 0.15 s covers the ends of one second's jobs on a test cluster (they
// arrive within tens of milliseconds); usage through T is the same whether
// a job that ends at T has ended yet or not, so the recompute need not wait
// for them.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_PASS_CLOCK_H_
#define SLURM_BUDGET_LIBBUDGET_PASS_CLOCK_H_

#include "libbudget/standing.h"

namespace budget {

constexpr double kRecalcOffset = 0.05;  // seconds into its second
constexpr double kSliceSettle = 0.15;   // seconds

// The first wall-clock time after `now` (seconds since the epoch, with
// their fraction) that is a whole multiple of `interval` (>= 1 s; smaller
// is taken as 1) plus `offset` (0 <= offset < 1).
double NextAlignedTime(double now, Seconds interval, double offset);

// Whether `now` falls in the first `settle` seconds of its second.
bool InSettleWindow(double now, double settle);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PASS_CLOCK_H_
