// Small scenarios with hand-computed outcomes: waits, backfill, who is
// preempted and when, under each policy.
#include "libbudget/test_support.h"

#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

void test_fifo_waits(void**) {
  // One node of 8 GPUs. A (t=0, 8 GPUs, 100 s) runs 0-100; B (t=10, 4) and
  // C (t=20, 4) both start when A ends, at 100.
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0},
                             {10, "a", 4, 50, 0, true, 0},
                             {20, "b", 4, 30, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("fifo", w, tree, 1, 1000);
  assert_int_equal(StartTime(out, 1), 0);
  assert_int_equal(StartTime(out, 2), 100);
  assert_int_equal(StartTime(out, 3), 100);
  assert_int_equal(FinishTime(out, 3), 130);
  // Waits 0, 90, 80: p50 = 80 (nearest rank 2 of 3), p90 = p99 = 90.
  assert_int_equal(out.result.wait_all.count, 3);
  assert_true(out.result.wait_all.p50 == 80);
  assert_true(out.result.wait_all.p90 == 90);
  // Busy GPU-seconds 8*100 + 4*50 + 4*30 = 1120 over 8 GPUs x 1000 s = 0.14.
  assert_true(out.result.occupancy > 0.1399 && out.result.occupancy < 0.1401);
  assert_int_equal(out.result.preemptions, 0);
  assert_int_equal(out.result.finished, 3);
}

void test_easy_backfill_respects_the_reservation(void**) {
  // Two nodes (16 GPUs). A (t=0, 8 GPUs, 100 s) runs. B (t=1, 16 GPUs) must
  // wait for A: its reservation is at t=100 with 0 GPUs spare.
  // C (t=2, 8 GPUs, 50 s) ends at 52 <= 100: backfilled at once.
  // D (t=3, 8 GPUs, 200 s) would end after 100 and needs GPUs B reserved:
  // it waits even when C's GPUs free at 52, and starts after B, at 150.
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0},
                             {1, "a", 16, 50, 0, true, 0},
                             {2, "a", 8, 50, 0, true, 0},
                             {3, "a", 8, 200, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("fifo", w, tree, 2, 1000);
  assert_int_equal(StartTime(out, 3), 2);
  assert_int_equal(StartTime(out, 2), 100);
  assert_int_equal(StartTime(out, 4), 150);
}

void test_budget_allocated_work_preempts_free_work(void**) {
  // One node. U (team b, t=0, 8 GPUs, unallocated, 1000 s, resumable) takes
  // the idle node. P (team a, t=100, allocated, min-runtime 600, 500 s)
  // arrives; the queue was empty, so the recompute is due and P preempts U
  // at once (rule "unallocated"). U is requeued needing 1000 - 100 = 900 s
  // and restarts when P ends at 600, finishing at 1500.
  Workload w = MakeWorkload({{0, "b", 8, 1000, 0, true, 0}, {100, "a", 8, 500, 600, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 1, 2000);
  uint32_t by = 0;
  assert_int_equal(PreemptTime(out, 1, &by), 100);
  assert_int_equal(by, 2);
  assert_int_equal(StartTime(out, 2), 100);
  assert_int_equal(StartTime(out, 1, 1), 600);
  assert_int_equal(FinishTime(out, 1), 1500);
  assert_int_equal(out.result.preemptions, 1);
  // Both started at once: every wait is 0.
  assert_true(out.result.wait_all.p99 == 0);
  // U ran 100 + 900 s on 8 GPUs unallocated, P 500 s allocated:
  // 8000 / (8000 + 4000) = 2/3 of the busy time was free work.
  assert_true(out.result.unallocated_share > 0.6666 && out.result.unallocated_share < 0.6667);
}

void test_budget_protection_then_preemption(void**) {
  // One node. A (team a, t=0, 8 GPUs, min-runtime 300, 2000 s, resumable).
  // B (team b, t=10, 8 GPUs, min-runtime 200, 100 s). b has used nothing,
  // so it ranks ahead, but A is protected until 300. At 300 (A's
  // protection ends) B preempts A: B's projected ratio after its protected
  // run, 8*200 / (0.5 * 8 * 604800) = 0.00066, is below A's team's
  // 8*300 / (0.5 * 8 * 604800) = 0.00099 (no ping-pong).
  // B waited 290 s and runs 300-400; A resumes at 400 needing 1700 s.
  Workload w = MakeWorkload({{0, "a", 8, 2000, 300, true, 0}, {10, "b", 8, 100, 200, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 1, 3000);
  uint32_t by = 0;
  assert_int_equal(PreemptTime(out, 1, &by), 300);
  assert_int_equal(by, 2);
  assert_int_equal(StartTime(out, 2), 300);
  assert_int_equal(StartTime(out, 1, 1), 400);
  assert_int_equal(FinishTime(out, 1), 2100);
  // Waits 0 and 290: p90 = 290.
  assert_true(out.result.wait_all.p90 == 290);
  // The timeline: A's first run is hatched from 300 (its protection end)
  // and ends preempted at 300.
  assert_int_equal(out.timeline[0].preemptible_from, 300);
  assert_true(out.timeline[0].preempted);
}

void test_budget_counts_protected_runs_under_way(void**) {
  // Two nodes. Team b runs B1, B2 (ids 1, 2; 8 GPUs each, min-runtime
  // 3000 s) from 0; team a's A1, A2 (ids 3, 4; 8 GPUs, min-runtime 3600 s)
  // wait from 10. At 3000 both B runs become preemptible; b's ratio is
  // 16 x 3000 / (0.5 x 16 x 604800) = 48000 / 4838400 = 0.00992.
  //   A1 projects (0 + 8 x 3600) / 4838400 = 0.00595 <= 0.00992: it
  //   preempts B2 (youngest tie -> highest id first).
  //   A2 would project the same without commitments and take B1 too (the
  //   whole cluster changes hands); with A1's protected run under way
  //   (8 x 3600 committed) it projects (28800 + 28800) / 4838400 = 0.0119
  //   > 0.00992: refused, B1 keeps running (the core's commitments.h, as in sched/timeslice).
  Workload w = MakeWorkload({{0, "b", 8, 10000, 3000, true, 0},
                             {0, "b", 8, 10000, 3000, true, 0},
                             {10, "a", 8, 5000, 3600, true, 0},
                             {10, "a", 8, 5000, 3600, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 2, 4000);
  uint32_t by = 0;
  assert_int_equal(PreemptTime(out, 2, &by), 3000);
  assert_int_equal(by, 3);
  assert_int_equal(PreemptTime(out, 1), -1);
  assert_int_equal(out.result.preemptions, 1);
}

void test_budget_same_team_never_preempts_itself(void**) {
  // Same as above but B is team a's own job: it waits for A to finish.
  Workload w = MakeWorkload({{0, "a", 8, 2000, 300, true, 0}, {10, "a", 8, 100, 200, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 1, 3000);
  assert_int_equal(out.result.preemptions, 0);
  assert_int_equal(StartTime(out, 2), 2000);
}

void test_priority_caps_and_preemptible_overflow(void**) {
  // One node, two teams at 50%: caps of 4 non-preemptible GPUs each.
  // A1 (team a, t=0, 8 GPUs, wants protection) exceeds its cap: it runs
  // preemptible. B1 (team b, t=10, 4 GPUs, wants protection) is within b's
  // cap: at the next recompute tick (t=30) it preempts A1. A1 (8 GPUs)
  // cannot restart beside B1 and resumes when B1 ends at 130, needing
  // 1000 - 30 = 970 s: it ends at 1100.
  Workload w = MakeWorkload({{0, "a", 8, 1000, 100, true, 1}, {10, "b", 4, 100, 100, true, 1}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("priority", w, tree, 1, 3000);
  uint32_t by = 0;
  assert_int_equal(PreemptTime(out, 1, &by), 30);
  assert_int_equal(by, 2);
  assert_int_equal(StartTime(out, 1, 1), 130);
  assert_int_equal(FinishTime(out, 1), 1100);
  // A1's whole run was preemptible: 8 GPUs x 30 s + 8 x 970 = 8000 of
  // 8000 + 400 busy GPU-seconds.
  assert_true(out.result.unallocated_share > 0.952 && out.result.unallocated_share < 0.953);
}

void test_fairtree_preempts_after_exempt_time_only(void**) {
  // Fair Tree with PreemptExemptTime 1 h: A (team a, t=0, 8 GPUs, 5000 s)
  // and B (team b, t=10, 8 GPUs, 100 s). b ranks ahead (no usage); A may be
  // preempted from 3600 on: B starts at 3600, A resumes at 3700.
  Workload w = MakeWorkload({{0, "a", 8, 5000, 0, true, 0}, {10, "b", 8, 100, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("fairtree", w, tree, 1, 10000);
  assert_int_equal(PreemptTime(out, 1), 3600);
  assert_int_equal(StartTime(out, 2), 3600);
  assert_int_equal(StartTime(out, 1, 1), 3700);
}

void test_non_resumable_starts_over(void**) {
  // As the budget preemption case, but U is not resumable: cancelled and
  // resubmitted whole, it needs 1000 s again from 600: it ends at 1600.
  Workload w = MakeWorkload({{0, "b", 8, 1000, 0, false, 0}, {100, "a", 8, 500, 600, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 1, 2000);
  assert_int_equal(FinishTime(out, 1), 1600);
}

void test_rejections_and_horizon(void**) {
  // Account "x" is in no tree node (UnknownAccount=reject by default); a
  // 16-GPU job cannot fit a one-node cluster; a min-runtime of 9 h exceeds
  // MaxMinRuntime (8 h) for the budget policy.
  Workload w = MakeWorkload({{0, "x", 1, 10, 0, true, 0},
                             {0, "a", 16, 10, 0, true, 0},
                             {0, "a", 1, 10, 9 * 3600, true, 0},
                             {0, "a", 1, 5000, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("budget", w, tree, 1, 1000);
  assert_int_equal(out.result.rejected, 3);
  // The long job is still running at the horizon (1000).
  assert_int_equal(out.result.still_running, 1);
  assert_int_equal(out.result.finished, 0);
  // fifo has no contract admission: only the unknown account and the
  // too-large job are refused.
  out = Run("fifo", w, tree, 1, 1000);
  assert_int_equal(out.result.rejected, 2);
}

void test_waiting_jobs_count_with_their_wait_so_far(void**) {
  // A (t=0, 8 GPUs, 10000 s) holds the node; B (t=100) still waits at the
  // horizon 1000: its wait counts as 900 s (a lower bound).
  Workload w = MakeWorkload({{0, "a", 8, 10000, 0, true, 0}, {100, "a", 8, 10, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("fifo", w, tree, 1, 1000);
  assert_int_equal(out.result.still_waiting, 1);
  assert_true(out.result.wait_all.p99 == 900);
  // Team a's demand in hour 0: 8 x 100 + 16 x 900 = 15200 GPU-s; owed is
  // capped at its whole-hour allocation 0.5 x 8 x 3600 = 14400 GPU-s (4
  // GPU-h; metrics.h counts whole hours). Delivered: 8 x 1000 = 8000 GPU-s
  // = 2.222 GPU-h, 8000 / 14400 = 0.5556 of what it was owed.
  const TeamResult& a = out.result.teams[0];
  assert_string_equal(a.account.c_str(), "a");
  assert_true(a.owed_gpu_hours > 3.999 && a.owed_gpu_hours < 4.001);
  assert_true(a.delivered_gpu_hours > 2.222 && a.delivered_gpu_hours < 2.223);
  assert_true(a.delivered_over_owed > 0.5555 && a.delivered_over_owed < 0.5556);
}

void test_drain_mode_ends_when_all_done(void**) {
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0}, {5, "b", 8, 100, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  RunOutput out = Run("fifo", w, tree, 1, -1);
  assert_int_equal(out.result.finished, 2);
  // The period ends at the last finish, 200: occupancy 1600 / (8 x 200) = 1.
  assert_int_equal(out.result.end, 200);
  assert_true(out.result.occupancy > 0.999);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fifo_waits),
      cmocka_unit_test(test_easy_backfill_respects_the_reservation),
      cmocka_unit_test(test_budget_allocated_work_preempts_free_work),
      cmocka_unit_test(test_budget_protection_then_preemption),
      cmocka_unit_test(test_budget_counts_protected_runs_under_way),
      cmocka_unit_test(test_budget_same_team_never_preempts_itself),
      cmocka_unit_test(test_priority_caps_and_preemptible_overflow),
      cmocka_unit_test(test_fairtree_preempts_after_exempt_time_only),
      cmocka_unit_test(test_non_resumable_starts_over),
      cmocka_unit_test(test_rejections_and_horizon),
      cmocka_unit_test(test_waiting_jobs_count_with_their_wait_so_far),
      cmocka_unit_test(test_drain_mode_ends_when_all_done),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
