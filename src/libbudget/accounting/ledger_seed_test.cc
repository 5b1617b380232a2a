// Tests of the ledger seed (ledger_seed.h): sacct's rows charged into the
// ledger by the core's charging rule, every figure worked out by hand in a
// comment above its assertion.
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/accounting/ledger_seed.h"
#include "libbudget/testing/test_trees.h"

using namespace budget;
using budget::testing::kExampleTree;
using budget::testing::ParseTreeOrFail;

namespace {

// The window: --since 2026-11-02T08:00:00 (kSince) up to 2026-11-08T08:00:00
// (kNow), six days inside the ledger's seven-day window, so that every
// charge still counts at kNow.
constexpr TimePoint kSince = 1793606400;
constexpr TimePoint kNow = kSince + 6 * 86400;

const char kHeader[] = "JobID|JobIDRaw|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|AdminComment\n";

struct Row {
  std::string job_id = "100";
  std::string raw = "100";
  std::string account = "pretrain";
  std::string user = "carol";
  std::string submit = "2026-11-01T00:00:00";
  std::string start = "2026-11-03T10:00:00";
  std::string elapsed = "02:00:00";
  std::string tres = "cpu=4,gres/gpu=4,node=1";
  std::string state = "COMPLETED";
  std::string comment = "";

  std::string Line() const {
    return job_id + "|" + raw + "|" + account + "|" + user + "|" + submit + "|" + start + "|" + elapsed +
           "|02:00:00|" + tres + "|" + state + "|" + comment + "\n";
  }
};

std::string Text(const std::vector<Row>& rows) {
  std::string text = kHeader;
  for (const Row& r : rows) text += r.Line();
  return text;
}

// DefaultMinRuntime 15 min: a job without a contract record is allocated
// work (a site coming from Fair Tree has no records). a100 GPUs are worth 2.
struct Fixture {
  AllocationTree tree = ParseTreeOrFail(kExampleTree);
  BudgetConfig config;
  GpuTypeWeights weights;
  FleetWorth fleet{&weights};
  Ledger ledger{Ledger::Options()};
  SeedReport report;
  Fixture() {
    config.default_min_runtime = 900;
    weights.Set("a100", 2.0);
  }
  Status Seed(const std::string& text) {
    return SeedLedgerFromSacct(text, "week.sacct", tree, config, fleet, kSince, kNow, &ledger, &report);
  }
  double Allocated(const std::string& path) { return ledger.WindowUsage(path, Ledger::Series::kAllocated, kNow); }
  double Unallocated(const std::string& path) {
    return ledger.WindowUsage(path, Ledger::Series::kUnallocated, kNow);
  }
};

uint64_t Skipped(const SeedReport& report, const std::string& prefix) {
  for (const auto& [reason, count] : report.skipped)
    if (reason.rfind(prefix, 0) == 0) return count;
  return 0;
}

double Team(const SeedReport& report, const std::string& team) {
  for (const auto& [name, seconds] : report.team_allocated)
    if (name == team) return seconds;
  return -1;
}

void test_a_run_inside_the_window(void**) {
  Fixture f;
  assert_true(f.Seed(Text({Row()})).ok());
  // 4 GPUs x 2 h = 28800 GPU-s to llm/pretrain, allocated (DefaultMinRuntime
  // 900 > 0), and as much demand (a running allocated job demands its GPUs).
  assert_float_equal(f.Allocated("llm/pretrain"), 28800, 1e-6);
  assert_float_equal(f.ledger.WindowUsage("llm/pretrain", Ledger::Series::kDemand, kNow), 28800, 1e-6);
  assert_int_equal(f.report.runs_read, 1);
  assert_int_equal(f.report.runs_charged, 1);
  // Its cursor is the run's end, 2026-11-03T12:00:00: the plugin will not
  // charge it again.
  assert_int_equal(f.ledger.ChargedUntil(100), kSince + 86400 + 4 * 3600);
}

void test_a_run_straddling_since_is_charged_from_since(void**) {
  Fixture f;
  Row r;
  r.account = "robotics";
  r.start = "2026-11-02T06:00:00";  // 2 h before kSince
  r.elapsed = "04:00:00";           // ends 2 h after it
  r.tres = "gres/gpu=2";
  assert_true(f.Seed(Text({r})).ok());
  // Only [08:00, 10:00): 2 GPUs x 2 h = 14400 GPU-s, not the run's 28800.
  assert_float_equal(f.Allocated("robotics"), 14400, 1e-6);
  assert_float_equal(f.report.allocated_gpu_seconds, 14400, 1e-6);
  // A run that ended before kSince is skipped.
  Fixture g;
  r.elapsed = "01:00:00";
  assert_true(g.Seed(Text({r})).ok());
  assert_int_equal(g.report.runs_charged, 0);
  assert_int_equal(Skipped(g.report, "runs that ended before --since"), 1);
  assert_false(g.ledger.HasPath("robotics"));
}

void test_a_requeued_job_charges_every_run_once(void**) {
  Fixture f;
  // sacct -D: the run that a preemption ended (REQUEUED), then the last
  // run; listed last-first here: they are charged in start order.
  Row last;
  last.job_id = last.raw = "102";
  last.account = "science";
  last.start = "2026-11-04T02:00:00";
  last.elapsed = "00:30:00";
  last.tres = "gres/gpu=8";
  Row first = last;
  first.start = "2026-11-04T00:00:00";
  first.elapsed = "01:00:00";
  first.state = "REQUEUED";
  // The same run listed twice (two exports pasted together) is charged once.
  assert_true(f.Seed(Text({last, first, first})).ok());
  // 8 GPUs x (1 h + 30 min) = 28800 + 14400 = 43200 GPU-s.
  assert_float_equal(f.Allocated("science"), 43200, 1e-6);
  assert_int_equal(f.report.runs_read, 3);
  assert_int_equal(f.report.jobs_charged, 1);
  // The cursor: the last run's end, 2026-11-04T02:30:00.
  assert_int_equal(f.ledger.ChargedUntil(102), kSince + 2 * 86400 - 8 * 3600 + 2 * 3600 + 1800);
}

void test_rows_that_never_ran_or_held_no_gpus_are_skipped(void**) {
  Fixture f;
  Row cancelled;  // cancelled while pending: Start None, no allocation
  cancelled.job_id = cancelled.raw = "103";
  cancelled.start = "None";
  cancelled.elapsed = "00:00:00";
  cancelled.tres = "";
  cancelled.state = "CANCELLED by 1000";
  Row pending_tasks;  // an array's tasks that never left the queue
  pending_tasks.job_id = "110_[1-3]";
  pending_tasks.start = "Unknown";
  pending_tasks.tres = "";
  pending_tasks.state = "PENDING";
  Row cpu_only;
  cpu_only.job_id = cpu_only.raw = "111";
  cpu_only.tres = "cpu=4,mem=4G,node=1";
  Row step = Row();
  step.job_id = "100.batch";
  assert_true(f.Seed(Text({cancelled, pending_tasks, cpu_only, step})).ok());
  assert_int_equal(f.report.rows, 4);
  assert_int_equal(f.report.runs_read, 1);  // the CPU-only run
  assert_int_equal(f.report.runs_charged, 0);
  assert_int_equal(Skipped(f.report, "rows that never ran"), 2);
  assert_int_equal(Skipped(f.report, "runs without GPUs"), 1);
  assert_int_equal(Skipped(f.report, "step rows"), 1);
  assert_int_equal(f.ledger.path_count(), 0);
}

void test_a_het_job_charges_each_component(void**) {
  Fixture f;
  Row first;  // component 0: alice's own node in posttrain
  first.job_id = "104+0";
  first.raw = "104";
  first.account = "posttrain";
  first.user = "alice";
  first.start = "2026-11-05T00:00:00";
  first.elapsed = "01:00:00";
  first.tres = "gres/gpu=2";
  Row second = first;  // component 1: one a100 (weight 2) in robotics
  second.job_id = "104+1";
  second.raw = "105";
  second.account = "robotics";
  second.tres = "cpu=1,gres/gpu:a100=1,gres/gpu=1";
  assert_true(f.Seed(Text({first, second})).ok());
  // 2 GPUs x 1 h = 7200 GPU-s to llm/posttrain/alice; 1 a100 x 2.0 x 1 h =
  // 7200 weighted GPU-s to robotics.
  assert_float_equal(f.Allocated("llm/posttrain/alice"), 7200, 1e-6);
  assert_float_equal(f.Allocated("robotics"), 7200, 1e-6);
  assert_int_equal(f.report.jobs_charged, 2);
  // Per team: llm 7200, robotics 7200, science 0 (listed, in tree order).
  assert_int_equal(f.report.team_allocated.size(), 3);
  assert_string_equal(f.report.team_allocated[0].first.c_str(), "llm");
  assert_float_equal(Team(f.report, "llm"), 7200, 1e-6);
  assert_float_equal(Team(f.report, "robotics"), 7200, 1e-6);
  assert_float_equal(Team(f.report, "science"), 0, 1e-6);
}

void test_an_account_outside_the_tree_is_skipped_and_counted(void**) {
  Fixture f;
  Row stranger;
  stranger.job_id = stranger.raw = "106";
  stranger.account = "marketing";
  Row other = stranger;
  other.job_id = other.raw = "107";
  assert_true(f.Seed(Text({stranger, other, Row()})).ok());
  assert_int_equal(f.report.runs_read, 3);
  assert_int_equal(f.report.runs_charged, 1);
  assert_int_equal(Skipped(f.report, "runs whose account is in no node of the tree"), 2);
  assert_int_equal(f.report.unknown_accounts.size(), 1);
  assert_string_equal(f.report.unknown_accounts[0].c_str(), "marketing");
  assert_false(f.ledger.HasPath("marketing"));
}

void test_free_work_and_a_running_job(void**) {
  Fixture f;
  Row running;  // free work (its record says min_runtime 0), still running at kNow
  running.job_id = running.raw = "108";
  running.start = "2026-11-08T07:00:00";
  running.elapsed = "01:00:00";
  running.tres = "gres/gpu=1";
  running.state = "RUNNING";
  running.comment = "contract:min_runtime=0,resumable=1,declared=1";
  assert_true(f.Seed(Text({running})).ok());
  // 1 GPU x 1 h = 3600 GPU-s, unallocated; nothing allocated, no demand.
  assert_float_equal(f.Unallocated("llm/pretrain"), 3600, 1e-6);
  assert_float_equal(f.Allocated("llm/pretrain"), 0, 1e-6);
  assert_float_equal(f.report.unallocated_gpu_seconds, 3600, 1e-6);
  // The cursor is kNow: the plugin charges the rest of the run from there.
  assert_int_equal(f.ledger.ChargedUntil(108), kNow);
}

void test_bad_input_is_an_error_and_leaves_the_ledger(void**) {
  struct Case {
    std::string text;
    const char* message;
  };
  Row bad_state;
  bad_state.state = "DONE";
  const std::string good = Text({Row()});
  const Case cases[] = {
      {"", "week.sacct: empty: no header line (did sacct print nothing?)"},
      // sacct's output cut in the middle of a row.
      {good.substr(0, good.size() - 10), "week.sacct:2: the last line has no newline: the output was cut short (truncated)"},
      {"JobID|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State\n",
       "week.sacct:1:1: header: missing column JobIDRaw (seed-ledger needs each job's own id: sacct "
       "--format=JobID,JobIDRaw,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment)"},
      {std::string(kHeader) + "100|100|pretrain\n", "week.sacct:2:9: expected 11 fields (as the header), got 3"},
      {Text({bad_state}), "week.sacct:2:106: State: not a state sacct prints: 'DONE'"},
  };
  for (const Case& c : cases) {
    Fixture f;
    f.ledger.Charge("science", Ledger::Series::kAllocated, kSince, kSince + 60, 1);
    Status st = f.Seed(c.text);
    assert_false(st.ok());
    if (st.message() != c.message) fail_msg("got '%s', expected '%s'", st.message().c_str(), c.message);
    // What was there before is still there, and nothing else.
    assert_float_equal(f.Allocated("science"), 60, 1e-6);
    assert_int_equal(f.ledger.path_count(), 1);
  }
}

void test_sacct_command_line(void**) {
  std::vector<std::string> args = SeedSacctArguments(kSince, kNow);
  std::string joined;
  for (const std::string& a : args) joined += a + " ";
  assert_string_equal(joined.c_str(),
                      "-a -X -D -P --starttime 2026-11-02T08:00:00 --endtime 2026-11-08T08:00:00 "
                      "--format=JobID,JobIDRaw,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,"
                      "AdminComment ");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_run_inside_the_window),
      cmocka_unit_test(test_a_run_straddling_since_is_charged_from_since),
      cmocka_unit_test(test_a_requeued_job_charges_every_run_once),
      cmocka_unit_test(test_rows_that_never_ran_or_held_no_gpus_are_skipped),
      cmocka_unit_test(test_a_het_job_charges_each_component),
      cmocka_unit_test(test_an_account_outside_the_tree_is_skipped_and_counted),
      cmocka_unit_test(test_free_work_and_a_running_job),
      cmocka_unit_test(test_bad_input_is_an_error_and_leaves_the_ledger),
      cmocka_unit_test(test_sacct_command_line),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
