// Tests of the hero plan (hero_plan.h): head of line, node choice by release
// time and rank, the hold, and the errors.
#include "libbudget/testing/test_nodes.h"
#include "libbudget/testing/test_support.h"

#include <memory>
#include <string>
#include <vector>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/order.h"

using budget::GpuRequest;
using budget::HeroCandidate;
using budget::HeroPlan;
using budget::KeepPromise;
using budget::MayUseHeldNodes;
using budget::NodeState;
using budget::PlanHero;
using budget::QueueEntry;
using budget::RunningJob;
using budget::StartingJob;
using budget::Status;

namespace {

constexpr budget::TimePoint kNow = 10000;

using budget::testing::Nodes;

RunningJob Job(uint32_t id, std::vector<int32_t> nodes, budget::TimePoint start, budget::Seconds min_runtime,
               budget::Seconds limit, uint32_t priority) {
  RunningJob j;
  j.job_id = id;
  for (int32_t n : nodes) j.nodes.push_back(budget::NodeGpus{n, 8});
  j.start = start;
  j.min_runtime = min_runtime;
  j.time_limit = limit;
  j.priority = priority;
  return j;
}

HeroCandidate Hero(uint32_t nodes, uint32_t gpus, budget::TimePoint since) {
  HeroCandidate c;
  c.job_id = 99;
  c.request = GpuRequest{nodes, gpus};
  c.waiting_since = since;
  return c;
}

std::string Join(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

QueueEntry Entry(uint32_t id, uint32_t priority, budget::TimePoint submit, uint32_t nodes, uint32_t gpus,
                 budget::TimePoint waiting_since) {
  return QueueEntry{id, priority, submit, GpuRequest{nodes, gpus}, waiting_since};
}

// HeroWait `wait`, 8-GPU nodes, heroes of 1 node or more (HeroMinNodes=1).
budget::HeroRule Rule(budget::Seconds wait, uint32_t min_nodes = 1) { return budget::HeroRule{wait, min_nodes, 8}; }

void test_the_hero_is_the_first_whole_node_job_once_it_waited_long_enough(void**) {
  // HeroWait 600 s, 8-GPU nodes. Job 5 (priority 300) is first in line but
  // takes 1 GPU: small jobs never count. Jobs 6 and 7 (priority 200, whole
  // nodes) waited 700 s; 7 was submitted earlier (55): job 7 is the first
  // whole-node job, and a hero.
  std::vector<QueueEntry> queue = {Entry(5, 300, 50, 1, 1, kNow - 5000), Entry(6, 200, 60, 2, 8, kNow - 700),
                                   Entry(7, 200, 55, 2, 8, kNow - 700)};
  HeroCandidate hero = budget::ChooseHero(queue, Rule(600), kNow, 0);
  assert_int_equal(hero.job_id, 7);
  assert_int_equal(hero.request.node_count, 2);
  assert_int_equal(hero.waiting_since, kNow - 700);
  // Job 8 (priority 400, whole nodes) arrives: it is first, waited 100 s:
  // no hero yet (job 7 behind it never jumps it); 500 s later, job 8.
  queue.push_back(Entry(8, 400, 70, 1, 8, kNow - 100));
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 0);
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow + 500, 0).job_id, 8);
  // Job 3 ties job 8 on priority and submit: the lower id, 3.
  queue.push_back(Entry(3, 400, 70, 4, 8, kNow - 700));
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 3);
  // A stream of small jobs at the head changes nothing.
  for (uint32_t id = 100; id < 110; ++id) queue.push_back(Entry(id, 500, kNow, 1, 2, kNow));
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 3);
  // Job 7, once the hero, stays the hero while it waits, though jobs 3 and
  // 8 are now ahead of it; once it has left the queue, job 3 again.
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 7).job_id, 7);
  std::vector<QueueEntry> without_7;
  for (const QueueEntry& e : queue)
    if (e.job_id != 7) without_7.push_back(e);
  assert_int_equal(budget::ChooseHero(without_7, Rule(600), kNow, 7).job_id, 3);
  // With HeroMinNodes=3 only job 3 (4 nodes) is hero-sized.
  assert_int_equal(budget::ChooseHero(queue, Rule(600, 3), kNow, 0).job_id, 3);
  assert_int_equal(budget::ChooseHero(without_7, Rule(600, 5), kNow, 0).job_id, 0);
  // The first whole-node job did not wait long enough, or none: no hero.
  assert_int_equal(budget::ChooseHero(queue, Rule(6000), kNow, 0).job_id, 0);
  assert_int_equal(budget::ChooseHero({}, Rule(600), kNow, 0).job_id, 0);
}

QueueEntry Of(QueueEntry entry, const char* account) {
  entry.account = account;
  return entry;
}

void test_a_hero_only_when_its_account_ranks_first(void**) {
  // Job 7 (pretrain, whole nodes, waited 700 s) is the first whole-node
  // job. Ahead of it: job 5, of posttrain, a team ranked ahead. No hero:
  // pretrain's turn has not come.
  std::vector<QueueEntry> queue = {Of(Entry(5, 300, 50, 1, 1, kNow - 100), "posttrain"),
                                   Of(Entry(7, 200, 55, 2, 8, kNow - 700), "pretrain"),
                                   Of(Entry(9, 100, 40, 1, 4, kNow - 900), "science")};
  assert_false(budget::AccountRanksFirst(queue, queue[1]));
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 0);
  // Job 5 starts; job 6, pretrain's own (a higher user priority), is ahead
  // of 7, and job 11 of posttrain holds a grant (top priority until the
  // next pass): 7 is the hero. Job 9, of science, is behind.
  queue[0] = Of(Entry(6, 250, 80, 1, 2, kNow - 50), "pretrain");
  queue.push_back(Of(Entry(11, budget::kGrantedPriority, 90, 1, 1, kNow - 10), "posttrain"));
  assert_true(budget::AccountRanksFirst(queue, queue[1]));
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 7);
  // Then science ranks ahead (its job 9 is ahead of 7): 7, already the
  // hero, stays the hero; a new choice would find none.
  queue[2].priority = 260;
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 7).job_id, 7);
  assert_int_equal(budget::ChooseHero(queue, Rule(600), kNow, 0).job_id, 0);
}

void test_not_yet_a_hero(void**) {
  HeroPlan plan;
  // Waiting for 100 s, HeroWait 600 s: inactive.
  Status st = PlanHero(Nodes({8, 8}), {}, Hero(2, 8, kNow - 100), 600, kNow, &plan);
  assert_true(st.ok());
  assert_false(plan.active);
  assert_true(plan.why_not.find("100 s") != std::string::npos);
  // Not whole nodes (4 of 8 GPUs per node): no eligible node.
  st = PlanHero(Nodes({8, 8}), {}, Hero(1, 4, kNow - 700), 600, kNow, &plan);
  assert_true(st.ok());
  assert_false(plan.active);
  // 3 whole nodes asked for, 2 exist.
  st = PlanHero(Nodes({8, 8}), {}, Hero(3, 8, kNow - 700), 600, kNow, &plan);
  assert_true(st.ok());
  assert_false(plan.active);
  assert_false(plan.why_not.empty());
}

void test_nodes_by_release_then_rank(void**) {
  std::vector<NodeState> nodes = Nodes({0, 0, 4, 0});
  std::vector<RunningJob> running = {
      // node 0: protected through 10000-100+299 = 10199 (contract.h): free
      // at 10200, limit later.
      Job(1, {0}, kNow - 100, 299, 3600, 50),
      // node 1: protection ends 10000-100+600+1 = 10501 but the limit (200
      // s) ends it at 10000-100+200 = 10100.
      Job(2, {1}, kNow - 100, 600, 200, 50),
      // node 2: unallocated (min_runtime 0): releases now (max(now, 9900)).
      Job(3, {2}, kNow - 100, 0, 3600, 90),
      // node 3: two jobs; releases when the later does: 10000+400+1 = 10401.
      Job(4, {3}, kNow, 100, -1, 10), Job(5, {3}, kNow, 400, -1, 10),
  };
  HeroPlan plan;
  // Releases: n0 10200, n1 10100, n2 10000, n3 10401. Three nodes: 2, 1, 0;
  // planned start = the latest of them, 10200.
  Status st = PlanHero(nodes, running, Hero(3, 8, kNow - 600), 600, kNow, &plan);
  assert_true(st.ok());
  assert_true(plan.active);
  assert_string_equal(Join(plan.nodes).c_str(), "2,1,0");
  assert_int_equal(plan.planned_start, 10200);
}

void test_only_nodes_the_hero_may_run_on_are_held(void**) {
  // The same cluster as above, but the hero may run only on nodes 0 and 3
  // (its GPU type, say). Releases n0 10200, n3 10401: both are held,
  // planned start 10401; n2, free now, is not its to hold. Three nodes
  // cannot be had: inactive, and why.
  std::vector<NodeState> nodes = Nodes({0, 0, 4, 0});
  std::vector<RunningJob> running = {Job(1, {0}, kNow - 100, 299, 3600, 50), Job(2, {1}, kNow - 100, 600, 200, 50),
                                     Job(3, {2}, kNow - 100, 0, 3600, 90), Job(4, {3}, kNow, 100, -1, 10),
                                     Job(5, {3}, kNow, 400, -1, 10)};
  budget::NodeSet set;
  set.Add(0);
  set.Add(3);
  HeroCandidate hero = Hero(2, 8, kNow - 600);
  hero.eligible = std::make_shared<const budget::NodeSet>(set);
  HeroPlan plan;
  assert_true(PlanHero(nodes, running, hero, 600, kNow, &plan).ok());
  assert_true(plan.active);
  assert_string_equal(Join(plan.nodes).c_str(), "0,3");
  assert_int_equal(plan.planned_start, 10401);
  hero.request.node_count = 3;
  assert_true(PlanHero(nodes, running, hero, 600, kNow, &plan).ok());
  assert_false(plan.active);
  assert_string_equal(plan.why_not.c_str(), "needs 3 whole nodes of 8 GPUs, 2 usable it may run on");
  // ChooseHero carries the queue entry's set to the candidate.
  QueueEntry entry = Entry(7, 100, kNow - 900, 2, 8, kNow - 900);
  entry.eligible = hero.eligible;
  HeroCandidate chosen = budget::ChooseHero({entry}, Rule(600), kNow, 0);
  assert_int_equal(chosen.job_id, 7);
  assert_true(chosen.eligible == hero.eligible);
}

void test_equal_release_prefers_lowest_rank(void**) {
  std::vector<NodeState> nodes = Nodes({0, 0, 0});
  std::vector<RunningJob> running = {
      // All three release at 10000+300+1 = 10301; priorities 80, 20 and (30,
      // 70) -> node keys 80, 20, 70: order 1, 2, 0.
      Job(1, {0}, kNow, 300, -1, 80), Job(2, {1}, kNow, 300, -1, 20),
      Job(3, {2}, kNow, 300, -1, 30), Job(4, {2}, kNow, 300, -1, 70),
  };
  HeroPlan plan;
  Status st = PlanHero(nodes, running, Hero(2, 8, kNow - 600), 600, kNow, &plan);
  assert_true(st.ok());
  assert_string_equal(Join(plan.nodes).c_str(), "1,2");
  // Free nodes win over busy ones: node index 3 added free -> chosen first.
  nodes = Nodes({0, 0, 0, 8});
  st = PlanHero(nodes, running, Hero(2, 8, kNow - 600), 600, kNow, &plan);
  assert_true(st.ok());
  assert_string_equal(Join(plan.nodes).c_str(), "3,1");
  // Unusable nodes are never planned: node 3 drained -> 1, 2 again.
  nodes[3].usable = false;
  st = PlanHero(nodes, running, Hero(2, 8, kNow - 600), 600, kNow, &plan);
  assert_true(st.ok());
  assert_string_equal(Join(plan.nodes).c_str(), "1,2");
}

struct HoldCase {
  const char* what;
  uint32_t job_id;
  budget::Seconds min_runtime;
  budget::Seconds time_limit;
  bool allowed;
};

void test_hold(void**) {
  HeroPlan plan;
  plan.active = true;
  plan.job_id = 99;
  plan.planned_start = kNow + 600;
  const HoldCase cases[] = {
      {"the hero itself", 99, 3600, -1, true},
      {"unallocated work (preemptible at once)", 7, 0, -1, true},
      // protected through now + 599, so preemptible from now + 600 = the
      // planned start -> allowed.
      {"protection ends at the planned start", 7, 599, -1, true},
      {"protection ends after the planned start", 7, 600, -1, false},
      // limit 300: ends at now+300 <= now+600 -> allowed despite protection.
      {"ends before the planned start", 7, 3600, 300, true},
      {"ends after the planned start", 7, 3600, 601, false},
      {"unlimited and protected", 7, 3600, -1, false},
  };
  for (const HoldCase& c : cases) {
    bool allowed = MayUseHeldNodes(plan, StartingJob{c.job_id, c.min_runtime, c.time_limit}, kNow);
    if (allowed != c.allowed) fail_msg("%s: allowed %d, want %d", c.what, allowed, c.allowed);
  }
  // An inactive plan holds nothing.
  plan.active = false;
  assert_true(MayUseHeldNodes(plan, StartingJob{7, 3600, -1}, kNow));
}

// Quick-start jobs may use the held nodes until the promised start; other
// protected work only if it is preemptible by the planned start.
void test_quick_starts_use_held_nodes_until_the_promised_start(void**) {
  HeroPlan plan;
  plan.active = true;
  plan.job_id = 99;
  plan.planned_start = kNow + 600;
  plan.promised_start = kNow + 300;
  const StartingJob quick{7, 900, 1800, true};
  const StartingJob debug_not_quick{7, 900, 1800, false};  // e.g. two nodes
  assert_true(MayUseHeldNodes(plan, quick, kNow));
  assert_true(MayUseHeldNodes(plan, quick, kNow + 300));   // at the promise
  // kNow + 301: past the promise, and its protection ends at kNow + 1201,
  // after the planned start.
  assert_false(MayUseHeldNodes(plan, quick, kNow + 301));
  assert_false(MayUseHeldNodes(plan, debug_not_quick, kNow));
  // A quick job short enough for the old rule still may, after the promise
  // (protected through kNow + 599: preemptible at the planned start).
  assert_true(MayUseHeldNodes(plan, StartingJob{7, 199, 1800, true}, kNow + 400));
}

// The promise: set by PlanHero, kept while the same job is the hero, made
// anew for another hero.
void test_the_promise_stands_while_the_hero_does(void**) {
  // Node 0 free, node 1 runs a job protected through kNow + 599: a 2-node
  // hero is planned at kNow + 600, and promised that.
  std::vector<RunningJob> running = {Job(1, {1}, kNow - 600, 1199, -1, 5)};
  HeroPlan first;
  assert_true(PlanHero(Nodes({8, 8}), running, Hero(2, 8, 0), 600, kNow, &first).ok());
  assert_true(first.active);
  assert_int_equal(first.planned_start, kNow + 600);
  assert_int_equal(first.promised_start, kNow + 600);
  // At the promise a quick-start job (900 s) lands on node 0: the next plan
  // waits for its protection (through kNow + 1500) ...
  running.push_back(Job(2, {0}, kNow + 600, 900, 1800, 1));
  HeroPlan next;
  assert_true(PlanHero(Nodes({8, 8}), running, Hero(2, 8, 0), 600, kNow + 600, &next).ok());
  assert_int_equal(next.planned_start, kNow + 1501);
  // ... and keeps the promise, so the next quick job may not land there:
  // the hero starts at most one quick-start protection after its promise.
  KeepPromise(first, &next);
  assert_int_equal(next.promised_start, kNow + 600);
  assert_false(MayUseHeldNodes(next, StartingJob{8, 900, 1800, true}, kNow + 601));
  // An earlier planned start lowers the promise.
  HeroPlan earlier = next;
  earlier.planned_start = earlier.promised_start = kNow + 100;
  KeepPromise(next, &earlier);
  assert_int_equal(earlier.promised_start, kNow + 100);
  // Another hero, or no plan in force: its own planned start.
  HeroPlan other = next;
  other.job_id = 98;
  other.promised_start = kNow + 1500;
  KeepPromise(first, &other);
  assert_int_equal(other.promised_start, kNow + 1500);
  HeroPlan none;
  HeroPlan fresh = next;
  fresh.promised_start = kNow + 1500;
  KeepPromise(none, &fresh);
  assert_int_equal(fresh.promised_start, kNow + 1500);
}

void test_errors(void**) {
  HeroPlan plan;
  // 0 nodes asked for.
  assert_false(PlanHero(Nodes({8}), {}, Hero(0, 8, 0), 600, kNow, &plan).ok());
  // 0 GPUs per node.
  assert_false(PlanHero(Nodes({8}), {}, Hero(1, 0, 0), 600, kNow, &plan).ok());
  // Negative HeroWait.
  assert_false(PlanHero(Nodes({8}), {}, Hero(1, 8, 0), -1, kNow, &plan).ok());
  // A running job on node 5 of a 1-node cluster.
  Status st = PlanHero(Nodes({8}), {Job(1, {5}, kNow, 0, -1, 0)}, Hero(1, 8, 0), 600, kNow, &plan);
  assert_false(st.ok());
  assert_true(st.message().find("unknown node index 5") != std::string::npos);
  // free > total is refused by ValidateNodes.
  std::vector<NodeState> bad = Nodes({9});
  assert_false(PlanHero(bad, {}, Hero(1, 8, 0), 600, kNow, &plan).ok());
  assert_false(plan.active);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_hero_is_the_first_whole_node_job_once_it_waited_long_enough),
      cmocka_unit_test(test_a_hero_only_when_its_account_ranks_first),
      cmocka_unit_test(test_not_yet_a_hero),
      cmocka_unit_test(test_nodes_by_release_then_rank),
      cmocka_unit_test(test_only_nodes_the_hero_may_run_on_are_held),
      cmocka_unit_test(test_equal_release_prefers_lowest_rank),
      cmocka_unit_test(test_hold),
      cmocka_unit_test(test_quick_starts_use_held_nodes_until_the_promised_start),
      cmocka_unit_test(test_the_promise_stands_while_the_hero_does),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
