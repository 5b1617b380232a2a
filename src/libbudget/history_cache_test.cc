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

#include "libbudget/test_support.h"

#include "libbudget/history_cache.h"
#include "libbudget/ledger.h"
#include "libbudget/order.h"
#include "libbudget/report_snapshot.h"
#include "libbudget/tree.h"

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
  const std::vector<SnapshotHistory>& got = cache.histories();
  assert_int_equal(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    assert_string_equal(got[i].path.c_str(), want[i].path.c_str());
    assert_int_equal(got[i].start, want[i].start);
    assert_int_equal(got[i].width, want[i].width);
    assert_true(SameBits(got[i].delivered, want[i].delivered));
    assert_true(SameBits(got[i].owed, want[i].owed));
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

// The plugin's path: BuildSnapshotNodes with the cache into a snapshot kept
// between builds, written by one ReportFileWriter; against a fresh build
// without cache and the plain writer, byte for byte.
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
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &kept, 2, &cache).ok());
    budget::ReportSnapshot plain;
    plain.capacity_gpus = 8;
    plain.window = 600;
    assert_true(budget::BuildSnapshotNodes(tree, order, {}, now, &ledger, &plain, 2).ok());
    assert_true(writer.Write(kept, file, standings).ok());
    std::string text;
    budget::FormatReportSnapshotInto(plain, &text);
    std::ifstream in(file, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    assert_true(written == text);
    if (writer.history_values_formatted() < 4 * 2 * 10) ++reused;
  }
  assert_true(reused > 200);
  unlink(file.c_str());
  unlink(standings.c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_the_full_computation_over_random_steps),
      cmocka_unit_test(test_a_pass_within_a_slot_reads_only_that_slot),
      cmocka_unit_test(test_cached_builds_write_the_plain_bytes),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
