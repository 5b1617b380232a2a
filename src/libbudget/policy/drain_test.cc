// Tests of drain at contract end (drain.h).
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/policy/drain.h"

using budget::DrainPlan;
using budget::PlanDrain;
using budget::PreemptAction;
using budget::RunningJob;
using budget::Seconds;
using budget::Status;
using budget::TimePoint;

namespace {

const TimePoint kNow = 10000;

RunningJob Job(uint32_t id, TimePoint start, Seconds min_runtime, bool resumable,
               std::vector<int32_t> nodes) {
  RunningJob j;
  j.job_id = id;
  j.allocation = 0;
  j.start = start;
  j.min_runtime = min_runtime;
  j.resumable = resumable;
  for (int32_t n : nodes) j.nodes.push_back({n, 4});
  return j;
}

struct Departure {
  uint32_t job_id;
  bool leave_now;
  TimePoint leave_at;
  PreemptAction action;
};

void test_drain_times(void**) {
  // Draining: nodes 3, 5, 9, 11. Node 7 runs normally.
  std::vector<RunningJob> running = {
      Job(1, 9000, 600, true, {3}),      // protected through 9600 < 10000
      Job(2, 9500, 3600, false, {3}),    // protected through 13100
      Job(3, 9999, 0, true, {5}),        // unallocated: never protected
      Job(4, 9999, 100, true, {7}),      // not on a draining node
      Job(5, 8000, 7200, true, {3, 6}),  // protected through 15200; node 6 not draining
      Job(6, 9399, 600, false, {5}),     // protected through 9999: free at 10000 = now
      Job(7, 9900, 300, true, {5, 9}),   // protected through 10200, two draining nodes
  };
  DrainPlan plan;
  Status st = PlanDrain({3, 5, 9, 11}, running, kNow, &plan);
  assert_true(st.ok());
  const Departure expected[] = {
      // Protection ends (contract.h) at 9000 + 600 + 1 = 9601 <= 10000: now,
      // resumable -> requeue.
      {1, true, kNow, PreemptAction::kRequeue},
      // 9500 + 3600 + 1 = 13101 > 10000: at 13101, not resumable -> cancel.
      {2, false, 13101, PreemptAction::kCancel},
      // min-runtime 0: now.
      {3, true, kNow, PreemptAction::kRequeue},
      // (job 4 runs on node 7, not draining: absent)
      // 8000 + 7200 + 1 = 15201.
      {5, false, 15201, PreemptAction::kRequeue},
      // 9399 + 600 + 1 = 10000, not > 10000: now, cancel.
      {6, true, kNow, PreemptAction::kCancel},
      // 9900 + 300 + 1 = 10201, listed once though on nodes 5 and 9.
      {7, false, 10201, PreemptAction::kRequeue},
  };
  assert_int_equal(plan.departures.size(), sizeof expected / sizeof expected[0]);
  for (size_t i = 0; i < plan.departures.size(); ++i) {
    const budget::DrainDeparture& got = plan.departures[i];
    const Departure& want = expected[i];
    if (got.job_id != want.job_id || got.leave_now != want.leave_now ||
        got.leave_at != want.leave_at || got.action != want.action) {
      fail_msg("departure %zu: job %u now %d at %lld action %s; want job %u now %d at %lld %s", i,
               got.job_id, got.leave_now, (long long)got.leave_at,
               budget::PreemptActionName(got.action), want.job_id, want.leave_now,
               (long long)want.leave_at, budget::PreemptActionName(want.action));
    }
  }
  struct NodeEmpty {
    int32_t node;
    TimePoint empty_at;
  };
  const NodeEmpty nodes[] = {
      // Node 3: jobs 1 (now), 2 (13101), 5 (15201): max = 15201.
      {3, 15201},
      // Node 5: jobs 3 (now), 6 (now), 7 (10201): 10201.
      {5, 10201},
      // Node 9: job 7 (10201).
      {9, 10201},
      // Node 11: no jobs: empty now.
      {11, kNow},
  };
  assert_int_equal(plan.nodes.size(), 4);
  for (size_t i = 0; i < 4; ++i) {
    if (plan.nodes[i].node_index != nodes[i].node || plan.nodes[i].empty_at != nodes[i].empty_at) {
      fail_msg("node entry %zu: node %d empty at %lld; want node %d at %lld", i,
               plan.nodes[i].node_index, (long long)plan.nodes[i].empty_at, nodes[i].node,
               (long long)nodes[i].empty_at);
    }
  }
}

void test_drain_after_requeue_counts_new_start(void**) {
  // Requeued job restarted at 9800 with min-runtime 600: protected through
  // 10400, though its first run started long ago.
  DrainPlan plan;
  assert_true(PlanDrain({0}, {Job(1, 9800, 600, true, {0})}, kNow, &plan).ok());
  assert_false(plan.departures[0].leave_now);
  // 9800 + 600 + 1 = 10401.
  assert_true(plan.departures[0].leave_at == 10401);
  assert_true(plan.nodes[0].empty_at == 10401);
}

void test_drain_errors(void**) {
  struct Case {
    std::vector<int32_t> nodes;
    const char* message;
  };
  const Case cases[] = {
      {{1, -2}, "drain: node -2: negative index"},
      {{4, 1, 4}, "drain: node 4: given twice"},
  };
  for (const Case& c : cases) {
    DrainPlan plan;
    Status st = PlanDrain(c.nodes, {Job(1, 0, 0, true, {1})}, kNow, &plan);
    if (st.ok()) fail_msg("%s: accepted", c.message);
    if (st.message() != c.message) fail_msg("'%s', want '%s'", st.message().c_str(), c.message);
    // Nothing half-planned after an error.
    if (!plan.nodes.empty() || !plan.departures.empty()) fail_msg("%s: plan not empty", c.message);
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drain_times),
      cmocka_unit_test(test_drain_after_requeue_counts_new_start),
      cmocka_unit_test(test_drain_errors),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
