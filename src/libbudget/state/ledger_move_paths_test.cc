// Tests of Ledger::MovePaths through the public API: a moved path's usage
// reads as if it had been charged to its new path all along.
//
// A small ledger as in ledger_test.cc: window W = 3600 s, allocated buckets
// of w = 300 s (12 buckets), report buckets of 900 s (4 buckets).
#include <cmath>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"
// Last: cmocka defines a fail() macro that would break <ios>.
#include "libbudget/testing/test_support.h"
#include "libbudget/testing/test_ledgers.h"

namespace {

using budget::Ledger;
using budget::testing::SmallLedger;
using budget::TimePoint;
using Series = budget::Ledger::Series;
using Moves = std::vector<Ledger::PathMove>;

constexpr Series kAllSeries[] = {Series::kAllocated, Series::kUnallocated, Series::kDemand};

void AssertNear(double expected, double actual) {
  if (std::fabs(expected - actual) > 1e-9) fail_msg("expected %.9g, got %.9g", expected, actual);
}

void AssertSameSeries(const Ledger& a, const std::string& a_path, const Ledger& b, const std::string& b_path) {
  for (Series s : kAllSeries) {
    const Ledger::RawSeries x = a.ExportSeries(a_path, s), y = b.ExportSeries(b_path, s);
    assert_int_equal(x.head, y.head);
    assert_true(x.values == y.values);
  }
}

void TestAMoveToANewPathTakesEverySeries(void**) {
  Ledger ledger = SmallLedger();
  ledger.Charge("a/x", Series::kAllocated, 0, 600, 2);    // 1200 GPU-s
  ledger.Charge("a/x", Series::kUnallocated, 0, 900, 1);  // 900
  ledger.Charge("a/x", Series::kDemand, 0, 600, 2);       // 1200
  Ledger before = SmallLedger();
  assert_true(budget::DecodeLedger(budget::EncodeLedger(ledger), "before", &before).ok());

  assert_int_equal(ledger.MovePaths({{"a/x", "y/x"}}), 1);
  assert_false(ledger.HasPath("a/x"));
  assert_true(ledger.Paths() == (std::vector<std::string>{"y/x"}));
  AssertSameSeries(ledger, "y/x", before, "a/x");
  AssertNear(1200, ledger.WindowUsage("y/x", Series::kAllocated, 900));
  AssertNear(900, ledger.WindowUsage("y/x", Series::kUnallocated, 900));
  AssertNear(1200, ledger.WindowUsage("y/x", Series::kDemand, 900));
  AssertNear(0, ledger.WindowUsage("a/x", Series::kAllocated, 900));
}

// Usage of `from` and `to` charged to two ledgers: one moves `from` into
// `to`, the other had charged both to `to` in the first place.
void TestAMoveAddsToWhatTheDestinationHolds(void**) {
  struct Charge {
    bool to_source;
    Series series;
    TimePoint from, to;
    double gpus;
  };
  const Charge charges[] = {
      {true, Series::kAllocated, 1500, 1800, 1},   // bucket 5: older than the window once b's head is 20
      {true, Series::kAllocated, 3300, 3600, 1},   // bucket 11, 300 GPU-s
      {false, Series::kAllocated, 6000, 6300, 2},  // bucket 20, 600 GPU-s: the newer head
      {true, Series::kDemand, 2700, 3600, 1},      // demand bucket 3, 900 GPU-s
      {false, Series::kDemand, 0, 900, 1},         // demand bucket 0, 900 GPU-s
      {true, Series::kUnallocated, 0, 300, 4},     // only the source has this series
  };
  Ledger moved = SmallLedger(), direct = SmallLedger();
  for (const Charge& c : charges) {
    moved.Charge(c.to_source ? "a" : "b", c.series, c.from, c.to, c.gpus);
  }
  for (const Charge& c : charges) direct.Charge("b", c.series, c.from, c.to, c.gpus);

  assert_int_equal(moved.MovePaths({{"a", "b"}}), 1);
  AssertSameSeries(moved, "b", direct, "b");
  // Allocated at 6000 (buckets 9..20): bucket 11's 300 + bucket 20's 600.
  AssertNear(900, moved.WindowUsage("b", Series::kAllocated, 6000));
  // Demand at 3599 (buckets 0..3): 900 + 900.
  AssertNear(1800, moved.WindowUsage("b", Series::kDemand, 3599));
}

void TestOneCallMaySwapOrChainPaths(void**) {
  Ledger ledger = SmallLedger();
  ledger.Charge("a", Series::kAllocated, 0, 300, 1);  // 300
  ledger.Charge("b", Series::kAllocated, 0, 300, 2);  // 600
  assert_int_equal(ledger.MovePaths({{"a", "b"}, {"b", "a"}}), 2);
  AssertNear(600, ledger.WindowUsage("a", Series::kAllocated, 300));
  AssertNear(300, ledger.WindowUsage("b", Series::kAllocated, 300));

  // Now a = 600, b = 300: a -> b, b -> c.
  assert_int_equal(ledger.MovePaths({{"a", "b"}, {"b", "c"}}), 2);
  assert_false(ledger.HasPath("a"));
  AssertNear(600, ledger.WindowUsage("b", Series::kAllocated, 300));
  AssertNear(300, ledger.WindowUsage("c", Series::kAllocated, 300));
}

void TestMovesOfNothingChangeNothing(void**) {
  Ledger ledger = SmallLedger();
  ledger.Charge("a", Series::kAllocated, 0, 300, 1);
  ledger.SetChargedUntil(7, 300);
  ledger.TakeEarliestChange();
  assert_int_equal(ledger.MovePaths({{"unknown", "b"}, {"a", "a"}}), 0);
  assert_false(ledger.HasPath("b"));
  assert_true(ledger.TakeEarliestChange() == Ledger::kNoneChanged);
  AssertNear(300, ledger.WindowUsage("a", Series::kAllocated, 300));

  // A source listed twice moves once; a move is a change of every bucket
  // for SubtreeHistoryCache; cursors are keyed by job and stay.
  assert_int_equal(ledger.MovePaths({{"a", "b"}, {"a", "c"}}), 1);
  assert_true(ledger.Paths() == (std::vector<std::string>{"b"}));
  assert_true(ledger.TakeEarliestChange() == Ledger::kAllChanged);
  assert_int_equal(ledger.ChargedUntil(7), 300);
}

void TestAMovedLedgerSavesAndLoads(void**) {
  Ledger ledger = SmallLedger();
  ledger.Charge("llm/pretrain", Series::kAllocated, 0, 600, 2);
  ledger.Charge("science", Series::kDemand, 0, 900, 1);
  ledger.Charge("zz", Series::kAllocated, 300, 600, 1);
  // The saver's sorted walk must see the new order: "a/pretrain" first.
  ledger.ExportAllSeries([](const std::string&, const Ledger::SeriesView(&)[Ledger::kSeriesCount]) {});
  assert_int_equal(ledger.MovePaths({{"llm/pretrain", "a/pretrain"}, {"zz", "science"}}), 2);
  Ledger loaded = SmallLedger();
  const std::string bytes = budget::EncodeLedger(ledger);
  assert_true(budget::DecodeLedger(bytes, "moved", &loaded).ok());
  assert_true(loaded.Paths() == (std::vector<std::string>{"a/pretrain", "science"}));
  AssertSameSeries(loaded, "a/pretrain", ledger, "a/pretrain");
  AssertSameSeries(loaded, "science", ledger, "science");
  assert_true(budget::EncodeLedger(loaded) == bytes);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestAMoveToANewPathTakesEverySeries),
      cmocka_unit_test(TestAMoveAddsToWhatTheDestinationHolds),
      cmocka_unit_test(TestOneCallMaySwapOrChainPaths),
      cmocka_unit_test(TestMovesOfNothingChangeNothing),
      cmocka_unit_test(TestAMovedLedgerSavesAndLoads),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
