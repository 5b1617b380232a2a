// Tests of the command line: values reach the options, and every kind of
// bad input is refused with a message naming the option.
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "sim/options.h"

using budget::Status;
using namespace budget::sim;

namespace {

Status Parse(std::vector<std::string> args, SimOptions* o) {
  args.insert(args.begin(), "budget-sim");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  return ParseOptions(int(argv.size()), argv.data(), o);
}

void test_values_reach_the_options(void**) {
  SimOptions o;
  Status st = Parse({"--trace", "t.csv", "--format=philly", "--nodes", "16", "--gpus-per-node=4",
                     "--policy", "budget,fifo", "--horizon", "7-0", "--default-min-runtime",
                     "15", "--packing", "off", "--skip-bad-rows", "--debug-max-gpus", "2",
                     "--preempt-exempt-time", "2:00:00", "--svg-length", "1-0",
                     "--time-limit-factor", "1.5", "--events-json=runs.json"},
                    &o);
  assert_true(st.ok());
  assert_string_equal(o.trace_file.c_str(), "t.csv");
  assert_true(o.format == TraceFormat::kPhilly);
  assert_int_equal(o.engine.nodes, 16);
  assert_int_equal(o.engine.gpus_per_node, 4);
  assert_int_equal(o.policies.size(), 2);
  assert_string_equal(o.policies[1].c_str(), "fifo");
  // 7-0 = 7 days; "15" is minutes in Slurm's format; 2:00:00 = 2 h.
  assert_int_equal(o.horizon, 7 * 86400);
  assert_int_equal(o.trace.default_min_runtime, 900);
  assert_int_equal(o.engine.policy.preempt_exempt_time, 7200);
  assert_int_equal(o.svg_length, 86400);
  assert_false(o.engine.packing);
  assert_true(o.trace.skip_bad_rows);
  assert_int_equal(o.engine.thresholds.debug_max_gpus, 2);
  assert_true(o.trace.time_limit_factor == 1.5);
  assert_string_equal(o.events_json_file.c_str(), "runs.json");
}

void test_debug_qos_options(void**) {
  // fairtree+qos's knobs: defaults MaxWall 30:00, 2 jobs and 8 GPUs per
  // user, PreemptExemptTime 30:00; "45" is 45 minutes, 1:00:00 an hour.
  SimOptions defaults;
  assert_true(Parse({"--trace", "a"}, &defaults).ok());
  assert_int_equal(defaults.engine.policy.debug_qos_max_wall, 1800);
  assert_int_equal(defaults.engine.policy.debug_qos_max_jobs_per_user, 2);
  assert_int_equal(defaults.engine.policy.debug_qos_max_gpus_per_user, 8);
  assert_int_equal(defaults.engine.policy.qos_preempt_exempt_time, 1800);
  SimOptions o;
  assert_true(Parse({"--trace", "a", "--policy", "fairtree+qos", "--debug-qos-max-wall", "45",
                     "--debug-qos-max-jobs-per-user", "4", "--debug-qos-max-gpus-per-user=16",
                     "--qos-preempt-exempt-time", "1:00:00"},
                    &o)
                  .ok());
  assert_string_equal(o.policies[0].c_str(), "fairtree+qos");
  assert_int_equal(o.engine.policy.debug_qos_max_wall, 2700);
  assert_int_equal(o.engine.policy.debug_qos_max_jobs_per_user, 4);
  assert_int_equal(o.engine.policy.debug_qos_max_gpus_per_user, 16);
  assert_int_equal(o.engine.policy.qos_preempt_exempt_time, 3600);
}

struct FactorCase {
  const char* arg;
  double want;
};

void test_gpu_types_make_the_fleet(void**) {
  // b200:2,h100:3: five nodes, the first two B200.
  SimOptions o;
  assert_true(Parse({"--trace", "a", "--gpu-types", "b200:2,h100:3"}, &o).ok());
  assert_int_equal(o.engine.nodes, 5);
  assert_true((o.engine.gpu_types == std::vector<std::string>{"b200", "b200", "h100", "h100", "h100"}));
}

void test_time_limit_factor(void**) {
  // Default 2; any finite number >= 1, as "--opt V" or "--opt=V".
  SimOptions defaults;
  assert_true(Parse({"--trace", "a"}, &defaults).ok());
  assert_true(defaults.trace.time_limit_factor == 2.0);
  const FactorCase cases[] = {
      {"--time-limit-factor=1", 1.0},
      {"--time-limit-factor=1.25", 1.25},
      {"--time-limit-factor=10", 10.0},
      {"--time-limit-factor=3e0", 3.0},
  };
  for (const FactorCase& c : cases) {
    SimOptions o;
    assert_true(Parse({"--trace", "a", c.arg}, &o).ok());
    assert_true(o.trace.time_limit_factor == c.want);
  }
}

struct Bad {
  std::vector<std::string> args;
  const char* message;
};

void test_bad_input_names_the_option(void**) {
  const Bad cases[] = {
      {{}, "give exactly one of --trace FILE, --generate SPEC and --generate-family SPEC"},
      {{"--trace", "a", "--generate", "b"}, "give exactly one of --trace FILE, --generate SPEC and --generate-family SPEC"},
      {{"--trace"}, "--trace: needs a value"},
      {{"--trace", "a", "--events-json"}, "--events-json: needs a value"},
      {{"--trace", "a", "--nodes", "0"}, "--nodes: expected an integer in [1, 1048576], got '0'"},
      {{"--trace", "a", "--gpus-per-node", "65"},
       "--gpus-per-node: expected an integer in [1, 64], got '65'"},
      {{"--trace", "a", "--format", "csv"}, "--format: expected native, philly, swf or sacct, got 'csv'"},
      {{"--trace", "a", "--policy", "budget,slurm"},
       "--policy: unknown policy 'slurm' (known: budget,fairtree,fairtree+qos,priority,fifo)"},
      {{"--trace", "a", "--packing", "maybe"}, "--packing: expected on or off, got 'maybe'"},
      {{"--trace", "a", "--skip-bad-rows=1"}, "--skip-bad-rows: takes no value"},
      {{"--trace", "a", "--frobnicate"}, "--frobnicate: unknown option (see --help)"},
      {{"--trace", "a", "--svg-length", "0"}, "--svg-length: must be > 0"},
      {{"--trace", "a", "--scheduler-parameters", "bf_interval=0"},
       "--scheduler-parameters: SchedulerParameters: bf_interval=0: expected a whole number in [1, 10800]"},
      {{"--trace", "a", "--requeue-delay", "-1"},
       "--requeue-delay: expected an integer in [0, 86400], got '-1'"},
      {{"--trace", "a", "--drain", "3@10"},
       "--drain: expected NODE@TIME with NODE n1, n2, ..., got '3@10'"},
      {{"--trace", "a", "--drain", "n0@10"},
       "--drain: expected NODE@TIME with NODE n1, n2, ..., got 'n0@10'"},
      {{"--trace", "a", "--resume", "n2"}, "--resume: expected NODE@TIME with NODE n1, n2, ..., got 'n2'"},
      // A factor below 1 would give limits shorter than the work; inf and
      // nan are not factors (1e400 overflows to inf).
      {{"--trace", "a", "--time-limit-factor", "0.5"},
       "--time-limit-factor: expected a finite number >= 1, got '0.5'"},
      {{"--trace", "a", "--time-limit-factor", "0"},
       "--time-limit-factor: expected a finite number >= 1, got '0'"},
      {{"--trace", "a", "--time-limit-factor", "-2"},
       "--time-limit-factor: expected a finite number >= 1, got '-2'"},
      {{"--trace", "a", "--time-limit-factor", "inf"},
       "--time-limit-factor: expected a finite number >= 1, got 'inf'"},
      {{"--trace", "a", "--time-limit-factor", "nan"},
       "--time-limit-factor: expected a finite number >= 1, got 'nan'"},
      {{"--trace", "a", "--time-limit-factor", "1e400"},
       "--time-limit-factor: expected a finite number >= 1, got '1e400'"},
      {{"--trace", "a", "--time-limit-factor", "2x"},
       "--time-limit-factor: expected a finite number >= 1, got '2x'"},
      {{"--trace", "a", "--time-limit-factor="},
       "--time-limit-factor: expected a finite number >= 1, got ''"},
      {{"--trace", "a", "--time-limit-factor"}, "--time-limit-factor: needs a value"},
      {{"--trace", "a", "--gpu-types", "b200"},
       "--gpu-types: expected TYPE:NODES[,TYPE:NODES...] (e.g. b200:16,h100:16), got 'b200'"},
      {{"--trace", "a", "--gpu-types", "b200:4,:4"},
       "--gpu-types: expected TYPE:NODES[,TYPE:NODES...] (e.g. b200:16,h100:16), got ':4'"},
      {{"--trace", "a", "--gpu-types", "b200:0"},
       "--gpu-types: expected TYPE:NODES[,TYPE:NODES...] (e.g. b200:16,h100:16), got 'b200:0'"},
      {{"--trace", "a", "--gpu-types", "b 200:4"},
       "--gpu-types: expected TYPE:NODES[,TYPE:NODES...] (e.g. b200:16,h100:16), got 'b 200:4'"},
  };
  for (const Bad& c : cases) {
    SimOptions o;
    Status st = Parse(c.args, &o);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
  // A bad duration quotes the core's time-string message after the option.
  SimOptions o;
  Status st = Parse({"--trace", "a", "--horizon", "soon"}, &o);
  assert_false(st.ok());
  assert_true(st.message().rfind("--horizon: ", 0) == 0);
}

void test_slurm_scheduler_options(void**) {
  SimOptions o;
  Status st = Parse({"--trace", "t", "--nodes", "4", "--scheduler-parameters=bf_interval=10,bf_continue",
                     "--requeue-delay", "11", "--drain", "n3@1:00:00", "--resume", "n3@2:00:00",
                     "--drain", "n1@90"},
                    &o);
  assert_true(st.ok());
  assert_int_equal(o.engine.scheduler.bf_interval, 10);
  assert_true(o.engine.scheduler.bf_continue);
  assert_int_equal(o.engine.requeue_delay, 11);
  std::vector<budget::sim::NodeDrain> drains;
  // First submission at 1000: n3 (index 2) drained 1000 + 3600, resumed
  // 1000 + 7200; n1 (index 0) drained 1000 + 90 minutes ("90" is minutes).
  assert_true(NodeDrainsOf(o, 1000, &drains).ok());
  assert_int_equal(drains.size(), 2);
  assert_int_equal(drains[0].node, 2);
  assert_int_equal(drains[0].at, 4600);
  assert_int_equal(drains[0].resume_at, 8200);
  assert_int_equal(drains[1].node, 0);
  assert_int_equal(drains[1].at, 6400);
  assert_int_equal(drains[1].resume_at, -1);
}

void test_node_events_are_checked_against_the_cluster(void**) {
  const Bad cases[] = {
      {{"--trace", "t", "--nodes", "4", "--drain", "n5@0"}, "--drain n5: the cluster has nodes n1-n4"},
      {{"--trace", "t", "--nodes", "4", "--resume", "n2@10"}, "--resume n2: no --drain of n2 before it"},
      {{"--trace", "t", "--nodes", "4", "--drain", "n2@20", "--resume", "n2@10"},
       "--resume n2: no --drain of n2 before it"},
  };
  for (const Bad& c : cases) {
    SimOptions o;
    assert_true(Parse(c.args, &o).ok());
    std::vector<budget::sim::NodeDrain> drains;
    Status st = NodeDrainsOf(o, 0, &drains);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
}

void test_help_needs_no_workload(void**) {
  SimOptions o;
  assert_true(Parse({"--help"}, &o).ok());
  assert_true(o.help);
  assert_true(UsageText().find("--svg-usage") != std::string::npos);
  assert_true(UsageText().find("--time-limit-factor F") != std::string::npos);
  assert_true(UsageText().find("--events-json FILE") != std::string::npos);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_reach_the_options),
      cmocka_unit_test(test_gpu_types_make_the_fleet),
      cmocka_unit_test(test_debug_qos_options),
      cmocka_unit_test(test_time_limit_factor),
      cmocka_unit_test(test_bad_input_names_the_option),
      cmocka_unit_test(test_slurm_scheduler_options),
      cmocka_unit_test(test_node_events_are_checked_against_the_cluster),
      cmocka_unit_test(test_help_needs_no_workload),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
