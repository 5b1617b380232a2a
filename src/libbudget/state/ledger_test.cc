// Tests of the sliding-window ledger through its public API only.
//
// Most tests use a small ledger: window W = 3600 s, allocated buckets of
// w = 300 s (12 buckets), report buckets of 900 s (4 buckets).
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"

using budget::Ledger;
using budget::Status;
using budget::TimePoint;
using Series = budget::Ledger::Series;

namespace {

Ledger::Options SmallOptions() {
  Ledger::Options o;
  o.window = 3600;
  o.bucket_width = 300;
  o.report_bucket_width = 900;
  return o;
}

bool Near(double expected, double actual) {
  return std::fabs(expected - actual) <= 1e-6 * std::max(1.0, std::fabs(expected));
}

void AssertNear(double expected, double actual) {
  if (!Near(expected, actual)) fail_msg("expected %.9g, got %.9g", expected, actual);
}

// The required edge: usage charged at a bucket-aligned t counts for
// now in [t, t + W) and is gone exactly at now = t + W.
void TestUsageLeavesWindowExactlyAtTPlusW(void** /*state*/) {
  struct Case {
    TimePoint now;
    double expected;
  };
  // Charge 2 GPUs over [3000, 3300) = 600 GPU-s into bucket 10 (t = 3000).
  const Case cases[] = {
      {2999, 0},    // before the charge: a query in the past sees nothing
      {3000, 600},  // t itself
      {3299, 600},
      {6599, 600},  // t + W - 1: bucket 10 is the oldest of 10..21
      {6600, 0},    // t + W: window is buckets 11..22
      {9000, 0},
  };
  Ledger ledger(SmallOptions());
  ledger.Charge("llm/pretrain", Series::kAllocated, 3000, 3300, 2.0);
  for (const Case& c : cases) {
    AssertNear(c.expected,
               ledger.WindowUsage("llm/pretrain", Series::kAllocated, c.now));
  }
}

void TestChargeIsSplitAcrossBuckets(void** /*state*/) {
  Ledger ledger(SmallOptions());
  ledger.Charge("a", Series::kAllocated, 150, 600, 2.0);
  // 2 GPUs x 150 s in bucket 0 + 2 x 300 in bucket 1 = 900
  AssertNear(900, ledger.WindowUsage("a", Series::kAllocated, 600));
  Ledger::History h = ledger.SeriesHistory("a", Series::kAllocated, 0, 900);
  assert_int_equal(0, h.start);
  assert_int_equal(300, h.width);
  // Buckets 0, 1, 2 overlap [0, 900): 300, 600, 0.
  assert_int_equal(3, h.gpu_seconds.size());
  AssertNear(300, h.gpu_seconds[0]);
  AssertNear(600, h.gpu_seconds[1]);
  AssertNear(0, h.gpu_seconds[2]);
  // Bucket 0 leaves at 0 + W = 3600: 900 - 300 = 600 remain.
  AssertNear(600, ledger.WindowUsage("a", Series::kAllocated, 3600));
  // Bucket 1 leaves at 300 + W = 3900.
  AssertNear(0, ledger.WindowUsage("a", Series::kAllocated, 3900));
}

// Charges on path "a", in order, then what its window holds at each `now`,
// in order (a query moves the head forward only, never back).
struct WindowCase {
  const char* name;
  struct Charge {
    TimePoint from, to;
    double gpus;
  };
  std::vector<Charge> charges;
  struct Query {
    TimePoint now;
    double expected;
  };
  std::vector<Query> queries;
};

void TestWindowUsageAfterCharges(void** /*state*/) {
  const WindowCase cases[] = {
      // 1 GPU over [0, 7200): the head moves to bucket 23, so only buckets
      // 12..23 are retained: 12 x 300 = 3600. At 7200 bucket 12 leaves:
      // 3600 - 300 = 3300.
      {"a charge longer than the window keeps only the window", {{0, 7200, 1.0}}, {{7199, 3600}, {7200, 3300}}},
      // The first charge moves the head to bucket 23; bucket 0 is older than
      // 23 - 12 + 1 = 12: dropped. [3300, 3900) straddles: bucket 11
      // dropped, bucket 12 kept: 300 x 1. 200 (first charge) + 300 = 500.
      {"a charge older than the window is ignored",
       {{7000, 7200, 1.0}, {0, 300, 5.0}, {3300, 3900, 1.0}},
       {{7200 - 1, 500}}},
      // 1 GPU on every bucket 0..11: 300 each. now = 1799 -> buckets 0..5
      // (the window reaches back before 0): 6 x 300. The head did not move
      // back: the full window is still there.
      {"a query in the past uses the retained buckets", {{0, 3600, 1.0}}, {{1799, 1800}, {3599, 3600}}},
      // [-300, 0) is bucket -1: 2 x 300 = 600. Bucket -1 starts at -300 and
      // leaves at -300 + 3600 = 3300.
      {"negative times", {{-300, 0, 2.0}}, {{-1, 600}, {3299, 600}, {3300, 0}}},
  };
  for (const WindowCase& c : cases) {
    Ledger ledger(SmallOptions());
    for (const WindowCase::Charge& charge : c.charges) {
      ledger.Charge("a", Series::kAllocated, charge.from, charge.to, charge.gpus);
    }
    for (const WindowCase::Query& q : c.queries) {
      const double got = ledger.WindowUsage("a", Series::kAllocated, q.now);
      if (!Near(q.expected, got)) {
        fail_msg("%s: at %lld expected %.9g, got %.9g", c.name, static_cast<long long>(q.now), q.expected, got);
      }
    }
  }
}

void TestIgnoredCharges(void** /*state*/) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const TimePoint huge = std::numeric_limits<TimePoint>::max();
  struct Case {
    TimePoint from, to;
    double gpus;
  } cases[] = {
      {0, 300, 0.0},     {0, 300, -1.0},  {0, 300, nan},
      {0, 300, inf},     {300, 300, 1.0}, {600, 300, 1.0},
      {0, huge, 1.0},    {-huge, 0, 1.0}, {huge - 1, huge, 1.0},
  };
  for (const auto& c : cases) {
    Ledger ledger(SmallOptions());
    ledger.Charge("a", Series::kAllocated, c.from, c.to, c.gpus);
    // Nothing charged, and the path is not even created.
    assert_false(ledger.HasPath("a"));
    AssertNear(0, ledger.WindowUsage("a", Series::kAllocated, 300));
  }
  Ledger ledger(SmallOptions());
  ledger.Charge("a", Series::kAllocated, 0, 300, 1.0);
  // Out-of-range query times answer 0 rather than overflow.
  AssertNear(0, ledger.WindowUsage("a", Series::kAllocated, huge));
  AssertNear(0, ledger.WindowUsage("a", Series::kAllocated, -huge));
  AssertNear(0, ledger.WindowUsage("unknown", Series::kAllocated, 300));
}

void TestLongIdleGapExpiresEverything(void** /*state*/) {
  Ledger ledger(SmallOptions());
  ledger.Charge("a", Series::kAllocated, 0, 3600, 3.0);
  // 3 x 3600 = 10800
  AssertNear(10800, ledger.WindowUsage("a", Series::kAllocated, 3599));
  // A day later the whole ring has expired at once, to exactly 0.
  assert_true(ledger.WindowUsage("a", Series::kAllocated, 86400) == 0.0);
  ledger.Charge("a", Series::kAllocated, 86400, 86700, 1.0);
  // Fresh start: 1 x 300 = 300
  AssertNear(300, ledger.WindowUsage("a", Series::kAllocated, 86700));
}

void TestReportSeriesUseCoarserBuckets(void** /*state*/) {
  Ledger ledger(SmallOptions());
  assert_int_equal(300, ledger.BucketWidth(Series::kAllocated));
  assert_int_equal(900, ledger.BucketWidth(Series::kUnallocated));
  assert_int_equal(900, ledger.BucketWidth(Series::kDemand));
  // 3 GPUs over [600, 1200): report bucket 0 gets 3 x 300 = 900 and bucket
  // 1 gets 3 x 300 = 900.
  ledger.Charge("a", Series::kDemand, 600, 1200, 3.0);
  AssertNear(1800, ledger.WindowUsage("a", Series::kDemand, 1200));
  // Report bucket 0 leaves at 0 + 3600, even though its usage began at 600:
  // the coarse series moves in 900 s steps.
  AssertNear(1800, ledger.WindowUsage("a", Series::kDemand, 3599));
  AssertNear(900, ledger.WindowUsage("a", Series::kDemand, 3600));
  AssertNear(0, ledger.WindowUsage("a", Series::kDemand, 4500));
  // The series are independent.
  AssertNear(0, ledger.WindowUsage("a", Series::kAllocated, 1200));
  AssertNear(0, ledger.WindowUsage("a", Series::kUnallocated, 1200));
}

void TestHistoryResolution(void** /*state*/) {
  Ledger ledger(SmallOptions());
  // 1 GPU on [0, 1800): 300 in each of buckets 0..5.
  ledger.Charge("a", Series::kAllocated, 0, 1800, 1.0);
  // Hourly-style points of 900 s over [100, 1000): points start at 0 and
  // cover [0, 900) and [900, 1800): 3 x 300 = 900 each.
  Ledger::History h =
      ledger.SeriesHistory("a", Series::kAllocated, 100, 1000, 900);
  assert_int_equal(0, h.start);
  assert_int_equal(900, h.width);
  assert_int_equal(2, h.gpu_seconds.size());
  AssertNear(900, h.gpu_seconds[0]);
  AssertNear(900, h.gpu_seconds[1]);
  // A resolution of 400 is rounded up to 600 (a multiple of 300):
  // [0, 600) = 600, [600, 1200) = 600, [1200, 1800) = 600, [1800, 2400) = 0.
  h = ledger.SeriesHistory("a", Series::kAllocated, 0, 2400, 400);
  assert_int_equal(600, h.width);
  assert_int_equal(4, h.gpu_seconds.size());
  AssertNear(600, h.gpu_seconds[2]);
  AssertNear(0, h.gpu_seconds[3]);
  // An empty span, and an unknown path: no values / all zeros.
  assert_int_equal(0, ledger.SeriesHistory("a", Series::kAllocated, 600, 600)
                          .gpu_seconds.size());
  h = ledger.SeriesHistory("b", Series::kAllocated, 0, 600);
  assert_int_equal(2, h.gpu_seconds.size());
  AssertNear(0, h.gpu_seconds[0] + h.gpu_seconds[1]);
}

void TestJobCursors(void** /*state*/) {
  Ledger ledger(SmallOptions());
  assert_int_equal(0, ledger.ChargedUntil(7));
  ledger.SetChargedUntil(7, 1234);
  assert_int_equal(1234, ledger.ChargedUntil(7));
  assert_int_equal(1, ledger.job_count());
  ledger.ForgetJob(7);
  assert_int_equal(0, ledger.ChargedUntil(7));
  assert_int_equal(0, ledger.job_count());
}

void TestChargeRunningJobNeverChargesTwice(void** /*state*/) {
  Ledger ledger(SmallOptions());
  // Job 1 started at 0 on 4 GPUs; first pass at 600: 4 x 600 = 2400.
  ledger.ChargeRunningJob(1, "a", Series::kAllocated, 0, 600, 4.0);
  AssertNear(2400, ledger.WindowUsage("a", Series::kAllocated, 600));
  AssertNear(2400, ledger.WindowUsage("a", Series::kDemand, 600));
  assert_int_equal(600, ledger.ChargedUntil(1));
  // A repeated pass at the same time charges nothing.
  ledger.ChargeRunningJob(1, "a", Series::kAllocated, 0, 600, 4.0);
  AssertNear(2400, ledger.WindowUsage("a", Series::kAllocated, 600));
  // Next pass at 900: + 4 x 300 = 3600.
  ledger.ChargeRunningJob(1, "a", Series::kAllocated, 0, 900, 4.0);
  AssertNear(3600, ledger.WindowUsage("a", Series::kAllocated, 900));
  // Unallocated work occupies the unallocated series only: free work is
  // no demand on the allocation (metrics.h).
  ledger.ChargeRunningJob(2, "a", Series::kUnallocated, 300, 900, 1.0);
  // 1 x 600 = 600
  AssertNear(600, ledger.WindowUsage("a", Series::kUnallocated, 900));
  // demand: 3600, unchanged
  AssertNear(3600, ledger.WindowUsage("a", Series::kDemand, 900));
  AssertNear(3600, ledger.WindowUsage("a", Series::kAllocated, 900));
  // occupancy == kDemand charges demand once: + 2 x 300 = 4200.
  ledger.ChargeRunningJob(3, "a", Series::kDemand, 600, 900, 2.0);
  AssertNear(4200, ledger.WindowUsage("a", Series::kDemand, 900));
}

void TestCheckOptions(void** /*state*/) {
  struct Case {
    Ledger::Options options;
    const char* message;  // nullptr = valid
  };
  const Case cases[] = {
      {{604800, 300, 3600}, nullptr},
      {{3600, 300, 900}, nullptr},
      {{600, 10, 10}, nullptr},
      {{3600, 0, 900}, "ledger options: bucket_width (0 s) must be > 0"},
      {{3600, 300, -1}, "ledger options: report_bucket_width (-1 s) must be > 0"},
      {{0, 300, 900}, "ledger options: window (0 s) must be > 0"},
      {{3600, 300, 1000},
       "ledger options: report_bucket_width (1000 s) is not a multiple of "
       "bucket_width (300 s)"},
      {{1000, 100, 300},
       "ledger options: window (1000 s) is not a multiple of "
       "report_bucket_width (300 s)"},
      {{int64_t{1} << 40, 1, 1},
       "ledger options: window / bucket_width = 1099511627776 buckets, more "
       "than 4194304"},
  };
  for (const Case& c : cases) {
    Status s = Ledger::CheckOptions(c.options);
    if (c.message == nullptr) {
      assert_true(s.ok());
    } else {
      assert_false(s.ok());
      assert_string_equal(c.message, s.message().c_str());
    }
  }
}

void TestBadOptionsAreNormalized(void** /*state*/) {
  // report 3600 does not fit a 1000 s window of 300 s buckets: report
  // becomes 300 and the window is rounded up to 1200.
  Ledger a(Ledger::Options{1000, 300, 3600});
  assert_int_equal(1200, a.options().window);
  assert_int_equal(300, a.options().bucket_width);
  assert_int_equal(300, a.options().report_bucket_width);
  // bucket_width 0 becomes the default 300; report_bucket_width 0 becomes
  // bucket_width.
  Ledger b(Ledger::Options{604800, 0, 0});
  assert_int_equal(300, b.options().bucket_width);
  assert_int_equal(300, b.options().report_bucket_width);
  // Far too many buckets: the defaults.
  Ledger c(Ledger::Options{int64_t{1} << 40, 1, 1});
  assert_int_equal(604800, c.options().window);
  assert_int_equal(300, c.options().bucket_width);
  assert_int_equal(3600, c.options().report_bucket_width);
}

void TestMemoryPerPath(void** /*state*/) {
  Ledger ledger(Ledger::Options{});  // 7 days, 300 s, 3600 s
  ledger.Charge("a", Series::kAllocated, 0, 300, 1.0);
  // 604800 / 300 = 2016 buckets x 4 B = 8064
  assert_int_equal(8064, ledger.BucketBytes());
  ledger.Charge("a", Series::kDemand, 0, 300, 1.0);
  ledger.Charge("a", Series::kUnallocated, 0, 300, 1.0);
  // + 2 x 604800 / 3600 = 2 x 168 buckets x 4 B = 1344 -> 9408
  assert_int_equal(9408, ledger.BucketBytes());
  ledger.Charge("b", Series::kDemand, 0, 300, 1.0);
  // a demand-only path: + 672 = 10080
  assert_int_equal(10080, ledger.BucketBytes());
}

void TestRunningSumDoesNotDrift(void** /*state*/) {
  Ledger ledger(SmallOptions());
  // 0.1 GPU charged in 7-second slices for three windows: fractional values
  // that are not exact in float or double.
  for (TimePoint t = 0; t < 3 * 3600; t += 7) {
    ledger.Charge("a", Series::kAllocated, t, t + 7, 0.1);
    if (t % 700 == 0) {
      // The running sum matches the buckets it summarises.
      Ledger::History h =
          ledger.SeriesHistory("a", Series::kAllocated, t + 7 - 3600, t + 7);
      double buckets = 0;
      for (double v : h.gpu_seconds) buckets += v;
      AssertNear(buckets, ledger.WindowUsage("a", Series::kAllocated, t + 6));
    }
  }
  // The last charge ends at 10808 (bucket 36); once bucket 36 leaves the
  // window (at 36 x 300 + 3600 = 14400) the sum is exactly 0, not a residue.
  // Expire buckets 24..35 one by one first: only bucket 36 is left, with
  // 0.1 GPU x 1 s ([10800, 10801)).
  AssertNear(0.1, ledger.WindowUsage("a", Series::kAllocated, 14399));
  assert_true(ledger.WindowUsage("a", Series::kAllocated, 14400) == 0.0);
}

void TestPathsAndForgetPath(void** /*state*/) {
  Ledger ledger(SmallOptions());
  ledger.Charge("llm/pretrain", Series::kAllocated, 0, 300, 1.0);
  ledger.Charge("llm", Series::kDemand, 0, 300, 1.0);
  ledger.Charge("robotics", Series::kAllocated, 0, 300, 1.0);
  std::vector<std::string> paths = ledger.Paths();
  assert_int_equal(3, paths.size());
  assert_string_equal("llm", paths[0].c_str());
  assert_string_equal("llm/pretrain", paths[1].c_str());
  assert_string_equal("robotics", paths[2].c_str());
  assert_true(ledger.ForgetPath("llm"));
  assert_false(ledger.ForgetPath("llm"));
  assert_int_equal(2, ledger.path_count());
  AssertNear(0, ledger.WindowUsage("llm", Series::kDemand, 300));
}

// What changed since the last look: the earliest bucket a charge touched
// (a charge from before the window counts from the window's first bucket).
void TestEarliestChange(void** /*state*/) {
  Ledger ledger(SmallOptions());
  assert_true(ledger.TakeEarliestChange() == Ledger::kAllChanged);  // never looked
  assert_true(ledger.TakeEarliestChange() == Ledger::kNoneChanged);
  ledger.Charge("a", Series::kAllocated, 10000, 10100, 1);
  ledger.Charge("b", Series::kDemand, 9950, 10000, 1);  // demand: 900-s buckets
  assert_int_equal(ledger.TakeEarliestChange(), 9900);   // b's bucket [9900, 10800)
  ledger.Charge("a", Series::kAllocated, 10100, 10100, 1);  // empty: nothing
  ledger.Charge("a", Series::kAllocated, 10200, 10300, 0);  // no GPUs: nothing
  assert_true(ledger.TakeEarliestChange() == Ledger::kNoneChanged);
  // Clipped to the window: the 12 buckets of 300 s ending with
  // [10200, 10500) start at 6900.
  ledger.Charge("a", Series::kAllocated, 0, 10500, 1);
  assert_int_equal(ledger.TakeEarliestChange(), 6900);
  assert_true(ledger.ForgetPath("b"));
  assert_true(ledger.TakeEarliestChange() == Ledger::kAllChanged);
  assert_false(ledger.ForgetPath("b"));
  assert_true(ledger.TakeEarliestChange() == Ledger::kNoneChanged);
}

// ExportAllSeries: every path in sorted order with its three series as
// ExportSeries gives them, and the order follows paths added and dropped
// between calls (it is kept from one call to the next).
void TestExportAllSeries(void** /*state*/) {
  Ledger ledger(SmallOptions());
  auto visited = [&ledger]() {
    std::vector<std::string> paths;
    ledger.ExportAllSeries([&](const std::string& path, const Ledger::SeriesView (&series)[Ledger::kSeriesCount]) {
      paths.push_back(path);
      for (int s = 0; s < Ledger::kSeriesCount; ++s) {
        Ledger::RawSeries want = ledger.ExportSeries(path, static_cast<Series>(s));
        assert_int_equal(series[s].head, want.head);
        std::vector<float> got;
        for (size_t i = 0; i < series[s].size(); ++i) got.push_back(series[s][i]);
        assert_true(got == want.values);
      }
    });
    return paths;
  };
  assert_int_equal(visited().size(), 0);
  ledger.Charge("robotics", Series::kAllocated, 0, 300, 1.0);
  ledger.Charge("llm", Series::kDemand, 0, 300, 2.0);
  assert_true(visited() == (std::vector<std::string>{"llm", "robotics"}));
  ledger.Charge("llm/pretrain", Series::kUnallocated, 300, 900, 1.5);
  ledger.Charge("llm", Series::kAllocated, 600, 900, 3.0);  // a path it has: no new entry
  assert_true(visited() == (std::vector<std::string>{"llm", "llm/pretrain", "robotics"}));
  assert_true(ledger.ForgetPath("llm"));
  assert_true(visited() == (std::vector<std::string>{"llm/pretrain", "robotics"}));
  ledger.Charge("alpha", Series::kAllocated, 0, 300, 1.0);
  assert_true(ledger.ForgetPath("robotics"));  // as many paths as at the last call
  assert_true(visited() == (std::vector<std::string>{"alpha", "llm/pretrain"}));
  ledger.Charge("llm", Series::kAllocated, 0, 300, 1.0);
  assert_true(visited() == (std::vector<std::string>{"alpha", "llm", "llm/pretrain"}));
  Ledger moved = std::move(ledger);
  ledger = Ledger(SmallOptions());
  ledger.Charge("zeta", Series::kDemand, 0, 300, 1.0);
  assert_true(visited() == (std::vector<std::string>{"zeta"}));
  std::vector<std::string> moved_paths;
  moved.ExportAllSeries([&](const std::string& path, const Ledger::SeriesView (&)[Ledger::kSeriesCount]) {
    moved_paths.push_back(path);
  });
  assert_true(moved_paths == (std::vector<std::string>{"alpha", "llm", "llm/pretrain"}));
}

void TestExportImport(void** /*state*/) {
  Ledger ledger(SmallOptions());
  ledger.Charge("a", Series::kAllocated, 3300, 3900, 2.0);
  Ledger::RawSeries raw = ledger.ExportSeries("a", Series::kAllocated);
  // Head is bucket 12 ([3600, 3900)); values run from bucket 1 to 12.
  assert_int_equal(12, raw.head);
  assert_int_equal(12, raw.values.size());
  AssertNear(600, raw.values[10]);  // bucket 11
  AssertNear(600, raw.values[11]);  // bucket 12
  assert_int_equal(Ledger::kNoHead,
                   ledger.ExportSeries("a", Series::kDemand).head);

  Ledger copy(SmallOptions());
  assert_true(copy.ImportSeries("b", Series::kAllocated, raw).ok());
  // 600 + 600 = 1200
  AssertNear(1200, copy.WindowUsage("b", Series::kAllocated, 3900));

  Ledger::RawSeries bad = raw;
  bad.values.pop_back();
  Status s = copy.ImportSeries("c", Series::kAllocated, bad);
  assert_string_equal("ledger: series of 'c' has 11 buckets, expected 12",
                      s.message().c_str());
  bad = raw;
  bad.head = Ledger::kNoHead;
  s = copy.ImportSeries("c", Series::kAllocated, bad);
  assert_string_equal("ledger: series of 'c' imported without a head bucket",
                      s.message().c_str());
  bad = raw;
  bad.head = int64_t{1} << 60;
  s = copy.ImportSeries("c", Series::kAllocated, bad);
  assert_string_equal("ledger: series of 'c' has its head bucket out of range",
                      s.message().c_str());
  bad = raw;
  bad.values[3] = -1.0f;
  s = copy.ImportSeries("c", Series::kAllocated, bad);
  assert_string_equal(
      "ledger: series of 'c' has a negative or non-finite bucket",
      s.message().c_str());
  assert_false(copy.HasPath("c"));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestUsageLeavesWindowExactlyAtTPlusW),
      cmocka_unit_test(TestChargeIsSplitAcrossBuckets),
      cmocka_unit_test(TestWindowUsageAfterCharges),
      cmocka_unit_test(TestIgnoredCharges),
      cmocka_unit_test(TestLongIdleGapExpiresEverything),
      cmocka_unit_test(TestReportSeriesUseCoarserBuckets),
      cmocka_unit_test(TestHistoryResolution),
      cmocka_unit_test(TestJobCursors),
      cmocka_unit_test(TestChargeRunningJobNeverChargesTwice),
      cmocka_unit_test(TestCheckOptions),
      cmocka_unit_test(TestBadOptionsAreNormalized),
      cmocka_unit_test(TestMemoryPerPath),
      cmocka_unit_test(TestRunningSumDoesNotDrift),
      cmocka_unit_test(TestPathsAndForgetPath),
      cmocka_unit_test(TestEarliestChange),
      cmocka_unit_test(TestExportAllSeries),
      cmocka_unit_test(TestExportImport),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
