// Trees for the core's unit tests: the example tree of tree.h, its node ids,
// and a parse that fails the test on an error. Include after test_support.h
// (it uses cmocka's fail_msg).
#ifndef SLURM_BUDGET_LIBBUDGET_TEST_TREES_H_
#define SLURM_BUDGET_LIBBUDGET_TEST_TREES_H_

#include <string>

#include "libbudget/state/tree.h"

namespace budget {
namespace testing {

// The example of tree.h. Owners: director on the root, pi-llm on llm.
// Ids (pre-order): cluster 0, llm 1, pretrain 2, posttrain 3, alice 4, bob 5,
// robotics 6, science 7 (ExampleNode).
constexpr char kExampleTree[] = R"({ "name": "cluster", "owners": ["director"],
  "children": [
    { "name": "llm", "share": 50, "owners": ["pi-llm"], "children": [
        { "name": "pretrain",  "share": 70, "account": "pretrain" },
        { "name": "posttrain", "share": 30, "account": "posttrain", "children": [
            { "name": "alice", "share": 2, "user": "alice" },
            { "name": "bob",   "share": 1, "user": "bob" } ] } ] },
    { "name": "robotics", "share": 30, "account": "robotics" },
    { "name": "science",  "share": 20, "account": "science" } ] })";
enum ExampleNode : NodeId { kCluster, kLlm, kPretrain, kPosttrain, kAlice, kBob, kRobotics, kScience };

// The tree `json` describes; fails the test (naming the error) if it does
// not parse.
inline AllocationTree ParseTreeOrFail(const std::string& json) {
  AllocationTree tree;
  Status s = AllocationTree::Parse(json, "t.json", &tree, nullptr);
  if (!s.ok()) fail_msg("parse: %s", s.message().c_str());
  return tree;
}

}  // namespace testing
}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TEST_TREES_H_
