// Tests of the ledger generations: rotation at save, fallback to file.1 when
// the newest is damaged or missing, both damaged, stale temp files, and the
// time lost that the log reports.
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"
#include "libbudget/state/ledger_generations.h"
// Last: cmocka defines a fail() macro that would break <ios>.
#include "libbudget/testing/test_support.h"

using budget::Ledger;
using budget::LedgerLoadReport;
using budget::LoadNewestGoodLedger;
using budget::SaveLedgerGeneration;
using Outcome = budget::LedgerLoadReport::Outcome;
using Series = budget::Ledger::Series;

namespace {

Ledger::Options SmallOptions() { return Ledger::Options{3600, 300, 900}; }

// A ledger told apart by one number: `gpu_seconds` on "team" in bucket 0.
Ledger LedgerWith(double gpu_seconds) {
  Ledger ledger(SmallOptions());
  ledger.Charge("team", Series::kAllocated, 0, 300, gpu_seconds / 300);
  ledger.SetChargedUntil(1, 300);
  return ledger;
}

double TeamUsage(Ledger& ledger) { return ledger.WindowUsage("team", Series::kAllocated, 299); }

void AssertNear(double expected, double actual) {
  if (std::fabs(expected - actual) > 1e-3) fail_msg("expected %.6g, got %.6g", expected, actual);
}

struct Dir {
  std::string path;
  Dir() {
    char dir[] = "/tmp/ledger_generations_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    path = dir;
  }
  ~Dir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string File(const std::string& name) const { return path + "/" + name; }
};

bool Exists(const std::string& file) {
  struct stat st;
  return ::stat(file.c_str(), &st) == 0;
}

std::string ReadFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
  assert_true(out.good());
}

void SetMtime(const std::string& file, time_t t) {
  struct timeval times[2] = {{t, 0}, {t, 0}};
  assert_int_equal(0, utimes(file.c_str(), times));
}

void FlipByte(const std::string& file, size_t offset) {
  std::string bytes = ReadFile(file);
  assert_true(offset < bytes.size());
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x40);
  WriteFile(file, bytes);
}

// Saves generations worth 100 then 200 GPU-s: file.1 holds 100, file 200.
void SaveTwo(const std::string& file) {
  assert_true(SaveLedgerGeneration(LedgerWith(100), file).ok());
  assert_true(SaveLedgerGeneration(LedgerWith(200), file).ok());
}

void TestSaveRotatesTheNewestToPrevious(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  assert_true(SaveLedgerGeneration(LedgerWith(100), file).ok());
  // A first save: no previous generation yet.
  assert_false(Exists(file + ".1"));
  SaveTwo(file);  // 100 (again), then 200
  Ledger loaded(SmallOptions());
  assert_true(budget::LoadLedger(file, &loaded).ok());
  AssertNear(200, TeamUsage(loaded));
  assert_true(budget::LoadLedger(file + ".1", &loaded).ok());
  AssertNear(100, TeamUsage(loaded));
  assert_false(Exists(file + ".tmp"));
  assert_false(Exists(file + ".1.tmp"));
}

void TestGoodNewestIsLoaded(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  Ledger loaded(SmallOptions());
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(file, 5000, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kNewest), static_cast<int>(report.outcome));
  assert_string_equal(file.c_str(), report.loaded_file.c_str());
  AssertNear(200, TeamUsage(loaded));
  assert_true(report.set_aside.empty());
  assert_true(report.problems.empty());
}

// The damage a crash or a failing disk leaves: one flipped byte, or a
// truncation.
void AssertFallsBackFromDamagedNewest(void (*damage)(const std::string&)) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  damage(file);
  // Saved at 1000 (.1) and 1030 (newest): 30 s of usage lost.
  SetMtime(file + ".1", 1000);
  SetMtime(file, 1030);
  Ledger loaded(SmallOptions());
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(file, 5000, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kPrevious), static_cast<int>(report.outcome));
  assert_string_equal((file + ".1").c_str(), report.loaded_file.c_str());
  AssertNear(100, TeamUsage(loaded));
  assert_int_equal(1000, report.loaded_saved_at);
  assert_int_equal(30, report.time_lost);
  assert_int_equal(1, report.problems.size());
  // The damaged newest is kept aside, never loaded or rotated again.
  assert_false(Exists(file));
  assert_true(Exists(file + ".corrupt.5000"));
  assert_int_equal(1, report.set_aside.size());
  // The next save writes a new newest and keeps the good .1.
  assert_true(SaveLedgerGeneration(LedgerWith(300), file).ok());
  assert_true(budget::LoadLedger(file + ".1", &loaded).ok());
  AssertNear(100, TeamUsage(loaded));
  assert_true(budget::LoadLedger(file, &loaded).ok());
  AssertNear(300, TeamUsage(loaded));
}

void TestByteFlipInNewestFallsBackToPrevious(void**) {
  AssertFallsBackFromDamagedNewest([](const std::string& file) { FlipByte(file, 40); });
}

void TestTruncatedNewestFallsBackToPrevious(void**) {
  AssertFallsBackFromDamagedNewest([](const std::string& file) { assert_int_equal(0, truncate(file.c_str(), 25)); });
}

// A crash inside a rotation on a file system without hard links: only
// file.1 exists. It is loaded; the time lost runs up to now.
void TestMissingNewestFallsBackToPrevious(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  assert_int_equal(0, unlink(file.c_str()));
  SetMtime(file + ".1", 1000);
  Ledger loaded(SmallOptions());
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(file, 1045, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kPrevious), static_cast<int>(report.outcome));
  AssertNear(100, TeamUsage(loaded));
  // 1045 - 1000
  assert_int_equal(45, report.time_lost);
  assert_true(report.set_aside.empty());
}

void TestBothDamagedStartsEmptyAndKeepsBothAside(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  FlipByte(file, 40);
  FlipByte(file + ".1", 40);
  Ledger loaded = LedgerWith(7);  // proves *out is untouched
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(file, 5000, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kNothingGood), static_cast<int>(report.outcome));
  AssertNear(7, TeamUsage(loaded));
  assert_int_equal(2, report.problems.size());
  // Each message names its file.
  assert_non_null(strstr(report.problems[0].c_str(), file.c_str()));
  assert_non_null(strstr(report.problems[1].c_str(), (file + ".1").c_str()));
  assert_int_equal(2, report.set_aside.size());
  assert_true(Exists(file + ".corrupt.5000"));
  assert_true(Exists(file + ".1.corrupt.5000"));
  assert_false(Exists(file));
  assert_false(Exists(file + ".1"));
}

void TestNoFileIsAFirstStart(void**) {
  Dir dir;
  Ledger loaded(SmallOptions());
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(dir.File("ledger"), 5000, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kNoFile), static_cast<int>(report.outcome));
  assert_true(report.problems.empty());
}

void TestStaleTempFilesAreRemoved(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  // A kill during a save (step 1) and during a rotation (step 2).
  WriteFile(file + ".tmp", "SBLEDGER half");
  WriteFile(file + ".1.tmp", "SBLEDGER");
  Ledger loaded(SmallOptions());
  LedgerLoadReport report;
  assert_true(LoadNewestGoodLedger(file, 5000, &loaded, &report).ok());
  assert_int_equal(static_cast<int>(Outcome::kNewest), static_cast<int>(report.outcome));
  AssertNear(200, TeamUsage(loaded));
  assert_int_equal(2, report.removed_tmp.size());
  assert_false(Exists(file + ".tmp"));
  assert_false(Exists(file + ".1.tmp"));
}

// A save that failed after its rotation leaves file and file.1 as one
// inode; the next save must still rotate cleanly and leave no file.1.tmp.
void TestSaveAfterAnInterruptedRotation(void**) {
  Dir dir;
  const std::string file = dir.File("ledger");
  SaveTwo(file);
  assert_int_equal(0, unlink((file + ".1").c_str()));
  assert_int_equal(0, link(file.c_str(), (file + ".1").c_str()));
  assert_true(SaveLedgerGeneration(LedgerWith(300), file).ok());
  assert_false(Exists(file + ".1.tmp"));
  Ledger loaded(SmallOptions());
  assert_true(budget::LoadLedger(file + ".1", &loaded).ok());
  AssertNear(200, TeamUsage(loaded));
  assert_true(budget::LoadLedger(file, &loaded).ok());
  AssertNear(300, TeamUsage(loaded));
}

void TestSaveIntoAMissingDirectoryFails(void**) {
  Dir dir;
  budget::Status st = SaveLedgerGeneration(LedgerWith(1), dir.File("none/ledger"));
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "none/ledger.tmp"));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestSaveRotatesTheNewestToPrevious),
      cmocka_unit_test(TestGoodNewestIsLoaded),
      cmocka_unit_test(TestByteFlipInNewestFallsBackToPrevious),
      cmocka_unit_test(TestTruncatedNewestFallsBackToPrevious),
      cmocka_unit_test(TestMissingNewestFallsBackToPrevious),
      cmocka_unit_test(TestBothDamagedStartsEmptyAndKeepsBothAside),
      cmocka_unit_test(TestNoFileIsAFirstStart),
      cmocka_unit_test(TestStaleTempFilesAreRemoved),
      cmocka_unit_test(TestSaveAfterAnInterruptedRotation),
      cmocka_unit_test(TestSaveIntoAMissingDirectoryFails),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
