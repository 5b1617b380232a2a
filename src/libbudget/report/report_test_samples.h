// Test-only: a report snapshot that uses every field, its comparison field
// by field, and the temporary files the report tests write. Included by the
// report tests (report_snapshot_test.cc, report_file_test.cc) after
// test_support.h.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_TEST_SAMPLES_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_TEST_SAMPLES_H_

#include <stdlib.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "libbudget/report/report_snapshot.h"

namespace {

using budget::FairShareOrder;
using budget::ReportSnapshot;
using budget::SnapshotHistory;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::SnapshotNode;
using budget::Status;

inline std::string TempDir() {
  char tmpl[] = "/tmp/report_snapshot_test.XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) fail_msg("mkdtemp failed");
  return dir;
}

inline void WriteText(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

// A snapshot that uses every field, including the special values (null rank,
// infinite sibling ratio, absent times, a preemption record).
inline ReportSnapshot Sample() {
  ReportSnapshot s;
  s.generated_at = 1700000000;
  s.tree_source = "/etc/slurm/budget-tree.json";
  s.window = 604800;
  s.bucket_width = 300;
  s.history_width = 3600;
  s.recalc_interval = 30;
  s.capacity_gpus = 64;
  s.has_fragmentation = true;
  s.fragmentation = 0.125;
  s.gpu_type_weights.Set("b200", 2);
  s.gpu_type_weights.Set("h100", 1);
  s.pass_seconds = 0.0125;
  SnapshotNode root;
  root.name = "cluster";
  root.owners = {"director"};
  root.window_usage = 7200.5;
  SnapshotNode llm;
  llm.path = "llm";
  llm.name = "llm";
  llm.depth = 1;
  llm.owners = {"pi-llm", "deputy"};
  llm.account = "llm";
  llm.user = "";
  llm.share = 50;
  llm.normalized_share = 0.5;
  llm.entitlement = 0.5;
  llm.window_usage = 3600;
  llm.usage_ratio = 0.25;
  llm.unallocated = 120;
  llm.owed = 7200;
  llm.delivered = 3600;
  llm.running_gpus = 8;
  llm.pending_gpus = 16;
  llm.sibling_ratio = 0.75;
  llm.rank = 0;
  SnapshotNode idle;
  idle.path = "idle";
  idle.name = "idle";
  idle.depth = 1;
  idle.account = "idle";
  idle.sibling_ratio = std::numeric_limits<double>::infinity();
  idle.rank = 1;
  s.nodes = {root, llm, idle};
  SnapshotJob pending;
  pending.job_id = 12;
  pending.user = "alice";
  pending.account = "llm";
  pending.node_path = "llm";
  pending.has_node = true;
  pending.gpus = 8;
  pending.contract_known = true;
  pending.min_runtime = 900;
  pending.resumable = true;
  pending.user_priority = 5;
  pending.priority = 0x80000000u + 7;
  pending.fairshare = 1.0;
  pending.rank = 0;
  pending.allocated = true;
  pending.queue_position = 0;
  pending.submit_time = 1699999000;
  SnapshotJob preempted;
  preempted.job_id = 9;
  preempted.state = SnapshotJobState::kPreempted;
  preempted.user = "bob";
  preempted.account = "nowhere";
  preempted.gpus = 4;
  preempted.submit_time = 1699990000;
  preempted.start_time = 1699991000;
  preempted.protection_end = 1699991000;
  preempted.has_preemption = true;
  preempted.preemption = {12, "unallocated", "requeue", 1699999500};
  s.jobs = {pending, preempted};
  SnapshotHistory h;
  h.path = "llm";
  h.start = 1699996400;
  h.width = 3600;
  h.delivered = {3600, 0};
  h.owed = {7200, 1.5};
  s.history = {h};
  return s;
}

inline void AssertNodesEqual(const SnapshotNode& a, const SnapshotNode& b) {
  assert_string_equal(a.path.c_str(), b.path.c_str());
  assert_string_equal(a.name.c_str(), b.name.c_str());
  assert_int_equal(a.depth, b.depth);
  assert_int_equal(a.owners.size(), b.owners.size());
  for (size_t i = 0; i < a.owners.size(); ++i) {
    assert_string_equal(a.owners[i].c_str(), b.owners[i].c_str());
  }
  assert_string_equal(a.account.c_str(), b.account.c_str());
  assert_string_equal(a.user.c_str(), b.user.c_str());
  const double pairs[][2] = {{a.share, b.share},
                             {a.normalized_share, b.normalized_share},
                             {a.entitlement, b.entitlement},
                             {a.window_usage, b.window_usage},
                             {a.usage_ratio, b.usage_ratio},
                             {a.unallocated, b.unallocated},
                             {a.owed, b.owed},
                             {a.delivered, b.delivered},
                             {a.running_gpus, b.running_gpus},
                             {a.pending_gpus, b.pending_gpus}};
  for (const auto& p : pairs) assert_float_equal(p[0], p[1], 0);
  if (std::isinf(a.sibling_ratio)) {
    assert_true(std::isinf(b.sibling_ratio));
  } else {
    assert_float_equal(a.sibling_ratio, b.sibling_ratio, 0);
  }
  assert_int_equal(a.rank, b.rank);
}

inline void AssertJobsEqual(const SnapshotJob& a, const SnapshotJob& b) {
  assert_int_equal(a.job_id, b.job_id);
  assert_int_equal(static_cast<int>(a.state), static_cast<int>(b.state));
  assert_string_equal(a.user.c_str(), b.user.c_str());
  assert_string_equal(a.account.c_str(), b.account.c_str());
  assert_string_equal(a.node_path.c_str(), b.node_path.c_str());
  assert_int_equal(a.has_node, b.has_node);
  assert_int_equal(a.gpus, b.gpus);
  assert_int_equal(a.contract_known, b.contract_known);
  assert_int_equal(a.min_runtime, b.min_runtime);
  assert_int_equal(a.resumable, b.resumable);
  assert_int_equal(a.user_priority, b.user_priority);
  assert_int_equal(a.priority, b.priority);
  assert_float_equal(a.fairshare, b.fairshare, 0);
  assert_int_equal(a.rank, b.rank);
  assert_int_equal(a.allocated, b.allocated);
  assert_int_equal(a.queue_position, b.queue_position);
  assert_int_equal(a.submit_time, b.submit_time);
  assert_int_equal(a.start_time, b.start_time);
  assert_int_equal(a.protection_end, b.protection_end);
  assert_int_equal(a.has_preemption, b.has_preemption);
  assert_int_equal(a.preemption.preempted_by, b.preemption.preempted_by);
  assert_string_equal(a.preemption.rule.c_str(), b.preemption.rule.c_str());
  assert_string_equal(a.preemption.action.c_str(), b.preemption.action.c_str());
  assert_int_equal(a.preemption.at, b.preemption.at);
}

inline void AssertSnapshotsEqual(const ReportSnapshot& a, const ReportSnapshot& b) {
  assert_int_equal(a.version, b.version);
  assert_int_equal(a.generated_at, b.generated_at);
  assert_string_equal(a.tree_source.c_str(), b.tree_source.c_str());
  assert_int_equal(a.window, b.window);
  assert_int_equal(a.bucket_width, b.bucket_width);
  assert_int_equal(a.history_width, b.history_width);
  assert_int_equal(a.recalc_interval, b.recalc_interval);
  assert_float_equal(a.capacity_gpus, b.capacity_gpus, 0);
  assert_int_equal(a.has_fragmentation, b.has_fragmentation);
  assert_float_equal(a.fragmentation, b.fragmentation, 0);
  assert_string_equal(a.gpu_type_weights.ToString().c_str(), b.gpu_type_weights.ToString().c_str());
  assert_float_equal(a.pass_seconds, b.pass_seconds, 0);
  assert_int_equal(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) AssertNodesEqual(a.nodes[i], b.nodes[i]);
  assert_int_equal(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) AssertJobsEqual(a.jobs[i], b.jobs[i]);
  assert_int_equal(a.history.size(), b.history.size());
  for (size_t i = 0; i < a.history.size(); ++i) {
    assert_string_equal(a.history[i].path.c_str(), b.history[i].path.c_str());
    assert_int_equal(a.history[i].start, b.history[i].start);
    assert_int_equal(a.history[i].width, b.history[i].width);
    assert_true(a.history[i].delivered == b.history[i].delivered);
    assert_true(a.history[i].owed == b.history[i].owed);
  }
}

inline std::string FileText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_TEST_SAMPLES_H_
