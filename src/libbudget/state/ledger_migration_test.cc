// Tests of MigrateLedgerPaths: which allocations' usage follows them into a
// reloaded tree (ledger_migration.h).
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_migration.h"
#include "libbudget/state/tree.h"
#include "libbudget/state/tree_from_associations.h"
// Last: cmocka defines a fail() macro that would break <ios>.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_ledgers.h"
#include "libbudget/testing/test_lines.h"
#include "libbudget/testing/test_trees.h"

namespace {

using budget::AllocationTree;
using budget::AssociationRecord;
using budget::Ledger;
using budget::testing::SmallLedger;
using budget::MigrateLedgerPaths;
using budget::testing::AssertLines;
using budget::testing::ParseTreeOrFail;
using Series = budget::Ledger::Series;

constexpr budget::TimePoint kNow = 3600;

// Charges `gpus` GPUs over the last 300 s to `path`: 300 x gpus GPU-s.
void Charge(Ledger* ledger, const std::string& path, double gpus) {
  ledger->Charge(path, Series::kAllocated, kNow - 300, kNow, gpus);
}

double Usage(Ledger* ledger, const std::string& path) {
  return ledger->WindowUsage(path, Series::kAllocated, kNow);
}

std::vector<std::string> Lines(const std::vector<Ledger::PathMove>& moves) {
  std::vector<std::string> lines;
  for (const Ledger::PathMove& m : moves) lines.push_back(m.from + " -> " + m.to);
  return lines;
}

AllocationTree TreeOfAssociations(const std::vector<AssociationRecord>& records) {
  std::string json;
  budget::Status s = budget::TreeJsonFromAssociations(records, {}, &json, nullptr);
  if (!s.ok()) fail_msg("convert: %s", s.message().c_str());
  return ParseTreeOrFail(json);
}

// The case that motivates it: `sacctmgr modify account x set parent=y`
// under BudgetTree=slurmdbd.
void TestASubtreeMovedInSlurmdbdKeepsItsUsage(void**) {
  std::vector<AssociationRecord> associations = {
      {"root", "", "", 1, false}, {"a", "root", "", 1, false}, {"y", "root", "", 1, false},
      {"x", "a", "", 1, false},   {"x", "", "alice", 1, false}};
  const AllocationTree before = TreeOfAssociations(associations);
  associations[3].parent_account = "y";
  const AllocationTree after = TreeOfAssociations(associations);
  Ledger ledger = SmallLedger();
  Charge(&ledger, "a", 1);          // 300 GPU-s, stays
  Charge(&ledger, "a/x", 2);        // 600, to y/x
  Charge(&ledger, "a/x/alice", 3);  // 900, to y/x/alice
  // Pre-order of the new tree: y/x before y/x/alice.
  AssertLines(Lines(MigrateLedgerPaths(before, after, &ledger)), {"a/x -> y/x", "a/x/alice -> y/x/alice"});
  assert_true(ledger.Paths() == (std::vector<std::string>{"a", "y/x", "y/x/alice"}));
  assert_float_equal(Usage(&ledger, "a"), 300, 0);
  assert_float_equal(Usage(&ledger, "y/x"), 600, 0);
  assert_float_equal(Usage(&ledger, "y/x/alice"), 900, 0);
}

void TestARenamedNodeKeepsItsUsage(void**) {
  const AllocationTree before = ParseTreeOrFail(budget::testing::kExampleTree);
  std::string renamed = budget::testing::kExampleTree;
  const std::string name = R"("name": "pretrain")";
  renamed.replace(renamed.find(name), name.size(), R"("name": "pre")");
  const AllocationTree after = ParseTreeOrFail(renamed);
  assert_true(after.Find("llm/pre") != budget::kNoNode);
  Ledger ledger = SmallLedger();
  Charge(&ledger, "llm/pretrain", 1);
  AssertLines(Lines(MigrateLedgerPaths(before, after, &ledger)), {"llm/pretrain -> llm/pre"});
  assert_float_equal(Usage(&ledger, "llm/pre"), 300, 0);
}

void TestTwoAllocationsThatSwapPathsSwapUsage(void**) {
  const AllocationTree before = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "one", "share": 1, "account": "p" }, { "name": "two", "share": 1, "account": "q" } ] })");
  const AllocationTree after = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "one", "share": 1, "account": "q" }, { "name": "two", "share": 1, "account": "p" } ] })");
  Ledger ledger = SmallLedger();
  Charge(&ledger, "one", 1);  // p's 300
  Charge(&ledger, "two", 2);  // q's 600
  AssertLines(Lines(MigrateLedgerPaths(before, after, &ledger)), {"two -> one", "one -> two"});
  assert_float_equal(Usage(&ledger, "one"), 600, 0);
  assert_float_equal(Usage(&ledger, "two"), 300, 0);
}

void TestUsageIsAddedToWhatTheNewPathHolds(void**) {
  // "new" was bound to account old-team, now removed; p moves there.
  const AllocationTree before = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "p", "share": 1, "account": "p" }, { "name": "new", "share": 1, "account": "old-team" } ] })");
  const AllocationTree after = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "new", "share": 1, "account": "p" } ] })");
  Ledger ledger = SmallLedger();
  Charge(&ledger, "p", 1);
  Charge(&ledger, "new", 2);
  AssertLines(Lines(MigrateLedgerPaths(before, after, &ledger)), {"p -> new"});
  // 300 + 600.
  assert_float_equal(Usage(&ledger, "new"), 900, 0);
}

void TestNothingMovesWithoutAMovedBinding(void**) {
  const AllocationTree example = ParseTreeOrFail(budget::testing::kExampleTree);
  Ledger ledger = SmallLedger();
  Charge(&ledger, "llm/pretrain", 1);
  assert_true(MigrateLedgerPaths(example, example, &ledger).empty());
  assert_true(MigrateLedgerPaths(AllocationTree(), example, &ledger).empty());  // the first load
  assert_true(MigrateLedgerPaths(example, AllocationTree(), &ledger).empty());
  assert_true(ledger.Paths() == (std::vector<std::string>{"llm/pretrain"}));
  // An account moved to the root would be moved to the path "".
  const AllocationTree at_root = ParseTreeOrFail(R"({ "name": "c", "account": "pretrain" })");
  assert_true(MigrateLedgerPaths(example, at_root, &ledger).empty());
  assert_true(ledger.Paths() == (std::vector<std::string>{"llm/pretrain"}));
}

void TestUnboundNodesAndChangedBindingsStay(void**) {
  // llm (bound to nothing) is renamed lm; alice moves from account
  // posttrain to pretrain (another allocation); bob loses his node and
  // carol gets one: bob's usage stays, and posttrain's own usage is not
  // carol's although NodeFor(posttrain, carol) was posttrain's node.
  const AllocationTree before = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "llm", "share": 1, "children": [
          { "name": "pretrain", "share": 1, "account": "pretrain" },
          { "name": "posttrain", "share": 1, "account": "posttrain", "children": [
              { "name": "alice", "share": 1, "user": "alice" },
              { "name": "bob", "share": 1, "user": "bob" } ] } ] } ] })");
  const AllocationTree after = ParseTreeOrFail(R"({ "name": "c", "children": [
      { "name": "lm", "share": 1, "children": [
          { "name": "pretrain", "share": 1, "account": "pretrain", "children": [
              { "name": "alice", "share": 1, "user": "alice" } ] },
          { "name": "posttrain", "share": 1, "account": "posttrain", "children": [
              { "name": "carol", "share": 1, "user": "carol" } ] } ] } ] })");
  Ledger ledger = SmallLedger();
  for (const char* path : {"llm", "llm/posttrain", "llm/posttrain/alice", "llm/posttrain/bob"}) {
    Charge(&ledger, path, 1);
  }
  // Only the accounts' nodes follow (lm/pretrain had no usage: not listed).
  AssertLines(Lines(MigrateLedgerPaths(before, after, &ledger)), {"llm/posttrain -> lm/posttrain"});
  assert_true(ledger.Paths() ==
              (std::vector<std::string>{"llm", "llm/posttrain/alice", "llm/posttrain/bob", "lm/posttrain"}));
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestASubtreeMovedInSlurmdbdKeepsItsUsage),
      cmocka_unit_test(TestARenamedNodeKeepsItsUsage),
      cmocka_unit_test(TestTwoAllocationsThatSwapPathsSwapUsage),
      cmocka_unit_test(TestUsageIsAddedToWhatTheNewPathHolds),
      cmocka_unit_test(TestNothingMovesWithoutAMovedBinding),
      cmocka_unit_test(TestUnboundNodesAndChangedBindingsStay),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
