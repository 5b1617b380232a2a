// Small scenarios with hand-computed outcomes of the loop production runs
// (engine.h): Slurm's main scheduler at submissions and ends, backfill
// every bf_interval by time limits, the suite's time-slicing pass every
// TimesliceInterval, requeue delays, drains, time limits; and the stock
// baselines preempting in Slurm's scheduler.
//
// Defaults used below: RecalcInterval = TimesliceInterval = 30 s,
// sched_interval 60 s, bf_interval 30 s, bf_resolution 60 s, requeue delay
// 121 s; periodic passes keep the phase of the first submission (t = 0).
// Time limits are the rows' derived ones: ceil(2 x duration / 60) minutes.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "libbudget/policy/timeslice_plan.h"
#include "libbudget/testing/test_support.h"

#include "sim/family_run.h"
#include "sim/generator.h"
#include "sim/report_table.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

// The rules without PreemptNotice: a victim leaves when told, so that the
// times below are the rules' own (test_a_notice_keeps_the_gpus_until_it_ends
// adds the notice).
BudgetConfig NoNotice() {
  BudgetConfig config;
  config.preempt_notice = 0;
  return config;
}

// Run() on kTwoTeams, the two teams at equal share of every scenario here
// but the last.
RunOutput RunTwoTeams(const std::string& policy, const Workload& w, uint32_t nodes, TimePoint until,
                      const EngineOptions& options = EngineOptions(), const BudgetConfig& config = NoNotice()) {
  return Run(policy, w, MakeTree(kTwoTeams), nodes, until, config, options);
}

// Job `victim`'s first preemption was at `at`, for job `for_job`.
void AssertPreempted(const RunOutput& out, uint32_t victim, TimePoint at, uint32_t for_job) {
  uint32_t by = 0;
  assert_int_equal(PreemptTime(out, victim, &by), at);
  assert_int_equal(by, for_job);
}

void test_fifo_waits(void**) {
  // One node of 8 GPUs. A (t=0, 8 GPUs, 100 s) runs 0-100; B (t=10, 4) and
  // C (t=20, 4) both start when A ends, at 100 (the main scheduler runs at
  // every job end).
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0}, {10, "a", 4, 50, 0, true, 0}, {20, "b", 4, 30, 0, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 1, 1000);
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

void test_top_teams_sum_their_accounts(void**) {
  // Team t (half the cluster) holds accounts a and b (a quarter each); c is
  // a team and an account (the other half). One node of 8 GPUs; a runs 8
  // GPUs over two whole hours (owed is counted by the hour), alone, funded
  // (min-runtime 600). Account a: owed min(2, 8) GPUs x 2 h = 4 GPU-hours,
  // got 16: 4.0. Team t: owed min(4, 8) x 2 h = 8: 2.0. b and c asked for
  // nothing: owed nothing.
  const char kNested[] =
      R"({"name":"root","children":[{"name":"t","share":1,"children":[)"
      R"({"name":"a","share":1,"account":"a"},{"name":"b","share":1,"account":"b"}]},)"
      R"({"name":"c","share":1,"account":"c"}]})";
  Workload w = MakeWorkload({{0, "a", 8, 7200, 600, true, 0}});
  w.InternAccount("b");
  w.InternAccount("c");
  RunOutput out = Run("fifo", w, MakeTree(kNested), 1, 7200, BudgetConfig(), EngineOptions());
  const TeamResult* a = nullptr;
  for (const TeamResult& r : out.result.teams)
    if (r.account == "a") a = &r;
  assert_non_null(a);
  assert_true(std::abs(a->delivered_over_owed - 4.0) < 1e-9);
  assert_int_equal(out.result.top_teams.size(), 2);
  for (const TeamResult& r : out.result.top_teams) {
    if (r.account == "t") {
      assert_true(std::abs(r.owed_gpu_hours - 8.0) < 1e-9);
      assert_true(std::abs(r.delivered_over_owed - 2.0) < 1e-9);
    } else {
      assert_string_equal(r.account.c_str(), "c");
      assert_true(r.owed_gpu_hours == 0);
    }
  }
  // The family's outcome: the worst of the teams owed anything.
  MixPolicyOutcome o = OutcomeOf(out.result);
  assert_string_equal(o.worst_top_team_name.c_str(), "t");
  assert_true(std::abs(o.worst_top_team - 2.0) < 1e-9);
}

void test_stranded_gpus_of_free_and_of_all(void**) {
  // Two nodes of 8 GPUs, one job of 4 GPUs running 0-200, measured over
  // 0-100. Free: 12 GPUs, of which the 4 left on its node are stranded
  // (no whole-node job fits there; the other node is whole): 4/12 of the
  // free GPUs, 4/16 of all GPUs.
  Workload w = MakeWorkload({{0, "a", 4, 200, 0, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 2, 100);
  assert_true(std::abs(out.result.fragmentation - 4.0 / 12.0) < 1e-9);
  assert_true(std::abs(out.result.stranded_of_all - 0.25) < 1e-9);
}

void test_backfill_plans_by_time_limits(void**) {
  // Two nodes. A (t=0, 8 GPUs, 100 s; limit 240 s) runs on n1. B (t=1, 16
  // GPUs, 50 s; limit 120 s) cannot start: the main scheduler stops at it,
  // so C (t=2, 8 GPUs, 50 s; limit 120 s) and D (t=3, 8 GPUs, 200 s; limit
  // 420 s) are not even tried. Backfill at 30: B's earliest start by time
  // limits is A's limit, 240, on both nodes; C's limit ends at 150 < 240:
  // C starts on n2 at 30. At 90 D would run past 240 on n2: it waits. A
  // ends early at 100: the main scheduler starts B; B ends at 150, D starts.
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0},
                             {1, "a", 16, 50, 0, true, 0},
                             {2, "a", 8, 50, 0, true, 0},
                             {3, "a", 8, 200, 0, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 2, 1000);
  assert_int_equal(StartTime(out, 3), 30);
  assert_int_equal(StartTime(out, 2), 100);
  assert_int_equal(StartTime(out, 4), 150);
  // Without backfill (sched/builtin) C waits behind B until B is done.
  EngineOptions builtin;
  builtin.builtin_scheduler = true;
  out = RunTwoTeams("fifo", w, 2, 1000, builtin);
  assert_int_equal(StartTime(out, 3), 150);
  // A what-if says so, in the result and atop the table.
  assert_string_equal(out.result.what_if.c_str(), "builtin");
  assert_non_null(strstr(FormatTable({out.result}).c_str(), "WHAT-IF builtin: no backfill"));
  out = RunTwoTeams("fifo", w, 2, 1000);
  assert_true(out.result.what_if.empty());
  assert_null(strstr(FormatTable({out.result}).c_str(), "WHAT-IF"));
}

void test_budget_allocated_work_preempts_free_work(void**) {
  // One node. U (team b, t=0, 8 GPUs, unallocated, 1000 s, resumable) takes
  // the idle node. P (team a, t=100, allocated, min-runtime 600, 500 s)
  // arrives; the time-slicing pass at 120 preempts U (rule
  // "unallocated") and the main scheduler starts P. U is requeued needing
  // 1000 - 120 = 880 s, may start again from 120 + 121 = 241, and restarts
  // when P ends at 620: it finishes at 1500.
  Workload w = MakeWorkload({{0, "b", 8, 1000, 0, true, 0}, {100, "a", 8, 500, 600, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 1, 2000);
  AssertPreempted(out, 1, 120, 2);
  assert_int_equal(StartTime(out, 2), 120);
  assert_int_equal(StartTime(out, 1, 1), 620);
  assert_int_equal(FinishTime(out, 1), 1500);
  assert_int_equal(out.result.preemptions, 1);
  // Waits 0 and 20: p99 = 20.
  assert_true(out.result.wait_all.p99 == 20);
  // U ran 120 + 880 s on 8 GPUs unallocated, P 500 s allocated:
  // 8000 / (8000 + 4000) = 2/3 of the busy time was free work.
  assert_true(out.result.unallocated_share > 0.6666 && out.result.unallocated_share < 0.6667);
  // The timeline says how each run ended and for whom.
  assert_true(out.timeline[0].ended == RunEnd::kPreempted);
  assert_int_equal(out.timeline[0].preempted_by, 2);
}

void test_budget_protection_then_preemption(void**) {
  // One node. A (team a, t=0, 8 GPUs, min-runtime 300, 2000 s, resumable).
  // B (team b, t=10, 8 GPUs, min-runtime 200, 100 s). b has used nothing,
  // so it ranks ahead, but A (min-runtime 299) is protected through 299
  // (contract.h). The pass at 300 (a multiple of 30) preempts A: B's
  // projected ratio after its protected run, 8*200 / (0.5 * 8 * 604800) =
  // 0.00066, is below A's team's 8*300 / (0.5 * 8 * 604800) = 0.00099 (no
  // ping-pong). B runs 300-400. A may start again from 300 + 121 = 421;
  // backfill at 450 starts it, needing 1700 s.
  Workload w = MakeWorkload({{0, "a", 8, 2000, 299, true, 0}, {10, "b", 8, 100, 200, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 1, 3000);
  AssertPreempted(out, 1, 300, 2);
  assert_int_equal(StartTime(out, 2), 300);
  assert_int_equal(StartTime(out, 1, 1), 450);
  assert_int_equal(FinishTime(out, 1), 2150);
  // Waits 0 and 290: p90 = 290.
  assert_true(out.result.wait_all.p90 == 290);
  // A's first run is hatched from 300 (its protection end), preempted then.
  assert_int_equal(out.timeline[0].preemptible_from, 300);
  assert_true(out.timeline[0].preempted);
  // With a min-runtime of 300 it is protected through 300: the next pass,
  // at 330, preempts it.
  w.jobs[0].min_runtime = 300;
  out = RunTwoTeams("budget", w, 1, 3000);
  assert_int_equal(PreemptTime(out, 1), 330);
}

void test_a_notice_keeps_the_gpus_until_it_ends(void**) {
  // The protection case above with PreemptNotice=60: the pass at 300 tells
  // A (its departure is counted then), A keeps the node until 360, and B,
  // given it, starts then. A's work up to 300 is kept (its checkpoint),
  // so it needs 1700 s again; it may start from 360 + 121 = 481, and
  // backfill's pass at 510 starts it: it ends at 2210.
  Workload w = MakeWorkload({{0, "a", 8, 2000, 299, true, 0}, {10, "b", 8, 100, 200, true, 0}});
  BudgetConfig config;
  config.preempt_notice = 60;
  RunOutput out = RunTwoTeams("budget", w, 1, 3000, EngineOptions(), config);
  AssertPreempted(out, 1, 360, 2);
  assert_int_equal(StartTime(out, 2), 360);
  assert_int_equal(StartTime(out, 1, 1), 510);
  assert_int_equal(FinishTime(out, 1), 2210);
  assert_int_equal(out.result.preemptions, 1);
  // A job that ends by itself inside its notice simply finishes: A needs
  // only 320 s, so it ends at 320, told at 300, and B starts at once.
  w.jobs[0].duration = 320;
  out = RunTwoTeams("budget", w, 1, 3000, EngineOptions(), config);
  assert_int_equal(FinishTime(out, 1), 320);
  assert_int_equal(PreemptTime(out, 1), -1);
  assert_int_equal(StartTime(out, 2), 320);
}

void test_budget_counts_protected_runs_under_way(void**) {
  // Two nodes. Team b runs B1, B2 (ids 1, 2; 8 GPUs each, min-runtime
  // 2999 s) from 0; team a's A1, A2 (ids 3, 4; 8 GPUs, min-runtime 3600 s)
  // wait from 10. At 3000 both B runs become preemptible; b's ratio is
  // 16 x 3000 / (0.5 x 16 x 604800) = 48000 / 4838400 = 0.00992.
  //   A1 projects (0 + 8 x 3600) / 4838400 = 0.00595 <= 0.00992: it
  //   preempts B2 (equal starts -> the higher id first).
  //   A2, with A1's grant counted (8 x 3600), projects
  //   (28800 + 28800) / 4838400 = 0.0119 > 0.00992: refused, B1 keeps
  //   running, then and at every later pass before 4000.
  Workload w = MakeWorkload({{0, "b", 8, 10000, 2999, true, 0},
                             {0, "b", 8, 10000, 2999, true, 0},
                             {10, "a", 8, 5000, 3600, true, 0},
                             {10, "a", 8, 5000, 3600, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 2, 4000);
  AssertPreempted(out, 2, 3000, 3);
  assert_int_equal(PreemptTime(out, 1), -1);
  assert_int_equal(out.result.preemptions, 1);
}

void test_budget_same_team_never_preempts_itself(void**) {
  // Same as above but B is team a's own job: it waits for A to finish.
  Workload w = MakeWorkload({{0, "a", 8, 2000, 300, true, 0}, {10, "a", 8, 100, 200, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 1, 3000);
  assert_int_equal(out.result.preemptions, 0);
  assert_int_equal(StartTime(out, 2), 2000);
}

void test_a_drained_node_empties_at_contract_ends(void**) {
  // Two nodes. A (8 GPUs, min-runtime 600, 5000 s) on n1, B (8 GPUs,
  // min-runtime 59, 5000 s) on n2, both team a's, from 0. n2 is drained at
  // 30: B is protected through 59, so the pass at 60 requeues it (rule:
  // drain at contract end); n1 and A are untouched (a team never preempts
  // itself). Nothing lands on n2 again: B restarts only when A's node
  // frees at 5000.
  Workload w = MakeWorkload({{0, "a", 8, 5000, 600, true, 0}, {0, "a", 8, 5000, 59, true, 0}});
  EngineOptions o;
  o.drains = {NodeDrain{1, 30, -1}};
  RunOutput out = RunTwoTeams("budget", w, 2, 6000, o);
  assert_int_equal(PreemptTime(out, 2), 60);
  assert_true(out.timeline[1].ended == RunEnd::kDrained);
  assert_int_equal(PreemptTime(out, 1), -1);
  assert_int_equal(StartTime(out, 2, 1), 5000);
  // Resumed at 200 (B may start again from 60 + 121 = 181): the update
  // runs the main scheduler, as `scontrol update` does, but n2 takes no
  // job until its slurmd answers the ping, at 201, which runs no
  // scheduler: backfill's next tick (every 30 s from 0) starts B at 210.
  o.drains = {NodeDrain{1, 30, 200}};
  out = RunTwoTeams("budget", w, 2, 6000, o);
  assert_int_equal(StartTime(out, 2, 1), 210);
  // With the answer taken as instant, the update's own scheduler run
  // starts it.
  o.node_answer_delay = 0;
  out = RunTwoTeams("budget", w, 2, 6000, o);
  assert_int_equal(StartTime(out, 2, 1), 200);
  // Drained again (at 202) before it answered (at 205): it stays out.
  o.node_answer_delay = 5;
  o.drains = {NodeDrain{1, 30, 200}, NodeDrain{1, 202, -1}};
  out = RunTwoTeams("budget", w, 2, 6000, o);
  assert_int_equal(StartTime(out, 2, 1), 5000);
}

void test_a_run_ends_at_its_time_limit(void**) {
  // A job whose trace time limit (60 s) is shorter than its work (100 s):
  // Slurm kills it at 60 (TIMEOUT); it is done, not requeued.
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0}});
  w.jobs[0].time_limit = 60;
  RunOutput out = RunTwoTeams("fifo", w, 1, 1000);
  assert_int_equal(FinishTime(out, 1), 60);
  assert_true(out.timeline[0].ended == RunEnd::kTimeout);
  assert_int_equal(out.result.timeouts, 1);
  assert_int_equal(out.result.finished, 1);
}

void test_priority_caps_and_preemptible_overflow(void**) {
  // One node, two teams at 50%: caps of 4 non-preemptible GPUs each.
  // A1 (team a, t=0, 8 GPUs, wants protection) exceeds its cap: it runs
  // preemptible. B1 (team b, t=10, 4 GPUs, wants protection) is within b's
  // cap: the main scheduler stops at it and, as Slurm's preemption does,
  // preempts A1 for it at once. A1 (8 GPUs) may start again from
  // 10 + 121 = 131 and does at the backfill pass of 150, needing
  // 1000 - 10 = 990 s: it ends at 1140.
  Workload w = MakeWorkload({{0, "a", 8, 1000, 100, true, 1}, {10, "b", 4, 100, 100, true, 1}});
  RunOutput out = RunTwoTeams("priority", w, 1, 3000);
  AssertPreempted(out, 1, 10, 2);
  assert_int_equal(StartTime(out, 1, 1), 150);
  assert_int_equal(FinishTime(out, 1), 1140);
  // A1's whole run was preemptible: 8 GPUs x (10 + 990) s = 8000 of
  // 8000 + 400 busy GPU-seconds.
  assert_true(out.result.unallocated_share > 0.952 && out.result.unallocated_share < 0.953);
}

void test_fairtree_preempts_after_exempt_time_only(void**) {
  // Fair Tree with PreemptExemptTime 1 h: A (team a, t=0, 8 GPUs, 5000 s)
  // and B (team b, t=10, 8 GPUs, 100 s). b ranks ahead (no usage); A may be
  // preempted from 3600 on, when the periodic main pass (every 60 s)
  // preempts it for B. A may restart from 3721: backfill at 3750.
  Workload w = MakeWorkload({{0, "a", 8, 5000, 0, true, 0}, {10, "b", 8, 100, 0, true, 0}});
  RunOutput out = RunTwoTeams("fairtree", w, 1, 10000);
  assert_int_equal(PreemptTime(out, 1), 3600);
  assert_int_equal(StartTime(out, 2), 3600);
  assert_int_equal(StartTime(out, 1, 1), 3750);
}

void test_non_resumable_starts_over(void**) {
  // As the budget preemption case, but U is not resumable: cancelled at
  // 120 and resubmitted whole at once, it needs 1000 s again from P's end
  // at 620: it ends at 1620.
  Workload w = MakeWorkload({{0, "b", 8, 1000, 0, false, 0}, {100, "a", 8, 500, 600, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 1, 2000);
  assert_int_equal(FinishTime(out, 1), 1620);
}

// Account "x" is in no tree node (UnknownAccount=reject by default); a
// 16-GPU job cannot fit a one-node cluster; a min-runtime of 9 h exceeds
// MaxMinRuntime (8 h) for the budget policy; the last job is admitted.
const std::vector<Row> kThreeRefusedOneAdmitted = {{0, "x", 1, 10, 0, true, 0},
                                                   {0, "a", 16, 10, 0, true, 0},
                                                   {0, "a", 1, 10, 9 * 3600, true, 0},
                                                   {0, "a", 1, 5000, 0, true, 0}};

void test_rejections_and_horizon(void**) {
  Workload w = MakeWorkload(kThreeRefusedOneAdmitted);
  RunOutput out = RunTwoTeams("budget", w, 1, 1000);
  assert_int_equal(out.result.rejected, 3);
  // The long job is still running at the horizon (1000).
  assert_int_equal(out.result.still_running, 1);
  assert_int_equal(out.result.finished, 0);
  // fifo has no contract admission: only the unknown account and the
  // too-large job are refused.
  out = RunTwoTeams("fifo", w, 1, 1000);
  assert_int_equal(out.result.rejected, 2);
}

void test_rejections_are_counted_per_reason(void**) {
  // The jobs of test_rejections_and_horizon, then two more of account x and one
  // of account y: each reason counted apart, with the trace ids of its jobs.
  std::vector<Row> rows = kThreeRefusedOneAdmitted;
  rows.insert(rows.end(), {{1, "x", 1, 10, 0, true, 0}, {2, "y", 1, 10, 0, true, 0}, {3, "x", 1, 10, 0, true, 0}});
  Workload w = MakeWorkload(rows);
  RunOutput out = RunTwoTeams("budget", w, 1, 1000);
  const std::vector<RejectionReason>& r = out.result.rejections;
  assert_int_equal(out.result.rejected, 6);
  assert_int_equal(r.size(), 4);
  assert_string_equal(r[0].reason.c_str(), "account 'x' in no tree node (UnknownAccount=reject)");
  assert_int_equal(r[0].jobs, 3);
  assert_int_equal(r[0].first_job_ids.size(), 3);
  assert_int_equal(r[0].first_job_ids[0], 1);
  assert_int_equal(r[0].first_job_ids[1], 5);
  assert_int_equal(r[0].first_job_ids[2], 7);
  assert_string_equal(r[1].reason.c_str(), "asks for more GPUs than the cluster has (8)");
  assert_int_equal(r[1].jobs, 1);
  assert_int_equal(r[1].first_job_ids[0], 2);
  assert_string_equal(r[2].reason.c_str(), "min-runtime over MaxMinRuntime=08:00:00 (contract)");
  assert_int_equal(r[2].first_job_ids[0], 3);
  assert_string_equal(r[3].reason.c_str(), "account 'y' in no tree node (UnknownAccount=reject)");
  // fifo refuses no contract: the same reasons but the contract's.
  out = RunTwoTeams("fifo", w, 1, 1000);
  assert_int_equal(out.result.rejected, 5);
  assert_int_equal(out.result.rejections.size(), 3);
}

// The nodes job `id` first started on, or empty.
std::vector<int32_t> StartNodes(const RunOutput& out, uint32_t id) {
  for (const Decision& d : out.decisions)
    if (d.kind == Decision::Kind::kStart && d.job_id == id) return d.nodes;
  return {};
}

void test_a_mixed_fleet_frees_and_places_by_type(void**) {
  // Nodes n1, n2 H100 (0, 1), n3 B200 (2). Team a fills them: job 1 on
  // the B200 node at 0 (it asks for B200), jobs 2, 3 (any type) on the
  // H100 nodes at 0; all 8 GPUs, 2000 s, protected 299 s. At 10 team b
  // asks for 8 B200 GPUs (projected (0 + 8 x 200) / entitlement far below
  // a's ratio: allowed by rank). Jobs 2 and 3 started with job 1, so no
  // age tells them apart: without eligibility the first victim would be
  // job 3 (the highest id among equals), on n2, an H100 node. With it only
  // job 1, on n3, may go: the first pass after its protection ends at 299 + 1 (contract.h),
  // i.e. the pass at 300, preempts it, and job 4 starts on n3 (index 2).
  Workload w = MakeWorkload({{0, "a", 8, 2000, 299, true, 0},
                             {0, "a", 8, 2000, 299, true, 0},
                             {0, "a", 8, 2000, 299, true, 0},
                             {10, "b", 8, 100, 200, true, 0}});
  w.jobs[0].gpu_type = w.InternGpuType("b200");
  w.jobs[3].gpu_type = w.InternGpuType("b200");
  EngineOptions options;
  options.gpu_types = {"h100", "h100", "b200"};
  RunOutput out = RunTwoTeams("budget", w, 3, 1000, options);
  assert_true((StartNodes(out, 1) == std::vector<int32_t>{2}));
  AssertPreempted(out, 1, 300, 4);
  assert_int_equal(PreemptTime(out, 2), -1);
  assert_int_equal(PreemptTime(out, 3), -1);
  assert_true((StartNodes(out, 4) == std::vector<int32_t>{2}));
  // A type no node has, or more of it than the fleet holds, is refused.
  Workload bad = MakeWorkload({{0, "a", 8, 100, 60, true, 0}, {0, "a", 16, 100, 60, true, 0}});
  bad.jobs[0].gpu_type = bad.InternGpuType("b300");
  bad.jobs[1].gpu_type = bad.InternGpuType("b200");
  out = RunTwoTeams("budget", bad, 3, 1000, options);
  assert_int_equal(out.result.rejected, 2);
}

void test_a_min_runtime_past_the_time_limit_is_one_reason(void**) {
  // Time limits are derived: 2 x 600 s = 20 min. Min-runtimes of 30 and 40
  // min are both longer: one reason, not one per value.
  Workload w = MakeWorkload({{0, "a", 1, 600, 1800, true, 0}, {0, "a", 1, 600, 2400, true, 0}});
  RunOutput out = RunTwoTeams("budget", w, 1, 1000);
  assert_int_equal(out.result.rejections.size(), 1);
  assert_string_equal(out.result.rejections[0].reason.c_str(),
                      "min-runtime longer than the job's time limit (contract)");
  assert_int_equal(out.result.rejections[0].jobs, 2);
}

void test_waiting_jobs_count_with_their_wait_so_far(void**) {
  // A (t=0, 8 GPUs, 10000 s) holds the node; B (t=100) still waits at the
  // horizon 1000: its wait counts as 900 s (a lower bound). Both are funded
  // work (min-runtime 60 s).
  Workload w = MakeWorkload({{0, "a", 8, 10000, 60, true, 0}, {100, "a", 8, 10, 60, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 1, 1000);
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

void test_free_work_is_owed_nothing(void**) {
  // Team a submits funded work (A: 4 GPUs) and as much free work (U: 4
  // GPUs, min-runtime 0); both run 0-1000 on one node. Owed counts only
  // funded demand: min(0.5 x 8 x 3600, 4 x 1000) = 4000 GPU-s = 1.111 GPU-h,
  // delivered the funded 4000 GPU-s: 1.0; the free work's 4000 GPU-s are
  // reported apart (1.111 GPU-h), in neither.
  Workload w = MakeWorkload({{0, "a", 4, 1000, 60, true, 0}, {0, "a", 4, 1000, 0, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 1, 1000);
  const TeamResult& a = out.result.teams[0];
  assert_true(a.owed_gpu_hours > 1.111 && a.owed_gpu_hours < 1.112);
  assert_true(a.delivered_gpu_hours > 1.111 && a.delivered_gpu_hours < 1.112);
  assert_true(a.free_gpu_hours > 1.111 && a.free_gpu_hours < 1.112);
  assert_true(a.delivered_over_owed > 0.999 && a.delivered_over_owed < 1.001);
}

void test_drain_mode_ends_when_all_done(void**) {
  Workload w = MakeWorkload({{0, "a", 8, 100, 0, true, 0}, {5, "b", 8, 100, 0, true, 0}});
  RunOutput out = RunTwoTeams("fifo", w, 1, -1);
  assert_int_equal(out.result.finished, 2);
  // The period ends at the last finish, 200: occupancy 1600 / (8 x 200) = 1.
  assert_int_equal(out.result.end, 200);
  assert_true(out.result.occupancy > 0.999);
}

void test_the_walk_by_class_decides_as_the_vector_walk(void**) {
  // The time-slicing pass walks the queue by shape class (skipping classes
  // in O(1)) or over every waiting job, as the plugin gives them. On
  // scenarios/mixed_sizes (six teams, 1 to 64 GPUs, free work) at 1.5x its
  // demand, whose queue grows past the pass's window
  // (TimeslicePlanner::kMaxJobsTried), with a drain, both runs are the same
  // run; and on scenarios/mixed_fleet, whose typed jobs form classes of
  // their own (a class is also its eligible nodes), on 8 B200 and 8 H100
  // nodes.
  const char* srcdir = std::getenv("srcdir");
  for (const char* scenario : {"mixed_sizes", "mixed_fleet"}) {
    std::string dir = std::string(srcdir ? srcdir : ".") + "/../../scenarios/" + scenario + "/";
    ScenarioSpec spec;
    assert_true(ParseScenarioFile(dir + "scenario.json", &spec).ok());
    for (TeamSpec& team : spec.teams)  // 3.75x demand: a queue past the window
      for (StreamSpec& stream : team.streams) stream.per_hour *= 1.5;
    Workload w;
    assert_true(GenerateWorkload(spec, &w).ok());
    AllocationTree tree;
    assert_true(AllocationTree::ParseFile(dir + "tree.json", &tree, nullptr).ok());
    EngineOptions options;
    options.drains.push_back(NodeDrain{2, 30 * 3600, 36 * 3600});
    if (std::string(scenario) == "mixed_fleet")
      for (int i = 0; i < 16; ++i) options.gpu_types.push_back(i < 8 ? "b200" : "h100");
    RunOutput by_class = Run("budget", w, tree, 16, 7 * 86400, BudgetConfig(), options);
    options.walk_by_class = false;
    RunOutput by_vector = Run("budget", w, tree, 16, 7 * 86400, BudgetConfig(), options);
    assert_true(by_class.result.still_waiting > budget::TimeslicePlanner::kMaxJobsTried);
    assert_true(by_class.result.preemptions > 1000);
    assert_int_equal(by_class.timeline.size(), by_vector.timeline.size());
    for (size_t i = 0; i < by_class.timeline.size(); ++i) {
      const Segment& a = by_class.timeline[i];
      const Segment& b = by_vector.timeline[i];
      if (!(a.job == b.job && a.start == b.start && a.end == b.end && a.ended == b.ended &&
            a.preempted_by == b.preempted_by))
        fail_msg("%s: segment %zu: job %u %ld-%ld by %u, against job %u %ld-%ld by %u", scenario, i, a.job,
                 long(a.start), long(a.end), a.preempted_by, b.job, long(b.start), long(b.end), b.preempted_by);
    }
  }
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fifo_waits),
      cmocka_unit_test(test_top_teams_sum_their_accounts),
      cmocka_unit_test(test_stranded_gpus_of_free_and_of_all),
      cmocka_unit_test(test_backfill_plans_by_time_limits),
      cmocka_unit_test(test_budget_allocated_work_preempts_free_work),
      cmocka_unit_test(test_budget_protection_then_preemption),
      cmocka_unit_test(test_a_notice_keeps_the_gpus_until_it_ends),
      cmocka_unit_test(test_budget_counts_protected_runs_under_way),
      cmocka_unit_test(test_budget_same_team_never_preempts_itself),
      cmocka_unit_test(test_a_drained_node_empties_at_contract_ends),
      cmocka_unit_test(test_a_run_ends_at_its_time_limit),
      cmocka_unit_test(test_priority_caps_and_preemptible_overflow),
      cmocka_unit_test(test_fairtree_preempts_after_exempt_time_only),
      cmocka_unit_test(test_non_resumable_starts_over),
      cmocka_unit_test(test_rejections_and_horizon),
      cmocka_unit_test(test_rejections_are_counted_per_reason),
      cmocka_unit_test(test_a_mixed_fleet_frees_and_places_by_type),
      cmocka_unit_test(test_a_min_runtime_past_the_time_limit_is_one_reason),
      cmocka_unit_test(test_waiting_jobs_count_with_their_wait_so_far),
      cmocka_unit_test(test_free_work_is_owed_nothing),
      cmocka_unit_test(test_drain_mode_ends_when_all_done),
      cmocka_unit_test(test_the_walk_by_class_decides_as_the_vector_walk),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
