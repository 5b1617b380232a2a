// Tests of TreeJsonFromAssociations: the mapping of tree_from_associations.h
// case by case, checked through the suite's own parser (tree.h), and one
// sample against scripts/tree_from_sacctmgr.py's output.
#include <json-c/json.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// Last: cmocka defines a fail() macro that would break <ios>.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_lines.h"
#include "libbudget/testing/test_trees.h"

#include "libbudget/state/tree.h"
#include "libbudget/state/tree_from_associations.h"

namespace {

using budget::AccountCoordinators;
using budget::AllocationTree;
using budget::AssociationRecord;
using budget::NodeId;
using budget::Status;
using budget::TreeJsonFromAssociations;
using budget::testing::AssertLines;
using budget::testing::ParseTreeOrFail;

// Builders, in sacctmgr's words.
AssociationRecord Account(const std::string& account, const std::string& parent, uint32_t shares) {
  return {account, parent, "", shares, false};
}
AssociationRecord AccountSharingParent(const std::string& account, const std::string& parent) {
  return {account, parent, "", 0, true};
}
AssociationRecord User(const std::string& account, const std::string& user, uint32_t shares) {
  return {account, "", user, shares, false};
}
AssociationRecord UserSharingParent(const std::string& account, const std::string& user) {
  return {account, "", user, 0, true};
}
AssociationRecord Root() { return Account("root", "", 1); }

std::string ConvertOrFail(const std::vector<AssociationRecord>& records, const AccountCoordinators& coordinators = {},
                          std::vector<std::string>* warnings = nullptr) {
  std::string json;
  Status s = TreeJsonFromAssociations(records, coordinators, &json, warnings);
  if (!s.ok()) fail_msg("convert: %s", s.message().c_str());
  return json;
}

std::string RefusalOf(const std::vector<AssociationRecord>& records) {
  std::string json = "untouched";
  Status s = TreeJsonFromAssociations(records, {}, &json, nullptr);
  assert_false(s.ok());
  assert_string_equal(json.c_str(), "untouched");
  return s.message();
}

// One line per node in pre-order: "path share binding entitlement", the
// root as "cluster".
std::vector<std::string> Describe(const AllocationTree& tree) {
  std::vector<std::string> lines;
  for (NodeId id = 0; id < static_cast<NodeId>(tree.size()); ++id) {
    const budget::TreeNode& n = tree.node(id);
    std::ostringstream line;
    line << tree.DisplayPath(id) << " " << n.share;
    if (!n.account.empty()) line << " account=" << n.account;
    if (!n.user.empty()) line << " user=" << n.user;
    line << " " << n.entitlement;
    lines.push_back(line.str());
  }
  return lines;
}

// tree.h's example tree, as slurmdbd would hold it (with llm an account).
std::vector<AssociationRecord> ExampleAssociations() {
  return {Root(),
          Account("llm", "root", 50),
          Account("pretrain", "llm", 70),
          Account("posttrain", "llm", 30),
          User("posttrain", "alice", 2),
          User("posttrain", "bob", 1),
          UserSharingParent("posttrain", "carol"),
          Account("robotics", "root", 30),
          Account("science", "root", 20)};
}

void TestEachAccountAndUserBecomesANode(void**) {
  // llm 50/100; pretrain 70/100 of it = 0.35; posttrain 0.15, alice 2/3 of
  // it = 0.1, bob 0.05; carol (Fairshare=parent) has no node.
  AssertLines(Describe(ParseTreeOrFail(ConvertOrFail(ExampleAssociations()))),
              {"cluster 0 1",
               "llm 50 account=llm 0.5",
               "llm/posttrain 30 account=posttrain 0.15",
               "llm/posttrain/alice 2 user=alice 0.1",
               "llm/posttrain/bob 1 user=bob 0.05",
               "llm/pretrain 70 account=pretrain 0.35",
               "robotics 30 account=robotics 0.3",
               "science 20 account=science 0.2"});
}

void TestUserSharingTheParentsIsChargedToTheAccount(void**) {
  const AllocationTree tree = ParseTreeOrFail(ConvertOrFail(ExampleAssociations()));
  assert_int_equal(tree.NodeFor("posttrain", "carol"), tree.Find("llm/posttrain"));
  assert_int_equal(tree.NodeFor("posttrain", "alice"), tree.Find("llm/posttrain/alice"));
}

void TestKeysAndLayoutAreTheScripts(void**) {
  // name, share, owners, account/user, children; an account without
  // children has no "children" key; indented, one newline at the end.
  const std::string json = ConvertOrFail({Root(), Account("a", "root", 3), User("a", "u", 2)}, {{"a", {"pi"}}});
  assert_string_equal(json.c_str(),
                      "{\n"
                      "  \"name\": \"cluster\",\n"
                      "  \"children\": [\n"
                      "    {\n"
                      "      \"name\": \"a\",\n"
                      "      \"share\": 3,\n"
                      "      \"owners\": [\n"
                      "        \"pi\"\n"
                      "      ],\n"
                      "      \"account\": \"a\",\n"
                      "      \"children\": [\n"
                      "        {\n"
                      "          \"name\": \"u\",\n"
                      "          \"share\": 2,\n"
                      "          \"user\": \"u\"\n"
                      "        }\n"
                      "      ]\n"
                      "    }\n"
                      "  ]\n"
                      "}\n");
}

void TestSubAccountsComeBeforeUsersEachSortedByName(void**) {
  // Records in reverse order; "aa" is a user and sorts after the accounts.
  AssertLines(Describe(ParseTreeOrFail(ConvertOrFail({User("a", "bb", 1), User("a", "aa", 1), Account("zz", "a", 1),
                                                      Account("b", "a", 1), Account("a", "root", 1), Root()}))),
              {"cluster 0 1", "a 1 account=a 1", "a/b 1 account=b 0.25", "a/zz 1 account=zz 0.25",
               "a/aa 1 user=aa 0.25", "a/bb 1 user=bb 0.25"});
}

void TestOrderOfTheInputDoesNotMatter(void**) {
  std::vector<AssociationRecord> records = ExampleAssociations();
  AccountCoordinators coordinators = {{"llm", {"pi-llm", "deputy"}}, {"root", {"director"}}};
  const std::string first = ConvertOrFail(records, coordinators);
  std::mt19937 random(42);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(records.begin(), records.end(), random);
    std::shuffle(coordinators["llm"].begin(), coordinators["llm"].end(), random);
    assert_string_equal(ConvertOrFail(records, coordinators).c_str(), first.c_str());
  }
}

void TestCoordinatorsOwnTheirAccountsNode(void**) {
  // Sorted, each once, empty names dropped; root's coordinators own the
  // root; coordinators of an account without association are ignored.
  const AllocationTree tree = ParseTreeOrFail(ConvertOrFail(
      ExampleAssociations(),
      {{"llm", {"pi-llm", "deputy", "pi-llm", ""}}, {"root", {"director"}}, {"gone", {"x"}}, {"science", {}}}));
  assert_true(tree.node(tree.Find("llm")).owners == (std::vector<std::string>{"deputy", "pi-llm"}));
  assert_true(tree.node(tree.Find("")).owners == (std::vector<std::string>{"director"}));
  assert_true(tree.node(tree.Find("science")).owners.empty());
  assert_true(tree.OwnsProperAncestor(tree.Find("llm/pretrain"), "deputy"));
}

void TestAccountSharingTheParentsGetsShareOneAndAWarning(void**) {
  std::vector<std::string> warnings;
  const std::string json = ConvertOrFail({Root(), Account("a", "root", 3), AccountSharingParent("b", "root")}, {},
                                         &warnings);
  // b 1/(3+1) = 0.25.
  AssertLines(Describe(ParseTreeOrFail(json)), {"cluster 0 1", "a 3 account=a 0.75", "b 1 account=b 0.25"});
  AssertLines(warnings, {"account \"b\": Fairshare=parent written as share 1: give it shares"});
}

void TestOddCharactersBecomeUnderscoresInNamesOnly(void**) {
  // "zoë" is three characters (ë two bytes of UTF-8): "zo_".
  const AllocationTree tree = ParseTreeOrFail(
      ConvertOrFail({Root(), Account("dept@cs", "root", 1), User("dept@cs", "j.doe+1", 1), User("dept@cs", "zoë", 1)}));
  AssertLines(Describe(tree), {"cluster 0 1", "dept_cs 1 account=dept@cs 1", "dept_cs/j.doe_1 1 user=j.doe+1 0.5",
                               "dept_cs/zo_ 1 user=zoë 0.5"});
  assert_int_equal(tree.NodeFor("dept@cs", "zoë"), tree.Find("dept_cs/zo_"));
  assert_string_equal(budget::NodeNameFromSlurmName("a b/c\xc3\xa9-d_e.f").c_str(), "a_b_c_-d_e.f");
}

void TestUsersOfRootGetNoNode(void**) {
  AssertLines(Describe(ParseTreeOrFail(ConvertOrFail({Root(), User("root", "root", 1), User("root", "admin", 5),
                                                      Account("a", "root", 1)}))),
              {"cluster 0 1", "a 1 account=a 1"});
}

void TestAnOrphanAccountIsRefused(void**) {
  // x's parent has no association: refused, rather than hung elsewhere
  // (tree_from_associations.h); its sub-account y is not named again.
  assert_string_equal(
      RefusalOf({Root(), Account("a", "root", 1), Account("x", "lost", 1), Account("y", "x", 1)}).c_str(),
                      "account \"x\": its parent \"lost\" has no association");
}

void TestACycleIsRefused(void**) {
  assert_string_equal(
      RefusalOf({Root(), Account("a", "root", 1), Account("p", "q", 1), Account("q", "p", 1)}).c_str(),
      "account \"p\": its parents form a cycle that never reaches \"root\"\n"
      "account \"q\": its parents form a cycle that never reaches \"root\"");
}

void TestAUserOfAnUnknownAccountIsRefused(void**) {
  assert_string_equal(RefusalOf({Root(), Account("a", "root", 1), UserSharingParent("gone", "bob")}).c_str(),
                      "user \"bob\": their account \"gone\" has no association");
}

void TestTwoAssociationsOfOneAccountAreRefused(void**) {
  assert_string_equal(
      RefusalOf({Root(), Account("a", "root", 1), Account("a", "root", 2), Account("a", "root", 3)}).c_str(),
                      "account \"a\" has more than one association");
}

void TestNoAccountUnderRootIsRefused(void**) {
  assert_string_equal(RefusalOf({Root(), User("root", "root", 1)}).c_str(), "no account under \"root\"");
  assert_string_equal(RefusalOf({}).c_str(), "no account under \"root\"");
}

void TestAHierarchyDeeperThanTheTreeAllowsIsRefused(void**) {
  // a1 is depth 1 ... a16 depth 16 (the limit), a17 one too deep.
  std::vector<AssociationRecord> records = {Root()};
  std::string parent = "root";
  for (int depth = 1; depth <= AllocationTree::kMaxDepth + 1; ++depth) {
    records.push_back(Account("a" + std::to_string(depth), parent, 1));
    parent = records.back().account;
  }
  assert_string_equal(RefusalOf(records).c_str(), "account \"a17\" is deeper than 16 levels below root");
  records.pop_back();
  ParseTreeOrFail(ConvertOrFail(records));
}

void TestCollidingNamesAreLeftToTheParser(void**) {
  // Two associations of bob in one account (per partition) give two "bob"
  // nodes, as the script writes them; the parser refuses the document.
  const std::string json = ConvertOrFail({Root(), Account("a", "root", 1), User("a", "bob", 1), User("a", "bob", 2)});
  AllocationTree tree;
  Status s = AllocationTree::Parse(json, "slurmdbd", &tree, nullptr);
  assert_false(s.ok());
  assert_non_null(strstr(s.message().c_str(), "duplicate sibling name \"bob\""));
}

// --- the sample shared with scripts/tree_from_sacctmgr.py -------------------

std::string ReadTestData(const std::string& name) {
  const char* srcdir = std::getenv("srcdir");
  const std::string file = std::string(srcdir ? srcdir : ".") + "/testdata/" + name;
  std::ifstream in(file);
  if (!in) fail_msg("cannot read %s", file.c_str());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `sacctmgr -n -P show assoc format=Account,ParentName,User,Fairshare`
// lines as records.
std::vector<AssociationRecord> ParseSacctmgrLines(const std::string& text) {
  std::vector<AssociationRecord> records;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    std::string field;
    while (std::getline(split, field, '|')) fields.push_back(field);
    if (fields.size() != 4) fail_msg("not Account|ParentName|User|Fairshare: %s", line.c_str());
    const bool parent = fields[3] == "parent";
    records.push_back({fields[0], fields[1], fields[2],
                       parent ? 0u : static_cast<uint32_t>(std::stoul(fields[3])), parent});
  }
  return records;
}

// The document as compact JSON, for comparing documents written with
// different spacing and escapes.
std::string Canonical(const std::string& json) {
  json_object* doc = json_tokener_parse(json.c_str());
  if (doc == nullptr) fail_msg("not JSON: %s", json.c_str());
  std::string text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  json_object_put(doc);
  return text;
}

// testdata/associations.tree.json is what
//   LC_ALL=C.UTF-8 scripts/tree_from_sacctmgr.py < testdata/associations.txt
// writes (it names dept@cs, Fairshare=parent, on stderr). Regenerate it so
// whenever the script's mapping changes; then this test says whether the
// C++ mapping still agrees.
void TestTheSampleGivesTheScriptsTree(void**) {
  std::vector<std::string> warnings;
  const std::string json = ConvertOrFail(ParseSacctmgrLines(ReadTestData("associations.txt")), {}, &warnings);
  assert_string_equal(Canonical(json).c_str(), Canonical(ReadTestData("associations.tree.json")).c_str());
  AssertLines(warnings, {"account \"dept@cs\": Fairshare=parent written as share 1: give it shares"});
  ParseTreeOrFail(json);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestEachAccountAndUserBecomesANode),
      cmocka_unit_test(TestUserSharingTheParentsIsChargedToTheAccount),
      cmocka_unit_test(TestKeysAndLayoutAreTheScripts),
      cmocka_unit_test(TestSubAccountsComeBeforeUsersEachSortedByName),
      cmocka_unit_test(TestOrderOfTheInputDoesNotMatter),
      cmocka_unit_test(TestCoordinatorsOwnTheirAccountsNode),
      cmocka_unit_test(TestAccountSharingTheParentsGetsShareOneAndAWarning),
      cmocka_unit_test(TestOddCharactersBecomeUnderscoresInNamesOnly),
      cmocka_unit_test(TestUsersOfRootGetNoNode),
      cmocka_unit_test(TestAnOrphanAccountIsRefused),
      cmocka_unit_test(TestACycleIsRefused),
      cmocka_unit_test(TestAUserOfAnUnknownAccountIsRefused),
      cmocka_unit_test(TestTwoAssociationsOfOneAccountAreRefused),
      cmocka_unit_test(TestNoAccountUnderRootIsRefused),
      cmocka_unit_test(TestAHierarchyDeeperThanTheTreeAllowsIsRefused),
      cmocka_unit_test(TestCollidingNamesAreLeftToTheParser),
      cmocka_unit_test(TestTheSampleGivesTheScriptsTree),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
