// Tests of the quick-start reserve (quick_reserve.h): which nodes it keeps,
// who may land on them, and Slurm's schedulers as the simulator models them
// keeping long protections off them (slurm_model.h).
#include "libbudget/testing/test_nodes.h"
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/policy/quick_reserve.h"
#include "libbudget/policy/slurm_model.h"

using budget::ChooseQuickReserve;
using budget::HeroPlan;
using budget::NodeHolds;
using budget::NodeState;
using budget::QuickReserve;
using budget::QuickStartRule;
using budget::RunningJob;
using budget::StartingJob;

namespace {

constexpr budget::TimePoint kNow = 10000;

using budget::testing::Nodes;

RunningJob Run(uint32_t id, int32_t node, uint32_t gpus, budget::TimePoint start, budget::Seconds min_runtime) {
  RunningJob j;
  j.job_id = id;
  j.nodes.push_back(budget::NodeGpus{node, gpus});
  j.start = start;
  j.min_runtime = min_runtime;
  j.time_limit = 24 * 3600;
  return j;
}

// n0: 8 GPUs protected until 12600 (long: closed). n1: 8 GPUs past their
// protection (open). n2: idle (open). n3: 4 GPUs under a long protection
// and 4 of unallocated work (4 open). n4: 2 under a long protection (6
// open). n5: a quick-start run (protected 15 min, until 10700): open, and
// reserved while it runs. n6-n15: long protections (closed). 16 usable
// nodes: at most 2 spare ones (kMaxSpareShare).
std::vector<RunningJob> Cluster() {
  std::vector<RunningJob> running = {Run(1, 0, 8, 9000, 3600), Run(2, 1, 8, 5000, 600), Run(3, 3, 4, 9000, 3600),
                                     Run(4, 3, 4, 9000, 0),    Run(5, 4, 2, 9900, 3600), Run(6, 5, 8, 9800, 900)};
  for (int32_t n = 6; n < 16; ++n) running.push_back(Run(uint32_t(n + 1), n, 8, 9000, 7200));
  return running;
}

std::vector<NodeState> Sixteen() { return Nodes(std::vector<uint32_t>(16, 8)); }

QuickStartRule Rule(uint32_t gpus, uint32_t reserve_nodes) {
  QuickStartRule r;
  r.max_gpus = gpus;
  r.max_min_runtime = 900;
  r.reserve_nodes = reserve_nodes;
  return r;
}

std::string Join(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string Reserve(const std::vector<NodeState>& nodes, const HeroPlan& hero, const QuickStartRule& rule,
                    const std::vector<RunningJob>& running = Cluster()) {
  return Join(ChooseQuickReserve(nodes, running, hero, rule, kNow).nodes);
}

void test_reserve_is_the_debug_nodes_and_spare_open_nodes(void** /*state*/) {
  // The free counts given are not read: the running jobs say what is used.
  const std::vector<NodeState> nodes = Sixteen();
  // 8-GPU quick starts: n1, n2 and n5 are open; n5 holds a debug run, so it
  // is in; then the spare nodes in Slurm's order.
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(8, 1)).c_str(), "1,5");
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(8, 2)).c_str(), "1,2,5");
  // 4-GPU quick starts: n3 and n4 are open too, but 2 spare nodes at most.
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(4, 1)).c_str(), "1,5");
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(4, 3)).c_str(), "1,2,5");
  // Once the debug run is past its protection, n5 is a spare node like
  // any other.
  std::vector<RunningJob> later = Cluster();
  later[5].start = 9000;
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(8, 1), later).c_str(), "1");
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(8, 3), later).c_str(), "1,2");
}

void test_spare_nodes_are_one_in_eight_at_most(void** /*state*/) {
  // Idle clusters: 7 nodes keep no spare node, 8 keep one, 24 three.
  const QuickStartRule rule = Rule(8, 4);
  assert_string_equal(Join(ChooseQuickReserve(Nodes(std::vector<uint32_t>(7, 8)), {}, HeroPlan(), rule, kNow).nodes)
                          .c_str(),
                      "");
  assert_string_equal(Join(ChooseQuickReserve(Nodes(std::vector<uint32_t>(8, 8)), {}, HeroPlan(), rule, kNow).nodes)
                          .c_str(),
                      "0");
  assert_string_equal(Join(ChooseQuickReserve(Nodes(std::vector<uint32_t>(24, 8)), {}, HeroPlan(), rule, kNow).nodes)
                          .c_str(),
                      "0,1,2");
  // Unusable nodes do not count.
  std::vector<NodeState> nodes = Nodes(std::vector<uint32_t>(8, 8));
  nodes[7].usable = false;
  assert_string_equal(Join(ChooseQuickReserve(nodes, {}, HeroPlan(), rule, kNow).nodes).c_str(), "");
  // The debug nodes are reserved whatever the size (they are not spare).
  assert_string_equal(
      Join(ChooseQuickReserve(Nodes({8, 8}), {Run(1, 1, 2, kNow - 60, 900)}, HeroPlan(), rule, kNow).nodes).c_str(),
      "1");
}

void test_no_reserve(void** /*state*/) {
  const std::vector<NodeState> nodes = Sixteen();
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(8, 0)).c_str(), "");
  assert_string_equal(Reserve(nodes, HeroPlan(), Rule(0, 2)).c_str(), "");  // no quick start at all
}

void test_held_and_unusable_nodes_are_never_reserved(void** /*state*/) {
  std::vector<NodeState> nodes = Sixteen();
  HeroPlan hero;
  hero.active = true;
  hero.job_id = 99;
  hero.nodes = {1};
  hero.planned_start = kNow + 1000;
  assert_string_equal(Reserve(nodes, hero, Rule(8, 1)).c_str(), "2,5");
  nodes[2].usable = false;
  nodes[5].usable = false;
  assert_string_equal(Reserve(nodes, hero, Rule(8, 1)).c_str(), "");
  // A hero is planned outside the reserve.
  QuickReserve reserve;
  reserve.nodes = {0, 3};
  std::vector<NodeState> for_hero = WithoutReserve(Nodes({8, 8, 8, 8}), reserve);
  assert_false(for_hero[0].usable);
  assert_true(for_hero[1].usable);
  assert_true(for_hero[2].usable);
  assert_false(for_hero[3].usable);
}

void test_who_may_use_the_reserve(void** /*state*/) {
  QuickReserve reserve;
  reserve.nodes = {1};
  reserve.max_min_runtime = 900;
  assert_true(MayUseReserve(reserve, StartingJob{1, 0, -1}));        // unallocated work
  assert_true(MayUseReserve(reserve, StartingJob{2, 900, -1}));      // a quick start's protection
  assert_false(MayUseReserve(reserve, StartingJob{3, 901, -1}));     // longer
  assert_true(MayUseReserve(reserve, StartingJob{4, 3600, 600}));    // ends within a quick start's
  assert_false(MayUseReserve(reserve, StartingJob{5, 3600, 3600}));
  assert_true(MayUseReserve(QuickReserve(), StartingJob{6, 3600, -1}));  // no reserve
}

void test_holds_combine(void** /*state*/) {
  HeroPlan hero;
  hero.active = true;
  hero.job_id = 99;
  hero.nodes = {2};
  hero.planned_start = kNow + 1000;
  QuickReserve reserve;
  reserve.nodes = {1};
  const NodeHolds holds(hero, reserve);
  assert_int_equal(HoldsOn(holds, 1), budget::kReserveHoldBit);
  assert_int_equal(HoldsOn(holds, 2), budget::kHeroHoldBit);
  assert_int_equal(HoldsOn(holds, 0), 0);
  // Protected 1 h: barred from both; 10 min: from neither (it is
  // preemptible by the hero's start); 20 min: from both; unallocated: from
  // neither; the hero itself only from the reserve.
  assert_int_equal(HoldsBarring(holds, StartingJob{1, 3600, -1}, kNow), 3);
  assert_int_equal(HoldsBarring(holds, StartingJob{2, 600, -1}, kNow), 0);
  assert_int_equal(HoldsBarring(holds, StartingJob{3, 1200, -1}, kNow), 3);
  assert_int_equal(HoldsBarring(holds, StartingJob{4, 0, -1}, kNow), 0);
  assert_int_equal(HoldsBarring(holds, StartingJob{99, 3600, -1}, kNow), budget::kReserveHoldBit);
  std::vector<NodeState> view = Nodes({8, 8, 8});
  RemoveBarredNodes(holds, StartingJob{99, 3600, -1}, kNow, &view);
  assert_true(view[0].usable);
  assert_false(view[1].usable);
  assert_true(view[2].usable);
}

budget::SlurmJob Job(uint32_t id, uint32_t gpus, budget::Seconds min_runtime) {
  budget::SlurmJob j;
  j.job_id = id;
  j.request = budget::GpuRequest{1, gpus};
  j.time_limit = 3600;
  j.min_runtime = min_runtime;
  return j;
}

void test_slurm_schedulers_keep_long_protections_off_the_reserve(void** /*state*/) {
  // Two idle nodes, n0 reserved. Backfill: the first long job starts on n1,
  // the second finds only the reserve and waits, the debug job behind it
  // starts on n0.
  const std::vector<NodeState> nodes = Nodes({8, 8});
  QuickReserve reserve;
  reserve.nodes = {0};
  const NodeHolds holds(HeroPlan(), reserve);
  budget::VectorQueue queue({Job(10, 8, 7200), Job(11, 8, 7200), Job(12, 8, 600)});
  budget::SlurmPass pass = budget::RunBackfill(budget::SchedulerParams(), nodes, {}, holds, &queue, kNow);
  assert_int_equal(pass.starts.size(), 2);
  assert_int_equal(pass.starts[0].job_id, 10);
  assert_string_equal(Join(pass.starts[0].nodes).c_str(), "1");
  assert_int_equal(pass.starts[1].job_id, 12);
  assert_string_equal(Join(pass.starts[1].nodes).c_str(), "0");
  // The main scheduler: the second long job stops the pass (it fits
  // nowhere it may run), as a job that does not fit does.
  budget::VectorQueue main_queue({Job(10, 8, 7200), Job(11, 8, 7200), Job(12, 8, 600)});
  pass = budget::RunMainScheduler(budget::SchedulerParams(), 100, nodes, holds, &main_queue, kNow);
  assert_int_equal(pass.starts.size(), 1);
  assert_string_equal(Join(pass.starts[0].nodes).c_str(), "1");
  assert_int_equal(pass.blocked_by, 11);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reserve_is_the_debug_nodes_and_spare_open_nodes),
      cmocka_unit_test(test_spare_nodes_are_one_in_eight_at_most),
      cmocka_unit_test(test_no_reserve),
      cmocka_unit_test(test_held_and_unusable_nodes_are_never_reserved),
      cmocka_unit_test(test_who_may_use_the_reserve),
      cmocka_unit_test(test_holds_combine),
      cmocka_unit_test(test_slurm_schedulers_keep_long_protections_off_the_reserve),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
