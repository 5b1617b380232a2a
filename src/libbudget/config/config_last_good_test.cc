// Tests of the last good budget.conf (config_last_good.h): saved when the
// file loads, used only at a reconfigure when the file does not.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "libbudget/config/config_last_good.h"
// Last: it includes CMocka, whose fail() macro would break <fstream>.
#include "libbudget/testing/test_files.h"

using budget::BudgetConfig;
using budget::LoadBudgetConfigWithLastGood;
using budget::Status;
using budget::testing::MakeTempDir;
using budget::testing::ReadWholeFile;
using budget::testing::WriteWholeFile;

namespace {

struct Dirs {
  std::string etc = MakeTempDir("config_last_good_test"), state = MakeTempDir("config_last_good_test");
  std::string conf() const { return etc + "/budget.conf"; }
  std::string saved() const { return state + "/" + budget::kLastGoodBudgetConfigFile; }
  ~Dirs() {
    unlink(conf().c_str());
    unlink(saved().c_str());
    rmdir(etc.c_str());
    rmdir(state.c_str());
  }
};

// priority/budget's rule: a tree must be named.
Status NeedsTree(const BudgetConfig& c, bool /*missing*/) {
  return c.budget_tree.empty() ? Status::InvalidArgument("BudgetTree is not set") : Status::Ok();
}

// One call of LoadBudgetConfigWithLastGood on d's files, and what it gave.
// `config` starts as `before`, so that a test can see it left untouched.
struct Loaded {
  Status status;
  BudgetConfig config;
  bool missing = false;
  std::string fallback;
};

enum When { kAtStart = 0, kAtReconfigure = 1 };

Loaded Load(const Dirs& d, When when, const budget::BudgetConfigCheck& check = nullptr,
            const BudgetConfig& before = BudgetConfig()) {
  Loaded l;
  l.config = before;
  l.missing = when == kAtStart;  // the opposite of what a good load reports
  l.status = LoadBudgetConfigWithLastGood(d.conf(), d.state, when == kAtReconfigure, check, &l.config,
                                          &l.missing, &l.fallback);
  return l;
}

// d with a good file loaded once at a start, so that its copy is saved.
void SaveGood(const Dirs& d, const std::string& text = "MaxMinRuntime=2:00:00\n") {
  WriteWholeFile(d.conf(), text);
  assert_true(Load(d, kAtStart).status.ok());
}

void test_a_good_file_is_used_and_kept(void**) {
  Dirs d;
  WriteWholeFile(d.conf(), "MaxMinRuntime=2:00:00\n");
  Loaded l = Load(d, kAtStart);
  assert_true(l.status.ok());
  assert_int_equal(l.config.max_min_runtime, 7200);  // 2 h
  assert_false(l.missing);
  assert_true(l.fallback.empty());
  assert_string_equal(ReadWholeFile(d.saved()).c_str(), "MaxMinRuntime=2:00:00\n");
}

void test_at_a_reconfigure_a_bad_file_falls_back_to_the_last_good(void**) {
  Dirs d;
  SaveGood(d);
  WriteWholeFile(d.conf(), "MaxMinRuntime=2:00:00\nNoSuchKey=1\n");
  Loaded l = Load(d, kAtReconfigure);
  assert_true(l.status.ok());
  assert_int_equal(l.config.max_min_runtime, 7200);
  // The line names the bad file's error and the copy used.
  assert_non_null(std::strstr(l.fallback.c_str(), "NoSuchKey"));
  assert_non_null(std::strstr(l.fallback.c_str(), "using the last good configuration"));
  assert_non_null(std::strstr(l.fallback.c_str(), d.saved().c_str()));
  // The bad text never replaces the saved one.
  assert_string_equal(ReadWholeFile(d.saved()).c_str(), "MaxMinRuntime=2:00:00\n");
}

void test_at_a_start_a_bad_file_is_an_error(void**) {
  Dirs d;
  SaveGood(d);
  WriteWholeFile(d.conf(), "NoSuchKey=1\n");
  BudgetConfig before;
  before.max_min_runtime = 1;
  Loaded l = Load(d, kAtStart, nullptr, before);
  assert_false(l.status.ok());
  assert_non_null(std::strstr(l.status.message().c_str(), "NoSuchKey"));
  assert_int_equal(l.config.max_min_runtime, 1);
  assert_true(l.fallback.empty());
}

void test_without_a_saved_copy_a_reconfigure_reports_the_error(void**) {
  Dirs d;
  WriteWholeFile(d.conf(), "NoSuchKey=1\n");
  Loaded l = Load(d, kAtReconfigure);
  assert_false(l.status.ok());
  assert_true(l.fallback.empty());
}

void test_the_callers_check_counts_as_an_error(void**) {
  Dirs d;
  WriteWholeFile(d.conf(), "BudgetTree=tree.json\n");
  Loaded first = Load(d, kAtStart, NeedsTree);
  assert_true(first.status.ok());
  // A relative tree is beside budget.conf.
  assert_string_equal(first.config.budget_tree.c_str(), (d.etc + "/tree.json").c_str());
  // The file removed: no tree, so the check refuses it; at a reconfigure
  // the saved copy is used, its relative tree still beside budget.conf.
  unlink(d.conf().c_str());
  Loaded again = Load(d, kAtReconfigure, NeedsTree);
  assert_true(again.status.ok());
  assert_string_equal(again.config.budget_tree.c_str(), (d.etc + "/tree.json").c_str());
  assert_non_null(std::strstr(again.fallback.c_str(), "BudgetTree is not set"));
  // At a start it stops.
  assert_false(Load(d, kAtStart, NeedsTree).status.ok());
}

void test_a_missing_file_means_the_defaults_and_keeps_the_copy(void**) {
  Dirs d;
  SaveGood(d);
  unlink(d.conf().c_str());
  BudgetConfig before;
  before.max_min_runtime = 7200;  // what the saved copy gave
  Loaded l = Load(d, kAtReconfigure, nullptr, before);
  assert_true(l.status.ok());
  assert_true(l.missing);
  assert_int_equal(l.config.max_min_runtime, 28800);  // the default, 8 h
  assert_true(l.fallback.empty());
  assert_string_equal(ReadWholeFile(d.saved()).c_str(), "MaxMinRuntime=2:00:00\n");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_good_file_is_used_and_kept),
      cmocka_unit_test(test_at_a_reconfigure_a_bad_file_falls_back_to_the_last_good),
      cmocka_unit_test(test_at_a_start_a_bad_file_is_an_error),
      cmocka_unit_test(test_without_a_saved_copy_a_reconfigure_reports_the_error),
      cmocka_unit_test(test_the_callers_check_counts_as_an_error),
      cmocka_unit_test(test_a_missing_file_means_the_defaults_and_keeps_the_copy),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
