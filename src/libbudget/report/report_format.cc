// The report snapshot's JSON text (report_format.h).
#include "libbudget/report/report_format.h"

#include <cmath>
#include <cstring>

#include "libbudget/report/json_writer.h"

namespace budget {

namespace {

void WriteTime(JsonWriter& w, TimePoint t) {
  if (t == SnapshotJob::kNoTime) {
    w.Null();
  } else {
    w.Int(t);
  }
}

void WriteRank(JsonWriter& w, uint32_t rank) {
  if (rank == FairShareOrder::kNoRank) {
    w.Null();
  } else {
    w.Int(rank);
  }
}

// Bit for bit: 0 and -0 are written differently.
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void WriteNode(JsonWriter& w, const SnapshotNode& n) {
  w.BeginObject();
  WriteNodeTreeFields(w, n);
  WriteNodePassFields(w, n);
  w.EndObject();
}

void WriteJobRow(JsonWriter& w, const SnapshotJob& j) {
  w.BeginArray();
  w.Int(j.job_id);
  w.String(SnapshotJobStateName(j.state));
  w.String(j.user);
  w.String(j.account);
  if (j.has_node) {
    w.String(j.node_path);
  } else {
    w.Null();
  }
  w.Int(j.gpus);
  w.Bool(j.contract_known);
  w.Int(j.min_runtime);
  w.Bool(j.resumable);
  w.Int(j.user_priority);
  w.Int(j.priority);
  w.Double(j.fairshare);
  WriteRank(w, j.rank);
  w.Bool(j.allocated);
  if (j.queue_position == SnapshotJob::kNoPosition) {
    w.Null();
  } else {
    w.Int(j.queue_position);
  }
  w.Int(j.submit_time);
  WriteTime(w, j.start_time);
  WriteTime(w, j.protection_end);
  if (j.has_preemption) {
    w.BeginObject();
    w.Key("preempted_by").Int(j.preemption.preempted_by);
    w.Key("rule").String(j.preemption.rule);
    w.Key("action").String(j.preemption.action);
    w.Key("at").Int(j.preemption.at);
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndArray();
}

void WriteMilliRounded(JsonWriter& w, const std::vector<double>& values) {
  w.BeginArray();
  for (double v : values) w.Double(MilliRounded(v));
  w.EndArray();
}

void WriteNodes(JsonWriter& w, const ReportSnapshot& s) {
  w.BeginArray();
  for (const SnapshotNode& n : s.nodes) WriteNode(w, n);
  w.EndArray();
}

// kWhole: the report; kStandings: the same document with no job rows and
// no history (WriteStandingsSnapshot).
enum class SnapshotPart { kWhole, kStandings };

void WriteSnapshot(JsonWriter& w, const ReportSnapshot& s, SnapshotPart part = SnapshotPart::kWhole) {
  const bool whole = part == SnapshotPart::kWhole;
  WriteReportHead(w, s);
  WriteNodes(w.Key("nodes"), s);
  WriteReportJobs(w, s, whole);
  w.Key("history").BeginArray();
  if (whole) {
    for (const SnapshotHistory& h : s.history) WriteHistory(w, h);
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WriteNodeTreeFields(JsonWriter& w, const SnapshotNode& n) {
  w.Key("path").String(n.path);
  w.Key("name").String(n.name);
  w.Key("depth").Int(n.depth);
  w.Key("owners").BeginArray();
  for (const std::string& owner : n.owners) w.String(owner);
  w.EndArray();
  w.Key("account").String(n.account);
  w.Key("user").String(n.user);
  w.Key("share").Double(n.share);
  w.Key("normalized_share").Double(n.normalized_share);
  w.Key("entitlement").Double(n.entitlement);
}

bool SameTreeFields(const SnapshotNode& a, const SnapshotNode& b) {
  return a.path == b.path && a.name == b.name && a.depth == b.depth && a.owners == b.owners &&
         a.account == b.account && a.user == b.user && SameBits(a.share, b.share) &&
         SameBits(a.normalized_share, b.normalized_share) && SameBits(a.entitlement, b.entitlement);
}

void WriteNodePassFields(JsonWriter& w, const SnapshotNode& n) {
  w.Key("window_usage").Double(n.window_usage);
  w.Key("usage_ratio").Double(n.usage_ratio);
  w.Key("unallocated").Double(n.unallocated);
  w.Key("owed").Double(n.owed);
  w.Key("delivered").Double(n.delivered);
  w.Key("running_gpus").Double(n.running_gpus);
  w.Key("pending_gpus").Double(n.pending_gpus);
  w.Key("sibling_ratio").Double(n.sibling_ratio);
  WriteRank(w.Key("rank"), n.rank);
}

const char* const kJobFields[19] = {
    "job_id",        "state",          "user",          "account",      "node_path",
    "gpus",          "contract_known", "min_runtime",   "resumable",    "user_priority",
    "priority",      "fairshare",      "rank",          "allocated",    "queue_position",
    "submit_time",   "start_time",     "protection_end", "preemption"};
const char kOptionalJobField[] = "preemption";

double MilliRounded(double v) { return std::isfinite(v) ? std::round(v * 1000.0) / 1000.0 : v; }

void WriteHistory(JsonWriter& w, const SnapshotHistory& h) {
  w.BeginObject();
  w.Key("path").String(h.path);
  w.Key("start").Int(h.start);
  w.Key("width").Int(h.width);
  WriteMilliRounded(w.Key("delivered"), h.delivered);
  WriteMilliRounded(w.Key("owed"), h.owed);
  w.EndObject();
}

void WriteReportHead(JsonWriter& w, const ReportSnapshot& s) {
  w.BeginObject();
  w.Key("format").String(kReportSnapshotFormat);
  w.Key("version").Int(kReportSnapshotVersion);
  w.Key("generated_at").Int(s.generated_at);
  w.Key("tree_source").String(s.tree_source);
  w.Key("window").Int(s.window);
  w.Key("bucket_width").Int(s.bucket_width);
  w.Key("history_width").Int(s.history_width);
  w.Key("recalc_interval").Int(s.recalc_interval);
  w.Key("preempt_notice").Int(s.preempt_notice);
  w.Key("capacity_gpus").Double(s.capacity_gpus);
  if (s.has_fragmentation) {
    w.Key("fragmentation").Double(s.fragmentation);
  } else {
    w.Key("fragmentation").Null();
  }
  w.Key("tree_loaded").Bool(s.tree_loaded);
  w.Key("gpu_weights").BeginObject();
  for (const GpuTypeWeights::Entry& e : s.gpu_type_weights.entries()) w.Key(e.first).Double(e.second);
  w.EndObject();
  if (s.has_pass_seconds()) w.Key("pass_seconds").Double(s.pass_seconds);
}

void WriteReportJobs(JsonWriter& w, const ReportSnapshot& s, bool rows) {
  w.Key("job_fields").BeginArray();
  for (const char* field : kJobFields) w.String(field);
  w.EndArray();
  w.Key("jobs").BeginArray();
  if (rows) {
    for (const SnapshotJob& j : s.jobs) WriteJobRow(w, j);
  }
  w.EndArray();
}

void FormatReportSnapshotInto(const ReportSnapshot& snapshot, std::string* out) {
  out->clear();
  // Measured on the benchmark's snapshot: ~140 bytes per job row, ~380 per
  // node, ~9 per history value. A little over, so that a first write does
  // not regrow (and copy) the buffer at 90%; a kept buffer has the room.
  size_t history_values = 0;
  for (const SnapshotHistory& h : snapshot.history) {
    history_values += h.delivered.size() + h.owed.size();
  }
  const size_t estimate = 4096 + 150 * snapshot.jobs.size() + 400 * snapshot.nodes.size() +
                          100 * snapshot.history.size() + 10 * history_values;
  if (out->capacity() < estimate) out->reserve(estimate);
  JsonWriter w(out);
  WriteSnapshot(w, snapshot);
  out->push_back('\n');
}

std::string FormatReportSnapshot(const ReportSnapshot& snapshot) {
  std::string text;
  FormatReportSnapshotInto(snapshot, &text);
  return text;
}

void FormatStandingsSnapshotInto(const ReportSnapshot& report, std::string* out) {
  out->clear();
  JsonWriter w(out);
  WriteSnapshot(w, report, SnapshotPart::kStandings);
  out->push_back('\n');
}

}  // namespace budget
