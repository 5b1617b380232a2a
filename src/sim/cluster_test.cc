// Tests of the shared placement engine: shapes, best fit through the core
// (same choice as the core over the whole node list), first fit, slots and
// release.
#include "libbudget/testing/test_support.h"

#include <memory>
#include <vector>

#include "libbudget/policy/packing.h"
#include "sim/cluster.h"

using namespace budget;
using namespace budget::sim;

namespace {

void test_shapes(void**) {
  // 1..8 GPUs: one node; 16: two full nodes; 12: two nodes of 6.
  Shape s = ShapeFor(3, 8);
  assert_int_equal(s.node_count, 1);
  assert_int_equal(s.gpus_per_node, 3);
  s = ShapeFor(16, 8);
  assert_int_equal(s.node_count, 2);
  assert_int_equal(s.gpus_per_node, 8);
  s = ShapeFor(12, 8);
  assert_int_equal(s.node_count, 2);
  assert_int_equal(s.gpus_per_node, 6);
}

void test_best_fit_matches_the_core_on_the_whole_list(void**) {
  // 4 nodes of 8; fill them to free = 8, 3, 5, 8 (node 1 takes 5, node 2 takes 3).
  Cluster c(4, 8, {}, /*packing=*/true);
  Allocation a1, a2, a3;
  assert_true(c.PlaceOn(Shape{1, 5}, {1}, &a1));
  assert_true(c.PlaceOn(Shape{1, 3}, {2}, &a2));
  assert_int_equal(c.free_gpus(), 32 - 8);
  // A 2-GPU job: best fit is node 1 (3 free, the fewest that fit).
  NodeChoice core;
  assert_true(ChooseNodes(c.nodes(), GpuRequest{1, 2}, &core).ok());
  assert_true(c.Place(Shape{1, 2}, nullptr, &a3));
  assert_int_equal(a3.nodes[0].node, core.nodes[0]);
  assert_int_equal(a3.nodes[0].node, 1);
  // Node 1 had GPUs 0-4 taken: the job gets GPUs 5 and 6.
  assert_int_equal(a3.slots[0], (1u << 5) | (1u << 6));
  // A 16-GPU job: whole free nodes 0 and 3, as the core says.
  Allocation big;
  assert_true(ChooseNodes(c.nodes(), GpuRequest{2, 8}, &core).ok());
  assert_true(c.Place(Shape{2, 8}, nullptr, &big));
  assert_int_equal(big.nodes.size(), 2);
  assert_int_equal(big.nodes[0].node, core.nodes[0]);
  assert_int_equal(big.nodes[1].node, core.nodes[1]);
  // 32 - 5 - 3 - 2 - 16 = 6 free; the core's fragmentation: all 6 free GPUs
  // are on partially free nodes (1 on node 1, 5 on node 2) -> 1.0.
  assert_int_equal(c.free_gpus(), 6);
  assert_true(c.Fragmentation() == 1.0);
  assert_false(c.Fits(Shape{1, 6}));
  assert_true(c.Fits(Shape{1, 5}));
  c.Release(big);
  // 22 free: 16 on whole nodes, 6 partial -> 6/22.
  assert_true(c.Fragmentation() == 6.0 / 22.0);
  assert_true(c.Fits(Shape{2, 8}));
}

void test_first_fit_takes_the_lowest_node(void**) {
  Cluster c(3, 8, {}, /*packing=*/false);
  Allocation a, b;
  assert_true(c.PlaceOn(Shape{1, 6}, {1}, &a));
  // Best fit would pick node 1 (2 free); first fit takes node 0.
  assert_true(c.Place(Shape{1, 2}, nullptr, &b));
  assert_int_equal(b.nodes[0].node, 0);
}

void test_refuses_what_does_not_fit(void**) {
  Cluster c(2, 8, {}, true);
  Allocation a, b;
  assert_true(c.Place(Shape{2, 8}, nullptr, &a));
  assert_false(c.Place(Shape{1, 1}, nullptr, &b));
  assert_int_equal(b.nodes.size(), 0);
  // PlaceOn a full node, or the wrong number of nodes, takes nothing.
  assert_false(c.PlaceOn(Shape{1, 1}, {0}, &b));
  c.Release(a);
  assert_false(c.PlaceOn(Shape{2, 8}, {0}, &b));
  assert_false(c.PlaceOn(Shape{1, 8}, {7}, &b));
  assert_int_equal(c.free_gpus(), 16);
}

void test_topology_groups_reach_the_core(void**) {
  // Nodes 0-1 in group 0, 2-3 in group 1. Node 0 and node 2 each have 4
  // free. Group 0 is fuller (node 1 full: 4 free in the group vs 12), so a
  // 4-GPU job goes to node 0.
  Cluster c(4, 8, {0, 0, 1, 1}, true);
  Allocation a, b, d;
  assert_true(c.PlaceOn(Shape{1, 8}, {1}, &a));
  assert_true(c.PlaceOn(Shape{1, 4}, {0}, &b));
  assert_true(c.PlaceOn(Shape{1, 4}, {2}, &b));
  assert_true(c.Place(Shape{1, 4}, nullptr, &d));
  assert_int_equal(d.nodes[0].node, 0);
}

void test_places_only_on_eligible_nodes(void**) {
  // Four empty nodes; the job may use nodes 2 and 3 only (its GPU type's).
  // Best fit among equals is the lowest index: node 2, not node 0. First
  // fit takes node 2 as well. With 2 and 3 full, it fits nowhere it may go
  // though nodes 0 and 1 are empty.
  for (bool packing : {true, false}) {
    Cluster c(4, 8, {}, packing);
    budget::NodeSet set;
    set.Add(2);
    set.Add(3);
    budget::EligibleNodes eligible = std::make_shared<const budget::NodeSet>(set);
    Allocation a, b, d;
    assert_true(c.Place(Shape{1, 4}, eligible, &a));
    assert_int_equal(a.nodes[0].node, 2);
    assert_true(c.PlaceOn(Shape{1, 4}, {2}, &b));
    assert_true(c.PlaceOn(Shape{1, 8}, {3}, &b));
    assert_false(c.Place(Shape{1, 1}, eligible, &d));
    assert_true(c.Place(Shape{1, 1}, nullptr, &d));
    assert_int_equal(d.nodes[0].node, 0);
  }
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_best_fit_matches_the_core_on_the_whole_list),
      cmocka_unit_test(test_first_fit_takes_the_lowest_node),
      cmocka_unit_test(test_refuses_what_does_not_fit),
      cmocka_unit_test(test_topology_groups_reach_the_core),
      cmocka_unit_test(test_places_only_on_eligible_nodes),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
