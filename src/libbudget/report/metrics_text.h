// MetricsText: the suite's state as metrics text, for Prometheus (through
// node_exporter's textfile collector) or any scraper: what `sbudget
// metrics` prints. The rules of the output live here, once: the families
// (kMetricFamilies, in metrics_text.cc), their names, types and help, how a
// value and a label value are written.
//
// Sources: the report snapshot (report_snapshot.h, required), select/topo's
// packing state (packing_state.h) and preempt/timeslice's counts
// (timeslice_counts.h), each optional: a family whose source is null is left
// out (its HELP and TYPE too), never written as 0. (preempt/timeslice writes
// its counts file at its first preemption or drain: until then `sbudget
// metrics` has no counters to show.)
//
// Names follow Prometheus' conventions: the prefix slurm_budget_, base units
// (seconds and GPU-seconds, never hours; fractions as ratios in [0, 1]),
// counters end in _total. Per allocation (a node of the tree), the labels are
// path (the tree path; "/" for the root, whose path is "") and account, on
// the nodes that bind one.
//
// Two forms of one content, differing only where the two formats differ:
//   kPrometheus  the text exposition format 0.0.4, what node_exporter's
//                textfile collector and `promtool check metrics` read: a
//                counter's HELP and TYPE name its sample, `..._total`.
//   kOpenMetrics OpenMetrics 1.0: a counter's HELP and TYPE name the family,
//                without `_total`.
// Both end with the line "# EOF" (OpenMetrics' terminator; a comment in the
// Prometheus format), so a reader can tell a whole text from a cut one.
// Families come in table order; samples of one family in the snapshot's node
// order (pre-order) or by rule name.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_METRICS_TEXT_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_METRICS_TEXT_H_

#include <string>
#include <string_view>

#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/timeslice_counts.h"
#include "libbudget/report/report_snapshot.h"

namespace budget {

enum class MetricsForm { kPrometheus, kOpenMetrics };

// What the metrics are made of; null: that file is absent.
struct MetricsSources {
  const ReportSnapshot* report = nullptr;     // REQUIRED: not null
  const PackingState* packing = nullptr;      // select_topo_state.json
  const TimesliceCounts* timeslice = nullptr; // timeslice_state.json
};

// The whole text at `now` (the report's age is now - generated_at).
std::string FormatMetricsText(const MetricsSources& sources, TimePoint now, MetricsForm form);

// A label value between its double quotes: backslash, double quote and
// line feed escaped as \\, \" and \n (both formats' rule).
std::string EscapeLabelValue(std::string_view value);

// A sample value: a whole number below 2^53 in full ("1700000000"), else
// the shortest text that reads back as `value` ("0.35", "1e+21"); "+Inf",
// "-Inf" or "NaN".
std::string FormatSampleValue(double value);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_METRICS_TEXT_H_
