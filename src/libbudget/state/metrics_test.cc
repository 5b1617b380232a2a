// Tests of the owed/delivered service metrics.
//
// Ledger: window 4 h, allocated buckets 300 s, report "hours" of 3600 s.
// Cluster: 10 GPUs. llm/pretrain is entitled to 35%:
//   0.35 x 10 GPUs x 3600 s = 12600 GPU-s per hour.
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "libbudget/state/ledger.h"
#include "libbudget/state/metrics.h"
#include "libbudget/testing/test_support.h"

using budget::Ledger;
using budget::MeasureService;
using budget::MeasureServiceByPath;
using budget::ServiceQuery;
using budget::ServiceReport;
using budget::Status;
using Series = budget::Ledger::Series;

namespace {

constexpr double kCapacity = 10.0;

void AssertNear(double expected, double actual) {
  if (std::fabs(expected - actual) > 1e-9 * std::max(1.0, std::fabs(expected))) {
    fail_msg("expected %.12g, got %.12g", expected, actual);
  }
}

// Per hour of llm/pretrain (GPUs over the whole hour):
//   hour 0 [0, 3600):        demand 8, allocated 3
//   hour 1 [3600, 7200):     demand 2, allocated 2
//   hour 2 [7200, 10800):    nothing
//   hour 3 [10800, 14400):   demand 5, allocated 5
// llm/posttrain, hour 0: demand 4, allocated 4. llm itself: nothing.
Ledger SampleLedger() {
  Ledger ledger(Ledger::Options{4 * 3600, 300, 3600});
  ledger.Charge("llm/pretrain", Series::kDemand, 0, 3600, 8.0);
  ledger.Charge("llm/pretrain", Series::kAllocated, 0, 3600, 3.0);
  ledger.Charge("llm/pretrain", Series::kDemand, 3600, 7200, 2.0);
  ledger.Charge("llm/pretrain", Series::kAllocated, 3600, 7200, 2.0);
  ledger.Charge("llm/pretrain", Series::kDemand, 10800, 14400, 5.0);
  ledger.Charge("llm/pretrain", Series::kAllocated, 10800, 14400, 5.0);
  ledger.Charge("llm/posttrain", Series::kDemand, 0, 3600, 4.0);
  ledger.Charge("llm/posttrain", Series::kAllocated, 0, 3600, 4.0);
  // Unallocated use is not delivery of the allocation.
  ledger.Charge("llm/pretrain", Series::kUnallocated, 0, 3600, 2.0);
  return ledger;
}

void TestOwedIsEntitlementCappedAtHourlyDemand(void**) {
  Ledger ledger = SampleLedger();
  ServiceReport r;
  assert_true(MeasureService(ledger, {{"llm/pretrain"}, 0.35}, kCapacity, 0, 14400, &r).ok());
  assert_int_equal(3600, r.hour);
  assert_int_equal(4, r.hours.size());
  struct Hour {
    double demand, owed, delivered;
  } expected[] = {
      {28800, 12600, 10800},  // 8 x 3600 demand; min(12600, 28800); 3 x 3600
      {7200, 7200, 7200},     // min(12600, 2 x 3600) = 7200
      {0, 0, 0},              // no demand: nothing owed
      {18000, 12600, 18000},  // min(12600, 5 x 3600); delivered beyond owed
  };
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(i * 3600, r.hours[i].start);
    AssertNear(expected[i].demand, r.hours[i].demand_gpu_seconds);
    AssertNear(expected[i].owed, r.hours[i].owed_gpu_seconds);
    AssertNear(expected[i].delivered, r.hours[i].delivered_gpu_seconds);
  }
  // owed 12600 + 7200 + 0 + 12600 = 32400
  AssertNear(32400, r.owed_gpu_seconds);
  // delivered 10800 + 7200 + 0 + 18000 = 36000
  AssertNear(36000, r.delivered_gpu_seconds);
  // 36000 / 32400 = 1.1111...
  AssertNear(36000.0 / 32400.0, r.delivered_over_owed);
  // per hour min(delivered, owed): 10800 + 7200 + 0 + 12600 = 30600;
  // 30600 / 32400 = 0.94444...: hour 3's surplus does not hide hour 0.
  AssertNear(30600.0 / 32400.0, r.owed_delivered_fraction);
}

void TestPeriodIsWidenedToWholeHours(void**) {
  Ledger ledger = SampleLedger();
  ServiceReport r;
  // [1800, 7300) -> hours 0, 1, 2 ([0, 10800)).
  assert_true(MeasureService(ledger, {{"llm/pretrain"}, 0.35}, kCapacity, 1800, 7300, &r).ok());
  assert_int_equal(3, r.hours.size());
  assert_int_equal(0, r.hours[0].start);
  assert_int_equal(7200, r.hours[2].start);
  // owed 12600 + 7200 + 0 = 19800
  AssertNear(19800, r.owed_gpu_seconds);
}

void TestSubtreeIsCappedOnItsWholeDemand(void**) {
  Ledger ledger = SampleLedger();
  ServiceReport r;
  // llm is entitled to 50%: 0.5 x 10 x 3600 = 18000 per hour.
  ServiceQuery llm{{"llm", "llm/pretrain", "llm/posttrain"}, 0.5};
  assert_true(MeasureService(ledger, llm, kCapacity, 0, 3600, &r).ok());
  assert_int_equal(1, r.hours.size());
  // demand 8 x 3600 + 4 x 3600 = 43200; owed min(18000, 43200) = 18000
  AssertNear(43200, r.hours[0].demand_gpu_seconds);
  AssertNear(18000, r.owed_gpu_seconds);
  // delivered 3 x 3600 + 4 x 3600 = 25200; 25200 / 18000 = 1.4
  AssertNear(25200, r.delivered_gpu_seconds);
  AssertNear(1.4, r.delivered_over_owed);
  // min(25200, 18000) / 18000 = 1
  AssertNear(1.0, r.owed_delivered_fraction);
}

void TestNothingOwedCountsAsFullyServed(void**) {
  Ledger ledger = SampleLedger();
  struct Case {
    ServiceQuery query;
    double delivered;
  } cases[] = {
      // No demand at all (llm has none; unknown path has no data): 0/0 = 1.
      {{{"llm"}, 0.5}, 0},
      {{{"nobody"}, 0.5}, 0},
      // Entitlement 0: owed is 0 even with demand; delivered 10800 + 7200 +
      // 18000 = 36000 over 0 owed is still defined as 1.
      {{{"llm/pretrain"}, 0.0}, 36000},
      // No paths: an empty sum.
      {{{}, 0.5}, 0},
  };
  for (const Case& c : cases) {
    ServiceReport r;
    assert_true(MeasureService(ledger, c.query, kCapacity, 0, 14400, &r).ok());
    AssertNear(0, r.owed_gpu_seconds);
    AssertNear(c.delivered, r.delivered_gpu_seconds);
    AssertNear(1.0, r.delivered_over_owed);
    AssertNear(1.0, r.owed_delivered_fraction);
  }
  // An empty period: no hours, ratios 1.
  ServiceReport r;
  assert_true(MeasureService(ledger, {{"llm/pretrain"}, 0.35}, kCapacity, 500, 500, &r).ok());
  assert_int_equal(0, r.hours.size());
  AssertNear(1.0, r.delivered_over_owed);
}

void TestHoursOutsideTheWindowHoldNothing(void**) {
  Ledger ledger = SampleLedger();
  ServiceReport r;
  // The 4 h window ends at hour 3; hours -2 and -1 were never charged.
  assert_true(
      MeasureService(ledger, {{"llm/pretrain"}, 0.35}, kCapacity, -7200, 3600, &r).ok());
  assert_int_equal(3, r.hours.size());
  AssertNear(0, r.hours[0].owed_gpu_seconds + r.hours[1].owed_gpu_seconds);
  // hour 0 alone: owed 12600
  AssertNear(12600, r.owed_gpu_seconds);
}

void TestBadInputs(void**) {
  Ledger ledger = SampleLedger();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    ServiceQuery query;
    double capacity;
    budget::TimePoint from, to;
    const char* message;
  } cases[] = {
      {{{"a"}, -0.1}, 10, 0, 3600, "service metrics: entitlement -0.100000 is not in [0, 1]"},
      {{{"a"}, 1.5}, 10, 0, 3600, "service metrics: entitlement 1.500000 is not in [0, 1]"},
      {{{"a"}, nan}, 10, 0, 3600, "service metrics: entitlement nan is not in [0, 1]"},
      {{{"a"}, 0.5}, -1, 0, 3600,
       "service metrics: capacity -1.000000 GPUs is negative or not finite"},
      {{{"a"}, 0.5}, inf, 0, 3600,
       "service metrics: capacity inf GPUs is negative or not finite"},
      {{{"a"}, 0.5}, 10, 3600, 0, "service metrics: period [3600, 0) ends before it starts"},
      {{{"a", "b", "a"}, 0.5}, 10, 0, 3600, "service metrics: path 'a' is listed twice"},
      {{{"a"}, 0.5}, 10, 0, int64_t{1} << 40,
       "service metrics: period [0, 1099511627776) is too long"},
  };
  for (const Case& c : cases) {
    ServiceReport r;
    r.owed_gpu_seconds = 42;  // must survive a refused call
    Status s = MeasureService(ledger, c.query, c.capacity, c.from, c.to, &r);
    assert_false(s.ok());
    assert_string_equal(c.message, s.message().c_str());
    AssertNear(42, r.owed_gpu_seconds);
  }
}

void TestMeasureServiceByPath(void**) {
  Ledger ledger = SampleLedger();
  std::map<std::string, ServiceReport> reports;
  std::map<std::string, double> entitlements = {{"llm/pretrain", 0.35},
                                                {"llm/posttrain", 0.15}};
  assert_true(MeasureServiceByPath(ledger, entitlements, kCapacity, 0, 3600, &reports).ok());
  assert_int_equal(2, reports.size());
  // pretrain hour 0: owed min(12600, 28800) = 12600, delivered 10800
  AssertNear(12600, reports["llm/pretrain"].owed_gpu_seconds);
  AssertNear(10800, reports["llm/pretrain"].delivered_gpu_seconds);
  // posttrain: 0.15 x 10 x 3600 = 5400; owed min(5400, 14400) = 5400
  AssertNear(5400, reports["llm/posttrain"].owed_gpu_seconds);

  entitlements["robotics"] = 2.0;
  Status s = MeasureServiceByPath(ledger, entitlements, kCapacity, 0, 3600, &reports);
  assert_string_equal(
      "service metrics: entitlement 2.000000 is not in [0, 1] (for path 'robotics')",
      s.message().c_str());
  // The earlier result is untouched.
  assert_int_equal(2, reports.size());
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestOwedIsEntitlementCappedAtHourlyDemand),
      cmocka_unit_test(TestPeriodIsWidenedToWholeHours),
      cmocka_unit_test(TestSubtreeIsCappedOnItsWholeDemand),
      cmocka_unit_test(TestNothingOwedCountsAsFullyServed),
      cmocka_unit_test(TestHoursOutsideTheWindowHoldNothing),
      cmocka_unit_test(TestBadInputs),
      cmocka_unit_test(TestMeasureServiceByPath),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
