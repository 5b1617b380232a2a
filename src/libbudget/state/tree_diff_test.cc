// Tests of DiffTrees and CheckEditAllowed on edits of tree.h's example.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_lines.h"
#include "libbudget/testing/test_trees.h"

#include <string>
#include <vector>

#include "libbudget/state/tree.h"
#include "libbudget/state/tree_diff.h"

namespace {

using budget::AllocationTree;
using budget::CheckEditAllowed;
using budget::DiffTrees;
using budget::NodeChange;
using budget::Status;

using budget::testing::kExampleTree;
using budget::testing::AssertLines;
using budget::testing::ParseTreeOrFail;

// kExampleTree with `from` replaced by `to` (which must occur exactly once).
std::string Edit(std::string json, const std::string& from, const std::string& to) {
  const size_t at = json.find(from);
  if (at == std::string::npos || json.find(from, at + 1) != std::string::npos) {
    fail_msg("edit: '%s' does not occur exactly once", from.c_str());
  }
  return json.replace(at, from.size(), to);
}

std::vector<std::string> DiffLines(const std::string& before, const std::string& after) {
  std::vector<std::string> lines;
  for (const NodeChange& c : DiffTrees(ParseTreeOrFail(before), ParseTreeOrFail(after))) {
    lines.push_back(c.Describe());
  }
  return lines;
}

// pi-llm moves 10 points from pretrain to posttrain.
std::string Rebalanced() {
  return Edit(Edit(kExampleTree, R"("share": 70)", R"("share": 60)"), R"("share": 30, "account": "posttrain")",
              R"("share": 40, "account": "posttrain")");
}

void TestDiffOfAShareChange(void**) {
  // posttrain 0.5 x 0.3 = 0.15 -> 0.5 x 0.4 = 0.2; alice 2/3 of it:
  // 0.1 -> 0.1333; bob 1/3: 0.05 -> 0.0667; pretrain 0.35 -> 0.5 x 0.6 = 0.3.
  // Path order: "llm/posttrain" < ".../alice" < ".../bob" < "llm/pretrain".
  AssertLines(DiffLines(kExampleTree, Rebalanced()),
              {"llm/posttrain: share 30 -> 40, entitlement 0.15 -> 0.2",
               "llm/posttrain/alice: entitlement 0.1 -> 0.133333",
               "llm/posttrain/bob: entitlement 0.05 -> 0.0666667",
               "llm/pretrain: share 70 -> 60, entitlement 0.35 -> 0.3"});
  const std::vector<NodeChange> changes = DiffTrees(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(Rebalanced()));
  assert_true(changes[0].Has(NodeChange::kShare));
  assert_true(changes[1].Has(NodeChange::kEntitlement));
  assert_false(changes[1].IsEdit());
  assert_float_equal(changes[3].entitlement_before, 0.35, 1e-12);
  assert_float_equal(changes[3].entitlement_after, 0.3, 1e-12);
}

void TestDiffOfProportionalSharesIsEmpty(void**) {
  // 70:30 -> 7:3 changes shares but no entitlement.
  std::string after = Edit(Edit(kExampleTree, R"("share": 70)", R"("share": 7)"),
                           R"("share": 30, "account": "posttrain")",
                           R"("share": 3, "account": "posttrain")");
  AssertLines(DiffLines(kExampleTree, after),
              {"llm/posttrain: share 30 -> 3", "llm/pretrain: share 70 -> 7"});
  AssertLines(DiffLines(kExampleTree, kExampleTree), {});
}

void TestDiffOfAddedRemovedOwnersAndBindings(void**) {
  // Add llm/eval (share 25 of llm's 125: 0.5 x 0.2 = 0.1); pretrain then
  // 0.5 x 70/125 = 0.28, posttrain 0.5 x 30/125 = 0.12 (alice 0.08,
  // bob 0.04). Remove science: robotics becomes 30/80 = 0.375 and llm
  // 50/80 = 0.625, which changes every llm entitlement again:
  //   eval 0.625 x 0.2 = 0.125, pretrain 0.625 x 0.56 = 0.35,
  //   posttrain 0.625 x 0.24 = 0.15 (alice 0.1, bob 0.05) - back where they were.
  std::string after = Edit(kExampleTree, R"(,
    { "name": "science",  "share": 20, "account": "science" } ] })", " ] }");
  after = Edit(after, R"({ "name": "pretrain",  "share": 70, "account": "pretrain" },)",
               R"({ "name": "pretrain",  "share": 70, "account": "pre2" },
                  { "name": "eval", "share": 25, "account": "eval" },)");
  after = Edit(after, R"("owners": ["pi-llm"])", R"("owners": ["sam", "pi-llm"])");
  AssertLines(DiffLines(kExampleTree, after),
              {"llm: owners [pi-llm] -> [pi-llm, sam], entitlement 0.5 -> 0.625",
               "llm/eval: added (share 25), entitlement 0 -> 0.125",
               "llm/pretrain: account pretrain -> pre2",
               "robotics: entitlement 0.3 -> 0.375",
               "science: removed (share 20), entitlement 0.2 -> 0"});
}

void TestOwnerMayRebalanceChildren(void**) {
  std::vector<std::string> violations;
  // pi-llm owns llm, a proper ancestor of pretrain and posttrain; alice's
  // and bob's entitlements move too, as consequences, not violations.
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(Rebalanced()), "pi-llm", &violations).ok());
  assert_int_equal(violations.size(), 0);
  // The director owns the root, an ancestor of everything below it.
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(Rebalanced()), "director", nullptr).ok());
}

void TestNonOwnerMayNot(void**) {
  std::vector<std::string> violations;
  Status s = CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(Rebalanced()), "bob", &violations);
  assert_false(s.ok());
  // Two edited nodes, each one violation; entitlement-only changes are not.
  assert_int_equal(violations.size(), 2);
  assert_string_equal(violations[0].c_str(),
                      "llm/posttrain: share 30 -> 40: bob owns none of its ancestors (llm, cluster)");
  assert_string_equal(violations[1].c_str(),
                      "llm/pretrain: share 70 -> 60: bob owns none of its ancestors (llm, cluster)");
  assert_string_equal(s.message().c_str(),
                      "bob may not make this edit: llm/posttrain: share 30 -> 40: bob owns none "
                      "of its ancestors (llm, cluster) (and 1 more)");
}

void TestOwnerMayNotChangeTheirOwnNode(void**) {
  // Owners change only descendants: pi-llm raising llm's own share is
  // forbidden; the director (owner of the root, llm's parent) may.
  std::string after = Edit(kExampleTree, R"("share": 50)", R"("share": 60)");
  std::vector<std::string> violations;
  Status s = CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(after), "pi-llm", &violations);
  assert_false(s.ok());
  assert_int_equal(violations.size(), 1);
  assert_string_equal(violations[0].c_str(),
                      "llm: share 50 -> 60: pi-llm owns none of its ancestors (cluster)");
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(after), "director", nullptr).ok());
  // Same for owners: pi-llm may not add a co-owner of llm.
  after = Edit(kExampleTree, R"("owners": ["pi-llm"])", R"("owners": ["pi-llm", "sam"])");
  violations.clear();
  assert_false(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(after), "pi-llm", &violations).ok());
  assert_string_equal(violations[0].c_str(),
                      "llm: owners [pi-llm] -> [pi-llm, sam]: pi-llm owns none of its ancestors "
                      "(cluster)");
}

void TestAddedAndRemovedNodes(void**) {
  // A new subtree under llm (llm/new and llm/new/sub): its ancestor llm
  // existed before and pi-llm owns it.
  std::string added = Edit(kExampleTree, R"({ "name": "pretrain",  "share": 70, "account": "pretrain" },)",
                           R"({ "name": "pretrain",  "share": 70, "account": "pretrain" },
                              { "name": "new", "share": 0, "children": [
                                  { "name": "sub", "share": 1, "account": "sub" } ] },)");
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(added), "pi-llm", nullptr).ok());
  std::vector<std::string> violations;
  // Nobody owns robotics: adding below it needs the director.
  std::string under_robotics = Edit(kExampleTree, R"("share": 30, "account": "robotics" })",
                                    R"("share": 30, "account": "robotics", "children": [
                                          { "name": "x", "share": 1 } ] })");
  assert_false(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(under_robotics), "pi-llm", &violations).ok());
  assert_int_equal(violations.size(), 1);
  assert_string_equal(violations[0].c_str(),
                      "robotics/x: added (share 1): pi-llm owns none of its ancestors "
                      "(robotics, cluster)");
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(under_robotics), "director", nullptr).ok());
  // Removing posttrain removes alice and bob too: three changes, all under
  // llm, so pi-llm may; alice may not (she owns nothing).
  std::string removed = Edit(kExampleTree, R"(,
        { "name": "posttrain", "share": 30, "account": "posttrain", "children": [
            { "name": "alice", "share": 2, "user": "alice" },
            { "name": "bob",   "share": 1, "user": "bob" } ] } ] },)", " ] },");
  assert_true(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(removed), "pi-llm", nullptr).ok());
  violations.clear();
  assert_false(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(removed), "alice", &violations).ok());
  assert_int_equal(violations.size(), 3);
  assert_string_equal(violations[1].c_str(),
                      "llm/posttrain/alice: removed (share 2): alice owns none of its ancestors "
                      "(llm/posttrain, llm, cluster)");
}

void TestNobodyChangesTheRootInPlace(void**) {
  std::string after = Edit(kExampleTree, R"("owners": ["director"])", R"("owners": ["boss"])");
  std::vector<std::string> violations;
  assert_false(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(after), "director", &violations).ok());
  assert_string_equal(violations[0].c_str(),
                      "cluster: owners [director] -> [boss]: the root has no ancestors; only an "
                      "administrator may change it");
  // A renamed root is a change of the root too.
  after = Edit(kExampleTree, R"("name": "cluster")", R"("name": "hpc")");
  AssertLines(DiffLines(kExampleTree, after), {"hpc: name cluster -> hpc"});
  assert_false(CheckEditAllowed(ParseTreeOrFail(kExampleTree), ParseTreeOrFail(after), "director", nullptr).ok());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestDiffOfAShareChange),
      cmocka_unit_test(TestDiffOfProportionalSharesIsEmpty),
      cmocka_unit_test(TestDiffOfAddedRemovedOwnersAndBindings),
      cmocka_unit_test(TestOwnerMayRebalanceChildren),
      cmocka_unit_test(TestNonOwnerMayNot),
      cmocka_unit_test(TestOwnerMayNotChangeTheirOwnNode),
      cmocka_unit_test(TestAddedAndRemovedNodes),
      cmocka_unit_test(TestNobodyChangesTheRootInPlace),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
