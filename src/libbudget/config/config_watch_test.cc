// Tests of BudgetConfigWatch (config_watch.h): budget.conf re-read when it
// changes, refused when the new version is bad.
#include "libbudget/testing/test_support.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "libbudget/config/config_watch.h"

using budget::BudgetConfig;
using budget::BudgetConfigWatch;

namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/config_watch_test.XXXXXX";
  assert_non_null(mkdtemp(tmpl));
  return tmpl;
}

// Writes `text` and sets the file's mtime to `mtime` s since the epoch, so
// that two writes within one clock tick still differ.
void Write(const std::string& path, const std::string& text, time_t mtime) {
  FILE* f = std::fopen(path.c_str(), "w");
  assert_non_null(f);
  std::fputs(text.c_str(), f);
  std::fclose(f);
  struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
  assert_int_equal(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

void test_an_unchanged_file_is_not_read_again(void**) {
  std::string dir = TempDir(), path = dir + "/budget.conf";
  Write(path, "MaxMinRuntime=8:00:00\n", 1000);
  BudgetConfigWatch watch(path);
  BudgetConfig config;
  bool missing = true;
  assert_true(watch.Load(&config, &missing).ok());
  assert_false(missing);
  assert_int_equal(config.max_min_runtime, 28800);
  budget::Status why;
  config.max_min_runtime = 1;  // a Refresh that reads nothing leaves it
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kNone);
  assert_int_equal(config.max_min_runtime, 1);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

void test_an_edit_is_picked_up_at_the_next_refresh(void**) {
  std::string dir = TempDir(), path = dir + "/budget.conf";
  Write(path, "MaxMinRuntime=8:00:00\nUnknownAccount=reject\n", 1000);
  BudgetConfigWatch watch(path);
  BudgetConfig config;
  bool missing = false;
  assert_true(watch.Load(&config, &missing).ok());
  // Same size, new mtime: 1:00:00 = 3600 s.
  Write(path, "MaxMinRuntime=1:00:00\nUnknownAccount=unallocated\n", 1001);
  budget::Status why;
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kReloaded);
  assert_int_equal(config.max_min_runtime, 3600);
  assert_true(config.unknown_account == budget::UnknownAccountPolicy::kUnallocated);
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kNone);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

void test_a_bad_edit_is_refused_once_and_keeps_the_settings(void**) {
  std::string dir = TempDir(), path = dir + "/budget.conf";
  Write(path, "MaxMinRuntime=2:00:00\n", 1000);
  BudgetConfigWatch watch(path);
  BudgetConfig config;
  bool missing = false;
  assert_true(watch.Load(&config, &missing).ok());
  Write(path, "# typo\nMaxMinRuntme=1:00:00\n", 1001);
  budget::Status why;
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kRefused);
  const std::string expected = path + ":2: unknown key \"MaxMinRuntme\"";
  if (why.message().find(expected) == std::string::npos) {
    fail_msg("message \"%s\" lacks \"%s\"", why.message().c_str(), expected.c_str());
  }
  assert_int_equal(config.max_min_runtime, 7200);  // 2:00:00 kept
  // Not reported again until the file changes.
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kNone);
  Write(path, "MaxMinRuntime=1:00:00\n", 1002);
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kReloaded);
  assert_int_equal(config.max_min_runtime, 3600);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

void test_a_removed_file_means_the_defaults(void**) {
  std::string dir = TempDir(), path = dir + "/budget.conf";
  Write(path, "MaxMinRuntime=1:00:00\n", 1000);
  BudgetConfigWatch watch(path);
  BudgetConfig config;
  bool missing = false;
  assert_true(watch.Load(&config, &missing).ok());
  unlink(path.c_str());
  budget::Status why;
  assert_true(watch.Refresh(&config, &missing, &why) == BudgetConfigWatch::Change::kReloaded);
  assert_true(missing);
  assert_int_equal(config.max_min_runtime, 28800);  // the default, 8 h
  rmdir(dir.c_str());
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_an_unchanged_file_is_not_read_again),
      cmocka_unit_test(test_an_edit_is_picked_up_at_the_next_refresh),
      cmocka_unit_test(test_a_bad_edit_is_refused_once_and_keeps_the_settings),
      cmocka_unit_test(test_a_removed_file_means_the_defaults),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
