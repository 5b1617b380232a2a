// Tests of the plugins' shared plumbing: which budget.conf a plugin reads
// (budget_conf_location.h), table-driven, and GuardedCall (guarded_call.h).
// <fstream> first: cmocka's fail() macro breaks the standard headers.
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "libbudget/testing/test_support.h"

#include "plugin_support/budget_conf_location.h"
#include "plugin_support/guarded_call.h"

namespace {

using plugin_support::BudgetConfPath;
using plugin_support::LoadBudgetConf;
using plugin_support::LoadedBudgetConf;

// The one rule, case by case: the daemon's slurm.conf, else $SLURM_CONF,
// else /etc/slurm/slurm.conf; budget.conf beside it.
void TestBudgetConfIsBesideTheDaemonsThenTheEnvironmentsSlurmConf(void**) {
  struct Case {
    const char* daemon;  // slurm_conf.slurm_conf; nullptr: not set
    const char* env;     // $SLURM_CONF; nullptr: unset
    const char* expected;
  } cases[] = {
      {"/opt/slurm/etc/slurm.conf", "/tmp/other/slurm.conf", "/opt/slurm/etc/budget.conf"},
      {"/opt/slurm/etc/slurm.conf", nullptr, "/opt/slurm/etc/budget.conf"},
      {nullptr, "/tmp/other/slurm.conf", "/tmp/other/budget.conf"},
      {"", "/tmp/other/slurm.conf", "/tmp/other/budget.conf"},
      {nullptr, "", "/etc/slurm/budget.conf"},
      {nullptr, nullptr, "/etc/slurm/budget.conf"},
  };
  for (const Case& c : cases) {
    if (c.env) {
      setenv("SLURM_CONF", c.env, 1);
    } else {
      unsetenv("SLURM_CONF");
    }
    const std::string path = BudgetConfPath(c.daemon);
    if (path != c.expected) {
      fail_msg("daemon %s, SLURM_CONF %s: got %s, expected %s", c.daemon ? c.daemon : "(null)",
               c.env ? c.env : "(unset)", path.c_str(), c.expected);
    }
  }
  unsetenv("SLURM_CONF");
}

std::string TempDir() {
  char tmpl[] = "/tmp/plugin_support_test.XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) fail_msg("mkdtemp failed");
  return dir;
}

// A missing file gives the defaults and says so; a bad one names file, line
// and key and keeps the path; a good one is read.
void TestLoadBudgetConfReadsTheFileBesideSlurmConf(void**) {
  const std::string dir = TempDir();
  const std::string slurm_conf = dir + "/slurm.conf";
  const std::string budget_conf = dir + "/budget.conf";

  LoadedBudgetConf loaded;
  budget::Status st = LoadBudgetConf(slurm_conf.c_str(), &loaded);
  assert_true(st.ok());
  assert_true(loaded.missing);
  assert_string_equal(loaded.path.c_str(), budget_conf.c_str());

  std::ofstream(budget_conf) << "RecalcInterval=45\n";
  st = LoadBudgetConf(slurm_conf.c_str(), &loaded);
  assert_true(st.ok());
  assert_false(loaded.missing);
  assert_int_equal(loaded.config.recalc_interval, 45);

  std::ofstream(budget_conf) << "RecalcInterval=45\nNoSuchKey=1\n";
  LoadedBudgetConf bad;
  st = LoadBudgetConf(slurm_conf.c_str(), &bad);
  assert_false(st.ok());
  // "<file>:2: ... NoSuchKey ..."
  assert_non_null(strstr(st.message().c_str(), (budget_conf + ":2").c_str()));
  assert_non_null(strstr(st.message().c_str(), "NoSuchKey"));
  assert_string_equal(bad.path.c_str(), budget_conf.c_str());

  unlink(budget_conf.c_str());
  rmdir(dir.c_str());
}

// With a state directory: a good file is kept as the last good one; a bad
// one at a reconfigure falls back to it (and says so), at a real start it
// is the error; the plugin's own check refuses like a bad file.
void TestLoadBudgetConfFallsBackToTheLastGoodAtAReconfigure(void**) {
  const std::string dir = TempDir();
  const std::string slurm_conf = dir + "/slurm.conf";
  const std::string budget_conf = dir + "/budget.conf";
  plugin_support::LoadOptions options;
  options.state_dir = dir;

  std::ofstream(budget_conf) << "RecalcInterval=45\n";
  LoadedBudgetConf loaded;
  assert_true(LoadBudgetConf(slurm_conf.c_str(), options, &loaded).ok());
  assert_int_equal(loaded.config.recalc_interval, 45);
  assert_true(loaded.fallback.empty());

  std::ofstream(budget_conf) << "RecalcInterval=oops\n";
  LoadedBudgetConf start;
  assert_false(LoadBudgetConf(slurm_conf.c_str(), options, &start).ok());  // a real start: the error
  options.reconfiguring = true;
  LoadedBudgetConf reconf;
  assert_true(LoadBudgetConf(slurm_conf.c_str(), options, &reconf).ok());
  assert_int_equal(reconf.config.recalc_interval, 45);
  assert_non_null(strstr(reconf.fallback.c_str(), "RecalcInterval"));

  // The plugin's check refuses a file that parses; there is no last good
  // one it accepts either (the saved one fails it too).
  std::ofstream(budget_conf) << "RecalcInterval=60\n";
  options.check = [](const budget::BudgetConfig& c, bool) {
    return c.budget_tree.empty() ? budget::Status::InvalidArgument("BudgetTree is not set")
                                 : budget::Status::Ok();
  };
  LoadedBudgetConf checked;
  budget::Status st = LoadBudgetConf(slurm_conf.c_str(), options, &checked);
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "BudgetTree is not set"));

  unlink(budget_conf.c_str());
  unlink((dir + "/" + budget::kLastGoodBudgetConfigFile).c_str());
  rmdir(dir.c_str());
}

// Nothing escapes GuardedCall: a std::exception is reported by its what(),
// anything else as "unknown exception", and on_error is returned.
void TestGuardedCallReportsAndReturnsOnError(void**) {
  std::string reported;
  auto report = [&reported](const char* text) { reported = text; };
  assert_int_equal(plugin_support::GuardedCall(-1, [] { return 7; }, report), 7);
  assert_true(reported.empty());
  assert_int_equal(plugin_support::GuardedCall(-1, []() -> int { throw std::runtime_error("boom"); }, report), -1);
  assert_string_equal(reported.c_str(), "boom");
  assert_int_equal(plugin_support::GuardedCall(-1, []() -> int { throw 42; }, report), -1);
  assert_string_equal(reported.c_str(), "unknown exception");
  reported.clear();
  plugin_support::GuardedRun([] { throw std::logic_error("void body"); }, report);
  assert_string_equal(reported.c_str(), "void body");
}

struct FakeThread {
  int* stops;
  void Stop() { ++*stops; }
};

void TestStopAndResetStopsOnceAndToleratesNone(void**) {
  int stops = 0;
  auto thread = std::make_unique<FakeThread>(FakeThread{&stops});
  plugin_support::StopAndReset(&thread);
  assert_int_equal(stops, 1);
  assert_null(thread.get());
  plugin_support::StopAndReset(&thread);  // none: nothing to stop
  assert_int_equal(stops, 1);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestBudgetConfIsBesideTheDaemonsThenTheEnvironmentsSlurmConf),
      cmocka_unit_test(TestLoadBudgetConfReadsTheFileBesideSlurmConf),
      cmocka_unit_test(TestLoadBudgetConfFallsBackToTheLastGoodAtAReconfigure),
      cmocka_unit_test(TestGuardedCallReportsAndReturnsOnError),
      cmocka_unit_test(TestStopAndResetStopsOnceAndToleratesNone),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
