// The family of workloads (family.h, family_run.h): mixes drawn within the
// spec's ranges, the same for the same seed, replayable from their dump,
// and outcomes summarised as median, worst decile and worst mix.
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "libbudget/state/tree.h"
#include "sim/family.h"
#include "sim/family_report.h"
#include "sim/family_run.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

void test_spec_defaults_and_errors(void**) {
  FamilySpec spec;
  assert_true(ParseFamilySpec("{}", "f.json", &spec).ok());
  // The issue's ranges are the defaults.
  assert_true(spec.nodes.min == 16 && spec.nodes.max == 128);
  assert_true(spec.teams.min == 3 && spec.teams.max == 12);
  assert_true(spec.demand.min == 1.5 && spec.demand.max == 4);
  assert_true(ParseFamilySpec(R"({"nodes": [8, 32], "days": 2})", "f.json", &spec).ok());
  assert_true(spec.nodes.min == 8 && spec.nodes.max == 32 && spec.days == 2);
  struct Bad {
    const char* json;
    const char* message;
  } cases[] = {
      {R"({"nodes": [32, 8]})", "f.json: $.nodes: must be [min, max] with 1 <= min <= max <= 65536"},
      {R"({"hero_probability": 2})", "f.json: $.hero_probability: must be a probability in [0, 1]"},
      {R"({"debug_gpus": [16]})", "f.json: $.debug_gpus[0]: must be an integer in [1, gpus_per_node]"},
      {"[", "f.json: not valid JSON"},
  };
  for (const Bad& c : cases) {
    Status st = ParseFamilySpec(c.json, "f.json", &spec);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
}

void test_mixes_lie_in_the_ranges(void**) {
  FamilySpec spec;
  spec.days = 1;
  uint32_t heroes = 0;
  for (uint32_t k = 0; k < 40; ++k) {
    Mix mix = DrawMix(spec, 7, k);
    assert_in_range(mix.nodes, 16, 128);
    assert_true(mix.demand >= 1.5 && mix.demand <= 4);
    AllocationTree tree;
    assert_true(AllocationTree::Parse(mix.tree_json, "mix", &tree, nullptr).ok());
    // Teams are the root's children, 3 to 12, each 1% to 50% of the
    // cluster (to rounding of the last normalisation).
    const TreeNode& root = tree.node(0);
    assert_in_range(root.children.size(), 3, 12);
    double sum = 0;
    for (NodeId team : root.children) {
      const double e = tree.node(team).entitlement;
      assert_true(e >= 0.01 - 1e-3 && e <= 0.5 + 1e-3);
      sum += e;
      assert_in_range(tree.node(team).children.size(), 1, 3);
    }
    assert_true(std::fabs(sum - 1) < 1e-9);
    // A hero of 25-50% of the cluster, in whole nodes (at least 2), or none.
    if (mix.hero_gpus > 0) {
      ++heroes;
      assert_int_equal(mix.hero_gpus % 8, 0);
      assert_true(mix.hero_gpus >= 16 && mix.hero_gpus <= 8 * mix.nodes / 2 + 8);
      assert_int_equal(mix.thresholds.hero_min_gpus, mix.hero_gpus);
    } else {
      assert_int_equal(mix.thresholds.hero_min_gpus, 8 * mix.nodes + 1);
    }
    // Every account has a debug stream of 1, 2, 4 or 8 GPUs.
    for (const TeamSpec& t : mix.scenario.teams) {
      assert_string_equal(t.streams[0].name.c_str(), "debug");
      const uint32_t g = t.streams[0].gpus[0];
      assert_true(g == 1 || g == 2 || g == 4 || g == 8);
    }
  }
  // hero_probability 0.5: some mixes have one, some not.
  assert_true(heroes > 0 && heroes < 40);
}

void test_a_mix_is_its_seed(void**) {
  FamilySpec spec;
  spec.days = 1;
  Mix a = DrawMix(spec, 3, 5), b = DrawMix(spec, 3, 5), c = DrawMix(spec, 3, 6);
  assert_int_equal(a.seed, MixSeed(3, 5));
  assert_string_equal(a.tree_json.c_str(), b.tree_json.c_str());
  assert_string_equal(FormatScenarioSpec(a.scenario).c_str(), FormatScenarioSpec(b.scenario).c_str());
  assert_true(a.seed != c.seed);
}

void test_a_dumped_mix_replays_the_same_jobs(void**) {
  // --dump-mix writes the scenario as JSON; read back, it draws the same
  // jobs as the mix itself (bursts' windows included).
  FamilySpec spec;
  spec.days = 2;
  spec.burst_probability = 1;
  Mix mix = DrawMix(spec, 11, 2);
  ScenarioSpec back;
  assert_true(ParseScenarioSpec(FormatScenarioSpec(mix.scenario), "dump", &back).ok());
  Workload w1, w2;
  assert_true(GenerateWorkload(mix.scenario, &w1).ok());
  assert_true(GenerateWorkload(back, &w2).ok());
  assert_int_equal(w1.jobs.size(), w2.jobs.size());
  assert_true(w1.jobs.size() > 0);
  for (size_t i = 0; i < w1.jobs.size(); ++i) AssertSameJob(w1, w1.jobs[i], w2, w2.jobs[i]);
}

// A mix outcome with the given figures for two policies, budget then
// fairtree+qos.
MixOutcome Outcome(uint32_t k, double budget_debug, double budget_worst, double ftq_debug, double ftq_worst) {
  MixOutcome m;
  m.mix.index = k;
  m.mix.seed = 100 + k;
  for (auto [debug, worst] : {std::pair<double, double>{budget_debug, budget_worst}, {ftq_debug, ftq_worst}}) {
    MixPolicyOutcome o;
    o.debug_p90 = debug;
    o.debug_p90_team = "t1-a";
    o.worst_team = worst;
    o.worst_team_name = "t2-a";
    o.worst_top_team = worst;  // a team of one account
    o.worst_top_team_name = "t2";
    m.policies.push_back(o);
  }
  return m;
}

void test_summary_is_median_worst_decile_and_worst(void**) {
  // Ten mixes; budget's debug p90 k x 10 s (k = 0..9), its worst team
  // 1 - k / 100; fairtree+qos 45 s and 0.955 everywhere.
  std::vector<MixOutcome> outcomes;
  for (uint32_t k = 0; k < 10; ++k) outcomes.push_back(Outcome(k, 10.0 * k, 1 - k / 100.0, 45, 0.955));
  std::vector<PolicySummary> s = Summarize(outcomes, {"budget", "fairtree+qos"});
  // Nearest rank of 10 values: the median is the 5th (40 s), the worst
  // decile the 9th (80 s), the worst the 10th (90 s, mix 9, seed 109).
  assert_true(s[0].debug_p90.median == 40);
  assert_true(s[0].debug_p90.worst_decile == 80);
  assert_true(s[0].debug_p90.worst == 90);
  assert_int_equal(s[0].debug_p90.worst_mix, 9);
  assert_int_equal(s[0].debug_p90.worst_seed, 109);
  // Lower is worse: the worst decile is the 1st of the ascending values
  // (0.91, mix 9), the median the 5th (0.95, mix 5).
  assert_true(std::fabs(s[0].worst_team.median - 0.95) < 1e-12);
  assert_true(std::fabs(s[0].worst_team.worst_decile - 0.91) < 1e-12);
  assert_int_equal(s[0].worst_team.worst_mix, 9);
  // budget wins where debug <= 45 s and worst team >= 0.955, one strictly:
  // k = 0..4 (0..40 s; 1.00..0.96); k = 5 has 50 s. 5 of 10.
  assert_true(std::fabs(s[0].wins_vs_fairtree_qos - 0.5) < 1e-12);
  assert_true(s[1].wins_vs_fairtree_qos < 0);
}

void test_bench_lines(void**) {
  std::vector<MixOutcome> outcomes = {Outcome(0, 30, 0.9, 60, 0.8)};
  std::vector<PolicySummary> s = Summarize(outcomes, {"budget", "fairtree+qos"});
  std::string bench = FormatFamilyBench(s[0], 1);
  // One mix: every statistic is its value; budget wins it (30 s < 60 s,
  // 0.9 > 0.8); no hero: 0 s.
  assert_string_equal(bench.c_str(),
                      "bench family_mixes: 1\n"
                      "bench family_debug_p90_median: 30 s\n"
                      "bench family_debug_p90_worst_decile: 30 s\n"
                      "bench family_worst_team_median: 0.900\n"
                      "bench family_worst_team_worst_decile: 0.900\n"
                      "bench family_mean_team_median: 1.000\n"
                      "bench family_worst_top_team_median: 0.900\n"
                      "bench family_worst_top_team_worst_decile: 0.900\n"
                      "bench family_occupancy_median: 0.000\n"
                      "bench family_hero_p90_median: 0 s\n"
                      "bench family_wins_vs_fairtree_qos: 1.00\n");
}

void test_a_small_family_runs(void**) {
  // Two small mixes of half a day under budget and fairtree+qos: every
  // mix has figures for both, and the same seed gives the same figures on
  // one thread or two.
  FamilySpec spec;
  spec.days = 0.5;
  spec.nodes = Range{16, 24};
  FamilyOptions options;
  options.count = 2;
  options.seed = 5;
  options.policies = {"budget", "fairtree+qos"};
  std::vector<MixOutcome> one, two;
  assert_true(RunFamily(spec, options, &one).ok());
  options.threads = 2;
  assert_true(RunFamily(spec, options, &two).ok());
  assert_int_equal(one.size(), 2);
  for (size_t k = 0; k < 2; ++k) {
    assert_int_equal(one[k].policies.size(), 2);
    assert_true(one[k].jobs > 0);
    for (size_t p = 0; p < 2; ++p) {
      assert_true(one[k].policies[p].debug_p90 == two[k].policies[p].debug_p90);
      assert_true(one[k].policies[p].worst_team == two[k].policies[p].worst_team);
      assert_true(one[k].policies[p].occupancy > 0);
    }
  }
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spec_defaults_and_errors),
      cmocka_unit_test(test_mixes_lie_in_the_ranges),
      cmocka_unit_test(test_a_mix_is_its_seed),
      cmocka_unit_test(test_a_dumped_mix_replays_the_same_jobs),
      cmocka_unit_test(test_summary_is_median_worst_decile_and_worst),
      cmocka_unit_test(test_bench_lines),
      cmocka_unit_test(test_a_small_family_runs),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
