// Tests of FairShareOrder: sibling ranking, ties, demand, zero shares, the
// place of an interior node's own jobs, the job order and the Slurm priority
// encoding. Public API only; expected values worked out by hand above each
// assertion.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_trees.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/policy/order.h"
#include "libbudget/state/tree.h"

namespace {

using budget::AllocationTree;
using budget::FairShareOrder;
using budget::NodeId;
using budget::PendingJob;
using budget::PriorityFactors;
using budget::Standing;
using budget::Status;

using budget::testing::kExampleTree;
using budget::testing::ParseTreeOrFail;
using namespace budget::testing;  // ExampleNode: kCluster .. kScience

// 100 GPUs over a 1000 s window: 100,000 GPU-seconds in all.
constexpr double kCapacity = 100;
constexpr budget::Seconds kWindow = 1000;

FairShareOrder Compute(const AllocationTree& tree, const std::vector<double>& usage,
                       const std::vector<double>& demand) {
  FairShareOrder order;
  Status s = order.Compute(tree, usage, demand, kCapacity, kWindow);
  if (!s.ok()) fail_msg("compute: %s", s.message().c_str());
  return order;
}

// Usage of the ranking example: pretrain 6000, alice 1000, bob 1000,
// robotics 1000, science 2000 GPU-seconds; every node that holds jobs has
// demand.
const std::vector<double> kUsage = {0, 0, 6000, 0, 1000, 1000, 1000, 2000};
const std::vector<double> kAllDemand = {0, 0, 1, 1, 1, 1, 1, 1};

void TestStandingOfThe35PercentExample(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  // pretrain used exactly its 35% of 100,000 GPU-seconds.
  FairShareOrder order = Compute(tree, {0, 0, 35000, 0, 0, 0, 0, 0}, kAllDemand);
  // entitlement 0.5 x 0.7 = 0.35
  assert_float_equal(order.standing(kPretrain).entitlement, 0.35, 1e-12);
  // 35000 / (0.35 x 100 x 1000) = 1.0: exactly on budget.
  assert_float_equal(order.standing(kPretrain).usage_ratio, 1.0, 1e-12);
  // llm's subtree usage is pretrain's: 35000; ratio 35000 / (0.5 x 100000) = 0.7
  assert_float_equal(order.standing(kLlm).window_usage, 35000, 0);
  assert_float_equal(order.standing(kLlm).usage_ratio, 0.7, 1e-12);
  // The root: 35000 / 100000 = 0.35 of the cluster's time was used.
  assert_float_equal(order.standing(kCluster).usage_ratio, 0.35, 1e-12);
}

void TestSiblingsRankMostUnderServedFirst(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  // Root: llm 8000, robotics 1000, science 2000 of U = 11000.
  //   llm      (8000/11000) / 0.5 = 1.4545
  //   robotics (1000/11000) / 0.3 = 0.3030
  //   science  (2000/11000) / 0.2 = 0.9091   => robotics, science, llm
  assert_float_equal(order.sibling_ratio(kLlm), 8000.0 / 11000 / 0.5, 1e-12);
  assert_float_equal(order.sibling_ratio(kRobotics), 1000.0 / 11000 / 0.3, 1e-12);
  assert_int_equal(order.sibling_position(kRobotics), 0);
  assert_int_equal(order.sibling_position(kScience), 1);
  assert_int_equal(order.sibling_position(kLlm), 2);
  // llm: pretrain (6000/8000)/0.7 = 1.071, posttrain (2000/8000)/0.3 = 0.833.
  assert_int_equal(order.sibling_position(kPosttrain), 0);
  assert_int_equal(order.sibling_position(kPretrain), 1);
  // posttrain: alice (1000/2000)/(2/3) = 0.75, bob (1000/2000)/(1/3) = 1.5.
  assert_float_equal(order.sibling_ratio(kAlice), 0.75, 1e-12);
  assert_float_equal(order.sibling_ratio(kBob), 1.5, 1e-12);
  // Depth first, a node's own slot after its children:
  //   robotics 0, science 1, alice 2, bob 3, posttrain (carol's jobs) 4,
  //   pretrain 5. cluster and llm hold no jobs.
  const std::vector<NodeId> expected = {kRobotics, kScience, kAlice, kBob, kPosttrain, kPretrain};
  assert_int_equal(order.ranked_count(), 6);
  for (size_t r = 0; r < expected.size(); ++r) {
    assert_int_equal(order.ranked_nodes()[r], expected[r]);
    assert_int_equal(order.RankOf(expected[r]), r);
    assert_int_equal(order.standing(expected[r]).rank, r);
  }
  assert_int_equal(order.RankOf(kCluster), FairShareOrder::kNoRank);
  assert_int_equal(order.RankOf(kLlm), FairShareOrder::kNoRank);
  assert_int_equal(order.RankOf(budget::kNoNode), FairShareOrder::kNoRank);
  assert_int_equal(order.RankOf(99), FairShareOrder::kNoRank);
  // Subtree usage of posttrain: alice 1000 + bob 1000 = 2000.
  assert_float_equal(order.standing(kPosttrain).window_usage, 2000, 0);
}

void TestNoUsageRanksByShareThenName(void**) {
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"b","share":1,"account":"b"},{"name":"a","share":1,"account":"a"},
      {"name":"z","share":2,"account":"z"}]})");
  // U = 0: every ratio is 0, a tie. Higher share first (z: 2/4), then the
  // names a < b.
  FairShareOrder order = Compute(tree, {0, 0, 0, 0}, {0, 1, 1, 1});
  // Ids: c 0, b 1, a 2, z 3.
  assert_int_equal(order.ranked_nodes()[0], 3);
  assert_int_equal(order.ranked_nodes()[1], 2);
  assert_int_equal(order.ranked_nodes()[2], 1);
  assert_float_equal(order.sibling_ratio(3), 0.0, 0);
}

void TestEqualRatiosTieDespiteRoundingNoise(void**) {
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"a","share":1,"account":"a"},{"name":"b","share":3,"account":"b"},
      {"name":"c","share":1,"account":"c"}]})");
  // Shares 1/5, 3/5, 1/5; usage a 100, b 300, c 200 of U = 600:
  //   a (100/600)/(1/5) = 5/6, b (300/600)/(3/5) = 5/6, c (200/600)/(1/5) = 5/3.
  // In doubles a = 0.8333333333333333 and b = 0.8333333333333334: a tie all
  // the same, broken by the higher share: b, a, then c.
  FairShareOrder order = Compute(tree, {0, 100, 300, 200}, {0, 1, 1, 1});
  assert_int_equal(order.ranked_nodes()[0], 2);  // b
  assert_int_equal(order.ranked_nodes()[1], 1);  // a
  assert_int_equal(order.ranked_nodes()[2], 3);  // c
}

void TestChildWithoutDemandNeverBlocks(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  // As the ranking example, but robotics (the most under-served) has no
  // demand: it goes after science and llm, which have.
  std::vector<double> demand = kAllDemand;
  demand[kRobotics] = 0;
  FairShareOrder order = Compute(tree, kUsage, demand);
  //   science 0, alice 1, bob 2, posttrain 3, pretrain 4, robotics 5.
  assert_int_equal(order.RankOf(kScience), 0);
  assert_int_equal(order.RankOf(kAlice), 1);
  assert_int_equal(order.RankOf(kPretrain), 4);
  assert_int_equal(order.RankOf(kRobotics), 5);
  assert_false(order.has_demand(kRobotics));
  // llm has demand through its descendants only.
  assert_true(order.has_demand(kLlm));
  // Demand deep down counts for the whole subtree: only bob has demand in
  // llm, yet llm (ratio 1.45) still precedes robotics without demand.
  std::vector<double> only_bob(8, 0.0);
  only_bob[kBob] = 2;
  FairShareOrder o2 = Compute(tree, kUsage, only_bob);
  // Root: llm (demand) first; then robotics 0.30, science 0.91 (no demand).
  // Inside llm: posttrain (demand) before pretrain (none); inside posttrain
  // bob (demand) before alice (none).
  //   bob 0, alice 1, posttrain 2, pretrain 3, robotics 4, science 5.
  assert_int_equal(o2.RankOf(kBob), 0);
  assert_int_equal(o2.RankOf(kAlice), 1);
  assert_int_equal(o2.RankOf(kPosttrain), 2);
  assert_int_equal(o2.RankOf(kPretrain), 3);
  assert_int_equal(o2.RankOf(kRobotics), 4);
  assert_int_equal(o2.RankOf(kScience), 5);
}

void TestZeroShareRanksLastAmongDemand(void**) {
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"free","share":0,"account":"free"},
      {"name":"busy","share":1,"account":"busy"},
      {"name":"idle","share":1,"account":"idle"}]})");
  // free used nothing (ratio would be 0) but has share 0; busy used
  // everything: ratio (1000/1000)/(1/2) = 2. idle has no demand.
  //   busy (demand, share > 0) 0, free (demand, share 0) 1, idle 2.
  FairShareOrder order = Compute(tree, {0, 0, 1000, 0}, {0, 1, 1, 0});
  assert_int_equal(order.RankOf(2), 0);
  assert_int_equal(order.RankOf(1), 1);
  assert_int_equal(order.RankOf(3), 2);
  // 0 usage, 0 share: ratio shown as 0; with usage it would be +inf.
  assert_float_equal(order.sibling_ratio(1), 0.0, 0);
  // Entitlement 0: usage_ratio stays finite (0 when unused).
  assert_float_equal(order.standing(1).usage_ratio, 0.0, 0);
  FairShareOrder used = Compute(tree, {0, 10, 1000, 0}, {0, 1, 1, 0});
  assert_true(used.sibling_ratio(1) > 1e300);
  // 10 / (1e-12 x 100 x 1000) = 1e8: large, finite.
  assert_float_equal(used.standing(1).usage_ratio, 1e8, 1);
}

void TestInteriorNodeJobsAfterItsChildren(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  // carol has no node in posttrain: her job is charged to posttrain itself,
  // which ranks after alice and bob (4 > 3 > 2) but before pretrain (5).
  const NodeId carol_node = tree.NodeFor("posttrain", "carol");
  assert_int_equal(carol_node, kPosttrain);
  PendingJob carol{1, carol_node, true, 1000, 0};
  PendingJob bob{2, kBob, true, 0, 50};
  PendingJob pretrain{3, kPretrain, true, 0, 0};
  assert_true(order.JobBefore(bob, carol));
  assert_true(order.JobBefore(carol, pretrain));
}

void TestUserPriorityOnlyInsideANode(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  // robotics ranks 0, science 1.
  PendingJob robotics_low{10, kRobotics, true, 0, 500};
  PendingJob science_high{11, kScience, true, 60000, 100};
  // A huge user priority in science does not jump robotics' job.
  assert_true(order.JobBefore(robotics_low, science_high));
  assert_false(order.JobBefore(science_high, robotics_low));
  // Inside robotics, user priority decides before submit time.
  PendingJob robotics_high{12, kRobotics, true, 5, 900};
  assert_true(order.JobBefore(robotics_high, robotics_low));
  // Equal priority: earlier submit first; equal submit: lower job id.
  PendingJob robotics_early{13, kRobotics, true, 0, 100};
  assert_true(order.JobBefore(robotics_early, robotics_low));
  PendingJob robotics_same{9, kRobotics, true, 0, 500};
  assert_true(order.JobBefore(robotics_same, robotics_low));
  assert_false(order.JobBefore(robotics_low, robotics_low));
}

void TestJobOrderFromACopyOfTheStandings(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  std::vector<Standing> standings;
  std::vector<PendingJob> jobs = {
      {10, kRobotics, true, 0, 500},   // robotics ranks 0
      {11, kScience, true, 60000, 100},  // science ranks 1: after robotics whatever its user priority
      {12, kRobotics, true, 5, 900},   // robotics, higher user priority: before job 10
      {13, kRobotics, true, 0, 100},   // robotics, earlier submit: before job 10
      {9, kRobotics, true, 0, 500},    // same submit as job 10, lower id: before it
      {14, kRobotics, false, 9, 0},    // unallocated: after every allocated job
      {15, budget::kNoNode, true, 0, 0},  // no node: after every ranked allocated job
      {16, 1000, true, 0, 0},          // an id outside the tree: no rank either
  };
  std::vector<std::vector<bool>> by_order;
  {
    FairShareOrder order = Compute(tree, kUsage, kAllDemand);
    standings = order.standings();
    for (const PendingJob& a : jobs) {
      by_order.emplace_back();
      for (const PendingJob& b : jobs) by_order.back().push_back(order.JobBefore(a, b));
    }
  }
  // The order object is gone: its standings alone give the same verdict for
  // every pair (64 pairs).
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (JobBefore(standings, jobs[i], jobs[j]) != by_order[i][j]) {
        fail_msg("jobs %u and %u: the standings say %d", jobs[i].job_id, jobs[j].job_id,
                 int(JobBefore(standings, jobs[i], jobs[j])));
      }
    }
  }
  // The expected order, worked out from the comments above: 12 (user
  // priority 5), 13 (submit 100), 9 (submit 500, id 9), 10, 11 (science),
  // 15 and 16 (no rank: by submit then id), 14 (unallocated).
  std::vector<PendingJob> sorted = jobs;
  std::sort(sorted.begin(), sorted.end(),
            [&](const PendingJob& a, const PendingJob& b) { return JobBefore(standings, a, b); });
  const uint32_t expected[] = {12, 13, 9, 10, 11, 15, 16, 14};
  for (size_t i = 0; i < sorted.size(); ++i) assert_int_equal(sorted[i].job_id, expected[i]);
}

void TestAllocatedBeforeUnallocated(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  // Unallocated work of the best-ranked node (robotics, 0) with top user
  // priority still waits for allocated work of the worst (pretrain, 5).
  PendingJob free_work{1, kRobotics, false, 65000, 0};
  PendingJob funded{2, kPretrain, true, 0, 999};
  assert_true(order.JobBefore(funded, free_work));
  assert_true(order.Priority(funded) > order.Priority(free_work));
  std::vector<PendingJob> jobs = {free_work, funded};
  order.SortJobs(&jobs);
  assert_int_equal(jobs[0].job_id, 2);
}

void TestPriorityEncoding(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  // 6 ranked nodes < 2^15: R = 15 rank bits, U = 16 user bits.
  assert_int_equal(order.rank_bits(), 15);
  PriorityFactors f;
  // Allocated, rank 0 (robotics), user 0:
  //   1<<31 | (2^15-1-0)<<16 | (0+1) = 0x80000000 | 0x7fff0000 | 1 = 0xffff0001
  assert_int_equal(order.Priority(PendingJob{1, kRobotics, true, 0, 0}, &f), 0xffff0001u);
  // fairshare 1 - 0/6 = 1
  assert_float_equal(f.fairshare, 1.0, 0);
  assert_int_equal(f.rank, 0);
  assert_true(f.allocated);
  // Unallocated, rank 5 (pretrain), user 7:
  //   (32767-5)<<16 | 8 = 0x7ffa0000 | 8 = 0x7ffa0008
  assert_int_equal(order.Priority(PendingJob{2, kPretrain, false, 7, 0}, &f), 0x7ffa0008u);
  // fairshare 1 - 5/6 = 1/6
  assert_float_equal(f.fairshare, 1.0 / 6, 1e-12);
  assert_int_equal(f.user_priority, 7);
  assert_false(f.allocated);
  // User priority 70000 clamps to 65534 (+1 = 0xffff); rank 3 (bob):
  //   (32767-3)<<16 | 0xffff = 0x7ffcffff
  assert_int_equal(order.Priority(PendingJob{3, kBob, false, 70000, 0}, &f), 0x7ffcffffu);
  assert_int_equal(f.user_priority, 70000);
  // No rank (the root holds no jobs), unallocated: 0 | 0 | 1 = 1, never 0;
  // user priority is ignored without a rank.
  assert_int_equal(order.Priority(PendingJob{4, kCluster, false, 0, 0}, &f), 1u);
  assert_int_equal(order.Priority(PendingJob{5, kLlm, false, 900, 0}), 1u);
  assert_float_equal(f.fairshare, 0.0, 0);
  assert_int_equal(f.rank, FairShareOrder::kNoRank);
}

// Deterministic pseudo-random numbers for the property tests.
uint32_t NextRandom(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<uint32_t>(*state >> 33);
}

// Sorting by JobBefore gives non-increasing priorities, strictly decreasing
// whenever (allocated, node) changes: the encoding reproduces the order.
// Also: SortJobs (bucketed by node) agrees with a plain comparison sort.
void CheckPriorityPreservesOrder(const FairShareOrder& order, std::vector<PendingJob> jobs) {
  std::vector<PendingJob> reference = jobs;
  std::sort(reference.begin(), reference.end(),
            [&](const PendingJob& a, const PendingJob& b) { return order.JobBefore(a, b); });
  order.SortJobs(&jobs);
  assert_int_equal(jobs.size(), reference.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].job_id != reference[i].job_id) {
      fail_msg("position %zu: SortJobs gives job %u, a comparison sort %u", i, jobs[i].job_id,
               reference[i].job_id);
    }
  }
  for (size_t i = 1; i < jobs.size(); ++i) {
    const uint32_t before = order.Priority(jobs[i - 1]);
    const uint32_t after = order.Priority(jobs[i]);
    assert_true(after >= 1);
    if (before < after) fail_msg("job %u sorts before %u but has priority %u < %u",
                                 jobs[i - 1].job_id, jobs[i].job_id, before, after);
    // Nodes without a rank all encode rank field 0: they may tie.
    const bool ranked = order.RankOf(jobs[i].node) != FairShareOrder::kNoRank;
    if (ranked &&
        (jobs[i - 1].allocated != jobs[i].allocated || jobs[i - 1].node != jobs[i].node) &&
        before == after) {
      fail_msg("jobs %u and %u of different nodes tie at %u", jobs[i - 1].job_id,
               jobs[i].job_id, before);
    }
  }
}

void TestPriorityPreservesJobOrder(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  uint64_t state = 42;
  std::vector<PendingJob> jobs;
  for (uint32_t id = 1; id <= 2000; ++id) {
    PendingJob j;
    j.job_id = id;
    j.node = static_cast<NodeId>(NextRandom(&state) % 8);  // Includes no-rank nodes.
    j.allocated = NextRandom(&state) % 2;
    // Mostly small priorities, some beyond the 16-bit field.
    j.user_priority = NextRandom(&state) % 4 == 0 ? NextRandom(&state) : NextRandom(&state) % 100;
    j.submit_time = NextRandom(&state) % 1000;
    jobs.push_back(j);
  }
  CheckPriorityPreservesOrder(order, jobs);
}

// A flat tree of kLeaves accounts, each with demand and varied usage.
constexpr int kLeaves = 40000;

AllocationTree ManyAccounts() {
  std::string json = R"({"name":"c","children":[)";
  for (int i = 0; i < kLeaves; ++i) {
    json += (i ? "," : "") + std::string(R"({"name":"a)") + std::to_string(i) +
            R"(","share":1,"account":"a)" + std::to_string(i) + "\"}";
  }
  json += "]}";
  return ParseTreeOrFail(json);
}

FairShareOrder RankManyAccounts(const AllocationTree& tree) {
  std::vector<double> usage(tree.size()), demand(tree.size(), 1.0);
  for (size_t i = 1; i < usage.size(); ++i) usage[i] = static_cast<double>(i % 977);
  return Compute(tree, usage, demand);
}

void TestPriorityBeyond32768Ranks(void**) {
  // 40,000 accounts: more ranks than 15 bits hold. R grows to 16 bits
  // (2^15 = 32768 < 40000 < 65536), user priorities get 15 (up to 32766).
  AllocationTree tree = ManyAccounts();
  FairShareOrder order = RankManyAccounts(tree);
  assert_int_equal(order.ranked_count(), kLeaves);
  assert_int_equal(order.rank_bits(), 16);
  // Every rank keeps a distinct priority, even with clamped user priorities:
  // the last rank with user priority 2^32-1 still beats nothing above it.
  uint32_t previous = UINT32_MAX;
  for (uint32_t r = 0; r < order.ranked_count(); ++r) {
    const NodeId node = order.ranked_nodes()[r];
    const uint32_t p_low = order.Priority(PendingJob{1, node, false, 0, 0});
    const uint32_t p_high = order.Priority(PendingJob{2, node, false, UINT32_MAX, 0});
    if (p_high >= previous) fail_msg("rank %u encodes >= rank %u", r, r - 1);
    assert_true(p_low <= p_high);
    previous = p_low;
  }
  // Rank 0, user priority 40000 clamps to 32766: (2^16-1)<<15 | 32767
  //   = 0x7fff8000 | 0x7fff = 0x7fffffff
  assert_int_equal(order.Priority(PendingJob{3, order.ranked_nodes()[0], false, 40000, 0}),
                   0x7fffffffu);
  // Last rank 39999, user 0: (65535 - 39999)<<15 | 1 = 25536<<15 | 1 = 836763649
  assert_int_equal(order.Priority(PendingJob{4, order.ranked_nodes()[kLeaves - 1], false, 0, 0}),
                   836763649u);
  std::vector<PendingJob> jobs;
  uint64_t state = 7;
  for (uint32_t id = 1; id <= 5000; ++id) {
    jobs.push_back(PendingJob{id, static_cast<NodeId>(NextRandom(&state) % tree.size()),
                              NextRandom(&state) % 2 == 0, NextRandom(&state) % 50000,
                              static_cast<budget::TimePoint>(NextRandom(&state) % 100)});
  }
  CheckPriorityPreservesOrder(order, jobs);
}

// DecodePriority reads back what Priority() encoded, for every kind of job,
// with 15 rank bits and with 16.
void CheckDecodeRoundTrip(const FairShareOrder& order, const std::vector<PendingJob>& jobs) {
  const uint32_t max_user = (uint32_t{1} << (31 - order.rank_bits())) - 2;
  for (const PendingJob& job : jobs) {
    PriorityFactors made, read;
    const uint32_t priority = order.Priority(job, &made);
    if (!budget::DecodePriority(priority, order.ranked_count(), &read)) {
      fail_msg("priority 0x%08x of job %u not decoded", priority, job.job_id);
    }
    assert_int_equal(read.allocated, made.allocated);
    assert_int_equal(read.rank, made.rank);
    assert_float_equal(read.fairshare, made.fairshare, 0);
    uint32_t user = made.rank == FairShareOrder::kNoRank ? 0 : std::min(made.user_priority, max_user);
    // The all-ones value is kGrantedPriority: the top-ranked allocated
    // node's highest user priority encodes one below it.
    if (made.allocated && made.rank == 0 && user == max_user) user = max_user - 1;
    assert_int_equal(read.user_priority, user);
    assert_true(priority != budget::kGrantedPriority);
  }
}

void TestGrantedPriorityIsNeverMade(void**) {
  // The top-ranked allocated job with the largest user priority would
  // encode all ones; it encodes one below, and all ones decodes as nothing.
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  PendingJob top{1, order.ranked_nodes()[0], true, UINT32_MAX, 0};
  assert_int_equal(order.Priority(top), budget::kGrantedPriority - 1);
  PriorityFactors f;
  assert_false(budget::DecodePriority(budget::kGrantedPriority, order.ranked_count(), &f));
}

void TestDecodePriorityRoundTrips(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  uint64_t state = 11;
  std::vector<PendingJob> jobs;
  for (uint32_t id = 1; id <= 2000; ++id) {
    jobs.push_back(PendingJob{id, static_cast<NodeId>(NextRandom(&state) % 8),
                              NextRandom(&state) % 2 == 0,
                              NextRandom(&state) % 4 == 0 ? NextRandom(&state) : NextRandom(&state) % 100,
                              0});
  }
  CheckDecodeRoundTrip(order, jobs);

  AllocationTree big = ManyAccounts();  // R = 16, as in TestPriorityBeyond32768Ranks
  FairShareOrder big_order = RankManyAccounts(big);
  assert_int_equal(FairShareOrder::RankBitsFor(big_order.ranked_count()), 16);
  jobs.clear();
  for (uint32_t id = 1; id <= 5000; ++id) {
    jobs.push_back(PendingJob{id, static_cast<NodeId>(NextRandom(&state) % big.size()),
                              NextRandom(&state) % 2 == 0, NextRandom(&state) % 50000, 0});
  }
  CheckDecodeRoundTrip(big_order, jobs);
}

void TestDecodePriorityRefusesWhatPriorityCannotMake(void**) {
  PriorityFactors f;
  // 6 ranked nodes, R = 15, U = 16.
  assert_false(budget::DecodePriority(0, 6, &f));
  // Rank 6 (inverted 32767 - 6): beyond the 6 ranked nodes (0..5).
  assert_false(budget::DecodePriority(((32767u - 6) << 16) | 1, 6, &f));
  // A rank with a user field of 0.
  assert_false(budget::DecodePriority((32767u - 2) << 16, 6, &f));
  // No rank, user field 5: Priority() writes 1 there.
  assert_false(budget::DecodePriority(5, 6, &f));
  // An administrator's round number: 1000000 = 0x000f4240 has rank field
  // 0x000f (rank 32752), not one of 6.
  assert_false(budget::DecodePriority(1000000, 6, &f));
  // The documented examples decode (TestPriorityEncoding).
  assert_true(budget::DecodePriority(0xffff0001u, 6, &f));
  assert_true(f.allocated);
  assert_int_equal(f.rank, 0);
  assert_int_equal(f.user_priority, 0);
  assert_true(budget::DecodePriority(0x7ffa0008u, 6, &f));
  assert_false(f.allocated);
  assert_int_equal(f.rank, 5);
  assert_int_equal(f.user_priority, 7);
  assert_float_equal(f.fairshare, 1.0 / 6, 1e-12);
  assert_true(budget::DecodePriority(1, 6, &f));
  assert_int_equal(f.rank, FairShareOrder::kNoRank);
}

struct BadInput {
  const char* what;
  std::vector<double> usage;
  std::vector<double> demand;
  double capacity;
  budget::Seconds window;
  const char* error;
};

void TestBadInputsAreRefusedAndKeepThePreviousOrder(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  const std::vector<double> ok(8, 0.0);
  const BadInput cases[] = {
      {"short usage", std::vector<double>(7, 0.0), ok, 100, 1000,
       "fair-share order: 7 usage values for 8 tree nodes"},
      {"long demand", ok, std::vector<double>(9, 0.0), 100, 1000,
       "fair-share order: 9 demand values for 8 tree nodes"},
      {"zero capacity", ok, ok, 0, 1000, "fair-share order: capacity must be > 0 GPUs, got 0"},
      {"zero window", ok, ok, 100, 0, "fair-share order: window must be > 0 s, got 0"},
      {"negative usage", {0, 0, -5, 0, 0, 0, 0, 0}, ok, 100, 1000,
       "fair-share order: usage of llm/pretrain must be a finite number >= 0, got -5"},
      {"NaN usage", {NAN, 0, 0, 0, 0, 0, 0, 0}, ok, 100, 1000,
       "fair-share order: usage of cluster must be a finite number >= 0, got nan"},
      {"infinite demand", ok, {0, 0, 0, 0, 0, 0, 0, INFINITY}, 100, 1000,
       "fair-share order: demand of science must be finite, got inf"},
  };
  FairShareOrder order = Compute(tree, kUsage, kAllDemand);
  for (const BadInput& c : cases) {
    Status s = order.Compute(tree, c.usage, c.demand, c.capacity, c.window);
    if (s.ok()) fail_msg("%s: accepted", c.what);
    if (s.message() != c.error) fail_msg("%s: got %s", c.what, s.message().c_str());
    // The previous order stands: robotics still rank 0.
    assert_int_equal(order.RankOf(kRobotics), 0);
    assert_int_equal(order.ranked_count(), 6);
  }
}

void TestRecomputeReusesTheObject(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  FairShareOrder order;
  assert_int_equal(order.size(), 0);
  assert_true(order.Compute(tree, kUsage, kAllDemand, kCapacity, kWindow).ok());
  assert_int_equal(order.RankOf(kRobotics), 0);
  // robotics then uses 9000 more: root U = 20000, robotics
  // (10000/20000)/0.3 = 1.667, science (2000/20000)/0.2 = 0.5,
  // llm (8000/20000)/0.5 = 0.8 => science, llm, robotics.
  std::vector<double> usage = kUsage;
  usage[kRobotics] = 10000;
  assert_true(order.Compute(tree, usage, kAllDemand, kCapacity, kWindow).ok());
  assert_int_equal(order.RankOf(kScience), 0);
  assert_int_equal(order.RankOf(kRobotics), 5);
  // An empty tree gives an empty order.
  AllocationTree empty;
  assert_true(order.Compute(empty, {}, {}, kCapacity, kWindow).ok());
  assert_int_equal(order.size(), 0);
  assert_int_equal(order.ranked_count(), 0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestStandingOfThe35PercentExample),
      cmocka_unit_test(TestSiblingsRankMostUnderServedFirst),
      cmocka_unit_test(TestNoUsageRanksByShareThenName),
      cmocka_unit_test(TestEqualRatiosTieDespiteRoundingNoise),
      cmocka_unit_test(TestChildWithoutDemandNeverBlocks),
      cmocka_unit_test(TestZeroShareRanksLastAmongDemand),
      cmocka_unit_test(TestInteriorNodeJobsAfterItsChildren),
      cmocka_unit_test(TestUserPriorityOnlyInsideANode),
      cmocka_unit_test(TestJobOrderFromACopyOfTheStandings),
      cmocka_unit_test(TestAllocatedBeforeUnallocated),
      cmocka_unit_test(TestPriorityEncoding),
      cmocka_unit_test(TestPriorityPreservesJobOrder),
      cmocka_unit_test(TestPriorityBeyond32768Ranks),
      cmocka_unit_test(TestGrantedPriorityIsNeverMade),
      cmocka_unit_test(TestDecodePriorityRoundTrips),
      cmocka_unit_test(TestDecodePriorityRefusesWhatPriorityCannotMake),
      cmocka_unit_test(TestBadInputsAreRefusedAndKeepThePreviousOrder),
      cmocka_unit_test(TestRecomputeReusesTheObject),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
