// Tests of AllocationTree: the example tree of tree.h, lookups, and one case
// per validation error (table-driven), through the public API only.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_trees.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "libbudget/state/tree.h"

namespace {

using budget::AllocationTree;
using budget::kNoNode;
using budget::NodeId;
using budget::Status;

using budget::testing::kExampleTree;
using budget::testing::ParseTreeOrFail;

void TestExampleShapeAndEntitlements(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  // cluster, llm, pretrain, posttrain, alice, bob, robotics, science.
  assert_int_equal(tree.size(), 8);
  const NodeId pretrain = tree.Find("llm/pretrain");
  assert_int_not_equal(pretrain, kNoNode);
  // Pre-order ids: cluster 0, llm 1, pretrain 2.
  assert_int_equal(pretrain, 2);
  // 50 / (50 + 30 + 20) = 0.5
  assert_float_equal(tree.node(tree.Find("llm")).normalized_share, 0.5, 1e-12);
  // 70 / (70 + 30) = 0.7
  assert_float_equal(tree.node(pretrain).normalized_share, 0.7, 1e-12);
  // The 35% example: 0.5 x 0.7 = 0.35
  assert_float_equal(tree.node(pretrain).entitlement, 0.35, 1e-12);
  // alice: 0.5 x 0.3 x 2/3 = 0.1
  assert_float_equal(tree.node(tree.Find("llm/posttrain/alice")).entitlement, 0.1, 1e-12);
  // bob: 0.5 x 0.3 x 1/3 = 0.05
  assert_float_equal(tree.node(tree.Find("llm/posttrain/bob")).entitlement, 0.05, 1e-12);
  // robotics 30/100, science 20/100.
  assert_float_equal(tree.node(tree.Find("robotics")).entitlement, 0.3, 1e-12);
  assert_float_equal(tree.node(tree.Find("science")).entitlement, 0.2, 1e-12);
  // The root: path "", shown by its name, entitlement 1.
  assert_int_equal(tree.Find(""), 0);
  assert_string_equal(tree.node(0).path.c_str(), "");
  assert_string_equal(tree.DisplayPath(0).c_str(), "cluster");
  assert_float_equal(tree.node(0).entitlement, 1.0, 0);
  // Depth and subtree size of llm: llm, pretrain, posttrain, alice, bob.
  assert_int_equal(tree.node(1).depth, 1);
  assert_int_equal(tree.node(1).subtree_size, 5);
  assert_int_equal(tree.node(tree.Find("llm/posttrain/bob")).depth, 3);
  assert_int_equal(tree.node(1).parent, 0);
  assert_string_equal(tree.node(1).owners[0].c_str(), "pi-llm");
}

void TestZeroSharesNormalizeToZero(void**) {
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"a","share":0},{"name":"b","share":0}]})");
  // 0 / (0 + 0): defined as 0, not NaN.
  assert_float_equal(tree.node(tree.Find("a")).normalized_share, 0.0, 0);
  assert_float_equal(tree.node(tree.Find("b")).entitlement, 0.0, 0);
}

void TestHugeSharesWhoseSumIsFiniteKeepTheirProportions(void**) {
  // 8e307 + 8e307 = 1.6e308 < DBL_MAX: accepted, 1/2 each (before the sum
  // check, two of 1e308 loaded too, and both got 0).
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"a","share":8e307},{"name":"b","share":8e307}]})");
  assert_float_equal(tree.node(tree.Find("a")).entitlement, 0.5, 1e-12);
  assert_float_equal(tree.node(tree.Find("b")).entitlement, 0.5, 1e-12);
}

void TestFindAndNodeFor(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  const NodeId posttrain = tree.Find("llm/posttrain");
  // alice has a node of her own inside posttrain.
  assert_int_equal(tree.NodeFor("posttrain", "alice"), tree.Find("llm/posttrain/alice"));
  // carol does not: her jobs go to the account node.
  assert_int_equal(tree.NodeFor("posttrain", "carol"), posttrain);
  assert_int_equal(tree.NodeFor("posttrain", ""), posttrain);
  // alice outside posttrain: robotics binds no user, so the account node.
  assert_int_equal(tree.NodeFor("robotics", "alice"), tree.Find("robotics"));
  assert_int_equal(tree.NodeFor("nosuch", "alice"), kNoNode);
  assert_int_equal(tree.Find("llm/nosuch"), kNoNode);
  assert_int_equal(tree.Find("cluster"), kNoNode);  // The root's path is "".
  assert_true(tree.HoldsJobs(posttrain));
  assert_true(tree.HoldsJobs(tree.Find("llm/posttrain/bob")));
  assert_false(tree.HoldsJobs(tree.Find("llm")));
  assert_false(tree.HoldsJobs(0));
}

void TestOwnership(void**) {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  const NodeId llm = tree.Find("llm");
  assert_true(tree.IsOwner(llm, "pi-llm"));
  assert_false(tree.IsOwner(llm, "director"));
  // pi-llm owns llm, a proper ancestor of pretrain, but not of llm itself.
  assert_true(tree.OwnsProperAncestor(tree.Find("llm/pretrain"), "pi-llm"));
  assert_false(tree.OwnsProperAncestor(llm, "pi-llm"));
  assert_true(tree.OwnsProperAncestor(llm, "director"));
  assert_false(tree.OwnsProperAncestor(0, "director"));
}

void TestNestedAccountsBindUsersToTheNearest(void**) {
  AllocationTree tree = ParseTreeOrFail(R"({"name":"c","children":[
      {"name":"org","share":1,"account":"org","children":[
        {"name":"team","share":1,"account":"team","children":[
          {"name":"dan","share":1,"user":"dan"}]}]}]})");
  assert_int_equal(tree.NodeFor("team", "dan"), tree.Find("org/team/dan"));
  // dan's node belongs to "team", the nearest account, not to "org".
  assert_int_equal(tree.NodeFor("org", "dan"), tree.Find("org"));
}

void TestCopiesOutliveTheOriginal(void**) {
  AllocationTree copy;
  {
    AllocationTree original = ParseTreeOrFail(kExampleTree);
    copy = original;
  }
  assert_int_equal(copy.Find("llm/pretrain"), 2);
  assert_int_equal(copy.NodeFor("posttrain", "bob"), 5);
  AllocationTree empty;
  assert_int_equal(empty.size(), 0);
  assert_int_equal(empty.Find(""), kNoNode);
  assert_int_equal(empty.NodeFor("a", "b"), kNoNode);
}

void TestUnknownKeysAreWarnings(void**) {
  std::vector<std::string> warnings;
  AllocationTree tree;
  Status s = AllocationTree::Parse(
      R"({"name":"c","colour":"red","share":3,"children":[{"name":"a","share":1,"note":1}]})",
      "t.json", &tree, &warnings);
  assert_true(s.ok());
  assert_int_equal(warnings.size(), 3);
  assert_string_equal(warnings[0].c_str(), "t.json: $.colour: unknown key, ignored");
  assert_string_equal(warnings[1].c_str(), "t.json: $.share: the root has no share, ignored");
  assert_string_equal(warnings[2].c_str(), "t.json: $.children[0].note: unknown key, ignored");
}

struct BadCase {
  const char* what;
  std::string json;
  const char* error;  // The whole expected message.
};

// Root + `n` children named n0..n{n-1}, each share 1.
std::string FlatTree(size_t n) {
  std::string json = R"({"name":"c","children":[)";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) json += ',';
    json += R"({"name":"n)" + std::to_string(i) + R"(","share":1})";
  }
  return json + "]}";
}

// A chain root -> d1 -> ... -> d{depth}.
std::string Chain(int depth) {
  std::string json = R"({"name":"c")";
  for (int i = 1; i <= depth; ++i) {
    json += R"(,"children":[{"name":"d)" + std::to_string(i) + R"(","share":1)";
  }
  for (int i = 1; i <= depth; ++i) json += "}]";
  return json + "}";
}

std::vector<BadCase> BadCases() {
  return {
      {"not JSON, truncated", R"({"name": "c",)",
       // 13 characters consumed, then the end: column 14.
       "t.json: not JSON: unexpected end of data at line 1, column 14 (offset 13)"},
      {"not JSON, bad token", "{\"name\":\n \"c\" \"x\"}",
       // Line 2 starts at offset 9; the tokener stops at the second string
       // (offset 14, column 14 - 9 + 1 = 6), wanting a ',' after "c".
       "t.json: not JSON: object value separator ',' expected at line 2, column 6 "
       "(offset 14)"},
      {"not JSON, trailing", R"({"name":"c"} x)",
       "t.json: not JSON: trailing characters at line 1, column 14 (offset 13)"},
      {"root not an object", "[1, 2]", "t.json: $: the root must be an object, got [1,2]"},
      {"missing name", R"({"children":[{"share":1}]})",
       "t.json: $.name: required, missing\nt.json: $.children[0].name: required, missing"},
      {"empty name", R"({"name":""})", "t.json: $.name: must not be empty"},
      {"bad name charset", R"({"name":"c","children":[{"name":"a/b","share":1}]})",
       "t.json: $.children[0].name: must match [A-Za-z0-9._-]+, got \"a/b\""},
      {"name not a string", R"({"name":7})", "t.json: $.name: must be a string, got 7"},
      {"duplicate siblings",
       R"({"name":"c","children":[{"name":"a","share":1},{"name":"b","share":1},{"name":"a","share":2}]})",
       "t.json: $.children[2].name: duplicate sibling name \"a\" (also at $.children[0])"},
      {"negative share", R"({"name":"c","children":[{"name":"a","share":-1}]})",
       "t.json: $.children[0].share: must be a number >= 0, got -1"},
      {"non-numeric share", R"({"name":"c","children":[{"name":"a","share":"abc"}]})",
       "t.json: $.children[0].share: must be a number >= 0, got \"abc\""},
      {"boolean share", R"({"name":"c","children":[{"name":"a","share":true}]})",
       "t.json: $.children[0].share: must be a number >= 0, got true"},
      {"NaN share", R"({"name":"c","children":[{"name":"a","share":NaN}]})",
       "t.json: $.children[0].share: must be a finite number >= 0, got NaN"},
      {"infinite share", R"({"name":"c","children":[{"name":"a","share":1e999}]})",
       "t.json: $.children[0].share: must be a finite number >= 0, got 1e999"},
      // Each share is finite, their sum is not: both would normalize to 0.
      {"shares whose sum overflows",
       R"({"name":"c","children":[{"name":"a","share":1e308},{"name":"b","share":1e308}]})",
       "t.json: $.children: the shares add up to more than the largest number (about 1.8e308); shares are "
       "proportions among siblings: use smaller numbers"},
      {"missing share", R"({"name":"c","children":[{"name":"a","share":1},{"name":"b"}]})",
       "t.json: $.children[1].share: required on every node but the root, missing"},
      {"owners not an array", R"({"name":"c","owners":"boss"})",
       "t.json: $.owners: must be an array of strings, got \"boss\""},
      {"owners element not a string", R"({"name":"c","owners":["boss",3]})",
       "t.json: $.owners[1]: must be a string, got 3"},
      {"children not an array", R"({"name":"c","children":{"name":"a"}})",
       "t.json: $.children: must be an array of nodes, got {\"name\":\"a\"}"},
      {"child not an object", R"({"name":"c","children":[4]})",
       "t.json: $.children[0]: must be an object, got 4"},
      {"account bound twice",
       R"({"name":"c","children":[{"name":"a","share":1,"account":"x"},{"name":"b","share":1,"account":"x"}]})",
       "t.json: $.children[1].account: \"x\" is already bound at $.children[0]"},
      {"account not a string", R"({"name":"c","children":[{"name":"a","share":1,"account":["x"]}]})",
       "t.json: $.children[0].account: must be a string, got [\"x\"]"},
      {"empty account", R"({"name":"c","children":[{"name":"a","share":1,"account":""}]})",
       "t.json: $.children[0].account: must not be empty"},
      {"user not a string", R"({"name":"c","children":[{"name":"a","share":1,"account":"x","children":[{"name":"u","share":1,"user":null}]}]})",
       "t.json: $.children[0].children[0].user: must be a string, got null"},
      {"user outside an account",
       R"({"name":"c","children":[{"name":"a","share":1,"children":[{"name":"u","share":1,"user":"alice"}]}]})",
       "t.json: $.children[0].children[0].user: \"alice\" is not inside an account's subtree "
       "(neither the node nor an ancestor has \"account\")"},
      {"user bound twice in one account",
       R"({"name":"c","children":[{"name":"a","share":1,"account":"x","children":[{"name":"t1","share":1,"children":[{"name":"u","share":1,"user":"al"}]},{"name":"t2","share":1,"children":[{"name":"u","share":1,"user":"al"}]}]}]})",
       "t.json: $.children[0].children[1].children[0].user: \"al\" is already bound in account "
       "\"x\" at $.children[0].children[0].children[0]"},
      {"account and user on one node",
       R"({"name":"c","children":[{"name":"a","share":1,"account":"x","user":"alice"}]})",
       "t.json: $.children[0]: has both \"account\" and \"user\"; a node binds one or the other"},
      {"depth 17", Chain(17),
       // The node at depth 17 is the 17th nested child.
       "t.json: $.children[0].children[0].children[0].children[0].children[0].children[0]"
       ".children[0].children[0].children[0].children[0].children[0].children[0].children[0]"
       ".children[0].children[0].children[0].children[0]: depth 17 exceeds the limit of 16"},
      {"more than 100,000 nodes", FlatTree(100000),
       // The root is node 1, so child 99999 is node 100,001.
       "t.json: $.children[99999]: more than 100000 nodes (the limit)"},
  };
}

// One cmocka test per row of BadCases(); the row comes in as the state.
void TestValidationError(void** state) {
  const BadCase& c = *static_cast<const BadCase*>(*state);
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  Status s = AllocationTree::Parse(c.json, "t.json", &tree, nullptr);
  if (s.ok()) fail_msg("%s: accepted", c.what);
  if (s.message() != c.error) {
    fail_msg("%s:\n got      %s\n expected %s", c.what, s.message().c_str(), c.error);
  }
  assert_int_equal(s.code(), Status::Code::kInvalidArgument);
  // Refused whole: the caller's tree is untouched.
  assert_int_equal(tree.size(), 8);
  assert_int_equal(tree.Find("llm/pretrain"), 2);
}

void TestLimitsAreInclusive(void**) {
  // Depth 16 and exactly 100,000 nodes (root + 99,999) are accepted.
  AllocationTree deep = ParseTreeOrFail(Chain(16));
  assert_int_equal(deep.size(), 17);
  AllocationTree wide = ParseTreeOrFail(FlatTree(99999));
  assert_int_equal(wide.size(), 100000);
  // 1 / 99,999 each.
  assert_float_equal(wide.node(1).entitlement, 1.0 / 99999, 1e-15);
}

void TestErrorsAreListedUpToTheLimit(void**) {
  // 25 children with share -1: 25 errors, 20 listed + a count of the rest.
  std::string json = R"({"name":"c","children":[)";
  for (int i = 0; i < 25; ++i) {
    json += (i ? "," : "") + std::string(R"({"name":"n)") + std::to_string(i) +
            R"(","share":-1})";
  }
  json += "]}";
  AllocationTree tree;
  Status s = AllocationTree::Parse(json, "t.json", &tree, nullptr);
  assert_false(s.ok());
  const std::string& m = s.message();
  size_t lines = 1;
  for (char c : m) lines += c == '\n';
  // 20 error lines + 1 summary line.
  assert_int_equal(lines, 21);
  assert_true(m.find("t.json: $.children[19].share: must be a number >= 0, got -1\n") !=
              std::string::npos);
  assert_true(m.find("children[20]") == std::string::npos);
  assert_true(m.find("t.json: ... and 5 more errors") != std::string::npos);
}

void TestParseFile(void**) {
  char name[] = "/tmp/tree_test_XXXXXX";
  int fd = mkstemp(name);
  assert_true(fd >= 0);
  FILE* f = fdopen(fd, "w");
  fputs(kExampleTree, f);
  fclose(f);
  AllocationTree tree;
  Status s = AllocationTree::ParseFile(name, &tree, nullptr);
  assert_true(s.ok());
  assert_int_equal(tree.size(), 8);
  // Errors name the file.
  f = fopen(name, "w");
  fputs(R"({"name":"c","children":[{"name":"a","share":-2}]})", f);
  fclose(f);
  s = AllocationTree::ParseFile(name, &tree, nullptr);
  assert_string_equal(s.message().c_str(),
                      (std::string(name) + ": $.children[0].share: must be a number >= 0, got -2").c_str());
  unlink(name);
  s = AllocationTree::ParseFile(name, &tree, nullptr);
  assert_int_equal(s.code(), Status::Code::kIOError);
  assert_string_equal(s.message().c_str(), (std::string(name) + ": cannot open for reading").c_str());
  assert_int_equal(tree.size(), 8);
}

}  // namespace

int main() {
  std::vector<CMUnitTest> tests = {
      cmocka_unit_test(TestExampleShapeAndEntitlements),
      cmocka_unit_test(TestZeroSharesNormalizeToZero),
      cmocka_unit_test(TestHugeSharesWhoseSumIsFiniteKeepTheirProportions),
      cmocka_unit_test(TestFindAndNodeFor),
      cmocka_unit_test(TestOwnership),
      cmocka_unit_test(TestNestedAccountsBindUsersToTheNearest),
      cmocka_unit_test(TestCopiesOutliveTheOriginal),
      cmocka_unit_test(TestUnknownKeysAreWarnings),
      cmocka_unit_test(TestLimitsAreInclusive),
      cmocka_unit_test(TestErrorsAreListedUpToTheLimit),
      cmocka_unit_test(TestParseFile),
  };
  static const std::vector<BadCase> bad_cases = BadCases();
  static std::vector<std::string> names;
  names.reserve(bad_cases.size());
  for (const BadCase& c : bad_cases) {
    names.push_back(std::string("refuses: ") + c.what);
    tests.push_back(CMUnitTest{names.back().c_str(), TestValidationError, nullptr, nullptr,
                               const_cast<BadCase*>(&c)});
  }
  return _cmocka_run_group_tests("tree_test", tests.data(), tests.size(), nullptr, nullptr);
}
