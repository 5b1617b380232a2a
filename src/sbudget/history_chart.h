// `sbudget history`: each allocation's delivered GPU time against what it
// was owed, slot by slot (hourly in production), from the report snapshot's
// series, as CSV or as an SVG chart.
//
// The chart is small multiples, one panel per allocation, sharing the time
// axis and one vertical scale (so that panels compare at a glance): the
// average GPUs delivered per slot as a filled area, the average GPUs owed as
// a dashed line, round times labelled under each panel, and the panel's
// title gives delivered/owed over the shown period. Average GPUs, not
// GPU-hours per slot: a slot's GPU-seconds over the seconds it covers. The
// last slot holds the snapshot's time and covers only the part of it that
// has passed; it is drawn that wide and averaged over that part, so it is
// not a drop.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_
#define SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_

#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"

namespace sbudget {

// The series to show: those of `paths` (empty: every series down to depth
// 1, i.e. the root and its children), with slots starting before `since`
// dropped.
std::vector<budget::SnapshotHistory> SelectHistory(const budget::ReportSnapshot& snapshot,
                                                   const std::vector<std::string>& paths,
                                                   budget::TimePoint since);

// The seconds slot k of `h` covers: its width, or for a last slot that
// holds `generated_at`, the part up to then (at least 1).
budget::Seconds SlotSeconds(const budget::SnapshotHistory& h, size_t k, budget::TimePoint generated_at);

// "path,slot_start,slot_seconds,delivered_gpu_hours,owed_gpu_hours,
// delivered_gpus,owed_gpus" then one row per series and slot; slot_start in
// seconds since the epoch, slot_seconds what the slot covers (SlotSeconds),
// the *_gpus the average GPUs over it. The root's path is written as its
// name.
std::string FormatHistoryCsv(const std::vector<budget::SnapshotHistory>& series,
                             const std::string& root_name, budget::TimePoint generated_at);

// A standalone SVG document.
std::string FormatHistorySvg(const std::vector<budget::SnapshotHistory>& series,
                             const std::string& root_name, budget::TimePoint generated_at,
                             double capacity_gpus);

// Round local times in [first, last] for the time axis, at most about
// `max_ticks` of them: multiples of 5, 10, 15 or 30 minutes, 1, 2, 3, 6 or
// 12 hours, or days at local midnight.
std::vector<budget::TimePoint> RoundTimeTicks(budget::TimePoint first, budget::TimePoint last, size_t max_ticks);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_
