// Tests of the commitments added to the no-ping-pong projection: protected
// runs under way, fresh grants, what counts for nobody, and the effect on
// the pairwise rule (the k-th preemption of a team projects k runs).
#include "libbudget/testing/test_support.h"

#include <vector>

#include "libbudget/policy/commitments.h"
#include "libbudget/policy/preempt.h"

using budget::GrantedPreemptor;
using budget::RunningJob;
using budget::Standing;
using budget::TimePoint;

namespace {

constexpr TimePoint kNow = 1'800'000'000;

// A running job on `nodes` nodes (indices 0..nodes-1) of `gpus_per_node`.
RunningJob Running(uint32_t id, int32_t allocation, TimePoint start, budget::Seconds min_runtime,
                   uint32_t nodes, uint32_t gpus_per_node) {
  RunningJob r;
  r.job_id = id;
  r.allocation = allocation;
  r.start = start;
  r.min_runtime = min_runtime;
  for (uint32_t n = 0; n < nodes; ++n) r.nodes.push_back(budget::NodeGpus{int32_t(n), gpus_per_node});
  return r;
}

GrantedPreemptor Granted(uint32_t id, int32_t allocation, uint64_t gpus, budget::Seconds min_runtime,
                         TimePoint granted_at) {
  GrantedPreemptor g;
  g.job_id = id;
  g.allocation = allocation;
  g.gpus = gpus;
  g.min_runtime = min_runtime;
  g.granted_at = granted_at;
  return g;
}

void test_protected_runs_count_their_remaining_protection(void**) {
  std::vector<RunningJob> running = {
      Running(1, 1, kNow - 5, 20, 2, 4),    // protected through kNow + 15 (contract.h)
      Running(2, 1, kNow - 21, 20, 1, 8),   // protected through kNow - 1: over
      Running(3, 2, kNow - 1, 600, 1, 1),   // protected through kNow + 599
      Running(4, 2, kNow - 100, 20, 1, 8),  // protection over
  };
  std::vector<double> committed = budget::CommittedUsage(running, {}, 3, kNow);
  assert_int_equal(committed.size(), 3);
  // Allocation 0: nothing runs.
  assert_true(committed[0] == 0.0);
  // Allocation 1: job 1, 2 x 4 GPUs x 16 s (kNow .. kNow + 15) = 128; job 2
  // (end == now) 0.
  assert_true(committed[1] == 128.0);
  // Allocation 2: job 3, 1 GPU x 600 s = 600; job 4 0.
  assert_true(committed[2] == 600.0);
}

void test_grants_count_a_whole_protected_run_for_kGrantTtl(void**) {
  std::vector<GrantedPreemptor> granted = {
      Granted(5, 0, 8, 20, kNow - 5),    // fresh: 8 x 20 = 160
      Granted(6, 1, 16, 30, kNow - 60),  // exactly kGrantTtl old: still counts, 16 x 30 = 480
      Granted(7, 1, 8, 20, kNow - 61),   // 61 s > kGrantTtl: forgotten
      Granted(8, 2, 4, 10, kNow + 2),    // dated after now: no grant can be, refused: 0
      Granted(9, 2, 4, 10, budget::TimePoint{1} << 40),  // far in the future: refused, never "fresh for ever"
  };
  std::vector<double> committed = budget::CommittedUsage({}, granted, 3, kNow);
  // 160 / 480 / 0, as above.
  assert_true(committed[0] == 160.0);
  assert_true(committed[1] == 480.0);
  assert_true(committed[2] == 0.0);
}

void test_work_of_nobody_commits_nothing(void**) {
  std::vector<RunningJob> running = {
      Running(1, 0, kNow - 5, 0, 1, 8),                      // unallocated: never protected
      Running(2, budget::kNoAllocation, kNow - 5, 20, 1, 8),  // no allocation
      Running(3, 3, kNow - 5, 20, 1, 8),                     // allocation 3 of only 2
      Running(4, 0, kNow - 5, -7, 1, 8),                     // a bad record: treated as unallocated
  };
  std::vector<GrantedPreemptor> granted = {
      Granted(5, 1, 8, 0, kNow),                       // unallocated preemptor
      Granted(6, budget::kNoAllocation, 8, 20, kNow),  // no allocation
      Granted(7, 2, 8, 20, kNow),                      // out of range
  };
  std::vector<double> committed = budget::CommittedUsage(running, granted, 2, kNow);
  assert_int_equal(committed.size(), 2);
  // Every entry above is skipped: 0 and 0.
  assert_true(committed[0] == 0.0);
  assert_true(committed[1] == 0.0);
  // No allocations at all: an empty result, not an error.
  assert_int_equal(budget::CommittedUsage(running, granted, 0, kNow).size(), 0);
}

void test_running_and_granted_add_up_per_allocation(void**) {
  std::vector<RunningJob> running = {Running(1, 1, kNow - 5, 20, 1, 8)};  // 8 x 16 = 128
  std::vector<GrantedPreemptor> granted = {Granted(2, 1, 8, 20, kNow - 5)};  // 8 x 20 = 160
  // 128 + 160 = 288 for allocation 1.
  assert_true(budget::CommittedUsage(running, granted, 2, kNow)[1] == 288.0);
  // At kNow + 56 job 1's protection (through kNow + 15) is over and the grant
  // is 61 s old: 0.
  assert_true(budget::CommittedUsage(running, granted, 2, kNow + 56)[1] == 0.0);
}

void test_only_window_usage_is_raised(void**) {
  std::vector<Standing> standings(3);
  for (size_t i = 0; i < standings.size(); ++i) {
    standings[i].rank = uint32_t(i);
    standings[i].usage_ratio = 0.5;
    standings[i].entitlement = 0.25;
    standings[i].window_usage = 1000.0;
  }
  // Shorter than the standings: only the first two entries change.
  budget::RaiseWindowUsage({10.0, 20.0}, &standings);
  // 1000 + 10 = 1010, 1000 + 20 = 1020, 1000 untouched.
  assert_true(standings[0].window_usage == 1010.0);
  assert_true(standings[1].window_usage == 1020.0);
  assert_true(standings[2].window_usage == 1000.0);
  // Longer than the standings: the extra entries are ignored.
  budget::RaiseWindowUsage({0.0, 0.0, 0.0, 99.0}, &standings);
  assert_int_equal(standings.size(), 3);
  assert_true(standings[2].window_usage == 1000.0);
  // Rank, ratio and entitlement stay the standings' own.
  assert_int_equal(standings[1].rank, 1);
  assert_true(standings[1].usage_ratio == 0.5);
  assert_true(standings[1].entitlement == 0.25);
}

// Two allocations of entitlement 0.5 on 16 GPUs over a 600-s window:
// entitled = 0.5 x 16 x 600 = 4800 GPU-s each. Team 0 used 4000 (ratio
// 0.833), team 1 4272 (ratio 0.89) and holds both 8-GPU nodes unprotected;
// team 0's second preemptor (job 8: 8 GPUs, min-runtime 20) asks for job 6.
struct SecondPreemption {
  budget::ClusterScale scale{16, 600};
  std::vector<Standing> standings = {Standing{0, 4000.0 / 4800.0, 0.5, 4000.0},
                                     Standing{1, 4272.0 / 4800.0, 0.5, 4272.0}};
  RunningJob victim = Running(6, 1, kNow - 100, 20, 1, 8);
  budget::JobShape second = Second();

  static budget::JobShape Second() {
    budget::JobShape s;
    s.job_id = 8;
    s.allocation = 0;
    s.min_runtime = 20;
    s.gpus_per_node = 8;
    return s;
  }
  budget::PreemptVerdict Judge(const std::vector<Standing>& judged, TimePoint now) const {
    return budget::JudgePreemption(second, judged[0], victim, judged[1], scale, now);
  }
};

void test_second_preemption_of_a_team_projects_the_first(void**) {
  SecondPreemption t;
  // Alone: (4000 + 8 x 20) / 4800 = 0.867 <= 0.89: allowed.
  assert_true(t.Judge(t.standings, kNow) == budget::PreemptVerdict::kAllowedOverServed);
  // Team 0's first preemptor (job 7, 8 GPUs, min-runtime 20) started one
  // second ago, protected through kNow + 19: 8 x 20 = 160 committed. (4000 +
  // 160 + 160) / 4800 = 0.9 > 0.89: refused, the second node does not change
  // hands.
  std::vector<RunningJob> running = {Running(7, 0, kNow - 1, 20, 1, 8), t.victim};
  budget::AddCommitments(running, {}, kNow, &t.standings);
  assert_true(t.standings[0].window_usage == 4160.0);
  assert_true(t.Judge(t.standings, kNow) == budget::PreemptVerdict::kRefusedPingPong);
}

void test_a_grant_not_yet_started_projects_too(void**) {
  // Same teams; job 7 was granted a preemption 5 s ago and has not started:
  // 8 x 20 = 160 committed. (4000 + 160 + 160) / 4800 = 0.9 > 0.89: refused.
  SecondPreemption t;
  std::vector<Standing> judged = t.standings;
  budget::AddCommitments({t.victim}, {Granted(7, 0, 8, 20, kNow - 5)}, kNow, &judged);
  // 4000 + 160 = 4160.
  assert_true(judged[0].window_usage == 4160.0);
  assert_true(t.Judge(judged, kNow) == budget::PreemptVerdict::kRefusedPingPong);
  // 61 s after the grant it is forgotten: 0.867 again, allowed.
  judged = t.standings;
  budget::AddCommitments({t.victim}, {Granted(7, 0, 8, 20, kNow - 5)}, kNow + 56, &judged);
  assert_true(judged[0].window_usage == 4000.0);
  assert_true(t.Judge(judged, kNow + 56) == budget::PreemptVerdict::kAllowedOverServed);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_protected_runs_count_their_remaining_protection),
      cmocka_unit_test(test_grants_count_a_whole_protected_run_for_kGrantTtl),
      cmocka_unit_test(test_work_of_nobody_commits_nothing),
      cmocka_unit_test(test_running_and_granted_add_up_per_allocation),
      cmocka_unit_test(test_only_window_usage_is_raised),
      cmocka_unit_test(test_second_preemption_of_a_team_projects_the_first),
      cmocka_unit_test(test_a_grant_not_yet_started_projects_too),
  };
  return cmocka_run_group_tests_name("commitments", tests, nullptr, nullptr);
}
