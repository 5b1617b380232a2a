// Tests of the preemption rules and the choice of victims (preempt.h).
#include "libbudget/testing/test_nodes.h"
#include "libbudget/testing/test_support.h"

#include <algorithm>
#include <string>
#include <vector>

#include "libbudget/policy/preempt.h"

using budget::ChoosePreemption;
using budget::ClusterScale;
using budget::JobShape;
using budget::NodeState;
using budget::PreemptAction;
using budget::PreemptionChooser;
using budget::PreemptionPlan;
using budget::PreemptVerdict;
using budget::RunningJob;
using budget::Seconds;
using budget::Standing;
using budget::Status;
using budget::TimePoint;

namespace {

const TimePoint kNow = 1000;

// Allocations 0..4, ranked in this order. Entitlement 0.5 each, scale 16
// GPUs x 1000 s: entitled GPU time = 0.5 x 16 x 1000 = 8000 GPU-s.
//   0: rank 0, ratio 0.2 (window usage 0.2 x 8000 = 1600)
//   1: rank 1, ratio 0.9
//   2: rank 2, ratio 1.5
//   3: rank 3, ratio 0.25 (ranks behind, yet less used than 0's projection)
//   4: rank 4, ratio 0.3  (exactly 0's projection)
const std::vector<Standing> kStandings = {
    {0, 0.2, 0.5, 1600.0}, {1, 0.9, 0.5, 7200.0}, {2, 1.5, 0.5, 12000.0},
    {3, 0.25, 0.5, 2000.0}, {4, 0.3, 0.5, 2400.0},
};
const ClusterScale kScale{16, 1000};

// A pending job of allocation 0: 8 GPUs on one node, min-runtime 100.
// Projected ratio = (1600 + 8 x 100) / 8000 = 0.3.
JobShape Pending(int32_t allocation = 0, Seconds min_runtime = 100, uint32_t node_count = 1,
                 uint32_t gpus_per_node = 8, bool quick = false) {
  JobShape p;
  p.quick = quick;
  p.job_id = 99;
  p.allocation = allocation;
  p.min_runtime = min_runtime;
  p.node_count = node_count;
  p.gpus_per_node = gpus_per_node;
  return p;
}

struct JobSpec {
  uint32_t id;
  int32_t allocation;
  TimePoint start;
  Seconds min_runtime;
  bool resumable;
  uint32_t user_priority;
  std::vector<budget::NodeGpus> nodes;
};

RunningJob Job(const JobSpec& spec) {
  RunningJob j;
  j.job_id = spec.id;
  j.allocation = spec.allocation;
  j.start = spec.start;
  j.min_runtime = spec.min_runtime;
  j.resumable = spec.resumable;
  j.user_priority = spec.user_priority;
  j.nodes.assign(spec.nodes.begin(), spec.nodes.end());
  return j;
}

using budget::testing::Nodes;

std::string VictimIds(const PreemptionPlan& plan) {
  std::string s;
  for (const budget::Victim& v : plan.victims) s += (s.empty() ? "" : ",") + std::to_string(v.job_id);
  return s;
}

std::string TargetIds(const PreemptionPlan& plan) {
  std::string s;
  for (int32_t n : plan.target_nodes) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s;
}

PreemptionPlan Choose(const JobShape& pending, const std::vector<RunningJob>& running,
                      const std::vector<NodeState>& nodes) {
  PreemptionPlan plan;
  Status st = ChoosePreemption(pending, running, nodes, kStandings, kScale, kNow, &plan);
  if (!st.ok()) fail_msg("ChoosePreemption: %s", st.message().c_str());
  return plan;
}

// --- the pairwise rule ------------------------------------------------------

struct PairCase {
  const char* what;
  JobShape preemptor;
  JobSpec preemptee;
  PreemptVerdict expected;
};

const PairCase kPairs[] = {
    // Started 950 with min-runtime 100: protected until 1050 > 1000.
    {"protected", Pending(), {1, 2, 950, 100, true, 0, {{0, 8}}}, PreemptVerdict::kRefusedProtected},
    // Started 900 with min-runtime 100: 900 + 100 = 1000 = now, and Slurm's
    // start is rounded down, so the run may have had less than 100 s yet:
    // protected through this second (contract.h).
    {"protected through its last second", Pending(), {1, 2, 900, 100, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedProtected},
    // Protected through 899 + 100 = 999, now 1000: over-served 2
    // (1.5 >= 0.3).
    {"protection just over", Pending(), {1, 2, 899, 100, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedOverServed},
    // Unallocated preemptor (min-runtime 0) preempts nothing, not even free work.
    {"unallocated preemptor", Pending(0, 0), {1, 2, 0, 0, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedPreemptorUnallocated},
    // Any allocated job preempts unallocated work ...
    {"unallocated preemptee", Pending(4), {1, 0, 0, 0, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedUnallocated},
    // ... including its own allocation's free work.
    {"own unallocated work", Pending(0), {1, 0, 0, 0, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedUnallocated},
    // Never the preemptor's own allocated work.
    {"same allocation", Pending(0), {1, 0, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedSameAllocation},
    // Allocation 1 (rank 1) does not rank ahead of allocation 0 (rank 0).
    {"ranks behind", Pending(1), {1, 0, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedRanksBehind},
    // Rank 0 ahead of rank 3, but projected 0.3 > 0.25: the swap would leave
    // 0 better served than 3 was. Ping-pong, refused.
    {"ping-pong", Pending(0), {1, 3, 0, 10, true, 0, {{0, 8}}}, PreemptVerdict::kRefusedPingPong},
    // Projected 0.3 <= 0.3: equal service after the swap is allowed.
    {"projection equal", Pending(0), {1, 4, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedOverServed},
    // Projected 0.3 <= 0.9.
    {"over-served", Pending(0), {1, 1, 0, 10, false, 0, {{0, 8}}},
     PreemptVerdict::kAllowedOverServed},
    // Rule 3b: a quick-start job of allocation 2 (rank 2, ratio 1.5) takes
    // unprotected work of allocation 0 (rank 0), which it ranks behind ...
    {"quick start across ranks", Pending(2, 100, 1, 1, true), {1, 0, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedQuickStart},
    // ... and of allocation 3 whatever the projections ...
    {"quick start past ping-pong", Pending(0, 100, 1, 1, true), {1, 3, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kAllowedQuickStart},
    // ... but never protected work, nor its own allocation's.
    {"quick start, protected", Pending(2, 100, 1, 1, true), {1, 0, 950, 100, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedProtected},
    {"quick start, same allocation", Pending(2, 100, 1, 1, true), {1, 2, 0, 10, true, 0, {{0, 8}}},
     PreemptVerdict::kRefusedSameAllocation},
};

void test_quick_start_rule(void**) {
  // QuickStartRule (contract.h): allocated, one node, at most max_gpus
  // GPUs, min-runtime at most max_min_runtime; max_gpus 0 turns it off.
  budget::QuickStartRule rule{900, 1};
  assert_true(rule.Applies(Pending(0, 900, 1, 1)));
  assert_false(rule.Applies(Pending(0, 901, 1, 1)));  // protected too long
  assert_false(rule.Applies(Pending(0, 0, 1, 1)));    // free work preempts nothing anyway
  assert_false(rule.Applies(Pending(0, 60, 1, 2)));   // too many GPUs
  assert_false(rule.Applies(Pending(0, 60, 2, 1)));   // several nodes
  assert_false((budget::QuickStartRule{900, 0}.Applies(Pending(0, 60, 1, 1))));
}

void test_pairwise_rule_and_set_choice_agree(void**) {
  for (const PairCase& c : kPairs) {
    RunningJob victim = Job(c.preemptee);
    const Standing& ps = kStandings[size_t(c.preemptor.allocation)];
    const Standing& vs = kStandings[size_t(victim.allocation)];
    PreemptVerdict got = budget::JudgePreemption(c.preemptor, ps, victim, vs, kScale, kNow);
    if (got != c.expected) {
      fail_msg("%s: verdict %s, want %s", c.what, budget::PreemptVerdictName(got),
               budget::PreemptVerdictName(c.expected));
    }
    bool may = budget::MayPreempt(c.preemptor, ps, victim, vs, kScale, kNow);
    // The set choice for that pair alone (one full node) says the same.
    PreemptionPlan plan = Choose(c.preemptor, {victim}, Nodes({0}));
    if (plan.feasible != may) fail_msg("%s: set choice %d, pairwise %d", c.what, plan.feasible, may);
    if (may && VictimIds(plan) != "1") fail_msg("%s: victims %s", c.what, VictimIds(plan).c_str());
    if (may && plan.victims[0].rule != c.expected) fail_msg("%s: rule differs", c.what);
  }
}

void test_projected_ratio(void**) {
  // (1600 + 8 x 100) / (0.5 x 16 x 1000) = 2400 / 8000 = 0.3.
  assert_true(budget::ProjectedRatio(Pending(), kStandings[0], kScale) == 0.3);
  // A 2 x 8 job: (1600 + 16 x 100) / 8000 = 0.4.
  assert_true(budget::ProjectedRatio(Pending(0, 100, 2, 8), kStandings[0], kScale) == 0.4);
  // Entitlement 0: nothing is owed, the projection is infinite: never
  // allowed against allocated work.
  Standing unentitled{0, 0.0, 0.0, 0.0};
  double p = budget::ProjectedRatio(Pending(), unentitled, kScale);
  assert_true(p > 1e300);
  RunningJob victim = Job({1, 2, 0, 10, true, 0, {{0, 8}}});
  assert_int_equal(int(budget::JudgePreemption(Pending(), unentitled, victim, kStandings[2], kScale, kNow)),
                   int(PreemptVerdict::kRefusedPingPong));
}

// --- victim order -------------------------------------------------------------

void test_victim_order(void**) {
  std::vector<RunningJob> jobs = {
      Job({6, 1, 30, 10, true, 0, {{0, 1}}}),  // allocated, allocation 1 (rank 1)
      Job({3, 2, 10, 10, true, 5, {{0, 1}}}),  // allocated, rank 2, priority 5
      Job({1, 0, 100, 0, true, 0, {{0, 1}}}),  // unallocated, allocation 0 (rank 0)
      Job({4, 2, 10, 10, true, 1, {{0, 1}}}),  // allocated, rank 2, priority 1, start 10
      Job({2, 2, 50, 0, true, 0, {{0, 1}}}),   // unallocated, allocation 2 (rank 2)
      Job({5, 2, 20, 10, true, 1, {{0, 1}}}),  // allocated, rank 2, priority 1, start 20
      Job({7, budget::kNoAllocation, 0, 0, true, 0, {{0, 1}}}),  // unallocated, no allocation
  };
  std::sort(jobs.begin(), jobs.end(), budget::VictimOrder(kStandings));
  std::string order;
  for (const RunningJob& j : jobs) order += std::to_string(j.job_id);
  // Unallocated first: 7 (no allocation), 2 (rank 2), 1 (rank 0); then rank 2
  // allocated work by priority then youngest: 5 (prio 1, start 20), 4 (prio
  // 1, start 10), 3 (prio 5); then rank 1: 6.
  assert_string_equal(order.c_str(), "7215436");
}

// --- the set choice -----------------------------------------------------------

struct SetCase {
  const char* what;
  JobShape pending;
  std::vector<uint32_t> free;  // per node (8 GPUs each)
  std::vector<JobSpec> running;
  bool feasible;
  const char* victims;  // in victim order
  const char* targets;
};

const std::vector<SetCase>& SetCases() {
  static const std::vector<SetCase> cases = {
      // Node 0 full: free job 1 (4 GPUs) and job 2 of over-served 2 (4).
      // 4 GPUs needed: unallocated job 1 alone frees them.
      {"unallocated first", Pending(0, 100, 1, 4), {0},
       {{1, 1, 0, 0, true, 0, {{0, 4}}}, {2, 2, 0, 10, true, 0, {{0, 4}}}},
       true, "1", "0"},
      // Victim order on node 0: 1 (free, 1 GPU), 2 (rank 2, 4 GPUs), 3 (rank
      // 1, 3 GPUs). Taking in order: 0+1 = 1 < 4, 1+4 = 5 >= 4, stop. Job 1
      // is then not needed (5 - 1 = 4 >= 4): only job 2. Job 3 untouched.
      {"never more than needed", Pending(0, 100, 1, 4), {0},
       {{1, 1, 0, 0, true, 0, {{0, 1}}}, {2, 2, 0, 10, true, 0, {{0, 4}}},
        {3, 1, 0, 10, true, 0, {{0, 3}}}},
       true, "2", "0"},
      // Node 0: job 1 of allocation 1 (8 GPUs). Node 1: free jobs 2 and 3
      // (4 each). Node 1's most valuable victim is free work, node 0's is
      // allocated: node 1, though it takes two victims. Listed in victim
      // order: 2 (free work of rank 2) before 3 (free work of rank 1).
      {"cheapest node", Pending(), {0, 0},
       {{1, 1, 0, 10, true, 0, {{0, 8}}}, {2, 2, 0, 0, true, 0, {{1, 4}}},
        {3, 1, 0, 0, true, 0, {{1, 4}}}},
       true, "2,3", "1"},
      // Node 1 has 2 free and a free job of 6: one victim there; node 0 would
      // need two free jobs (4 + 4): node 1 (fewer victims).
      {"fewest victims", Pending(), {0, 2},
       {{1, 1, 0, 0, true, 0, {{0, 4}}}, {2, 1, 0, 0, true, 0, {{0, 4}}},
        {3, 1, 0, 0, true, 0, {{1, 6}}}},
       true, "3", "1"},
      // Job 1 holds 4 GPUs on node 0 and 4 on node 1; protected jobs 2, 3
      // hold the other 4 of each. 8 GPUs on one node: at most 4 can be freed
      // on either node. Nothing is preempted.
      {"gang: cannot free enough", Pending(), {0, 0},
       {{1, 2, 0, 10, true, 0, {{0, 4}, {1, 4}}}, {2, 2, 990, 100, true, 0, {{0, 4}}},
        {3, 2, 990, 100, true, 0, {{1, 4}}}},
       false, "", ""},
      // Same cluster, 4 GPUs: job 1 is preempted whole (both its nodes), once;
      // node 0 (lower index) wins the tie.
      {"multi-node victim whole", Pending(0, 100, 1, 4), {0, 0},
       {{1, 2, 0, 10, true, 0, {{0, 4}, {1, 4}}}, {2, 2, 990, 100, true, 0, {{0, 4}}},
        {3, 2, 990, 100, true, 0, {{1, 4}}}},
       true, "1", "0"},
      // 2 x 8 takes whole nodes. Node 0 has a protected job; node 1 a free
      // job; node 2 a job of rank 2; node 3 a job of rank 1. Cheapest two
      // emptiable nodes: 1 (free work) and 2 (rank 2).
      {"whole nodes, cheapest", Pending(0, 100, 2, 8), {0, 0, 0, 0},
       {{1, 1, 990, 100, true, 0, {{0, 8}}}, {2, 1, 0, 0, true, 0, {{1, 8}}},
        {3, 2, 0, 10, true, 0, {{2, 8}}}, {4, 1, 0, 10, true, 0, {{3, 8}}}},
       true, "2,3", "1,2"},
      // 2 x 8 with node 0 already empty: it costs nothing; one more node, the
      // free job's node 1. Node 2's job is spared.
      {"whole nodes, one already free", Pending(0, 100, 2, 8), {8, 0, 0},
       {{2, 1, 0, 0, true, 0, {{1, 8}}}, {3, 2, 0, 10, true, 0, {{2, 8}}}},
       true, "2", "0,1"},
      // Node 0 holds a free job (4) and a protected job (4): it cannot be
      // emptied, so 2 x 8 cannot use it even though the free job could go.
      // Only node 1 is emptiable: infeasible, nothing preempted.
      {"whole node blocked by protection", Pending(0, 100, 2, 8), {0, 0},
       {{1, 1, 0, 0, true, 0, {{0, 4}}}, {2, 1, 990, 100, true, 0, {{0, 4}}},
        {3, 2, 0, 10, true, 0, {{1, 8}}}},
       false, "", ""},
      // A 2-node victim on nodes 0,1 (rank 2): a 2 x 8 job takes both nodes
      // and preempts it once.
      {"multi-node victim for multi-node job", Pending(0, 100, 2, 8), {0, 0, 0},
       {{1, 2, 0, 10, true, 0, {{0, 8}, {1, 8}}}, {2, 1, 990, 100, true, 0, {{2, 8}}}},
       true, "1", "0,1"},
      // Node 1 has 8 free: the job fits, nothing is preempted.
      {"fits already", Pending(), {0, 8},
       {{1, 1, 0, 0, true, 0, {{0, 8}}}}, true, "", "1"},
      // Only protected jobs: nothing.
      {"all protected", Pending(), {0},
       {{1, 2, 950, 100, true, 0, {{0, 8}}}}, false, "", ""},
      // An unallocated pending job preempts nothing, not even free work.
      {"unallocated pending", Pending(0, 0), {0},
       {{1, 2, 0, 0, true, 0, {{0, 8}}}}, false, "", ""},
      // Free work on a drained node is no help.
      {"unusable node", Pending(), {0, 0},
       {{1, 2, 0, 0, true, 0, {{0, 8}}}, {2, 1, 950, 100, true, 0, {{1, 8}}}},
       false, "", ""},
  };
  return cases;
}

void test_set_choice(void**) {
  for (const SetCase& c : SetCases()) {
    std::vector<RunningJob> running;
    for (const JobSpec& spec : c.running) running.push_back(Job(spec));
    std::vector<NodeState> nodes = Nodes(c.free);
    if (std::string(c.what) == "unusable node") nodes[0].usable = false;
    PreemptionPlan plan = Choose(c.pending, running, nodes);
    if (plan.feasible != c.feasible) fail_msg("%s: feasible %d, want %d", c.what, plan.feasible, c.feasible);
    if (VictimIds(plan) != c.victims) fail_msg("%s: victims %s, want %s", c.what, VictimIds(plan).c_str(), c.victims);
    if (TargetIds(plan) != c.targets) fail_msg("%s: targets %s, want %s", c.what, TargetIds(plan).c_str(), c.targets);
    if (!plan.feasible && plan.why_not.empty()) fail_msg("%s: no reason given", c.what);
  }
}

void test_actions_and_explanation(void**) {
  // Node 0: free job 1 (resumable, 4 GPUs) and free job 2 (not resumable, 4).
  std::vector<RunningJob> running = {Job({1, 1, 0, 0, true, 0, {{0, 4}}}),
                                     Job({2, 1, 10, 0, false, 0, {{0, 4}}})};
  PreemptionPlan plan = Choose(Pending(), running, Nodes({0}));
  assert_true(plan.feasible);
  // Both go (4 + 4 = 8); the younger (start 10) first: 2, 1.
  assert_string_equal(VictimIds(plan).c_str(), "2,1");
  // Job 2 is not resumable: cancelled.
  assert_int_equal(int(plan.victims[0].action), int(PreemptAction::kCancel));
  // Job 1 is resumable: requeued.
  assert_int_equal(int(plan.victims[1].action), int(PreemptAction::kRequeue));
  // 4 GPUs each.
  assert_true(plan.victims[0].gpus == 4);
  // Preemptee ratio: allocation 1's 0.9; preemptor projected 0.3.
  assert_true(plan.victims[0].preemptee_ratio == 0.9);
  assert_true(plan.victims[0].preemptor_projected_ratio == 0.3);
  std::string line = budget::DescribePlan(Pending(), plan);
  const char* parts[] = {"job 99 (alloc 0, 8 GPUs x 1 node(s))", "preempt job 2 (alloc 1, cancel, rule unallocated, preemptee ratio 0.900, preemptor projected 0.300)",
                         "job 1 (alloc 1, requeue", "on node(s) 0"};
  for (const char* part : parts) {
    if (line.find(part) == std::string::npos) fail_msg("'%s' lacks '%s'", line.c_str(), part);
  }
  PreemptionPlan none = Choose(Pending(), {Job({1, 2, 950, 100, true, 0, {{0, 8}}})}, Nodes({0}));
  line = budget::DescribePlan(Pending(), none);
  if (line.find("preempt nothing: ") == std::string::npos) fail_msg("'%s'", line.c_str());
}

void test_errors(void**) {
  std::vector<RunningJob> ok_running = {Job({1, 1, 0, 0, true, 0, {{0, 8}}})};
  struct Case {
    const char* what;
    JobShape pending;
    std::vector<RunningJob> running;
    std::vector<NodeState> nodes;
    const char* message_part;
  };
  std::vector<NodeState> bad_nodes = Nodes({0});
  bad_nodes[0].free_gpus = 9;
  const Case cases[] = {
      {"pending without standing", Pending(7), ok_running, Nodes({0}),
       "pending job 99: allocation 7 has no standing (have 5)"},
      {"running without standing", Pending(), {Job({5, 9, 0, 10, true, 0, {{0, 8}}})}, Nodes({0}),
       "running job 5: allocation 9 has no standing (have 5)"},
      {"0 GPUs", Pending(0, 100, 1, 0), ok_running, Nodes({0}), "pending job 99: node_count"},
      {"bad node", Pending(), ok_running, bad_nodes, "preempt: node 0: free_gpus 9 > total_gpus 8"},
  };
  for (const Case& c : cases) {
    PreemptionPlan plan;
    plan.feasible = true;
    Status st = ChoosePreemption(c.pending, c.running, c.nodes, kStandings, kScale, kNow, &plan);
    if (st.ok()) fail_msg("%s: accepted", c.what);
    if (st.message().find(c.message_part) == std::string::npos) {
      fail_msg("%s: '%s' lacks '%s'", c.what, st.message().c_str(), c.message_part);
    }
    if (plan.feasible || !plan.victims.empty()) fail_msg("%s: a plan after an error", c.what);
  }
  // A chooser made on valid nodes still refuses a later list that is not:
  // more free GPUs than a node has, or (another length) an index twice.
  std::vector<NodeState> nodes = Nodes({0, 0});
  PreemptionChooser chooser(ok_running, nodes, kStandings);
  std::vector<NodeState> too_free = nodes;
  too_free[1].free_gpus = 9;
  std::vector<NodeState> twice = Nodes({0, 0, 0});
  twice[2].index = 0;
  const std::pair<const std::vector<NodeState>*, const char*> later[] = {
      {&too_free, "preempt: node 1: free_gpus 9 > total_gpus 8"},
      {&twice, "preempt: node 0: index given twice"},
  };
  for (const auto& [list, message_part] : later) {
    PreemptionPlan plan;
    Status st = chooser.Choose(Pending(), *list, kStandings, kScale, kNow, &plan);
    if (st.ok() || st.message().find(message_part) == std::string::npos)
      fail_msg("reused chooser: '%s' lacks '%s'", st.message().c_str(), message_part);
  }
}

// --- no ping-pong -----------------------------------------------------------------

// Two teams at equal share (entitlement 0.5 each) flood one 8-GPU node with
// 8-GPU jobs of min-runtime m = 128 s. Window W = 2^20 s (nothing leaves it
// during the 8192 s simulated), so the entitled GPU time of a team is
// 0.5 x 8 x 2^20 = 2^22 GPU-s and every ratio below is exact in binary.
// Every 16 s the waiting team's job asks to preempt the running one; rank:
// lower usage first, ties to team 0.
//
// By hand: team 0 runs from 0, protected through 128 (contract.h). At 144,
// the first step after, team 1 (usage 0) projects 0 + 8 x 128 = 1024 <=
// team 0's 8 x 144 = 1152: swap. Team 0 (1152) then projects 2176, so team 1
// runs 2176 / 8 = 272 s before it may swap back (at 416). From then on the
// waiting team trails by exactly one run: each run lasts 2048 / 8 = 256 s =
// 2m. So swaps happen at 144, 416, 672, ..., every 256 s: 2 + floor((8192 -
// 416) / 256) = 32 swaps, never one at the protection end of the runner. A
// rule without the projection would swap after 144 s every time (almost
// twice as many swaps).
void test_equal_shares_do_not_thrash(void**) {
  const Seconds kMin = 128;
  const Seconds kStep = 16;
  const TimePoint kEnd = 8192;
  const double kEntitled = 4194304.0;  // 2^22
  const ClusterScale scale{8, 1048576};
  double usage[2] = {0.0, 0.0};
  int running_team = 0;
  TimePoint run_start = 0;
  int swaps = 0;
  std::vector<Seconds> runs;
  std::vector<NodeState> nodes = Nodes({0});
  for (TimePoint t = kStep; t <= kEnd; t += kStep) {
    usage[running_team] += 8.0 * kStep;
    int waiting = 1 - running_team;
    std::vector<Standing> standings(2);
    bool zero_first = usage[0] <= usage[1];
    for (int team = 0; team < 2; ++team) {
      standings[size_t(team)] = Standing{uint32_t((team == 0) == zero_first ? 0 : 1),
                                         usage[team] / kEntitled, 0.5, usage[team]};
    }
    JobShape pending = Pending(waiting, kMin, 1, 8);
    RunningJob runner = Job({uint32_t(100 + swaps), running_team, run_start, kMin, true, 0, {{0, 8}}});
    PreemptionPlan plan;
    Status st = ChoosePreemption(pending, {runner}, nodes, standings, scale, t, &plan);
    assert_true(st.ok());
    bool may = budget::MayPreempt(pending, standings[size_t(waiting)], runner,
                                  standings[size_t(running_team)], scale, t);
    assert_int_equal(plan.feasible, may);
    if (plan.feasible) {
      runs.push_back(t - run_start);
      running_team = waiting;
      run_start = t;
      ++swaps;
    }
  }
  // 32 swaps, by hand above.
  assert_int_equal(swaps, 32);
  // The first run ends at the first step after its protection, 144 s; the
  // second makes up for its 16 s more, 272 s.
  assert_int_equal(runs[0], 144);
  assert_int_equal(runs[1], 272);
  // Settled: every later run lasts exactly 2m = 256 s.
  for (size_t i = 2; i < runs.size(); ++i) {
    if (runs[i] != 256) fail_msg("run %zu lasted %lld s, want 256", i, (long long)runs[i]);
  }
  // Shares converge: total 8 x 8192 = 65536 GPU-s; the leader is ahead by at
  // most one run of 8 x 256 = 2048 GPU-s.
  assert_true(usage[0] + usage[1] == 65536.0);
  assert_true(usage[0] - usage[1] <= 2048.0 && usage[1] - usage[0] <= 2048.0);
}

// Equal standing both ways: neither team may preempt the other.
void test_equal_standing_no_swap(void**) {
  // Both at ratio 0.25: 0.25 x 8000 = 2000 GPU-s; team 0 ranks first (tie).
  std::vector<Standing> standings = {{0, 0.25, 0.5, 2000.0}, {1, 0.25, 0.5, 2000.0}};
  RunningJob team0 = Job({1, 0, 0, 10, true, 0, {{0, 8}}});
  RunningJob team1 = Job({2, 1, 0, 10, true, 0, {{0, 8}}});
  // Team 0 projects (2000 + 800) / 8000 = 0.35 > 0.25: ping-pong.
  assert_int_equal(int(budget::JudgePreemption(Pending(0), standings[0], team1, standings[1], kScale, kNow)),
                   int(PreemptVerdict::kRefusedPingPong));
  // Team 1 ranks behind team 0.
  assert_int_equal(int(budget::JudgePreemption(Pending(1), standings[1], team0, standings[0], kScale, kNow)),
                   int(PreemptVerdict::kRefusedRanksBehind));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pairwise_rule_and_set_choice_agree),
      cmocka_unit_test(test_projected_ratio),
      cmocka_unit_test(test_quick_start_rule),
      cmocka_unit_test(test_victim_order),
      cmocka_unit_test(test_set_choice),
      cmocka_unit_test(test_actions_and_explanation),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_equal_shares_do_not_thrash),
      cmocka_unit_test(test_equal_standing_no_swap),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
