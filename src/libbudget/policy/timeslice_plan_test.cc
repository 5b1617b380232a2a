// Tests of the time-slicing pass (timeslice_plan.h): drain at contract end,
// the waiting jobs served in the core's order, several per pass, gang
// safety, the no-ping-pong rule with the pass's own grants, the hero hold.
#include "libbudget/testing/test_support.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/policy/preemption_note.h"
#include "libbudget/policy/timeslice_plan.h"

using budget::NodeGpus;
using budget::NodeState;
using budget::RunningJob;
using budget::Seconds;
using budget::Standing;
using budget::TimePoint;
using budget::TimeslicePlan;
using budget::TimeslicePlanner;
using budget::WaitingJob;

namespace {

constexpr TimePoint kNow = 1'800'000'000;
constexpr int32_t kTeamA = 1, kTeamB = 2;

// A 50/50 tree: node 0 the root (no rank), teama rank 0, teamb rank 1.
// Capacity 16 GPUs, window 600 s: each team is entitled to 0.5 x 16 x 600 =
// 4800 GPU-s; usage ratio = window usage / 4800.
budget::TimesliceInputs Cluster(int nodes, double usage_a = 480, double usage_b = 4800) {
  budget::TimesliceInputs in;
  for (int i = 0; i < nodes; ++i) {
    NodeState n;
    n.index = i;
    n.total_gpus = 8;
    in.nodes.push_back(n);
    in.node_names.push_back("n" + std::to_string(i + 1));
  }
  in.standings.resize(3);
  in.standings[0].rank = UINT32_MAX;
  in.standings[kTeamA] = Standing{0, usage_a / 4800, 0.5, usage_a};
  in.standings[kTeamB] = Standing{1, usage_b / 4800, 0.5, usage_b};
  in.paths = {"", "teama", "teamb"};
  in.scale = budget::ClusterScale{16, 600};
  return in;
}

RunningJob Running(uint32_t id, int32_t allocation, TimePoint start, Seconds min_runtime, std::vector<int32_t> nodes,
                   uint32_t gpus_per_node, bool resumable = true) {
  RunningJob r;
  r.job_id = id;
  r.allocation = allocation;
  r.start = start;
  r.min_runtime = min_runtime;
  r.resumable = resumable;
  for (int32_t n : nodes) r.nodes.push_back(NodeGpus{n, gpus_per_node});
  return r;
}

WaitingJob Waiting(uint32_t id, int32_t allocation, Seconds min_runtime, uint32_t nodes, uint32_t gpus_per_node,
                   TimePoint submit = kNow - 100) {
  WaitingJob w;
  w.shape.job_id = id;
  w.shape.allocation = allocation;
  w.shape.min_runtime = min_runtime;
  w.shape.node_count = nodes;
  w.shape.gpus_per_node = gpus_per_node;
  w.submit_time = submit;
  return w;
}

std::vector<uint32_t> Victims(const TimeslicePlan& plan) {
  std::vector<uint32_t> ids;
  for (const auto& p : plan.preemptions) ids.push_back(p.job_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// --- Drain at contract end ------------------------------------------------------

void test_drain_requeues_unprotected_and_promises_empty_time(void**) {
  budget::TimesliceInputs in = Cluster(2);
  in.draining = {0};
  in.nodes[0].usable = false;
  in.running = {
      Running(1, kTeamA, kNow - 5, 20, {0}, 4),    // protected through kNow + 15 (contract.h)
      Running(2, kTeamB, kNow - 100, 20, {0}, 4),  // protection over
      Running(3, kTeamB, kNow - 100, 20, {1}, 8),  // not on the draining node
  };
  TimeslicePlanner planner;
  TimeslicePlan plan = planner.Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 2);
  assert_true(plan.preemptions[0].for_drain);
  assert_int_equal(plan.preemptions[0].preemptor, 0);
  assert_true(plan.preemptions[0].action == budget::PreemptAction::kRequeue);
  assert_non_null(strstr(plan.preemptions[0].note.c_str(), "node n1 is draining (rule: drain at contract end)"));
  // Counted under the rule its note names (timeslice_counts.h).
  assert_string_equal(budget::PreemptionRuleName(plan.preemptions[0]), "drain at contract end");
  // Empty at job 1's protection end: kNow - 5 + 20 + 1 = kNow + 16.
  assert_int_equal(plan.empty_by.size(), 1);
  assert_int_equal(plan.empty_by[0].empty_at, kNow + 16);
  assert_int_equal(plan.new_automated_drains, 1);
  // The next pass still drains the same node: not counted again.
  assert_int_equal(planner.Plan(in, kNow + 1).new_automated_drains, 0);
  // Still protected at kNow + 15, its last second.
  in.running = {Running(1, kTeamA, kNow - 5, 20, {0}, 4, false)};
  assert_int_equal(planner.Plan(in, kNow + 15).preemptions.size(), 0);
  // Its protection over (kNow + 16): it leaves, cancelled (not resumable).
  plan = planner.Plan(in, kNow + 16);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_true(plan.preemptions[0].action == budget::PreemptAction::kCancel);
}

// --- Time slicing -----------------------------------------------------------------

void test_waits_for_protection_then_preempts(void**) {
  // teamb (rank 1, ratio 1.0) holds the only node; teama (rank 0) waits.
  // Projected ratio of teama: (480 + 8 x 20) / 4800 = 0.133 <= 1.0: no
  // ping-pong.
  budget::TimesliceInputs in = Cluster(1);
  in.running = {Running(5, kTeamB, kNow - 10, 20, {0}, 8)};
  in.waiting = {Waiting(6, kTeamA, 20, 1, 8)};
  TimeslicePlanner planner;
  // Job 5 is protected through kNow + 10: nothing.
  assert_int_equal(planner.Plan(in, kNow).preemptions.size(), 0);
  assert_int_equal(planner.Plan(in, kNow + 10).preemptions.size(), 0);
  TimeslicePlan plan = planner.Plan(in, kNow + 11);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 5);
  assert_int_equal(plan.preemptions[0].preemptor, 6);
  assert_false(plan.preemptions[0].for_drain);
  assert_string_equal(plan.preemptions[0].note.c_str(),
                      budget::FormatPreemptionNote(6, kNow + 11, "over-served allocation").c_str());
  assert_string_equal(budget::PreemptionRuleName(plan.preemptions[0]), "over-served allocation");
  assert_int_equal(plan.jobs_served, 1);
  // The grant is the planner's own, dated at the pass.
  assert_int_equal(planner.grants().size(), 1);
  assert_int_equal(planner.grants().at(6), kNow + 11);
}

void test_serves_the_first_job_in_the_core_order(void**) {
  // One node, unprotected teamb work on it; teama waits with two jobs: job 3
  // requeued (Slurm reset its submit time to kNow - 5), job 4 submitted at
  // kNow - 50. SortWaitingJobs: rank, user priority, submit time: job 4
  // first, and once it holds the node job 3 has nothing left to take.
  budget::TimesliceInputs in = Cluster(1);
  in.running = {Running(5, kTeamB, kNow - 100, 20, {0}, 8)};
  in.waiting = {Waiting(3, kTeamA, 20, 1, 8, kNow - 5), Waiting(4, kTeamA, 20, 1, 8, kNow - 50),
                Waiting(2, kTeamB, 20, 1, 8, kNow - 500)};
  budget::SortWaitingJobs(in.standings, &in.waiting);
  assert_int_equal(in.waiting[0].shape.job_id, 4);
  assert_int_equal(in.waiting[1].shape.job_id, 3);
  assert_int_equal(in.waiting[2].shape.job_id, 2);  // teamb ranks behind, whatever its age
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].preemptor, 4);
  // A higher user priority comes before the submit time inside teama.
  in.waiting[1].user_priority = 10;
  budget::SortWaitingJobs(in.standings, &in.waiting);
  assert_int_equal(in.waiting[0].shape.job_id, 3);
}

void test_never_by_the_team_behind(void**) {
  budget::TimesliceInputs in = Cluster(1);
  in.running = {Running(5, kTeamA, kNow - 100, 20, {0}, 8)};
  in.waiting = {Waiting(6, kTeamB, 20, 1, 8)};
  assert_int_equal(TimeslicePlanner().Plan(in, kNow).preemptions.size(), 0);
}

void test_a_burst_of_small_jobs_is_served_in_one_pass(void**) {
  // Two nodes of teamb training, unprotected. Four 1-GPU teama debug jobs
  // arrive together. Projections of teama: (480 + k x 1 x 900) / 4800 for
  // the k-th (grants of the pass counted): 0.29, 0.475, 0.66, 0.85, all <=
  // teamb's 1.0, so all four are served in this one pass. Each takes one
  // GPU: the first frees a node (its victim is 8 GPUs), the next three fit
  // in what the first victim freed: one preemption only.
  budget::TimesliceInputs in = Cluster(2);
  in.running = {Running(1, kTeamB, kNow - 1000, 20, {0}, 8), Running(2, kTeamB, kNow - 900, 20, {1}, 8)};
  for (uint32_t id = 10; id < 14; ++id) in.waiting.push_back(Waiting(id, kTeamA, 900, 1, 1, kNow - 20 + id));
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.jobs_tried, 4);
  assert_int_equal(plan.jobs_served, 1);
  assert_int_equal(plan.preemptions.size(), 1);
  // Victim order: the youngest of the equal-ranked teamb runs first: job 2.
  assert_int_equal(plan.preemptions[0].job_id, 2);
  // All four are given the GPUs: the first by the preemption, the other
  // three in what it freed.
  assert_true((plan.starts == std::vector<uint32_t>{10, 11, 12, 13}));
  // Nine 1-GPU jobs: eight fit on the freed node, the ninth needs the
  // other node: two preemptions in one pass, both for teama.
  for (uint32_t id = 14; id < 19; ++id) in.waiting.push_back(Waiting(id, kTeamA, 60, 1, 1, kNow - 20 + id));
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.jobs_served, 2);
  assert_true((Victims(plan) == std::vector<uint32_t>{1, 2}));
}

void test_the_pass_counts_its_own_grants_against_ping_pong(void**) {
  // teama used 4000 GPU-s (ratio 0.833); teamb 4272 (0.89) holds both
  // nodes, unprotected. teama's first 8-GPU job projects
  // (4000 + 8 x 20) / 4800 = 0.867 <= 0.89: served. Its second, with the
  // first's grant counted: (4000 + 160 + 160) / 4800 = 0.9 > 0.89: refused,
  // so the second node does not change hands in the same pass.
  budget::TimesliceInputs in = Cluster(2, 4000, 4272);
  in.running = {Running(5, kTeamB, kNow - 100, 20, {0}, 8), Running(6, kTeamB, kNow - 100, 20, {1}, 8)};
  in.waiting = {Waiting(7, kTeamA, 20, 1, 8), Waiting(8, kTeamA, 20, 1, 8, kNow - 99)};
  TimeslicePlanner planner;
  TimeslicePlan plan = planner.Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].preemptor, 7);
  // One pass later job 7 has not started yet (its victim is still ending):
  // its grant still counts, job 8 is still refused, and job 7 fits
  // already (its victim's GPUs are free) so it gets no second victim.
  in.running = {in.running[1]};
  plan = planner.Plan(in, kNow + 2);
  assert_int_equal(plan.preemptions.size(), 0);
  // Job 7 runs now, protected until kNow + 23: its protected run counts
  // instead of the grant (8 x 20 at kNow + 3): the same refusal.
  in.running.push_back(Running(7, kTeamA, kNow + 3, 20, {0}, 8));
  in.waiting = {Waiting(8, kTeamA, 20, 1, 8, kNow - 99)};
  plan = planner.Plan(in, kNow + 3);
  assert_int_equal(plan.preemptions.size(), 0);
  assert_int_equal(planner.grants().size(), 0);
}

void test_a_job_that_cannot_be_served_does_not_block_smaller_ones(void**) {
  // teama waits with a 2-node job first (submitted earlier) and a 1-GPU job.
  // Node n1 runs protected teamb work, n2 unprotected teamb work: the
  // 2-node job cannot have both nodes; the 1-GPU job gets n2's victim.
  budget::TimesliceInputs in = Cluster(2);
  in.running = {Running(1, kTeamB, kNow - 5, 600, {0}, 8), Running(2, kTeamB, kNow - 900, 20, {1}, 8)};
  in.waiting = {Waiting(3, kTeamA, 60, 2, 8, kNow - 200), Waiting(4, kTeamA, 60, 1, 1, kNow - 100)};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.jobs_tried, 2);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 2);
  assert_int_equal(plan.preemptions[0].preemptor, 4);
}

void test_takes_a_multi_node_job_whole_and_no_more(void**) {
  // Three nodes: a 2-node teamb job on n2+n3, unallocated work on n1.
  // teama needs one node of 8 GPUs: n1 (unallocated work goes first).
  budget::TimesliceInputs in = Cluster(3);
  in.running = {Running(7, kTeamB, kNow - 100, 20, {1, 2}, 8),
                Running(8, budget::kNoAllocation, kNow - 100, 0, {0}, 8)};
  in.waiting = {Waiting(9, kTeamA, 20, 1, 8)};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((Victims(plan) == std::vector<uint32_t>{8}));
  assert_non_null(strstr(plan.preemptions[0].log.c_str(), "rule: unallocated"));
  // A 2-node teama job needs two whole nodes: n1 (job 8) and one of job
  // 7's, which then goes whole: two victims, job 7 listed once.
  in.waiting = {Waiting(9, kTeamA, 20, 2, 8)};
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((Victims(plan) == std::vector<uint32_t>{7, 8}));
}

void test_held_nodes_are_no_targets_for_jobs_that_may_not_use_them(void**) {
  // n1 held for hero job 50 (planned start kNow + 100); n1 and n2 each run
  // unprotected teamb work. teama's job 9 (min-runtime 300 s; projected
  // (480 + 8 x 300) / 4800 = 0.6 <= 1.0) would stay protected past the
  // planned start: it may not use n1, so its victim is on n2. A job of
  // min-runtime 60 s is preemptible by then: n1 is fine for it, and n1's
  // victim (the youngest, job 1) goes.
  budget::TimesliceInputs in = Cluster(2);
  in.running = {Running(1, kTeamB, kNow - 100, 20, {0}, 8), Running(2, kTeamB, kNow - 900, 20, {1}, 8)};
  in.hold.active = true;
  in.hold.job_id = 50;
  in.hold.nodes = {0};
  in.hold.planned_start = kNow + 100;
  in.waiting = {Waiting(9, kTeamA, 300, 1, 8)};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((Victims(plan) == std::vector<uint32_t>{2}));
  in.waiting = {Waiting(9, kTeamA, 60, 1, 8)};
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((Victims(plan) == std::vector<uint32_t>{1}));
}

void test_the_reserve_is_no_target_for_long_protections(void**) {
  // n1 is the quick-start reserve; both nodes run unprotected teamb work.
  // teama's job 9 (min-runtime 3600 s: a long protection) may not land on
  // n1, so its victim is on n2 (job 2) although n1's (job 1, the youngest)
  // would go first. With n2 protected, it is not served at all. A
  // quick-start job may take n1: its victim is job 1.
  budget::TimesliceInputs in = Cluster(2, 480, 48000);  // teamb at 10x: no ping-pong in the way
  in.running = {Running(1, kTeamB, kNow - 100, 20, {0}, 8), Running(2, kTeamB, kNow - 900, 20, {1}, 8)};
  in.reserve.nodes = {0};
  in.reserve.max_min_runtime = 900;
  in.waiting = {Waiting(9, kTeamA, 3600, 1, 8)};
  assert_true((Victims(TimeslicePlanner().Plan(in, kNow)) == std::vector<uint32_t>{2}));
  in.running[1].min_runtime = 3600;
  assert_int_equal(TimeslicePlanner().Plan(in, kNow).preemptions.size(), 0);
  in.waiting = {Waiting(8, kTeamA, 900, 1, 8)};
  in.waiting[0].shape.quick = true;
  assert_true((Victims(TimeslicePlanner().Plan(in, kNow)) == std::vector<uint32_t>{1}));
}

budget::EligibleNodes Only(std::vector<int32_t> indices) {
  budget::NodeSet set;
  for (int32_t i : indices) set.Add(i);
  return std::make_shared<const budget::NodeSet>(set);
}

void test_only_eligible_nodes_are_freed(void**) {
  // A mixed fleet: n1, n2 B200 (indices 0, 1), n3, n4 H100 (2, 3), each
  // full with teamb's unprotected 8-GPU work; the youngest runs on an H100
  // node, so a choice blind to GPU types would take it. teama's job 9 asks
  // for gpu:b200:8 (eligible {0, 1}): its victim is on a B200 node, the
  // younger of jobs 1 and 2 (job 2, started kNow - 200), whichever order
  // the nodes come in.
  for (bool b200_first : {true, false}) {
    budget::TimesliceInputs in = Cluster(4);
    std::vector<int32_t> b200 = b200_first ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{2, 3};
    std::vector<int32_t> h100 = b200_first ? std::vector<int32_t>{2, 3} : std::vector<int32_t>{0, 1};
    in.running = {Running(1, kTeamB, kNow - 900, 20, {b200[0]}, 8), Running(2, kTeamB, kNow - 200, 20, {b200[1]}, 8),
                  Running(3, kTeamB, kNow - 100, 20, {h100[0]}, 8), Running(4, kTeamB, kNow - 50, 20, {h100[1]}, 8)};
    WaitingJob job = Waiting(9, kTeamA, 20, 1, 8);
    job.eligible = Only(b200);
    in.waiting = {job};
    TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
    assert_true((Victims(plan) == std::vector<uint32_t>{2}));
    assert_true((plan.starts == std::vector<uint32_t>{9}));
    // Blind to types, the youngest job (4, on an H100 node) would go.
    in.waiting[0].eligible = nullptr;
    assert_true((Victims(TimeslicePlanner().Plan(in, kNow)) == std::vector<uint32_t>{4}));
  }
}

void test_nothing_is_preempted_when_no_eligible_node_can_be_freed(void**) {
  // The B200 nodes (0, 1) run protected work; the H100 nodes (2, 3) run
  // unprotected work. A B200 job is served nowhere, and no H100 job goes
  // for it; an untyped job of the same shape still takes an H100 node.
  budget::TimesliceInputs in = Cluster(4);
  in.running = {Running(1, kTeamB, kNow - 5, 600, {0}, 8), Running(2, kTeamB, kNow - 5, 600, {1}, 8),
                Running(3, kTeamB, kNow - 900, 20, {2}, 8), Running(4, kTeamB, kNow - 900, 20, {3}, 8)};
  WaitingJob typed = Waiting(9, kTeamA, 20, 1, 8);
  typed.eligible = Only({0, 1});
  in.waiting = {typed};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 0);
  assert_int_equal(plan.starts.size(), 0);
  // A second job of the same shape but another set is a class of its own:
  // the typed job's failure does not skip it.
  WaitingJob untyped = Waiting(10, kTeamA, 20, 1, 8, kNow - 50);
  in.waiting = {typed, untyped};
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_true((plan.starts == std::vector<uint32_t>{10}));
  // A job that fits already, but only on a node it may not use, is not
  // given GPUs: node 2 free, the job eligible on {0, 1} only.
  in.running = {Running(1, kTeamB, kNow - 5, 600, {0}, 8), Running(2, kTeamB, kNow - 5, 600, {1}, 8)};
  in.waiting = {typed};
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.starts.size(), 0);
}

void test_jobs_that_fit_already_are_given_the_gpus(void**) {
  // One node, 3 GPUs used by teamb; teama's 2-GPU and 8-GPU jobs wait. The
  // 2-GPU job fits in the 5 free GPUs: it is given them (plan.starts) with
  // nothing preempted, and its team is committed its protected run:
  // teama's window usage for the next job is 480 + 2 x 900 = 2280, so the
  // 8-GPU job projects (2280 + 8 x 600) / 4800 = 1.475 > teamb's 1.0 and is
  // refused.
  budget::TimesliceInputs in = Cluster(1);
  in.running = {Running(1, kTeamB, kNow - 1000, 20, {0}, 3)};
  in.waiting = {Waiting(2, kTeamA, 900, 1, 2), Waiting(3, kTeamA, 600, 1, 8)};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((plan.starts == std::vector<uint32_t>{2}));
  assert_int_equal(plan.preemptions.size(), 0);
  // Without the 2-GPU job, the 8-GPU one projects (480 + 4800) / 4800 =
  // 1.1 > 1.0 as well: no preemption either way; with a 300-s contract it
  // projects 0.6 and takes the node.
  in.waiting = {Waiting(3, kTeamA, 300, 1, 8)};
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((plan.starts == std::vector<uint32_t>{3}));
  assert_int_equal(plan.preemptions.size(), 1);
}

void test_a_small_job_behind_many_is_reached(void**) {
  // teama (rank 0) has 300 waiting 2-node jobs that cannot be served (n1
  // runs protected teamb work, and a 2-node job needs both nodes), then a
  // 1-GPU job submitted later: the pass reaches it past the 300 (one
  // examined for their class, the others skipped) and gives it n2's
  // unprotected victim.
  budget::TimesliceInputs in = Cluster(2);
  in.running = {Running(1, kTeamB, kNow - 5, 600, {0}, 8), Running(2, kTeamB, kNow - 900, 20, {1}, 8)};
  for (uint32_t id = 10; id < 310; ++id) in.waiting.push_back(Waiting(id, kTeamA, 60, 2, 8, kNow - 1000));
  in.waiting.push_back(Waiting(400, kTeamA, 60, 1, 1, kNow - 10));
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.jobs_tried, 2);
  assert_true((Victims(plan) == std::vector<uint32_t>{2}));
  assert_true((plan.starts == std::vector<uint32_t>{400}));
}

void test_quick_start_jobs_go_first_and_across_ranks(void**) {
  // teamb (rank 1, ratio 1.0) waits with a 1-GPU quick-start job; teama
  // (rank 0) runs unprotected on the only node and also waits with a big
  // job. Rule 3b: teamb's debug job preempts teama's run, which rank 1
  // could not; it is served before teama's own waiting job.
  budget::TimesliceInputs in = Cluster(1);
  in.running = {Running(1, kTeamA, kNow - 900, 20, {0}, 8)};
  WaitingJob debug = Waiting(7, kTeamB, 900, 1, 1, kNow - 5);
  debug.shape.quick = true;
  in.waiting = {Waiting(6, kTeamA, 600, 1, 8, kNow - 50), debug};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 1);
  assert_int_equal(plan.preemptions[0].preemptor, 7);
  assert_true(plan.preemptions[0].rule == budget::PreemptVerdict::kAllowedQuickStart);
  assert_true((plan.starts == std::vector<uint32_t>{7}));
  // Not quick: the same job ranks behind and preempts nothing.
  in.waiting[1].shape.quick = false;
  assert_int_equal(TimeslicePlanner().Plan(in, kNow).preemptions.size(), 0);
}

void test_quick_start_is_bounded_per_user(void**) {
  // teama runs unprotected 8-GPU work on four nodes. teamb's user 7 waits
  // with three 4-GPU quick-start jobs, user 8 with one; the bound is 8 GPUs
  // a user. User 7 already runs a protected 2-GPU quick job (on node 4):
  // 2 + 4 = 6 <= 8 serves job 20; 6 + 4 = 10 > 8 leaves job 21 and 22
  // waiting; user 8's job 23 is served (0 + 4). Without the bound (0) all
  // four are served.
  budget::TimesliceInputs in = Cluster(5);
  in.running = {Running(1, kTeamA, kNow - 900, 20, {0}, 8), Running(2, kTeamA, kNow - 900, 20, {1}, 8),
                Running(3, kTeamA, kNow - 900, 20, {2}, 8), Running(4, kTeamA, kNow - 900, 20, {3}, 8),
                Running(5, kTeamB, kNow - 10, 600, {4}, 2)};
  in.running[4].user = 7;
  in.running[4].quick = true;
  auto quick = [](uint32_t id, int64_t user, TimePoint submit) {
    WaitingJob w = Waiting(id, kTeamB, 600, 1, 4, submit);
    w.shape.quick = true;
    w.user = user;
    return w;
  };
  in.waiting = {quick(20, 7, kNow - 50), quick(21, 7, kNow - 40), quick(22, 7, kNow - 30), quick(23, 8, kNow - 20)};
  in.quick_start_user_gpus = 8;
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((plan.starts == std::vector<uint32_t>{20, 23}));
  in.quick_start_user_gpus = 0;
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_int_equal(plan.starts.size(), 4);
  // Once user 7's protected quick run ends its protection, it no longer
  // counts: 0 + 4 + 4 = 8 serves two of its jobs.
  in.quick_start_user_gpus = 8;
  in.running[4] = Running(5, kTeamB, kNow - 700, 600, {4}, 2);
  in.running[4].user = 7;
  in.running[4].quick = true;
  plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((plan.starts == std::vector<uint32_t>{20, 21, 23}));
}

void test_a_hero_takes_its_held_nodes_at_its_planned_start(void**) {
  // Hero job 50 (teamb, 2 nodes) holds n1 and n2, planned start kNow. n1
  // runs teama's unprotected job 1, n2 runs unallocated job 2; n3 runs
  // teama's job 3, not held. teamb ranks behind teama, yet at the planned
  // start jobs 1 and 2 go (rule "hero hold") and the hero gets the nodes.
  budget::TimesliceInputs in = Cluster(3);
  in.running = {Running(1, kTeamA, kNow - 900, 20, {0}, 8), Running(2, budget::kNoAllocation, kNow - 900, 0, {1}, 8),
                Running(3, kTeamA, kNow - 900, 20, {2}, 8)};
  in.hold.active = true;
  in.hold.job_id = 50;
  in.hold.nodes = {0, 1};
  in.hold.planned_start = kNow;
  in.waiting = {Waiting(50, kTeamB, 3600, 2, 8)};
  TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
  assert_true((Victims(plan) == std::vector<uint32_t>{1, 2}));
  assert_true(plan.preemptions[0].rule == budget::PreemptVerdict::kAllowedHeroHold);
  assert_true((plan.starts == std::vector<uint32_t>{50}));
  // Before the planned start, nothing of the kind.
  in.hold.planned_start = kNow + 60;
  assert_int_equal(TimeslicePlanner().Plan(in, kNow).preemptions.size(), 0);
  // A protected job still on a held node at the planned start: wait.
  in.hold.planned_start = kNow;
  in.running[0] = Running(1, kTeamA, kNow - 10, 600, {0}, 8);
  assert_int_equal(TimeslicePlanner().Plan(in, kNow).preemptions.size(), 0);
}

void test_the_window_is_the_first_kMaxJobsTried_jobs(void**) {
  // One node, 1 GPU free, the rest held by teama's protected job 1.
  // Waiting: kMaxJobsTried - 1 or kMaxJobsTried 2-GPU teama jobs (none can
  // start), then a 1-GPU teama job that fits. Inside the window it is given
  // the GPU; one place further it is not looked at. The 2-GPU jobs are one
  // class: the first is examined, the others skipped uncounted.
  for (uint32_t ahead : {budget::TimeslicePlanner::kMaxJobsTried - 1, budget::TimeslicePlanner::kMaxJobsTried}) {
    budget::TimesliceInputs in = Cluster(1);
    in.running = {Running(1, kTeamA, kNow - 100, 3600, {0}, 7)};
    for (uint32_t id = 10; id < 10 + ahead; ++id) in.waiting.push_back(Waiting(id, kTeamA, 3600, 1, 2));
    in.waiting.push_back(Waiting(5000, kTeamA, 3600, 1, 1));
    TimeslicePlan plan = TimeslicePlanner().Plan(in, kNow);
    bool inside = ahead < budget::TimeslicePlanner::kMaxJobsTried;
    assert_int_equal(plan.starts.size(), inside ? 1 : 0);
    assert_int_equal(plan.jobs_tried, inside ? 2 : 1);
    assert_int_equal(plan.preemptions.size(), 0);
  }
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drain_requeues_unprotected_and_promises_empty_time),
      cmocka_unit_test(test_waits_for_protection_then_preempts),
      cmocka_unit_test(test_serves_the_first_job_in_the_core_order),
      cmocka_unit_test(test_never_by_the_team_behind),
      cmocka_unit_test(test_a_burst_of_small_jobs_is_served_in_one_pass),
      cmocka_unit_test(test_the_pass_counts_its_own_grants_against_ping_pong),
      cmocka_unit_test(test_a_job_that_cannot_be_served_does_not_block_smaller_ones),
      cmocka_unit_test(test_takes_a_multi_node_job_whole_and_no_more),
      cmocka_unit_test(test_held_nodes_are_no_targets_for_jobs_that_may_not_use_them),
      cmocka_unit_test(test_the_reserve_is_no_target_for_long_protections),
      cmocka_unit_test(test_only_eligible_nodes_are_freed),
      cmocka_unit_test(test_nothing_is_preempted_when_no_eligible_node_can_be_freed),
      cmocka_unit_test(test_jobs_that_fit_already_are_given_the_gpus),
      cmocka_unit_test(test_a_small_job_behind_many_is_reached),
      cmocka_unit_test(test_quick_start_jobs_go_first_and_across_ranks),
      cmocka_unit_test(test_quick_start_is_bounded_per_user),
      cmocka_unit_test(test_a_hero_takes_its_held_nodes_at_its_planned_start),
      cmocka_unit_test(test_the_window_is_the_first_kMaxJobsTried_jobs),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
