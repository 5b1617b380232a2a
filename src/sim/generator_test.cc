// Tests of the scenario generator: the spec parser's errors, determinism,
// and the drawn workload's shape.
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <string>

#include "sim/generator.h"
#include "sim/trace_reader.h"
#include "sim/sim_test_util.h"

using budget::Status;
using namespace budget::sim;
using budget::sim::testing::AssertSameJob;

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
    assert_int_equal(a.jobs[i].time_limit, b.jobs[i].time_limit);
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
      // The default factor: 900 s x 2 = 30 min.
      assert_int_equal(j.time_limit, 1800);
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
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"value":1},"time_limit_factor":0.5}]}]})",
       "s.json: $.teams[0].streams[0].time_limit_factor: must be a number >= 1"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"value":1},"time_limit_factor":-2}]}]})",
       "s.json: $.teams[0].streams[0].time_limit_factor: must be a number >= 1"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"value":1},"time_limit_factor":"2"}]}]})",
       "s.json: $.teams[0].streams[0].time_limit_factor: must be a number"},
      {R"({"teams":[{"account":"a","streams":[{"per_hour":1,"gpus":[1],"duration":{"value":1},"time_limit_factor":null}]}]})",
       "s.json: $.teams[0].streams[0].time_limit_factor: must be a number"},
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

struct FactorCase {
  const char* stream_key;  // spliced into the stream, "" for none
  double run_factor;       // GenerateWorkload's, i.e. --time-limit-factor
  int64_t want_limit;      // of every job: the duration is fixed at 900 s
};

void test_time_limits_follow_the_factors(void**) {
  const FactorCase cases[] = {
      {"", 2.0, 1800},                         // 900 x 2 = 30 min (the default)
      {"", 3.0, 2700},                         // the run's factor: 45 min
      {R"(,"time_limit_factor":1.5)", 3.0, 1380},  // the stream's wins: 1350 s -> 23 min
      {R"(,"time_limit_factor":1)", 3.0, 900},     // 15 min exactly
      {R"(,"time_limit_factor":1.1)", 2.0, 1020},  // 990 s -> 17 min
  };
  Workload reference;
  for (const FactorCase& c : cases) {
    std::string json = std::string(R"({"seed":3,"days":1,"teams":[{"account":"a","streams":[)") +
                       R"({"per_hour":2,"gpus":[1],"duration":{"value":900})" + c.stream_key +
                       "}]}]}";
    ScenarioSpec spec;
    Status st = ParseScenarioSpec(json, "s.json", &spec);
    assert_true(st.ok());
    Workload w;
    assert_true(GenerateWorkload(spec, &w, c.run_factor).ok());
    // 2 per hour over a day: some jobs (expected 48).
    assert_true(w.jobs.size() > 10);
    for (const TraceJob& j : w.jobs) assert_int_equal(j.time_limit, c.want_limit);
    // The limit draws nothing: the same seed gives the same jobs whatever
    // the factor.
    if (reference.jobs.empty()) reference = w;
    assert_int_equal(w.jobs.size(), reference.jobs.size());
    for (size_t i = 0; i < w.jobs.size(); ++i)
      assert_int_equal(w.jobs[i].submit, reference.jobs[i].submit);
  }
}

void test_bad_factors_are_refused(void**) {
  ScenarioSpec spec;
  assert_true(ParseScenarioSpec(kSpec, "spec.json", &spec).ok());
  Workload w;
  const double run_factors[] = {0.5, 0, NAN, INFINITY};
  for (double f : run_factors) {
    Status st = GenerateWorkload(spec, &w, f);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(),
                        "scenario: time limit factor must be a finite number >= 1");
  }
  // A spec built in code, not parsed, can hold a bad stream factor.
  spec.teams[0].streams[1].time_limit_factor = 0.9;
  Status st = GenerateWorkload(spec, &w);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(),
                      "scenario: team llm stream 1: time_limit_factor must be a finite number >= 1");
}

void test_written_trace_reads_back_identically(void**) {
  // What --write-trace does: the generated jobs as native CSV, time limits
  // included, read back as a trace. With another factor for the reader,
  // to show that the written limits are read, not derived again.
  ScenarioSpec spec;
  assert_true(ParseScenarioSpec(kSpec, "spec.json", &spec).ok());
  Workload w;
  assert_true(GenerateWorkload(spec, &w, 1.3).ok());
  std::string csv = FormatNativeCsv(w);
  TraceOptions o;
  o.time_limit_factor = 4;
  Workload back;
  ReadStats stats;
  Status st = ReadTraceText(csv, "w.csv", TraceFormat::kNative, o, &back, &stats);
  assert_true(st.ok());
  assert_int_equal(back.jobs.size(), w.jobs.size());
  bool limits_differ = false;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const TraceJob& a = w.jobs[i];
    const TraceJob& b = back.jobs[i];
    AssertSameJob(w, a, back, b);
    // 1.3 x the duration, in whole minutes.
    assert_int_equal(a.time_limit, DeriveTimeLimit(a.duration, 1.3));
    limits_differ |= a.time_limit != w.jobs[0].time_limit;
  }
  // The lognormal stream gives many different limits, not one repeated.
  assert_true(limits_differ);
  assert_string_equal(FormatNativeCsv(back).c_str(), csv.c_str());
}

void test_a_burst_submits_within_its_window(void**) {
  // "from_hour": 30, "hours": 4 on a 2-day spec: every job of the stream
  // is submitted in [30 h, 34 h) = [108000, 122400) s; the other stream
  // keeps its draws (each stream has its own generator), and the spec
  // written back reads as the same spec.
  ScenarioSpec spec;
  assert_true(ParseScenarioSpec(kSpec, "spec.json", &spec).ok());
  Workload before;
  assert_true(GenerateWorkload(spec, &before).ok());
  spec.teams[0].streams[1].from_hour = 30;
  spec.teams[0].streams[1].hours = 4;
  spec.teams[0].streams[1].per_hour = 12;
  Workload burst;
  assert_true(GenerateWorkload(spec, &burst).ok());
  size_t debug = 0, train = 0;
  for (const TraceJob& j : burst.jobs) {
    if (j.gpus == 1) {
      ++debug;
      continue;
    }
    ++train;
    assert_in_range(j.submit, 108000, 122399);
  }
  size_t debug_before = 0;
  for (const TraceJob& j : before.jobs) debug_before += j.gpus == 1;
  assert_int_equal(debug, debug_before);
  assert_true(train > 0);
  ScenarioSpec back;
  assert_true(ParseScenarioSpec(FormatScenarioSpec(spec), "written", &back).ok());
  Workload again;
  assert_true(GenerateWorkload(back, &again).ok());
  assert_int_equal(again.jobs.size(), burst.jobs.size());
  for (size_t i = 0; i < again.jobs.size(); ++i) AssertSameJob(burst, burst.jobs[i], again, again.jobs[i]);
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
      cmocka_unit_test(test_time_limits_follow_the_factors),
      cmocka_unit_test(test_bad_factors_are_refused),
      cmocka_unit_test(test_written_trace_reads_back_identically),
      cmocka_unit_test(test_a_burst_submits_within_its_window),
      cmocka_unit_test(test_generate_refuses_an_empty_spec),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
