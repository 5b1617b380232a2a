// Tests of BudgetConfigWatch (config_watch.h): budget.conf re-read when it
// changes, refused when the new version is bad.
#include "libbudget/testing/test_files.h"

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

using Change = BudgetConfigWatch::Change;

// budget.conf in a fresh directory, first written with `text` at mtime
// 1000, and its watch; the file and the directory go when the case ends.
struct WatchedFile {
  explicit WatchedFile(const std::string& text) : dir(budget::testing::MakeTempDir("config_watch_test")), path(dir + "/budget.conf"), watch(path) {
    Write(path, text, 1000);
  }
  ~WatchedFile() {
    unlink(path.c_str());
    rmdir(dir.c_str());
  }
  budget::Status Load() { return watch.Load(&config, &missing); }
  Change Refresh() { return watch.Refresh(&config, &missing, &why); }

  const std::string dir;
  const std::string path;
  BudgetConfigWatch watch;
  BudgetConfig config;
  bool missing = false;
  budget::Status why;
};

void test_an_unchanged_file_is_not_read_again(void**) {
  WatchedFile f("MaxMinRuntime=8:00:00\n");
  f.missing = true;
  assert_true(f.Load().ok());
  assert_false(f.missing);
  assert_int_equal(f.config.max_min_runtime, 28800);
  f.config.max_min_runtime = 1;  // a Refresh that reads nothing leaves it
  assert_true(f.Refresh() == Change::kNone);
  assert_int_equal(f.config.max_min_runtime, 1);
}

void test_an_edit_is_picked_up_at_the_next_refresh(void**) {
  WatchedFile f("MaxMinRuntime=8:00:00\nUnknownAccount=reject\n");
  assert_true(f.Load().ok());
  // Same size, new mtime: 1:00:00 = 3600 s.
  Write(f.path, "MaxMinRuntime=1:00:00\nUnknownAccount=unallocated\n", 1001);
  assert_true(f.Refresh() == Change::kReloaded);
  assert_int_equal(f.config.max_min_runtime, 3600);
  assert_true(f.config.unknown_account == budget::UnknownAccountPolicy::kUnallocated);
  assert_true(f.Refresh() == Change::kNone);
}

void test_a_bad_edit_is_refused_once_and_keeps_the_settings(void**) {
  WatchedFile f("MaxMinRuntime=2:00:00\n");
  assert_true(f.Load().ok());
  Write(f.path, "# typo\nMaxMinRuntme=1:00:00\n", 1001);
  assert_true(f.Refresh() == Change::kRefused);
  const std::string expected = f.path + ":2: unknown key \"MaxMinRuntme\"";
  if (f.why.message().find(expected) == std::string::npos) {
    fail_msg("message \"%s\" lacks \"%s\"", f.why.message().c_str(), expected.c_str());
  }
  assert_int_equal(f.config.max_min_runtime, 7200);  // 2:00:00 kept
  // Not reported again until the file changes.
  assert_true(f.Refresh() == Change::kNone);
  Write(f.path, "MaxMinRuntime=1:00:00\n", 1002);
  assert_true(f.Refresh() == Change::kReloaded);
  assert_int_equal(f.config.max_min_runtime, 3600);
}

void test_a_removed_file_means_the_defaults(void**) {
  WatchedFile f("MaxMinRuntime=1:00:00\n");
  assert_true(f.Load().ok());
  unlink(f.path.c_str());
  assert_true(f.Refresh() == Change::kReloaded);
  assert_true(f.missing);
  assert_int_equal(f.config.max_min_runtime, 28800);  // the default, 8 h
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
