// Tests of the report snapshot's builders (report_builders.h) over a small
// hand-computed tree, ledger and order.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "libbudget/testing/test_support.h"

#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/state/tree.h"

namespace {

using budget::FairShareOrder;
using budget::ReportSnapshot;
using budget::SnapshotHistory;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::SnapshotNode;
using budget::Status;

// --- builders ----------------------------------------------------------

// cluster 0 -> a 1 (share 70), b 2 (share 30).
const char kTwoTeams[] = R"({ "name": "cluster", "owners": ["boss"], "children": [
    { "name": "a", "share": 70, "account": "a" },
    { "name": "b", "share": 30, "account": "b" } ] })";

// 10 GPUs, a 2 h window of 10-minute buckets, 1 h history slots; now =
// 7199, so the window's slots are [0, 3600) and [3600, 7200).
constexpr double kCapacity = 10;
constexpr budget::TimePoint kNow = 7199;

struct Fixture {
  budget::AllocationTree tree;
  budget::Ledger ledger{budget::Ledger::Options{7200, 600, 3600}};
  FairShareOrder order;
  ReportSnapshot snapshot;
};

Fixture MakeFixture() {
  Fixture f;
  Status s = budget::AllocationTree::Parse(kTwoTeams, "t.json", &f.tree, nullptr);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  using S = budget::Ledger::Series;
  // a: 10 GPUs of allocated work through the first hour, asked for as well.
  f.ledger.Charge("a", S::kAllocated, 0, 3600, 10);
  f.ledger.Charge("a", S::kDemand, 0, 3600, 10);
  // b: 2 GPUs for half of the second hour, 4 GPUs asked for all of it, and
  // 1 GPU of unallocated work through it.
  f.ledger.Charge("b", S::kAllocated, 3600, 5400, 2);
  f.ledger.Charge("b", S::kDemand, 3600, 7200, 4);
  f.ledger.Charge("b", S::kUnallocated, 3600, 7200, 1);
  std::vector<double> usage(f.tree.size());
  for (size_t i = 0; i < f.tree.size(); ++i) {
    usage[i] = f.ledger.WindowUsage(f.tree.node(i).path, S::kAllocated, kNow);
  }
  s = f.order.Compute(f.tree, usage, {0, 1, 1}, kCapacity, 7200);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  f.snapshot.capacity_gpus = kCapacity;
  f.snapshot.window = 7200;
  f.snapshot.history_width = 3600;
  return f;
}

void TestNodesCarryOrderLedgerAndMetrics(void**) {
  Fixture f = MakeFixture();
  std::vector<budget::NodeActivity> activity = {{0, 0}, {10, 0}, {2, 2}};
  Status s = budget::BuildSnapshotNodes(f.tree, f.order, activity, kNow, &f.ledger, &f.snapshot);
  assert_true(s.ok());
  assert_int_equal(f.snapshot.nodes.size(), 3);
  const SnapshotNode& root = f.snapshot.nodes[0];
  const SnapshotNode& a = f.snapshot.nodes[1];
  const SnapshotNode& b = f.snapshot.nodes[2];
  assert_string_equal(root.name.c_str(), "cluster");
  assert_string_equal(root.owners[0].c_str(), "boss");
  assert_string_equal(a.path.c_str(), "a");
  assert_int_equal(a.depth, 1);
  // a: 10 x 3600 = 36000 GPU-s; b: 2 x 1800 = 3600; root 39600.
  assert_float_equal(a.window_usage, 36000, 0);
  assert_float_equal(b.window_usage, 3600, 0);
  assert_float_equal(root.window_usage, 39600, 0);
  // a's usage ratio: 36000 / (0.7 x 10 x 7200 = 50400) = 0.714
  assert_float_equal(a.usage_ratio, 36000.0 / 50400, 1e-12);
  // Ratios: a (36000/39600)/0.7 = 1.2987 > b (3600/39600)/0.3 = 0.3030, so
  // b ranks first (0), a second (1); the root has no rank.
  assert_int_equal(b.rank, 0);
  assert_int_equal(a.rank, 1);
  assert_false(root.has_rank());
  assert_float_equal(a.sibling_ratio, 36000.0 / 39600 / 0.7, 1e-12);
  // Entitled per hour: a 0.7 x 10 x 3600 = 25200, b 0.3 x 10 x 3600 = 10800.
  // a owed min(25200, 36000) + min(25200, 0) = 25200, delivered 36000.
  assert_float_equal(a.owed, 25200, 1e-9);
  assert_float_equal(a.delivered, 36000, 1e-9);
  // b owed min(10800, 0) + min(10800, 4 x 3600 = 14400) = 10800, delivered 3600.
  assert_float_equal(b.owed, 10800, 1e-9);
  assert_float_equal(b.delivered, 3600, 1e-9);
  // 3600 / 10800 = 1/3 of what b was owed.
  assert_float_equal(b.DeliveredOverOwed(), 1.0 / 3, 1e-12);
  // Root: min(36000, 36000) + min(36000, 14400) = 50400 owed; 39600 delivered.
  assert_float_equal(root.owed, 50400, 1e-9);
  assert_float_equal(root.delivered, 39600, 1e-9);
  // Unallocated: b 1 x 3600, summed into the root.
  assert_float_equal(b.unallocated, 3600, 0);
  assert_float_equal(root.unallocated, 3600, 0);
  // GPUs: root running 10 + 2 = 12, pending 0 + 2 = 2.
  assert_float_equal(root.running_gpus, 12, 0);
  assert_float_equal(root.pending_gpus, 2, 0);
  assert_float_equal(b.pending_gpus, 2, 0);
}

void TestNodesRefuseMismatchedInputs(void**) {
  Fixture f = MakeFixture();
  f.snapshot.nodes.resize(1);
  // activity of 2 entries for a 3-node tree.
  Status s = budget::BuildSnapshotNodes(f.tree, f.order, {{0, 0}, {0, 0}}, kNow, &f.ledger,
                                        &f.snapshot);
  assert_false(s.ok());
  assert_non_null(strstr(s.message().c_str(), "activity has 2 entries, the tree 3 nodes"));
  assert_int_equal(f.snapshot.nodes.size(), 1);
  // An order never computed covers 0 nodes.
  FairShareOrder empty;
  s = budget::BuildSnapshotNodes(f.tree, empty, {}, kNow, &f.ledger, &f.snapshot);
  assert_non_null(strstr(s.message().c_str(), "the order covers 0 nodes, the tree 3"));
  assert_int_equal(f.snapshot.nodes.size(), 1);
}

void TestHistoryIsHourlyDeliveredAgainstOwed(void**) {
  Fixture f = MakeFixture();
  budget::BuildSnapshotHistory(f.tree, 0, kNow, f.ledger, &f.snapshot);
  // max_depth 0: the root only.
  assert_int_equal(f.snapshot.history.size(), 1);
  const SnapshotHistory& h = f.snapshot.history[0];
  assert_string_equal(h.path.c_str(), "");
  // Two slots of the 2 h window, the first starting at 0.
  assert_int_equal(h.start, 0);
  assert_int_equal(h.width, 3600);
  assert_int_equal(h.delivered.size(), 2);
  // delivered: hour 0 a's 36000; hour 1 b's 3600.
  assert_float_equal(h.delivered[0], 36000, 1e-9);
  assert_float_equal(h.delivered[1], 3600, 1e-9);
  // owed: min(36000, 36000) = 36000; min(36000, 14400) = 14400.
  assert_float_equal(h.owed[0], 36000, 1e-9);
  assert_float_equal(h.owed[1], 14400, 1e-9);
  f.snapshot.history.clear();
  budget::BuildSnapshotHistory(f.tree, 1, kNow, f.ledger, &f.snapshot);
  // Depth 1: root, a, b.
  assert_int_equal(f.snapshot.history.size(), 3);
  assert_string_equal(f.snapshot.history[2].path.c_str(), "b");
  // b hour 1: min(10800, 14400) = 10800.
  assert_float_equal(f.snapshot.history[2].owed[1], 10800, 1e-9);
  // The same series from BuildSnapshotNodes's own reads, replacing the old.
  f.snapshot.history.resize(7);
  assert_true(budget::BuildSnapshotNodes(f.tree, f.order, {}, kNow, &f.ledger, &f.snapshot, 0).ok());
  assert_int_equal(f.snapshot.history.size(), 1);
  // Root hour 1: min(36000, 14400) = 14400 owed, 3600 delivered.
  assert_float_equal(f.snapshot.history[0].owed[1], 14400, 1e-9);
  assert_float_equal(f.snapshot.history[0].delivered[1], 3600, 1e-9);
}

void TestJobsGetPriorityAndQueuePositionFromTheOrder(void**) {
  Fixture f = MakeFixture();
  auto job = [](uint32_t id, SnapshotJobState state, const char* path, budget::Seconds min_rt,
                budget::TimePoint submit) {
    SnapshotJob j;
    j.job_id = id;
    j.state = state;
    j.node_path = path;
    j.has_node = path[0] != '\0';
    j.min_runtime = min_rt;
    j.submit_time = submit;
    return j;
  };
  std::vector<SnapshotJob> jobs = {
      job(1, SnapshotJobState::kPending, "a", 900, 10),
      job(2, SnapshotJobState::kPending, "b", 900, 20),
      job(3, SnapshotJobState::kPending, "b", 0, 5),
      job(4, SnapshotJobState::kRunning, "a", 900, 1),
      job(5, SnapshotJobState::kPending, "", 900, 1),
  };
  budget::RankSnapshotJobs(f.tree, f.order, &jobs);
  // Allocated first: b (rank 0) job 2, a (rank 1) job 1. Job 5 maps to no
  // node, so it is unallocated despite its min-runtime (as the plugin runs
  // it); among the unallocated, job 3 on b (rank 0) before job 5 (no rank),
  // although job 5 was submitted first.
  assert_int_equal(jobs[1].queue_position, 0);
  assert_int_equal(jobs[0].queue_position, 1);
  assert_int_equal(jobs[2].queue_position, 2);
  assert_int_equal(jobs[4].queue_position, 3);
  // Running jobs have no place in the queue.
  assert_int_equal(jobs[3].queue_position, SnapshotJob::kNoPosition);
  // Factors: b's rank 0 of 2 ranked nodes -> fairshare 1 - 0/2 = 1;
  // a's rank 1 -> 1 - 1/2 = 0.5.
  assert_int_equal(jobs[1].rank, 0);
  assert_float_equal(jobs[1].fairshare, 1.0, 1e-12);
  assert_float_equal(jobs[0].fairshare, 0.5, 1e-12);
  assert_int_equal(jobs[4].rank, FairShareOrder::kNoRank);
  assert_true(jobs[1].allocated);
  assert_false(jobs[2].allocated);
  assert_false(jobs[4].allocated);
  // Priorities follow the order: 2 > 1 > 3 > 5, none 0.
  assert_true(jobs[1].priority > jobs[0].priority);
  assert_true(jobs[0].priority > jobs[2].priority);
  assert_true(jobs[2].priority > jobs[4].priority);
  assert_true(jobs[4].priority > 0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestNodesCarryOrderLedgerAndMetrics),
      cmocka_unit_test(TestNodesRefuseMismatchedInputs),
      cmocka_unit_test(TestHistoryIsHourlyDeliveredAgainstOwed),
      cmocka_unit_test(TestJobsGetPriorityAndQueuePositionFromTheOrder),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
