// MetricsText: see metrics_text.h.
#include "libbudget/report/metrics_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

namespace budget {

namespace {

struct Sample {
  std::string labels;  // "" or `{name="value",...}`, values escaped
  double value = 0.0;
};

// One family: its samples, or false when its source is absent (the family
// is then left out, HELP and TYPE too).
using SampleFn = bool (*)(const MetricsSources&, TimePoint now, std::vector<Sample>*);

struct MetricFamily {
  const char* name;  // a counter's without "_total"
  bool counter;      // else a gauge
  const char* help;  // no backslash, line feed or double quote
  SampleFn samples;
};

std::string Label(const char* name, std::string_view value) {
  return std::string(name) + "=\"" + EscapeLabelValue(value) + "\"";
}

// {path="llm/pretrain",account="pretrain"}; the root's path "" is "/".
std::string AllocationLabels(const SnapshotNode& node) {
  std::string labels = "{" + Label("path", node.path.empty() ? "/" : node.path);
  if (!node.account.empty()) labels += "," + Label("account", node.account);
  return labels + "}";
}

// One sample per allocation, in the snapshot's (pre-)order.
template <typename Value>
bool PerAllocation(const MetricsSources& in, Value value, std::vector<Sample>* out) {
  for (const SnapshotNode& node : in.report->nodes) out->push_back({AllocationLabels(node), value(node)});
  return true;
}

bool One(double value, std::vector<Sample>* out) {
  out->push_back({"", value});
  return true;
}

// The figure select/topo publishes; the report's copy of it when its state
// file is not at hand (report_snapshot.h "Fragmentation").
bool Fragmentation(const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
  if (in.packing != nullptr) return One(in.packing->fragmentation, out);
  if (in.report->has_fragmentation) return One(in.report->fragmentation, out);
  return false;
}

// Rules in name order; preemptions counted before the file kept rules
// (timeslice_counts.h) as rule "unrecorded", so the rules sum to the total.
bool PreemptionsByRule(const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
  if (in.timeslice == nullptr) return false;
  uint64_t by_rule = 0;
  for (const auto& [rule, n] : in.timeslice->preemptions_by_rule) {
    out->push_back({"{" + Label("rule", rule) + "}", double(n)});
    by_rule += n;
  }
  if (in.timeslice->preemptions > by_rule) {
    out->push_back({"{" + Label("rule", "unrecorded") + "}", double(in.timeslice->preemptions - by_rule)});
  }
  return true;
}

const MetricFamily kMetricFamilies[] = {
    {"slurm_budget_report_timestamp_seconds", false,
     "When priority/budget wrote the report snapshot, in seconds since the epoch.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return One(double(in.report->generated_at), out);
     }},
    {"slurm_budget_report_age_seconds", false,
     "Age of the report snapshot when this text was written; alert on time() minus the timestamp instead.",
     [](const MetricsSources& in, TimePoint now, std::vector<Sample>* out) {
       return One(double(in.report->Age(now)), out);
     }},
    {"slurm_budget_capacity_gpus", false, "GPUs of the cluster the report counts.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) { return One(in.report->capacity_gpus, out); }},
    {"slurm_budget_window_seconds", false, "The fair-share lookback window.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return One(double(in.report->window), out);
     }},
    {"slurm_budget_priority_pass_duration_seconds", false,
     "Wall time of the priority/budget pass that wrote the report.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.report->has_pass_seconds() && One(in.report->pass_seconds, out);
     }},
    {"slurm_budget_allocation_entitled_share_ratio", false,
     "Fraction of the cluster's GPU time the allocation is entitled to: its shares multiplied down the tree.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.entitlement; }, out);
     }},
    {"slurm_budget_allocation_window_usage_gpu_seconds", false,
     "Allocated GPU time the allocation and its subtree used over the window, which ranks it.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.window_usage; }, out);
     }},
    {"slurm_budget_allocation_usage_ratio", false,
     "Window usage over entitled GPU time (entitled share x capacity x window); 1 is exactly its share.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.usage_ratio; }, out);
     }},
    {"slurm_budget_allocation_owed_gpu_seconds", false,
     "GPU time owed to the allocation over the window: its entitled share of what it could have used.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.owed; }, out);
     }},
    {"slurm_budget_allocation_delivered_gpu_seconds", false,
     "GPU time delivered to the allocation over the window, to compare with what it was owed.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.delivered; }, out);
     }},
    {"slurm_budget_allocation_running_gpus", false, "GPUs held by the allocation's running jobs.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.running_gpus; }, out);
     }},
    {"slurm_budget_allocation_pending_gpus", false, "GPUs asked for by the allocation's pending jobs.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return PerAllocation(in, [](const SnapshotNode& n) { return n.pending_gpus; }, out);
     }},
    {"slurm_budget_allocation_rank", false,
     "Place in the fair-share order, 0 first; allocations without a rank have no sample.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       for (const SnapshotNode& node : in.report->nodes)
         if (node.has_rank()) out->push_back({AllocationLabels(node), double(node.rank)});
       return true;
     }},
    {"slurm_budget_fragmentation_ratio", false,
     "Share of the free GPUs that cannot host a whole-node job (select/topo), in [0, 1].", Fragmentation},
    {"slurm_budget_free_gpus", false, "Free GPUs on usable nodes (select/topo).",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.packing != nullptr && One(double(in.packing->free_gpus), out);
     }},
    {"slurm_budget_stranded_gpus", false, "Free GPUs on partially used nodes, which no whole-node job can use.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.packing != nullptr && One(double(in.packing->stranded_gpus), out);
     }},
    {"slurm_budget_hero_wait_seconds", false,
     "How long the current hero job has waited since it became eligible; 0 when there is no hero.",
     [](const MetricsSources& in, TimePoint now, std::vector<Sample>* out) {
       if (in.packing == nullptr) return false;
       const PackingState& p = *in.packing;
       return One(p.hero_active && p.hero_waiting_since > 0 ? double(now - p.hero_waiting_since) : 0.0, out);
     }},
    {"slurm_budget_quick_reserve_nodes", false,
     "Nodes in the quick-start reserve (QuickStartReserveNodes): the nodes running protected quick-start jobs "
     "and the spare ones (select/topo).",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.packing != nullptr && One(double(in.packing->reserve_nodes.size()), out);
     }},
    {"slurm_budget_packing_timestamp_seconds", false,
     "When select/topo last wrote its packing state, in seconds since the epoch.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.packing != nullptr && One(double(in.packing->time), out);
     }},
    {"slurm_budget_preemptions", true, "Jobs preempted by preempt/timeslice, by rule.", PreemptionsByRule},
    {"slurm_budget_automated_drains", true, "Automated drains (drain at contract end) preempt/timeslice ran.",
     [](const MetricsSources& in, TimePoint, std::vector<Sample>* out) {
       return in.timeslice != nullptr && One(double(in.timeslice->automated_drains), out);
     }},
};

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  // A whole number (a timestamp, a count) in full: the shortest form of
  // 1700000000 would be 1.7e+09. Below 2^53 every integer is exact.
  if (std::fabs(value) < 9007199254740992.0 && value == std::trunc(value)) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(value));
    (void)ec;
    return std::string(buf, end);
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  (void)ec;  // 32 bytes hold any double's shortest form
  return std::string(buf, end);
}

std::string FormatMetricsText(const MetricsSources& sources, TimePoint now, MetricsForm form) {
  std::string text;
  std::vector<Sample> samples;
  for (const MetricFamily& family : kMetricFamilies) {
    samples.clear();
    if (!family.samples(sources, now, &samples)) continue;
    const std::string sample_name = std::string(family.name) + (family.counter ? "_total" : "");
    // The one difference between the forms (metrics_text.h).
    const std::string described = form == MetricsForm::kOpenMetrics ? family.name : sample_name;
    text += "# HELP " + described + " " + family.help + "\n";
    text += "# TYPE " + described + (family.counter ? " counter\n" : " gauge\n");
    for (const Sample& s : samples) text += sample_name + s.labels + " " + FormatSampleValue(s.value) + "\n";
  }
  return text + "# EOF\n";
}

}  // namespace budget
