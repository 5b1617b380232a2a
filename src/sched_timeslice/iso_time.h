// IsoTime: the one time format of the timeslice plugins' reasons and logs,
// "2026-11-29T09:10:00" in the controller's local time (what scontrol shows).
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_ISO_TIME_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_ISO_TIME_H_

#include <string>

#include "libbudget/standing.h"

namespace timeslice {

std::string IsoTime(budget::TimePoint t);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_ISO_TIME_H_
