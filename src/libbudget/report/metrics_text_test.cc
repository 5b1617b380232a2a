// Tests of the metrics text (metrics_text.h): label values escaped, sample
// values written, and whole texts: a snapshot with two allocations, and the
// families of select/topo's and preempt/timeslice's state files in both
// forms.
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <limits>
#include <string>

#include "libbudget/report/metrics_text.h"

using budget::EscapeLabelValue;
using budget::FormatMetricsText;
using budget::FormatSampleValue;
using budget::MetricsForm;
using budget::MetricsSources;
using budget::PackingState;
using budget::ReportSnapshot;
using budget::SnapshotNode;
using budget::TimesliceCounts;

namespace {

constexpr budget::TimePoint kGenerated = 1700000000;
constexpr budget::TimePoint kNow = kGenerated + 45;

void test_label_values_are_escaped(void**) {
  struct Case {
    const char* value;
    const char* escaped;
  };
  const Case cases[] = {
      {"llm/pretrain", "llm/pretrain"},
      {"", ""},
      {"a\\b", "a\\\\b"},                   // a backslash doubles
      {"say \"hi\"", "say \\\"hi\\\""},     // a double quote gets a backslash
      {"two\nlines", "two\\nlines"},        // a line feed is written \n
      {"\\\"\n", "\\\\\\\"\\n"},            // all three at once
      {"\xc3\xa9quipe", "\xc3\xa9quipe"},   // UTF-8 passes through
  };
  for (const Case& c : cases) assert_string_equal(EscapeLabelValue(c.value).c_str(), c.escaped);
}

void test_sample_values_are_written_shortest(void**) {
  struct Case {
    double value;
    const char* text;
  };
  const Case cases[] = {
      {3600, "3600"},
      {1700000000, "1700000000"},          // in full, not 1.7e+09
      {0, "0"},
      {0.35, "0.35"},
      {-0.5, "-0.5"},
      {0.1 + 0.2, "0.30000000000000004"},  // what reads back as the same double
      {1e21, "1e+21"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const Case& c : cases) assert_string_equal(FormatSampleValue(c.value).c_str(), c.text);
}

SnapshotNode Node(const char* path, const char* account, double entitlement, double usage, double ratio,
                  double owed, double delivered, double running, double pending, uint32_t rank) {
  SnapshotNode n;
  n.path = path;
  n.account = account;
  n.entitlement = entitlement;
  n.window_usage = usage;
  n.usage_ratio = ratio;
  n.owed = owed;
  n.delivered = delivered;
  n.running_gpus = running;
  n.pending_gpus = pending;
  n.rank = rank;
  return n;
}

// 16 GPUs over a 1-hour window: 16 x 3600 = 57,600 GPU-s in all.
// teama has 3 shares of 4 (0.75), used 21,600 GPU-s of its 0.75 x 57,600 =
// 43,200: ratio 0.5. teamb has 0.25, used 14,400 of 14,400: ratio 1. teama
// ranks first (0), teamb second (1); the root has no rank. The root sums its
// subtree: 36,000 used, ratio 36,000 / 57,600 = 0.625, owed 28,800 + 14,400.
ReportSnapshot TwoAllocations() {
  ReportSnapshot s;
  s.generated_at = kGenerated;
  s.window = 3600;
  s.capacity_gpus = 16;
  s.has_fragmentation = true;
  s.fragmentation = 0.125;
  s.pass_seconds = 0.015;
  s.nodes = {Node("", "", 1, 36000, 0.625, 43200, 36000, 12, 4, budget::FairShareOrder::kNoRank),
             Node("teama", "teama", 0.75, 21600, 0.5, 28800, 21600, 8, 4, 0),
             Node("teamb", "", 0.25, 14400, 1, 14400, 14400, 4, 0, 1)};
  return s;
}

void test_a_snapshot_with_two_allocations(void**) {
  ReportSnapshot report = TwoAllocations();
  MetricsSources in;
  in.report = &report;
  // No packing state: the fragmentation is the report's copy, and the
  // packing families are left out; no counts: the counters are left out.
  // teamb binds no account: it has no account label. Age: 45 s.
  const char expected[] =
      "# HELP slurm_budget_report_timestamp_seconds When priority/budget wrote the report snapshot, in seconds since the epoch.\n"
      "# TYPE slurm_budget_report_timestamp_seconds gauge\n"
      "slurm_budget_report_timestamp_seconds 1700000000\n"
      "# HELP slurm_budget_report_age_seconds Age of the report snapshot when this text was written; alert on time() minus the timestamp instead.\n"
      "# TYPE slurm_budget_report_age_seconds gauge\n"
      "slurm_budget_report_age_seconds 45\n"
      "# HELP slurm_budget_capacity_gpus GPUs of the cluster the report counts.\n"
      "# TYPE slurm_budget_capacity_gpus gauge\n"
      "slurm_budget_capacity_gpus 16\n"
      "# HELP slurm_budget_window_seconds The fair-share lookback window.\n"
      "# TYPE slurm_budget_window_seconds gauge\n"
      "slurm_budget_window_seconds 3600\n"
      "# HELP slurm_budget_priority_pass_duration_seconds Wall time of the priority/budget pass that wrote the report.\n"
      "# TYPE slurm_budget_priority_pass_duration_seconds gauge\n"
      "slurm_budget_priority_pass_duration_seconds 0.015\n"
      "# HELP slurm_budget_allocation_entitled_share_ratio Fraction of the cluster's GPU time the allocation is entitled to: its shares multiplied down the tree.\n"
      "# TYPE slurm_budget_allocation_entitled_share_ratio gauge\n"
      "slurm_budget_allocation_entitled_share_ratio{path=\"/\"} 1\n"
      "slurm_budget_allocation_entitled_share_ratio{path=\"teama\",account=\"teama\"} 0.75\n"
      "slurm_budget_allocation_entitled_share_ratio{path=\"teamb\"} 0.25\n"
      "# HELP slurm_budget_allocation_window_usage_gpu_seconds Allocated GPU time the allocation and its subtree used over the window, which ranks it.\n"
      "# TYPE slurm_budget_allocation_window_usage_gpu_seconds gauge\n"
      "slurm_budget_allocation_window_usage_gpu_seconds{path=\"/\"} 36000\n"
      "slurm_budget_allocation_window_usage_gpu_seconds{path=\"teama\",account=\"teama\"} 21600\n"
      "slurm_budget_allocation_window_usage_gpu_seconds{path=\"teamb\"} 14400\n"
      "# HELP slurm_budget_allocation_usage_ratio Window usage over entitled GPU time (entitled share x capacity x window); 1 is exactly its share.\n"
      "# TYPE slurm_budget_allocation_usage_ratio gauge\n"
      "slurm_budget_allocation_usage_ratio{path=\"/\"} 0.625\n"
      "slurm_budget_allocation_usage_ratio{path=\"teama\",account=\"teama\"} 0.5\n"
      "slurm_budget_allocation_usage_ratio{path=\"teamb\"} 1\n"
      "# HELP slurm_budget_allocation_owed_gpu_seconds GPU time owed to the allocation over the window: its entitled share of what it could have used.\n"
      "# TYPE slurm_budget_allocation_owed_gpu_seconds gauge\n"
      "slurm_budget_allocation_owed_gpu_seconds{path=\"/\"} 43200\n"
      "slurm_budget_allocation_owed_gpu_seconds{path=\"teama\",account=\"teama\"} 28800\n"
      "slurm_budget_allocation_owed_gpu_seconds{path=\"teamb\"} 14400\n"
      "# HELP slurm_budget_allocation_delivered_gpu_seconds GPU time delivered to the allocation over the window, to compare with what it was owed.\n"
      "# TYPE slurm_budget_allocation_delivered_gpu_seconds gauge\n"
      "slurm_budget_allocation_delivered_gpu_seconds{path=\"/\"} 36000\n"
      "slurm_budget_allocation_delivered_gpu_seconds{path=\"teama\",account=\"teama\"} 21600\n"
      "slurm_budget_allocation_delivered_gpu_seconds{path=\"teamb\"} 14400\n"
      "# HELP slurm_budget_allocation_running_gpus GPUs held by the allocation's running jobs.\n"
      "# TYPE slurm_budget_allocation_running_gpus gauge\n"
      "slurm_budget_allocation_running_gpus{path=\"/\"} 12\n"
      "slurm_budget_allocation_running_gpus{path=\"teama\",account=\"teama\"} 8\n"
      "slurm_budget_allocation_running_gpus{path=\"teamb\"} 4\n"
      "# HELP slurm_budget_allocation_pending_gpus GPUs asked for by the allocation's pending jobs.\n"
      "# TYPE slurm_budget_allocation_pending_gpus gauge\n"
      "slurm_budget_allocation_pending_gpus{path=\"/\"} 4\n"
      "slurm_budget_allocation_pending_gpus{path=\"teama\",account=\"teama\"} 4\n"
      "slurm_budget_allocation_pending_gpus{path=\"teamb\"} 0\n"
      "# HELP slurm_budget_allocation_rank Place in the fair-share order, 0 first; allocations without a rank have no sample.\n"
      "# TYPE slurm_budget_allocation_rank gauge\n"
      "slurm_budget_allocation_rank{path=\"teama\",account=\"teama\"} 0\n"
      "slurm_budget_allocation_rank{path=\"teamb\"} 1\n"
      "# HELP slurm_budget_fragmentation_ratio Share of the free GPUs that cannot host a whole-node job (select/topo), in [0, 1].\n"
      "# TYPE slurm_budget_fragmentation_ratio gauge\n"
      "slurm_budget_fragmentation_ratio 0.125\n"
      "# EOF\n";
  assert_string_equal(FormatMetricsText(in, kNow, MetricsForm::kPrometheus).c_str(), expected);
  // No counter among them: the OpenMetrics form is the same text.
  assert_string_equal(FormatMetricsText(in, kNow, MetricsForm::kOpenMetrics).c_str(), expected);
}

void test_an_allocation_label_is_escaped(void**) {
  ReportSnapshot report = TwoAllocations();
  report.nodes[2].path = "team\"b\"";
  MetricsSources in;
  in.report = &report;
  std::string text = FormatMetricsText(in, kNow, MetricsForm::kPrometheus);
  assert_true(text.find("slurm_budget_allocation_rank{path=\"team\\\"b\\\"\"} 1\n") != std::string::npos);
}

// The families after the report's, from both state files.
std::string StateFamilies(MetricsForm form) {
  ReportSnapshot report = TwoAllocations();
  PackingState packing;
  packing.time = kGenerated + 40;
  packing.fragmentation = 0.25;
  packing.free_gpus = 24;
  packing.stranded_gpus = 6;
  packing.hero_active = true;
  packing.hero_job_id = 12;
  packing.hero_waiting_since = kNow - 1800;
  packing.reserve_nodes = {"n1", "n4"};
  TimesliceCounts counts;
  counts.preemptions = 5;
  counts.automated_drains = 2;
  counts.preemptions_by_rule = {{"unallocated", 3}, {"over-served allocation", 1}};
  MetricsSources in;
  in.report = &report;
  in.packing = &packing;
  in.timeslice = &counts;
  std::string text = FormatMetricsText(in, kNow, form);
  return text.substr(text.find("# HELP slurm_budget_fragmentation_ratio"));
}

void test_the_state_files_families(void**) {
  // select/topo's figure (0.25) replaces the report's copy (0.125). The hero
  // became eligible 1,800 s before now. 5 preemptions, 3 + 1 of them with a
  // rule: the 1 counted before rules were kept is "unrecorded"; rules in
  // name order.
  const char expected[] =
      "# HELP slurm_budget_fragmentation_ratio Share of the free GPUs that cannot host a whole-node job (select/topo), in [0, 1].\n"
      "# TYPE slurm_budget_fragmentation_ratio gauge\n"
      "slurm_budget_fragmentation_ratio 0.25\n"
      "# HELP slurm_budget_free_gpus Free GPUs on usable nodes (select/topo).\n"
      "# TYPE slurm_budget_free_gpus gauge\n"
      "slurm_budget_free_gpus 24\n"
      "# HELP slurm_budget_stranded_gpus Free GPUs on partially used nodes, which no whole-node job can use.\n"
      "# TYPE slurm_budget_stranded_gpus gauge\n"
      "slurm_budget_stranded_gpus 6\n"
      "# HELP slurm_budget_hero_wait_seconds How long the current hero job has waited since it became eligible; 0 when there is no hero.\n"
      "# TYPE slurm_budget_hero_wait_seconds gauge\n"
      "slurm_budget_hero_wait_seconds 1800\n"
      "# HELP slurm_budget_quick_reserve_nodes Nodes in the quick-start reserve (QuickStartReserveNodes): the nodes running protected quick-start jobs and the spare ones (select/topo).\n"
      "# TYPE slurm_budget_quick_reserve_nodes gauge\n"
      "slurm_budget_quick_reserve_nodes 2\n"
      "# HELP slurm_budget_packing_timestamp_seconds When select/topo last wrote its packing state, in seconds since the epoch.\n"
      "# TYPE slurm_budget_packing_timestamp_seconds gauge\n"
      "slurm_budget_packing_timestamp_seconds 1700000040\n"
      "# HELP slurm_budget_preemptions_total Jobs preempted by preempt/timeslice, by rule.\n"
      "# TYPE slurm_budget_preemptions_total counter\n"
      "slurm_budget_preemptions_total{rule=\"over-served allocation\"} 1\n"
      "slurm_budget_preemptions_total{rule=\"unallocated\"} 3\n"
      "slurm_budget_preemptions_total{rule=\"unrecorded\"} 1\n"
      "# HELP slurm_budget_automated_drains_total Automated drains (drain at contract end) preempt/timeslice ran.\n"
      "# TYPE slurm_budget_automated_drains_total counter\n"
      "slurm_budget_automated_drains_total 2\n"
      "# EOF\n";
  assert_string_equal(StateFamilies(MetricsForm::kPrometheus).c_str(), expected);
  // OpenMetrics: a counter's HELP and TYPE name the family, without _total;
  // its samples keep it.
  std::string open = StateFamilies(MetricsForm::kOpenMetrics);
  assert_true(open.find("# TYPE slurm_budget_preemptions counter\n"
                        "slurm_budget_preemptions_total{rule=\"over-served allocation\"} 1\n") != std::string::npos);
  assert_true(open.find("# HELP slurm_budget_automated_drains Automated") != std::string::npos);
  assert_true(open.find("# TYPE slurm_budget_automated_drains counter\n"
                        "slurm_budget_automated_drains_total 2\n") != std::string::npos);
}

void test_no_hero_waits_zero(void**) {
  ReportSnapshot report = TwoAllocations();
  PackingState packing;  // no hero
  MetricsSources in;
  in.report = &report;
  in.packing = &packing;
  std::string text = FormatMetricsText(in, kNow, MetricsForm::kPrometheus);
  assert_true(text.find("\nslurm_budget_hero_wait_seconds 0\n") != std::string::npos);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_label_values_are_escaped),
      cmocka_unit_test(test_sample_values_are_written_shortest),
      cmocka_unit_test(test_a_snapshot_with_two_allocations),
      cmocka_unit_test(test_an_allocation_label_is_escaped),
      cmocka_unit_test(test_the_state_files_families),
      cmocka_unit_test(test_no_hero_waits_zero),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
