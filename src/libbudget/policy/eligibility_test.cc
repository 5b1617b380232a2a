// Tests of node eligibility (eligibility.h): the node sets, GPU types read
// from Slurm's strings, and the feature expressions of `-C`.
#include "libbudget/testing/test_support.h"

#include <memory>
#include <string>
#include <vector>

#include "libbudget/policy/eligibility.h"

using budget::EligibleNodes;
using budget::EvaluateConstraint;
using budget::GpuTypeOfRequest;
using budget::GpuTypesOfNode;
using budget::KeepEligible;
using budget::MayRunOn;
using budget::NodeAsks;
using budget::NodeMatches;
using budget::NodeOffers;
using budget::NodeSet;
using budget::NodeState;

namespace {

void test_node_set(void**) {
  NodeSet set;
  set.Add(0);
  set.Add(70);  // a second word
  set.Add(-1);  // ignored: no node has a negative index
  assert_true(set.Contains(0));
  assert_true(set.Contains(70));
  assert_false(set.Contains(1));
  assert_false(set.Contains(-1));
  assert_false(set.Contains(1000));
  assert_int_equal(set.Count(), 2);
  NodeSet same;
  same.Add(70);
  same.Add(0);
  assert_true(set == same);
  // Null means every node; a set means its members.
  EligibleNodes every;
  EligibleNodes some = std::make_shared<const NodeSet>(set);
  assert_true(MayRunOn(every, 5));
  assert_false(MayRunOn(some, 5));
  assert_true(MayRunOn(some, 70));
}

void test_interner_shares_equal_sets(void**) {
  budget::NodeSetInterner interner;
  NodeSet a, b, c;
  a.Add(1);
  a.Add(200);
  b.Add(200);
  b.Add(1);
  c.Add(1);
  EligibleNodes ea = interner.Intern(a), eb = interner.Intern(b), ec = interner.Intern(c);
  // {1, 200} twice is one pointer; {1} another.
  assert_true(ea == eb);
  assert_true(ea != ec);
  assert_true(ec->Contains(1) && !ec->Contains(200));
}

void test_keep_eligible(void**) {
  std::vector<NodeState> nodes(4);
  for (int i = 0; i < 4; ++i) nodes[size_t(i)].index = i;
  nodes[3].usable = false;  // down: stays unusable whatever the set
  NodeSet set;
  set.Add(1);
  set.Add(3);
  KeepEligible(std::make_shared<const NodeSet>(set), &nodes);
  // Eligible {1, 3}: 0 and 2 leave; 3 was down already.
  assert_false(nodes[0].usable);
  assert_true(nodes[1].usable);
  assert_false(nodes[2].usable);
  assert_false(nodes[3].usable);
  std::vector<NodeState> all(2);
  KeepEligible(nullptr, &all);
  assert_true(all[0].usable && all[1].usable);
}

struct TypeCase {
  const char* spec;
  const char* type;
};

void test_gpu_type_of_request(void**) {
  const TypeCase cases[] = {
      {"gres:gpu:b200:8", "b200"},           // --gres=gpu:b200:8 (22.05's tres_per_node)
      {"gres/gpu:b200:8", "b200"},           // the same in 24.11's spelling
      {"gres/gpu:b200=8", "b200"},           // a formatted TRES entry
      {"gres:gpu:b200:16", "b200"},          // --gpus=b200:16 (tres_per_job)
      {"gres:gpu:b200", "b200"},             // a type alone: one GPU
      {"gres:gpu:8", ""},                    // untyped
      {"gres/gpu=2", ""},                    // untyped TRES
      {"gres:gpu", ""},                      // one untyped GPU
      {"gres:nic:1,gres:gpu:h100:2", "h100"},  // another GRES first
      {"gres:nic:mlx:1", ""},                // no GPU at all
      {"gres:gpu:a100:1,gres:gpu:v100:1", "a100"},  // the first typed entry
      {"", ""},
  };
  for (const TypeCase& c : cases) {
    std::string got = GpuTypeOfRequest(c.spec);
    if (got != c.type) fail_msg("GpuTypeOfRequest(\"%s\") = \"%s\", want \"%s\"", c.spec, got.c_str(), c.type);
  }
}

void test_gpu_types_of_node(void**) {
  // A node's Gres, socket bindings and all.
  std::vector<std::string> one = GpuTypesOfNode("gpu:b200:8(S:0-1)");
  assert_int_equal(one.size(), 1);
  assert_string_equal(one[0].c_str(), "b200");
  std::vector<std::string> two = GpuTypesOfNode("gpu:b200:4(S:0-1),gpu:h100:4(S:2-3),nic:1");
  assert_int_equal(two.size(), 2);
  assert_string_equal(two[1].c_str(), "h100");
  assert_int_equal(GpuTypesOfNode("gpu:8").size(), 0);  // untyped GPUs
  // Entries split at commas outside the socket bindings: three here.
  std::vector<std::string_view> entries = budget::GresEntries("gpu:b200:4(S:0-1),gpu:h100:4(S:2,3),nic:1");
  assert_int_equal(entries.size(), 3);
  assert_true(entries[1] == "gpu:h100:4(S:2,3)");
  assert_int_equal(GpuTypesOfNode("").size(), 0);
}

struct ConstraintCase {
  const char* expression;
  std::vector<std::string> features;
  int verdict;  // 1 matches, 0 does not, -1 not evaluated
};

void test_constraints(void**) {
  const std::vector<std::string> b200_ib = {"b200", "ib"};
  const ConstraintCase cases[] = {
      {"", b200_ib, 1},                 // no constraint
      {"b200", b200_ib, 1},
      {"h100", b200_ib, 0},
      {"b200&ib", b200_ib, 1},
      {"b200&nvl", b200_ib, 0},
      {"b200,ib", b200_ib, 1},          // ',' is and
      {"h100|b200", b200_ib, 1},
      {"h100|a100", b200_ib, 0},
      // & binds tighter: h100 | (b200 & ib) = 0 | 1.
      {"h100|b200&ib", b200_ib, 1},
      // (h100 | b200) & nvl = 1 & 0.
      {"(h100|b200)&nvl", b200_ib, 0},
      {"(h100|b200)&ib", b200_ib, 1},
      // Forms not evaluated: every node passes (-1).
      {"b200*2", b200_ib, -1},
      {"[rack1|rack2]", b200_ib, -1},
      {"b200^h100", b200_ib, -1},
      {"(b200", b200_ib, -1},
      {"b200|", b200_ib, -1},
  };
  for (const ConstraintCase& c : cases) {
    int got = EvaluateConstraint(c.expression, c.features);
    if (got != c.verdict) fail_msg("EvaluateConstraint(\"%s\") = %d, want %d", c.expression, got, c.verdict);
  }
}

void test_node_matches(void**) {
  NodeOffers b200{{"b200"}, {"b200", "ib"}};
  NodeOffers h100{{"h100"}, {"h100"}};
  NodeOffers untyped{{}, {}};
  // A typed request fits only its type; an untyped one fits every GPU node.
  assert_true(NodeMatches(b200, NodeAsks{"b200", ""}));
  assert_false(NodeMatches(h100, NodeAsks{"b200", ""}));
  assert_false(NodeMatches(untyped, NodeAsks{"b200", ""}));
  assert_true(NodeMatches(h100, NodeAsks{"", ""}));
  assert_true(NodeMatches(untyped, NodeAsks{"", ""}));
  // The constraint too; one not evaluated lets the node pass.
  assert_true(NodeMatches(b200, NodeAsks{"", "ib"}));
  assert_false(NodeMatches(h100, NodeAsks{"", "ib"}));
  assert_true(NodeMatches(h100, NodeAsks{"", "ib*2"}));
  assert_false(NodeMatches(b200, NodeAsks{"b200", "nvl"}));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_node_set),
      cmocka_unit_test(test_interner_shares_equal_sets),
      cmocka_unit_test(test_keep_eligible),
      cmocka_unit_test(test_gpu_type_of_request),
      cmocka_unit_test(test_gpu_types_of_node),
      cmocka_unit_test(test_constraints),
      cmocka_unit_test(test_node_matches),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
