// Tests of GPU packing and fragmentation (packing.h).
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/policy/packing.h"

using budget::ChooseNodes;
using budget::ChooseValidatedNodes;
using budget::Fragmentation;
using budget::GpuRequest;
using budget::kNoGroup;
using budget::NodeChoice;
using budget::NodePositions;
using budget::NodeState;
using budget::Status;

namespace {

// Nodes 0..n-1 of 8 GPUs with the given free GPUs, no topology.
std::vector<NodeState> EightGpuNodes(const std::vector<uint32_t>& free) {
  std::vector<NodeState> nodes;
  for (size_t i = 0; i < free.size(); ++i) {
    NodeState n;
    n.index = int32_t(i);
    n.total_gpus = 8;
    n.free_gpus = free[i];
    nodes.push_back(n);
  }
  return nodes;
}

std::string Join(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

void ExpectChoice(const std::vector<NodeState>& nodes, GpuRequest request, bool feasible,
                  const std::string& expected, const char* what) {
  NodeChoice choice;
  Status st = ChooseNodes(nodes, request, &choice);
  if (!st.ok()) fail_msg("%s: %s", what, st.message().c_str());
  if (choice.feasible != feasible) fail_msg("%s: feasible %d, want %d", what, choice.feasible, feasible);
  if (Join(choice.nodes) != expected) {
    fail_msg("%s: nodes %s, want %s", what, Join(choice.nodes).c_str(), expected.c_str());
  }
  if (!feasible && choice.why_not.empty()) fail_msg("%s: infeasible without a reason", what);
  // The path for nodes validated already chooses the same.
  NodeChoice validated;
  st = ChooseValidatedNodes(nodes, request, &validated);
  if (!st.ok()) fail_msg("%s: validated path: %s", what, st.message().c_str());
  if (validated.feasible != choice.feasible || validated.nodes != choice.nodes || validated.why_not != choice.why_not)
    fail_msg("%s: validated path chose %s, ChooseNodes %s", what, Join(validated.nodes).c_str(), Join(choice.nodes).c_str());
}

struct OneNodeCase {
  const char* what;
  std::vector<uint32_t> free;
  uint32_t gpus;
  bool feasible;
  const char* expected;
};

void test_spread_gpus(void**) {
  struct Case {
    uint64_t total;
    uint32_t min_nodes, largest;
    uint32_t nodes, per_node;
  };
  const Case cases[] = {
      {16, 1, 8, 2, 8},   // --gpus=b200:16 on 8-GPU nodes: 2 x 8
      {12, 1, 8, 2, 6},   // 12: 2 nodes, 6 each
      {4, 1, 8, 1, 4},    // fits one node
      {16, 4, 8, 4, 4},   // -N 4 asked: 4 x 4
      {16, 1, 4, 4, 4},   // on 4-GPU trays: 4 x 4
      {16, 1, 0, 1, 16},  // no node known: as asked
  };
  for (const Case& c : cases) {
    GpuRequest r = budget::SpreadGpus(c.total, c.min_nodes, c.largest);
    if (r.node_count != c.nodes || r.gpus_per_node != c.per_node)
      fail_msg("SpreadGpus(%llu, %u, %u) = %u x %u, want %u x %u", (unsigned long long)c.total, c.min_nodes,
               c.largest, r.node_count, r.gpus_per_node, c.nodes, c.per_node);
  }
}

void test_one_node_best_fit(void**) {
  const OneNodeCase cases[] = {
      // free 8,3,5,2: 2 GPUs fit all four, fewest free is node 3 (2).
      {"2 of 8,3,5,2", {8, 3, 5, 2}, 2, true, "3"},
      // 3 GPUs fit nodes 0 (8), 1 (3), 2 (5): fewest is node 1.
      {"3 of 8,3,5,2", {8, 3, 5, 2}, 3, true, "1"},
      // 4 GPUs fit nodes 0 (8), 2 (5): node 2.
      {"4 of 8,3,5,2", {8, 3, 5, 2}, 4, true, "2"},
      // 6 GPUs fit node 0 only.
      {"6 of 8,3,5,2", {8, 3, 5, 2}, 6, true, "0"},
      // Equal free 4,4 and no topology: the lowest index, node 0.
      {"tie to lowest index", {4, 4}, 4, true, "0"},
      // 8 free GPUs as 1+1+4+2: no node has 8, infeasible.
      {"fragmented 1,1,4,2", {1, 1, 4, 2}, 8, false, ""},
  };
  for (const OneNodeCase& c : cases) {
    ExpectChoice(EightGpuNodes(c.free), GpuRequest{1, c.gpus}, c.feasible, c.expected, c.what);
  }
}

void test_one_node_tie_toward_fuller_group(void**) {
  std::vector<NodeState> nodes = EightGpuNodes({4, 8, 4, 0});
  nodes[0].group = 0;
  nodes[1].group = 0;
  nodes[2].group = 1;
  nodes[3].group = 1;
  // Nodes 0 and 2 both have 4 free; group 0 has 4 + 8 = 12 free, group 1
  // has 4 + 0 = 4: the fuller group 1 wins, node 2.
  ExpectChoice(nodes, GpuRequest{1, 4}, true, "2", "fuller group");
}

void test_unusable_nodes_are_skipped(void**) {
  std::vector<NodeState> nodes = EightGpuNodes({2, 4});
  nodes[0].usable = false;
  // Node 0 (free 2) would be the best fit but is drained: node 1.
  ExpectChoice(nodes, GpuRequest{1, 2}, true, "1", "drained node");
}

// First fit, for comparison: the lowest index with enough free GPUs.
int FirstFit(const std::vector<NodeState>& nodes, uint32_t gpus) {
  for (const NodeState& n : nodes) {
    if (n.usable && n.free_gpus >= gpus) return n.index;
  }
  return -1;
}

void test_best_fit_against_first_fit(void**) {
  std::vector<NodeState> best = EightGpuNodes({8, 8, 4, 6});
  std::vector<NodeState> first = best;
  for (uint32_t gpus : {4u, 6u}) {
    NodeChoice choice;
    assert_true(ChooseNodes(best, GpuRequest{1, gpus}, &choice).ok());
    assert_true(choice.feasible);
    best[size_t(choice.nodes[0])].free_gpus -= gpus;
    int f = FirstFit(first, gpus);
    assert_true(f >= 0);
    first[size_t(f)].free_gpus -= gpus;
  }
  // Best fit put 4 on node 2 (4 -> 0) and 6 on node 3 (6 -> 0): free 8,8,0,0.
  assert_int_equal(best[0].free_gpus, 8);
  assert_int_equal(best[1].free_gpus, 8);
  assert_int_equal(best[2].free_gpus, 0);
  assert_int_equal(best[3].free_gpus, 0);
  // First fit put 4 on node 0 (8 -> 4) and 6 on node 1 (8 -> 2): free 4,2,4,6.
  assert_int_equal(first[0].free_gpus, 4);
  assert_int_equal(first[1].free_gpus, 2);
  // Fragmentation, best fit: 16 free, all on whole free nodes: 0/16 = 0.
  assert_true(Fragmentation(best) == 0.0);
  // First fit: 4+2+4+6 = 16 free, all on partial nodes: 16/16 = 1.
  assert_true(Fragmentation(first) == 1.0);
  // An 8-GPU job: best fit takes node 0 ...
  ExpectChoice(best, GpuRequest{1, 8}, true, "0", "8 GPUs after best fit");
  // ... first fit left no node with 8 free.
  assert_int_equal(FirstFit(first, 8), -1);
  ExpectChoice(first, GpuRequest{1, 8}, false, "", "8 GPUs after first fit");
  // Two whole nodes remain after best fit: a 2 x 8 job fits on 0 and 1.
  ExpectChoice(best, GpuRequest{2, 8}, true, "0,1", "2 x 8 after best fit");
}

void test_multi_node_fewest_groups(void**) {
  // g0: nodes 0,1,2 whole free; g1: nodes 3,4 whole free; g2: node 5 whole
  // free and node 6 partial (free 3).
  std::vector<NodeState> nodes = EightGpuNodes({8, 8, 8, 8, 8, 8, 3});
  const int32_t groups[] = {0, 0, 0, 1, 1, 2, 2};
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].group = groups[i];
  struct Case {
    uint32_t node_count;
    bool feasible;
    const char* expected;
    const char* what;
  };
  const Case cases[] = {
      // g0 (3) and g1 (2) each hold 2; g1 strands 0, g0 would strand 1: g1.
      {2, true, "3,4", "2 nodes: smallest group that fits"},
      // Only g0 holds 3.
      {3, true, "0,1,2", "3 nodes: one group"},
      // No group holds 4: g0 whole (3), remainder 1 from the smallest
      // covering group, g2 (1) rather than g1 (2): nodes 0,1,2,5.
      {4, true, "0,1,2,5", "4 nodes: two groups"},
      // 3 + 2 + 1 = 6: every whole free node.
      {6, true, "0,1,2,3,4,5", "6 nodes: all groups"},
      // 7 > 6 whole free nodes (node 6 is partial): infeasible.
      {7, false, "", "7 nodes: too few whole nodes"},
  };
  for (const Case& c : cases) {
    ExpectChoice(nodes, GpuRequest{c.node_count, 8}, c.feasible, c.expected, c.what);
  }
}

void test_multi_node_ungrouped_nodes_are_one_fabric(void**) {
  std::vector<NodeState> nodes = EightGpuNodes({8, 8, 8, 8, 8});
  nodes[2].group = 5;
  nodes[3].group = 5;
  nodes[4].group = 5;
  // Ungrouped nodes 0,1 form one group of 2; group 5 holds 3. A 2-node job
  // fits either; the one of 2 strands none: nodes 0,1.
  ExpectChoice(nodes, GpuRequest{2, 8}, true, "0,1", "ungrouped fabric");
  // 3 nodes: only group 5.
  ExpectChoice(nodes, GpuRequest{3, 8}, true, "2,3,4", "group of 3");
}

void test_multi_node_skips_small_and_unusable_nodes(void**) {
  std::vector<NodeState> nodes = EightGpuNodes({8, 8, 8, 8});
  nodes[0].total_gpus = 4;
  nodes[0].free_gpus = 4;
  nodes[1].usable = false;
  // Node 0 has only 4 GPUs, node 1 is drained: 2 x 8 takes nodes 2,3.
  ExpectChoice(nodes, GpuRequest{2, 8}, true, "2,3", "small and drained nodes");
  // 3 x 8: only 2 candidates, infeasible.
  ExpectChoice(nodes, GpuRequest{3, 8}, false, "", "not enough whole nodes");
}

struct FragmentationCase {
  const char* what;
  std::vector<uint32_t> free;
  int unusable;  // index of a drained node, or -1
  double expected;
};

void test_fragmentation(void**) {
  const FragmentationCase cases[] = {
      // Nothing free: 0 by definition.
      {"full", {0, 0}, -1, 0.0},
      // All free GPUs on whole free nodes: 0/16.
      {"whole nodes", {8, 8}, -1, 0.0},
      // 4 of 12 free GPUs on a partial node: 4/12.
      {"one partial", {8, 4}, -1, 4.0 / 12.0},
      // The AI21 example, 1+1+4+2 on four nodes: 8/8.
      {"1,1,4,2", {1, 1, 4, 2}, -1, 1.0},
      // Node 0 (8 free) drained: only node 1 counts, 2/2.
      {"drained whole node", {8, 2}, 0, 1.0},
  };
  for (const FragmentationCase& c : cases) {
    std::vector<NodeState> nodes = EightGpuNodes(c.free);
    if (c.unusable >= 0) nodes[size_t(c.unusable)].usable = false;
    double got = Fragmentation(nodes);
    if (got < c.expected - 1e-12 || got > c.expected + 1e-12) {
      fail_msg("%s: fragmentation %g, want %g", c.what, got, c.expected);
    }
  }
}

void test_errors(void**) {
  NodeChoice choice;
  std::vector<NodeState> nodes = EightGpuNodes({8, 8});
  struct Case {
    const char* what;
    std::vector<NodeState> nodes;
    GpuRequest request;
    const char* message_part;
  };
  std::vector<NodeState> too_free = nodes;
  too_free[1].free_gpus = 9;
  std::vector<NodeState> negative = nodes;
  negative[0].index = -3;
  std::vector<NodeState> twice = nodes;
  twice[1].index = 0;
  const Case cases[] = {
      {"0 nodes", nodes, GpuRequest{0, 8}, "node_count 0"},
      {"0 GPUs", nodes, GpuRequest{1, 0}, "gpus_per_node 0"},
      {"free > total", too_free, GpuRequest{1, 1}, "node 1: free_gpus 9 > total_gpus 8"},
      {"negative index", negative, GpuRequest{1, 1}, "node -3: negative index"},
      {"index twice", twice, GpuRequest{1, 1}, "node 0: index given twice"},
  };
  for (const Case& c : cases) {
    Status st = ChooseNodes(c.nodes, c.request, &choice);
    if (st.ok()) fail_msg("%s: accepted", c.what);
    if (st.message().find(c.message_part) == std::string::npos) {
      fail_msg("%s: message '%s' lacks '%s'", c.what, st.message().c_str(), c.message_part);
    }
    if (choice.feasible) fail_msg("%s: feasible after an error", c.what);
  }
  // The validated path still refuses a bad request.
  for (GpuRequest bad : {GpuRequest{0, 8}, GpuRequest{1, 0}}) {
    if (ChooseValidatedNodes(nodes, bad, &choice).ok()) fail_msg("validated path: request %u x %u accepted", bad.node_count, bad.gpus_per_node);
  }
}

// Each kind of node list maps an index to its position, and an index not
// in the list to -1.
void test_node_positions(void**) {
  struct Case {
    const char* what;
    std::vector<int32_t> indices;
  };
  const Case cases[] = {
      {"each index its position", {0, 1, 2, 3}},
      {"compact, out of order", {3, 0, 2, 1}},
      {"compact with a gap", {0, 2, 5}},
      {"sparse", {7, 100000, 3}},
      {"empty", {}},
  };
  for (const Case& c : cases) {
    std::vector<NodeState> nodes;
    for (int32_t index : c.indices) {
      NodeState n;
      n.index = index;
      nodes.push_back(n);
    }
    NodePositions positions(nodes);
    for (size_t p = 0; p < nodes.size(); ++p) {
      if (positions.Find(nodes[p].index) != int32_t(p))
        fail_msg("%s: index %d at %d, want %zu", c.what, nodes[p].index, positions.Find(nodes[p].index), p);
    }
    for (int32_t absent : {-1, 4, 6, 99, 100001}) {
      bool listed = false;
      for (int32_t index : c.indices) listed = listed || index == absent;
      if (!listed && positions.Find(absent) != -1) fail_msg("%s: absent index %d found", c.what, absent);
    }
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spread_gpus),
      cmocka_unit_test(test_one_node_best_fit),
      cmocka_unit_test(test_one_node_tie_toward_fuller_group),
      cmocka_unit_test(test_unusable_nodes_are_skipped),
      cmocka_unit_test(test_best_fit_against_first_fit),
      cmocka_unit_test(test_multi_node_fewest_groups),
      cmocka_unit_test(test_multi_node_ungrouped_nodes_are_one_fabric),
      cmocka_unit_test(test_multi_node_skips_small_and_unusable_nodes),
      cmocka_unit_test(test_fragmentation),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_node_positions),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
