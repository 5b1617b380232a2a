// Tests of SubtreeHistoryCache (history_cache.h): after every step of
// random charges, late charges, forgotten paths, clock moves, capacity and
// tree changes, its histories are bitwise SubtreeDeliveredAndOwed's; a
// pass within one slot reads only the current slot; and reports built and
// written through it are byte for byte those built and written without.
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "libbudget/testing/test_support.h"

#include "libbudget/report/history_cache.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "libbudget/report/report_format.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/state/subtree_history.h"
#include "libbudget/state/tree.h"

namespace {

using budget::Ledger;
using budget::SnapshotHistory;

const char kTree[] = R"({ "name": "cluster", "children": [
    { "name": "a", "share": 3, "children": [
        { "name": "a1", "share": 1, "account": "a1" },
        { "name": "a2", "share": 2, "account": "a2" } ] },
    { "name": "b", "share": 1, "account": "b" } ] })";
const char kOtherTree[] = R"({ "name": "cluster", "children": [
    { "name": "a", "share": 1, "children": [
        { "name": "a1", "share": 1, "account": "a1" } ] },
    { "name": "b", "share": 1, "account": "b" } ] })";

budget::AllocationTree Tree(const char* json) {
  budget::AllocationTree tree;
  assert_true(budget::AllocationTree::Parse(json, "test", &tree, nullptr).ok());
  return tree;
}

Ledger::Options SmallWindow() {
  Ledger::Options options;
  options.window = 600;  // 10 slots of 60 s, 5-s buckets
  options.bucket_width = 5;
  options.report_bucket_width = 60;
  return options;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void AssertMatches(const budget::SubtreeHistoryCache& cache, const budget::AllocationTree& tree, double capacity,
                   budget::TimePoint now, const Ledger& ledger) {
  std::vector<SnapshotHistory> want = budget::SubtreeDeliveredAndOwed(tree, capacity, 600, now, ledger);
  assert_int_equal(cache.node_count(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SnapshotHistory got;
    cache.CopySeries(i, &got);
    assert_string_equal(got.path.c_str(), want[i].path.c_str());
    assert_int_equal(got.start, want[i].start);
    assert_int_equal(got.width, want[i].width);
    assert_true(SameBits(got.delivered, want[i].delivered));
    assert_true(SameBits(got.owed, want[i].owed));
    for (size_t k = 0; k < want[i].owed.size(); ++k) {
      const double delivered = cache.delivered(i, k), owed = cache.owed(i, k);
      assert_memory_equal(&delivered, &want[i].delivered[k], sizeof delivered);
      assert_memory_equal(&owed, &want[i].owed[k], sizeof owed);
    }
    // The totals: what a loop over the slots adds up, bit for bit.
    double delivered = 0.0, owed = 0.0;
    for (double v : want[i].delivered) delivered += v;
    for (double v : want[i].owed) owed += v;
    const double got_delivered = cache.delivered_total(i), got_owed = cache.owed_total(i);
    assert_memory_equal(&got_delivered, &delivered, sizeof delivered);
    assert_memory_equal(&got_owed, &owed, sizeof owed);
  }
}

void test_matches_the_full_computation_over_random_steps(void**) {
  srand(11);
  const char* kPaths[] = {"a/a1", "a/a2", "b", "a", ""};
  budget::AllocationTree tree = Tree(kTree);
  Ledger ledger(SmallWindow());
  budget::SubtreeHistoryCache cache;
  budget::TimePoint now = 100000;
  double capacity = 8;
  size_t partial_steps = 0;
  for (int step = 0; step < 2000; ++step) {
    const int what = rand() % 100;
    if (what < 60) {  // charges up to now, mostly recent, some late
      const budget::TimePoint from = now - (rand() % 4 == 0 ? rand() % 900 : rand() % 30);
      const Ledger::Series series = static_cast<Ledger::Series>(rand() % 3);
      ledger.Charge(kPaths[rand() % 5], series, from, now, 0.5 + rand() % 7);
    } else if (what < 85) {
      now += rand() % 40;  // within or across a slot
    } else if (what < 90) {
      now += 60 * (1 + rand() % 12);  // several slots, sometimes past the window
    } else if (what < 92) {
      now -= rand() % 120;  // the clock went back
    } else if (what < 94) {
      ledger.ForgetPath(kPaths[rand() % 5]);
    } else if (what < 96) {
      capacity = 4 + rand() % 8;
    } else if (what < 98) {
      tree = Tree(rand() % 2 ? kTree : kOtherTree);
    }
    cache.Update(tree, capacity, 600, now, &ledger);
    if (cache.slots_read() < 10) ++partial_steps;
    AssertMatches(cache, tree, capacity, now, ledger);
  }
  // Most steps read less than the whole window.
  assert_true(partial_steps > 1000);
}

void test_a_pass_within_a_slot_reads_only_that_slot(void**) {
  budget::AllocationTree tree = Tree(kTree);
  Ledger ledger(SmallWindow());
  budget::SubtreeHistoryCache cache;
  const budget::TimePoint start = 100020;  // slot [100020, 100080)
  ledger.Charge("a/a1", Ledger::Series::kAllocated, start - 500, start, 2);
  cache.Update(tree, 8, 600, start, &ledger);
  assert_int_equal(cache.slots_read(), 10);  // the first time: every slot
  ledger.Charge("a/a1", Ledger::Series::kDemand, start, start + 30, 1);
  cache.Update(tree, 8, 600, start + 30, &ledger);
  assert_int_equal(cache.slots_read(), 1);
  cache.Update(tree, 8, 600, start + 40, &ledger);
  assert_int_equal(cache.slots_read(), 0);  // nothing charged
  // A late charge three slots back: those slots and the ones after.
  ledger.Charge("b", Ledger::Series::kAllocated, start - 150, start - 140, 1);
  cache.Update(tree, 8, 600, start + 40, &ledger);
  assert_int_equal(cache.slots_read(), 4);
  // A new slot: only it is read; the others shift.
  cache.Update(tree, 8, 600, start + 70, &ledger);
  assert_int_equal(cache.slots_read(), 1);
  AssertMatches(cache, tree, 8, start + 70, ledger);
}

// The plugin's path: BuildSnapshotNodes with the cache (and no history in
// the snapshot), written by one ReportFileWriter from the cache; against a
// fresh build without cache and the plain writer, byte for byte.
void test_cached_builds_write_the_plain_bytes(void**) {
  srand(5);
  const char* kPaths[] = {"a/a1", "a/a2", "b", "a"};
  budget::AllocationTree tree = Tree(kTree);
  Ledger ledger(SmallWindow());
  budget::SubtreeHistoryCache cache;
  budget::ReportSnapshot kept;
  budget::ReportFileWriter writer;
  char dir_template[] = "/tmp/history_cache_test.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string file = dir + "/report.json";
  const std::string standings = dir + "/standings.json";
  budget::TimePoint now = 100000;
  size_t reused = 0;
  uint64_t previous_generation = 0;
  for (int step = 0; step < 400; ++step) {
    const int what = rand() % 100;
    if (what < 70) {
      const budget::TimePoint from = now - (rand() % 5 == 0 ? rand() % 700 : rand() % 20);
      ledger.Charge(kPaths[rand() % 4], static_cast<Ledger::Series>(rand() % 3), from, now, 1 + rand() % 5);
    } else if (what < 95) {
      now += rand() % 50;
    } else {
      now += 60 * (1 + rand() % 3);
    }
    budget::FairShareOrder order;
    std::vector<double> zero(tree.size(), 0.0);
    assert_true(order.Compute(tree, zero, zero, 8, 600).ok());
    kept.capacity_gpus = 8;
    kept.window = 600;
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &kept, -1, &cache).ok());
    assert_true(kept.history.empty());
    budget::ReportSnapshot plain;
    plain.capacity_gpus = 8;
    plain.window = 600;
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &plain, 2).ok());
    const uint64_t generation = cache.closed_generation();
    assert_true(writer.Write(kept, file, standings, &cache, 2).ok());
    std::string text;
    budget::FormatReportSnapshotInto(plain, &text);
    std::ifstream in(file, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    assert_true(written == text);
    // Five nodes down to depth 2, two series of 10 slots: 100 values when
    // formatted whole, 10 (each series' last) when the closed text stood.
    const size_t formatted = writer.history_values_formatted();
    assert_true(formatted == 100 || formatted == 10);
    if (formatted == 10) ++reused;
    assert_true((formatted == 10) == (step > 0 && generation == previous_generation));
    previous_generation = generation;
  }
  assert_true(reused > 200);
  unlink(file.c_str());
  unlink(standings.c_str());
  rmdir(dir.c_str());
}

// The kept text belongs to one cache's closed slots at one depth: another
// cache (even with the same values), another depth, or a charge reaching
// back makes the writer format the whole history again.
void test_writer_keeps_text_only_for_the_same_closed_slots(void**) {
  budget::AllocationTree tree = Tree(kTree);
  Ledger ledger(SmallWindow());
  char dir_template[] = "/tmp/history_cache_test.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string file = dir + "/report.json";
  budget::ReportSnapshot report;
  report.capacity_gpus = 8;
  report.window = 600;
  budget::FairShareOrder order;
  std::vector<double> zero(tree.size(), 0.0);
  assert_true(order.Compute(tree, zero, zero, 8, 600).ok());
  budget::SubtreeHistoryCache cache, other;
  budget::ReportFileWriter writer;
  const budget::TimePoint now = 100020;
  ledger.Charge("a/a1", Ledger::Series::kAllocated, now - 300, now, 2);
  auto write = [&](budget::SubtreeHistoryCache* with, int depth) {
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &report, -1, with).ok());
    assert_true(writer.Write(report, file, "", with, depth).ok());
    budget::ReportSnapshot plain;
    plain.capacity_gpus = 8;
    plain.window = 600;
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &plain, depth).ok());
    std::ifstream in(file, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    assert_true(written == budget::FormatReportSnapshot(plain));
    return writer.history_values_formatted();
  };
  assert_int_equal(write(&cache, 2), 5 * 2 * 10);  // the first time: all
  assert_int_equal(write(&cache, 2), 5 * 2);       // then each series' last value
  assert_int_equal(write(&cache, 1), 3 * 2 * 10);  // another depth: root, a, b
  assert_int_equal(write(&cache, 1), 3 * 2);
  assert_int_equal(write(&other, 1), 3 * 2 * 10);  // another cache
  assert_int_equal(write(&cache, 1), 3 * 2 * 10);  // and back
  ledger.Charge("b", Ledger::Series::kDemand, now - 200, now, 1);  // reaches back
  assert_int_equal(write(&cache, 1), 3 * 2 * 10);
  assert_int_equal(write(&cache, 1), 3 * 2);
  unlink(file.c_str());
  rmdir(dir.c_str());
}

// A tree of 300 accounts: the report is written from some 2,000 pieces,
// in several writev batches; the bytes are still the plain writer's.
void test_a_large_tree_is_written_whole(void**) {
  std::string json = R"({ "name": "cluster", "children": [)";
  for (int i = 0; i < 300; ++i) {
    json += (i ? "," : "") + std::string(R"({ "name": "t)") + std::to_string(i) + R"(", "share": )" +
            std::to_string(1 + i % 7) + R"(, "account": "t)" + std::to_string(i) + R"(" })";
  }
  json += "] }";
  budget::AllocationTree tree = Tree(json.c_str());
  Ledger ledger(SmallWindow());
  const budget::TimePoint now = 100020;
  for (int i = 0; i < 300; i += 3) {
    ledger.Charge("t" + std::to_string(i), Ledger::Series::kAllocated, now - 500 + i, now, 1 + i % 5);
  }
  budget::FairShareOrder order;
  std::vector<double> zero(tree.size(), 0.0);
  assert_true(order.Compute(tree, zero, zero, 8, 600).ok());
  char dir_template[] = "/tmp/history_cache_test.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string file = dir + "/report.json";
  const std::string standings = dir + "/standings.json";
  budget::SubtreeHistoryCache cache;
  budget::ReportFileWriter writer;
  budget::ReportSnapshot report, plain;
  report.capacity_gpus = plain.capacity_gpus = 8;
  report.window = plain.window = 600;
  assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &report, -1, &cache).ok());
  assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &plain, 2).ok());
  assert_true(writer.Write(report, file, standings, &cache, 2).ok());
  std::ifstream in(file, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  assert_true(written == budget::FormatReportSnapshot(plain));
  assert_int_equal(writer.history_values_formatted(), 301 * 2 * 10);
  std::string expected_standings;
  assert_true(budget::WriteStandingsSnapshot(plain, dir + "/plain.json", &expected_standings).ok());
  std::ifstream sin(standings, std::ios::binary);
  const std::string standings_written((std::istreambuf_iterator<char>(sin)), std::istreambuf_iterator<char>());
  assert_true(standings_written == expected_standings);
  unlink(file.c_str());
  unlink(standings.c_str());
  unlink((dir + "/plain.json").c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_the_full_computation_over_random_steps),
      cmocka_unit_test(test_a_pass_within_a_slot_reads_only_that_slot),
      cmocka_unit_test(test_cached_builds_write_the_plain_bytes),
      cmocka_unit_test(test_writer_keeps_text_only_for_the_same_closed_slots),
      cmocka_unit_test(test_a_large_tree_is_written_whole),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
