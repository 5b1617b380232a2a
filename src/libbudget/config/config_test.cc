// Tests of the budget.conf parser (config.h).
#include "libbudget/testing/test_support.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "libbudget/config/config.h"

using budget::BudgetConfig;
using budget::ParseBudgetConfig;

namespace {

void test_defaults_when_empty(void**) {
  BudgetConfig c;
  assert_true(ParseBudgetConfig("", "budget.conf", &c).ok());
  // 7 days = 604800 s; 8 h = 28800 s; default contract 0 (unallocated).
  assert_int_equal(c.lookback_window, 604800);
  assert_int_equal(c.max_min_runtime, 28800);
  assert_int_equal(c.default_min_runtime, 0);
  assert_true(c.budget_tree.empty());
  // 5 min refresh and buckets, 30 s passes, 30 min hero wait, reject unknown accounts.
  assert_int_equal(c.budget_refresh, 300);
  assert_int_equal(c.tree_connect_timeout, 5);
  assert_int_equal(c.tree_fetch_timeout, 20);
  assert_int_equal(c.ledger_bucket, 300);
  assert_int_equal(c.recalc_interval, 30);
  assert_int_equal(c.timeslice_interval, 30);
  assert_int_equal(c.preempt_notice, 30);  // a victim keeps its GPUs 30 s after its SIGTERM
  assert_int_equal(c.hero_wait, 1800);
  assert_true(c.unknown_account == budget::UnknownAccountPolicy::kReject);
  assert_true(c.default_contract_notice);  // a job without --min-runtime is told its contract
  // TimeSlicing unset: slurm.conf's PreemptMode decides, as before the key.
  assert_true(c.time_slicing == budget::TimeSlicingKey::kUnset);
}

void test_reads_every_key_case_insensitively(void**) {
  const char* text =
      "# the suite's configuration\n"
      "\n"
      "BudgetTree=/etc/slurm/tree.json   # trailing comment\n"
      "lookbackwindow = 1-0\n"
      "MAXMINRUNTIME=4:00:00\r\n"
      "DefaultMinRuntime=\"15\"\n"
      "BudgetRefresh=0:30\n"
      "TreeConnectTimeout=2\n"
      "treefetchtimeout=7\n"
      "LedgerBucket=0:05\n"
      "RecalcInterval=3\n"
      "UnknownAccount=Unallocated\n"
      "TimesliceInterval=2\n"
      "preemptnotice=45\n"
      "HeroWait=1:00\n"
      "HeroMinNodes=4\n"
      "QuickStartGpus=2\n"
      "QuickStartMinRuntime=10\n"
      "QuickStartReserveNodes=3\n"
      "ReportDir=/shared/slurm-budget/\n"
      "GPUTYPEWEIGHTS=h100:1.0,B200:2\n"
      "defaultcontractnotice=NO\n"
      "timeslicing=Yes\n";
  BudgetConfig c;
  budget::Status st = ParseBudgetConfig(text, "budget.conf", &c);
  assert_true(st.ok());
  assert_string_equal(c.budget_tree.c_str(), "/etc/slurm/tree.json");
  assert_int_equal(c.lookback_window, 86400);     // 1 day
  assert_int_equal(c.max_min_runtime, 14400);     // 4 h
  assert_int_equal(c.default_min_runtime, 900);   // 15 min
  assert_int_equal(c.budget_refresh, 30);         // M:S 0:30
  assert_int_equal(c.ledger_bucket, 5);           // M:S 0:05
  assert_int_equal(c.tree_connect_timeout, 2);    // plain seconds
  assert_int_equal(c.tree_fetch_timeout, 7);
  assert_int_equal(c.recalc_interval, 3);         // plain seconds
  assert_true(c.unknown_account == budget::UnknownAccountPolicy::kUnallocated);
  assert_int_equal(c.timeslice_interval, 2);
  assert_int_equal(c.preempt_notice, 45);         // plain seconds
  assert_int_equal(c.hero_wait, 60);              // M:S 1:00
  assert_int_equal(c.hero_min_nodes, 4);
  assert_int_equal(c.quick_start_gpus, 2);
  assert_int_equal(c.quick_start_reserve_nodes, 3);
  assert_int_equal(c.quick_start_min_runtime, 600);  // 10 min
  assert_string_equal(c.report_dir.c_str(), "/shared/slurm-budget");  // trailing slash dropped
  assert_string_equal(c.gpu_type_weights.ToString().c_str(), "b200:2,h100:1");  // types lower-case, sorted
  assert_false(c.default_contract_notice);
  assert_true(c.time_slicing == budget::TimeSlicingKey::kYes);
}

void test_time_slicing_no(void**) {
  BudgetConfig c;
  assert_true(ParseBudgetConfig("TimeSlicing=no\n", "budget.conf", &c).ok());
  assert_true(c.time_slicing == budget::TimeSlicingKey::kNo);
}

struct BadCase {
  const char* text;
  const char* expected;  // a substring of the message: file, line and key
};

const BadCase kBad[] = {
    {"Colour=blue\n", "budget.conf:1: unknown key \"Colour\""},
    {"# c\nMaxMinRuntime=abc\n", "budget.conf:2: key MaxMinRuntime: invalid time \"abc\""},
    {"LookbackWindow=0\n", "budget.conf:1: key LookbackWindow: must be longer than 0"},
    {"MaxMinRuntime\n", "budget.conf:1: expected Key=Value"},
    {"BudgetTree=\n", "budget.conf:1: key BudgetTree: must name a file or URL"},
    {"BudgetTree=a b\n", "budget.conf:1: key BudgetTree: one Key=Value per line"},
    {"MaxMinRuntime=1:00:00\n\nmaxminruntime=2:00:00\n", "budget.conf:3: key MaxMinRuntime is already set on line 1"},
    {"RecalcInterval=5m\n", "budget.conf:1: key RecalcInterval: must be a whole number of seconds, got \"5m\""},
    {"RecalcInterval=0\n", "budget.conf:1: key RecalcInterval: must be between 1 and 86400 seconds"},
    {"TreeFetchTimeout=3601\n", "budget.conf:1: key TreeFetchTimeout: must be between 1 and 3600 seconds"},
    {"TreeConnectTimeout=0:05\n", "budget.conf:1: key TreeConnectTimeout: must be a whole number of seconds"},
    {"TreeConnectTimeout=30\nTreeFetchTimeout=10\n",
     "budget.conf: TreeConnectTimeout (30 s) is longer than TreeFetchTimeout (10 s)"},
    {"TimesliceInterval=99999\n", "budget.conf:1: key TimesliceInterval: must be between 1 and 86400 seconds"},
    {"PreemptNotice=3601\n", "budget.conf:1: key PreemptNotice: must be between 0 and 3600 seconds"},
    {"PreemptNotice=1:00\n", "budget.conf:1: key PreemptNotice: must be a whole number of seconds, got \"1:00\""},
    {"PreemptNotice=-5\n", "budget.conf:1: key PreemptNotice: must be a whole number of seconds, got \"-5\""},
    {"UnknownAccount=maybe\n", "budget.conf:1: key UnknownAccount: must be reject or unallocated, got \"maybe\""},
    {"UnknownAccount=rej\n", "budget.conf:1: key UnknownAccount: must be reject or unallocated"},
    // Empty: Trim gives a view with a null data(), once passed to strncasecmp
    // (undefined behaviour that -fsanitize=undefined stops at).
    {"UnknownAccount=\n", "budget.conf:1: key UnknownAccount: must be reject or unallocated, got \"\""},
    {"UnknownAccount=   \n", "budget.conf:1: key UnknownAccount: must be reject or unallocated, got \"\""},
    {"LookbackWindow=10:00\nLedgerBucket=1:00:00\n",
     "budget.conf: LedgerBucket (01:00:00) is longer than LookbackWindow (00:10:00)"},
    {"ReportDir=shared/reports\n", "budget.conf:1: key ReportDir: must be an absolute directory"},
    {"ReportDir=\n", "budget.conf:1: key ReportDir: must be an absolute directory"},
    {"QuickStartGpus=-1\n", "budget.conf:1: key QuickStartGpus: must be a whole number of GPUs, got \"-1\""},
    {"QuickStartGpus=2000\n", "budget.conf:1: key QuickStartGpus: must be between 0 and 1024"},
    {"QuickStartReserveNodes=two\n",
     "budget.conf:1: key QuickStartReserveNodes: must be a whole number of nodes, got \"two\""},
    {"QuickStartMinRuntime=soon\n", "budget.conf:1: key QuickStartMinRuntime: invalid time \"soon\""},
    {"HeroMinNodes=0\n", "budget.conf:1: key HeroMinNodes: must be at least 1 node"},
    {"DefaultContractNotice=off\n", "budget.conf:1: key DefaultContractNotice: must be yes or no, got \"off\""},
    {"DefaultContractNotice=\n", "budget.conf:1: key DefaultContractNotice: must be yes or no, got \"\""},
    {"TimeSlicing=requeue\n", "budget.conf:1: key TimeSlicing: must be yes or no, got \"requeue\""},
    {"TimeSlicing=yes\nTimeSlicing=no\n", "budget.conf:2: key TimeSlicing is already set on line 1"},
    {"HeroMinNodes=x\n", "budget.conf:1: key HeroMinNodes: must be a whole number of nodes, 1 .. 1024, got \"x\""},
    {"GpuTypeWeights=b200:two\n", "budget.conf:1: key GpuTypeWeights: entry \"b200:two\": the weight must be a decimal number"},
    {"MaxMinRuntime=1:00:00\nDefaultMinRuntime=2:00:00\n",
     "budget.conf: DefaultMinRuntime (02:00:00) is longer than MaxMinRuntime (01:00:00)"},
};

void test_each_error_names_file_line_and_key(void**) {
  for (const BadCase& c : kBad) {
    BudgetConfig out;
    out.budget_tree = "untouched";
    budget::Status st = ParseBudgetConfig(c.text, "budget.conf", &out);
    if (st.ok()) fail_msg("accepted: %s", c.text);
    if (st.message().find(c.expected) == std::string::npos) {
      fail_msg("message \"%s\" lacks \"%s\"", st.message().c_str(), c.expected);
    }
    assert_string_equal(out.budget_tree.c_str(), "untouched");
  }
}

void test_missing_file_gives_defaults(void**) {
  BudgetConfig c;
  c.max_min_runtime = 1;
  bool missing = false;
  assert_true(budget::LoadBudgetConfig("/nonexistent/dir/budget.conf", &c, &missing).ok());
  assert_true(missing);
  assert_int_equal(c.max_min_runtime, 28800);
}

void test_loads_a_file(void**) {
  char path[] = "/tmp/budget_conf_testXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char text[] = "MaxMinRuntime=2:00:00\nFrobnicate=1\n";
  assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fd);
  BudgetConfig c;
  bool missing = true;
  budget::Status st = budget::LoadBudgetConfig(path, &c, &missing);
  unlink(path);
  assert_false(missing);
  // The error names this very file and line 2.
  assert_false(st.ok());
  assert_true(st.message().find(std::string(path) + ":2: unknown key \"Frobnicate\"") != std::string::npos);
}

// The example shipped in etc/ must stay valid and spell out the defaults.
void test_shipped_example_is_valid(void**) {
  BudgetConfig c;
  bool missing = true;
  budget::Status st = budget::LoadBudgetConfig(TOP_SRCDIR "/etc/budget.conf.example", &c, &missing);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  assert_false(missing);
  assert_string_equal(c.budget_tree.c_str(), "/etc/slurm/budget-tree.json");
  // Every other key in the example is at its default value.
  BudgetConfig d;
  assert_int_equal(c.lookback_window, d.lookback_window);
  assert_int_equal(c.ledger_bucket, d.ledger_bucket);
  assert_int_equal(c.budget_refresh, d.budget_refresh);
  assert_int_equal(c.tree_connect_timeout, d.tree_connect_timeout);
  assert_int_equal(c.tree_fetch_timeout, d.tree_fetch_timeout);
  assert_int_equal(c.recalc_interval, d.recalc_interval);
  assert_int_equal(c.max_min_runtime, d.max_min_runtime);
  assert_int_equal(c.default_min_runtime, d.default_min_runtime);
  assert_int_equal(c.timeslice_interval, d.timeslice_interval);
  assert_int_equal(c.preempt_notice, d.preempt_notice);
  assert_int_equal(c.hero_wait, d.hero_wait);
  assert_int_equal(c.hero_min_nodes, d.hero_min_nodes);
  assert_int_equal(c.quick_start_gpus, d.quick_start_gpus);
  assert_int_equal(c.quick_start_min_runtime, d.quick_start_min_runtime);
  assert_int_equal(c.quick_start_user_gpus, d.quick_start_user_gpus);
  assert_int_equal(c.quick_start_reserve_nodes, d.quick_start_reserve_nodes);
  assert_true(c.gpu_type_weights == d.gpu_type_weights);  // commented out: no weights
  assert_int_equal(c.default_contract_notice, d.default_contract_notice);
}

void test_path_beside_slurm_conf(void**) {
  assert_string_equal(budget::BudgetConfigPathBeside("/etc/slurm/slurm.conf").c_str(), "/etc/slurm/budget.conf");
  assert_string_equal(budget::BudgetConfigPathBeside("slurm.conf").c_str(), "budget.conf");
}

void test_a_relative_tree_is_beside_budget_conf(void**) {
  auto tree_of = [](const char* file, const char* line) {
    BudgetConfig c;
    assert_true(budget::ParseBudgetConfig(line, file, &c).ok());
    return c.budget_tree;
  };
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=budget-tree.json").c_str(),
                      "/etc/slurm/budget-tree.json");
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=trees/a.json").c_str(),
                      "/etc/slurm/trees/a.json");
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=/srv/tree.json").c_str(), "/srv/tree.json");
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=https://b.example/t.json").c_str(),
                      "https://b.example/t.json");
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=file:///srv/t.json").c_str(),
                      "file:///srv/t.json");
  assert_string_equal(tree_of("budget.conf", "BudgetTree=t.json").c_str(), "t.json");
  // slurmdbd's associations, not a file beside budget.conf; a file of that
  // name is ./slurmdbd.
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=slurmdbd").c_str(), "slurmdbd");
  assert_string_equal(tree_of("/etc/slurm/budget.conf", "BudgetTree=./slurmdbd").c_str(), "/etc/slurm/./slurmdbd");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_when_empty),
      cmocka_unit_test(test_reads_every_key_case_insensitively),
      cmocka_unit_test(test_time_slicing_no),
      cmocka_unit_test(test_each_error_names_file_line_and_key),
      cmocka_unit_test(test_missing_file_gives_defaults),
      cmocka_unit_test(test_loads_a_file),
      cmocka_unit_test(test_shipped_example_is_valid),
      cmocka_unit_test(test_path_beside_slurm_conf),
      cmocka_unit_test(test_a_relative_tree_is_beside_budget_conf),
  };
  return cmocka_run_group_tests_name("config", tests, nullptr, nullptr);
}
