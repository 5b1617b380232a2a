// Tests of the usage picture (usage_svg.h): an averaging window that fits
// the run and says so, round ticks, one scale for every panel, and
// entitlement lines that stay visible when two teams have the same one.
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sim/svg_common.h"
#include "sim/usage_svg.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

// Teams a and b at 25% each, c at 50%.
const char kThreeTeams[] =
    R"({"name":"c","children":[{"name":"a","share":1,"account":"a"},)"
    R"({"name":"b","share":1,"account":"b"},{"name":"c","share":2,"account":"c"}]})";

TeamResult Team(const char* account, double entitlement, const std::vector<double>& gpus_per_hour) {
  TeamResult t;
  t.account = account;
  t.entitlement = entitlement;
  for (size_t h = 0; h < gpus_per_hour.size(); ++h) {
    HourlyService s;
    s.start = TimePoint(h) * 3600;
    s.delivered_gpu_seconds = gpus_per_hour[h] * 3600;
    t.hours.push_back(s);
  }
  return t;
}

// A 3-hour run on 8 GPUs.
PolicyResult Result(const char* policy, double scale) {
  PolicyResult r;
  r.policy = policy;
  r.capacity = 8;
  r.start = 0;
  r.end = 3 * 3600;
  r.teams = {Team("a", 0.25, {2 * scale, 1 * scale, 2 * scale}), Team("b", 0.25, {2, 2, 2}),
             Team("c", 0.5, {4 * scale, 5 * scale, 4 * scale})};
  return r;
}

// Every text of the SVG drawn with `anchor`, in order.
std::vector<std::string> Texts(const std::string& svg, const char* anchor) {
  std::vector<std::string> texts;
  const std::string key = std::string("text-anchor=\"") + anchor + "\" font-size=\"10\">";
  for (size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    size_t from = at + key.size();
    texts.push_back(svg.substr(from, svg.find('<', from) - from));
  }
  return texts;
}

// The y of every dashed (entitlement) line, in order.
std::vector<double> DashedY(const std::string& svg) {
  std::vector<double> ys;
  for (size_t at = svg.find("<line "); at != std::string::npos; at = svg.find("<line ", at + 1)) {
    size_t end = svg.find("/>", at);
    std::string line = svg.substr(at, end - at);
    if (line.find("stroke-dasharray") == std::string::npos) continue;
    ys.push_back(std::atof(line.c_str() + line.find("y1=\"") + 4));
  }
  return ys;
}

void test_average_window_fits_the_run(void**) {
  assert_int_equal(UsageAverageWindow(3 * 3600), 3600);  // never below the hourly figures
  assert_int_equal(UsageAverageWindow(2 * 86400), 2 * 3600);
  assert_int_equal(UsageAverageWindow(7 * 86400), 6 * 3600);
  assert_int_equal(UsageAverageWindow(30 * 86400), 86400);
  assert_int_equal(UsageAverageWindow(365 * 86400), 7 * 86400);
  assert_int_equal(UsageAverageWindow(0), 3600);
}

void test_round_steps(void**) {
  assert_true(RoundStep(62, 8) == 10);
  assert_true(RoundStep(13, 8) == 2);
  assert_true(RoundStep(42, 8) == 10);
  assert_true(RoundStep(8, 8) == 1);
  assert_true(RoundStep(8.01, 8) == 2);
  assert_true(std::fabs(RoundStep(3, 8) - 0.5) < 1e-12);
  assert_true(std::fabs(RoundStep(0.3, 3) - 0.1) < 1e-12);
  assert_true(RoundStep(168, 8) == 50);
}

void test_a_short_run_gets_a_short_window_and_round_ticks(void**) {
  Workload w = MakeWorkload({{0, "a", 1, 60, 0, true, 0}, {0, "b", 1, 60, 0, true, 0}, {0, "c", 1, 60, 0, true, 0}});
  std::string svg = RenderUsageSvg({Result("budget", 1), Result("fifo", 0.5)}, w, MakeTree(kThreeTeams));
  assert_non_null(strstr(svg.c_str(), "(solid, 1 h average) against entitlement (dashed)"));
  // Shares: at most c's 5/8 = 62.5% against 50% x 1.3 = 65%; x 1.05 =
  // 68.25%, in steps of 10%: 0% to 70%, in both panels alike.
  std::vector<std::string> y = Texts(svg, "end");
  const std::vector<std::string> panel = {"0%", "10%", "20%", "30%", "40%", "50%", "60%", "70%"};
  assert_int_equal(y.size(), 2 * panel.size());
  for (size_t i = 0; i < y.size(); ++i) assert_string_equal(y[i].c_str(), panel[i % panel.size()].c_str());
  // Three hours in half hours.
  std::vector<std::string> x = Texts(svg, "middle");
  const std::vector<std::string> hours = {"0", "0.5 h", "1 h", "1.5 h", "2 h", "2.5 h", "3 h"};
  assert_int_equal(x.size(), 2 * hours.size());
  for (size_t i = 0; i < x.size(); ++i) assert_string_equal(x[i].c_str(), hours[i % hours.size()].c_str());
  // The legend gives each entitlement.
  assert_non_null(strstr(svg.c_str(), ">a (25%)</text>"));
  assert_non_null(strstr(svg.c_str(), ">c (50%)</text>"));
}

void test_equal_entitlements_stay_visible(void**) {
  Workload w = MakeWorkload({{0, "a", 1, 60, 0, true, 0}, {0, "b", 1, 60, 0, true, 0}, {0, "c", 1, 60, 0, true, 0}});
  std::string svg = RenderUsageSvg({Result("budget", 1)}, w, MakeTree(kThreeTeams));
  std::vector<double> ys = DashedY(svg);
  assert_int_equal(ys.size(), 3);
  // a and b (both 25%) a few pixels apart, either side of their place; c
  // (50%) where it is.
  assert_true(std::fabs(std::fabs(ys[0] - ys[1]) - 3) < 0.11);
  const double y0 = 30 + 14, height = 180, top = 0.7;
  const double place = y0 + height - height * 0.25 / top;
  assert_true(std::fabs((ys[0] + ys[1]) / 2 - place) < 0.11);
  assert_true(std::fabs(ys[2] - (y0 + height - height * 0.5 / top)) < 0.06);
}

void test_a_week_averages_over_6_hours(void**) {
  Workload w = MakeWorkload({{0, "a", 1, 60, 0, true, 0}});
  PolicyResult r;
  r.policy = "budget";
  r.capacity = 8;
  r.end = 7 * 86400;
  r.teams = {Team("a", 1, std::vector<double>(168, 4))};
  std::string svg = RenderUsageSvg({r}, w, MakeTree(R"({"name":"c","children":[{"name":"a","share":1,"account":"a"}]})"));
  assert_non_null(strstr(svg.c_str(), "(solid, 6 h average)"));
  std::vector<std::string> x = Texts(svg, "middle");
  const std::vector<std::string> days = {"0", "1 d", "2 d", "3 d", "4 d", "5 d", "6 d", "7 d"};
  assert_int_equal(x.size(), days.size());
  for (size_t i = 0; i < x.size(); ++i) assert_string_equal(x[i].c_str(), days[i].c_str());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_average_window_fits_the_run),
      cmocka_unit_test(test_round_steps),
      cmocka_unit_test(test_a_short_run_gets_a_short_window_and_round_ticks),
      cmocka_unit_test(test_equal_entitlements_stay_visible),
      cmocka_unit_test(test_a_week_averages_over_6_hours),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
