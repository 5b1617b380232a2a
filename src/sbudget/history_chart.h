// `sbudget history`: each allocation's delivered GPU time against what it
// was owed, slot by slot (hourly in production), from the report snapshot's
// series, as CSV or as an SVG chart.
//
// The chart is small multiples, one panel per allocation, sharing the time
// axis: delivered GPU-hours per slot as a filled area, owed GPU-hours as a
// dashed line, and the panel's title gives delivered/owed over the shown
// period. A manager reads at a glance which teams fell below their line and
// when. Each panel has its own vertical scale (teams differ by orders of
// magnitude); the scale's top is printed on the panel.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_
#define SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_

#include <string>
#include <vector>

#include "libbudget/report_snapshot.h"

namespace sbudget {

// The series to show: those of `paths` (empty: every series down to depth
// 1, i.e. the root and its children), with slots starting before `since`
// dropped.
std::vector<budget::SnapshotHistory> SelectHistory(const budget::ReportSnapshot& snapshot,
                                                   const std::vector<std::string>& paths,
                                                   budget::TimePoint since);

// "path,slot_start,slot_seconds,delivered_gpu_hours,owed_gpu_hours" then one
// row per series and slot; slot_start in seconds since the epoch. The root's
// path is written as its name.
std::string FormatHistoryCsv(const std::vector<budget::SnapshotHistory>& series,
                             const std::string& root_name);

// A standalone SVG document.
std::string FormatHistorySvg(const std::vector<budget::SnapshotHistory>& series,
                             const std::string& root_name);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_HISTORY_CHART_H_
