// Tests of the scenario generator: the spec parser's errors, determinism,
// and the drawn workload's shape.
#include "libbudget/test_support.h"

#include <string>

#include "sim/generator.h"

using budget::Status;
using namespace budget::sim;

namespace {

const char kSpec[] = R"({ "seed": 7, "days": 2,
  "teams": [
    { "account": "llm", "users": 3, "streams": [
      { "name": "debug", "per_hour": 4, "gpus": [1],
        "duration": { "dist": "fixed", "value": 900 }, "min_runtime": 900, "resumable": false },
      { "name": "train", "per_hour": 1, "gpus": [16, 32], "gpus_weights": [3, 1],
        "duration": { "dist": "lognormal", "median": 7200, "sigma": 0.5, "min": 600, "max": 86400 },
        "min_runtime": 3600, "priority": 2, "unallocated_share": 0.5 } ] } ] })";

void test_generates_deterministically(void**) {
  ScenarioSpec spec;
  assert_true(ParseScenarioSpec(kSpec, "spec.json", &spec).ok());
  Workload a, b;
  assert_true(GenerateWorkload(spec, &a).ok());
  assert_true(GenerateWorkload(spec, &b).ok());
  assert_int_equal(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    assert_int_equal(a.jobs[i].submit, b.jobs[i].submit);
    assert_int_equal(a.jobs[i].gpus, b.jobs[i].gpus);
    assert_int_equal(a.jobs[i].duration, b.jobs[i].duration);
  }
  // Poisson arrivals: 4/h + 1/h over 48 h = 240 jobs expected; a seeded
  // draw lands within +-25% of that (sd of a Poisson(240) is 15.5).
  assert_in_range(a.jobs.size(), 180, 300);
  size_t debug = 0, unallocated = 0, train = 0;
  for (const TraceJob& j : a.jobs) {
    assert_in_range(j.submit, 0, 2 * 86400 - 1);
    if (j.gpus == 1) {
      ++debug;
      assert_int_equal(j.duration, 900);
      assert_int_equal(j.min_runtime, 900);
      assert_false(j.resumable);
    } else {
      ++train;
      assert_true(j.gpus == 16 || j.gpus == 32);
      assert_in_range(j.duration, 600, 86400);
      assert_int_equal(j.priority, 2);
      unallocated += j.min_runtime == 0;
    }
  }
  // 4 of every 5 jobs are debug jobs: expected 192 of 240.
  assert_in_range(debug, 150, 240);
  // Half the training jobs are unallocated work (expected 24 of 48).
  assert_in_range(unallocated, train / 4, 3 * train / 4);
  // Three users: llm-u0..llm-u2.
  assert_int_equal(a.users.size(), 3);
  assert_string_equal(a.users[2].c_str(), "llm-u2");
}

void test_seed_changes_the_draw(void**) {
  ScenarioSpec spec;
  assert_true(ParseScenarioSpec(kSpec, "spec.json", &spec).ok());
  Workload a, b;
  assert_true(GenerateWorkload(spec, &a).ok());
  spec.seed = 8;
  assert_true(GenerateWorkload(spec, &b).ok());
  bool differ = a.jobs.size() != b.jobs.size();
  for (size_t i = 0; !differ && i < a.jobs.size(); ++i) differ = a.jobs[i].submit != b.jobs[i].submit;
  assert_true(differ);
}

struct BadSpec {
  const char* json;
  const char* message;
};

void test_spec_errors_name_the_json_path(void**) {
  const BadSpec cases[] = {
      {"[]", "s.json: $: must be an object"},
      {"{}", "s.json: $.teams: required, an array"},
      {R"({"teams":[{"streams":[]}]})", "s.json: $.teams[0].account: required, a non-empty string"},
      {R"({"teams":[{"account":"a","streams":[{"gpus":[1],"duration":{"value":1}}]}]})",
       "s.json: $.teams[0].streams[0].per_hour: required"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":-1,"gpus":[1],"duration":{"value":1}}]}]})",
       "s.json: $.teams[0].streams[0].per_hour: must be a number >= 0"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[0],"duration":{"value":1}}]}]})",
       "s.json: $.teams[0].streams[0].gpus[0]: must be an integer >= 1"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"gpus_weights":[1,2],"duration":{"value":1}}]}]})",
       "s.json: $.teams[0].streams[0].gpus_weights: must be an array as long as gpus"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"dist":"pareto"}}]}]})",
       "s.json: $.teams[0].streams[0].duration.dist: expected fixed, uniform, exponential or lognormal, got 'pareto'"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"dist":"uniform","min":5,"max":2}}]}]})",
       "s.json: $.teams[0].streams[0].duration.max: must be >= min"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"value":1},"unallocated_share":2}]}]})",
       "s.json: $.teams[0].streams[0].unallocated_share: must be in [0, 1]"},
      {R"({"teams": [)", "s.json: not valid JSON: unexpected end of data"},
  };
  for (const BadSpec& c : cases) {
    ScenarioSpec spec;
    spec.seed = 99;
    Status st = ParseScenarioSpec(c.json, "s.json", &spec);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
    // The output is untouched on error.
    assert_int_equal(spec.seed, 99);
  }
}

void test_generate_refuses_an_empty_spec(void**) {
  Workload w;
  Status st = GenerateWorkload(ScenarioSpec(), &w);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(), "scenario: no teams");
  assert_false(ParseScenarioFile("/nonexistent/spec.json", nullptr).ok());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generates_deterministically),
      cmocka_unit_test(test_seed_changes_the_draw),
      cmocka_unit_test(test_spec_errors_name_the_json_path),
      cmocka_unit_test(test_generate_refuses_an_empty_spec),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
