// Tests of saving and reloading the ledger file: a restart charges nothing
// twice, a failed save keeps the good file and leaves no temporary behind,
// and a file saved with other options loads into the ledger's own. The
// file's bytes and its damage: ledger_file_test.cc.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "libbudget/state/ledger_file_test_samples.h"

namespace {

void TestLoadWithCoarserBuckets(void**) {
  const std::string bytes = EncodeLedger(SampleLedger());
  // Now 600 s allocated buckets, 1800 s report buckets, same window.
  Ledger ledger(Ledger::Options{3600, 600, 1800});
  assert_true(DecodeLedger(bytes, "f", &ledger).ok());
  assert_int_equal(600, ledger.options().bucket_width);
  // Old buckets 10, 11 ([3000, 3600)) are new bucket 5: 1200.
  AssertNear(1200, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 3599));
  // New bucket 5 starts at 3000, so it leaves at 3000 + 3600 = 6600.
  AssertNear(1200, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 6599));
  AssertNear(0, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 6600));
  // Demand: old report buckets 0, 1 (2700 each) are new report bucket 0.
  Ledger::History h = ledger.SeriesHistory("llm/pretrain", Series::kDemand, 0, 3600);
  assert_int_equal(1800, h.width);
  assert_int_equal(2, h.gpu_seconds.size());
  AssertNear(5400, h.gpu_seconds[0]);
  AssertNear(0, h.gpu_seconds[1]);
  // Cursors survive any rebucketing.
  assert_int_equal(3600, ledger.ChargedUntil(42));
}

void TestLoadWithFinerBuckets(void**) {
  const std::string bytes = EncodeLedger(SampleLedger());
  Ledger ledger(Ledger::Options{3600, 100, 300});
  assert_true(DecodeLedger(bytes, "f", &ledger).ok());
  // Old bucket 10 [3000, 3300) of 600 is spread over new buckets 30..32:
  // 200 each; the total is kept: 600 + 600 = 1200.
  Ledger::History h = ledger.SeriesHistory("llm/pretrain", Series::kAllocated, 3000, 3300);
  assert_int_equal(3, h.gpu_seconds.size());
  AssertNear(200, h.gpu_seconds[0]);
  AssertNear(1200, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 3599));
  // New bucket 30 starts at 3000 and leaves at 6600; 31 at 6700: 1200 - 200.
  AssertNear(1000, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 6600));
}

void TestLoadWithShorterWindowDropsOlderUsage(void**) {
  Ledger saved(SmallOptions());
  // 1 GPU on [0, 3600): 300 in each of buckets 0..11, head 11.
  saved.Charge("a", Series::kAllocated, 0, 3600, 1.0);
  Ledger ledger(Ledger::Options{1800, 300, 900});
  assert_true(DecodeLedger(EncodeLedger(saved), "f", &ledger).ok());
  // A 1800 s window ending at bucket 11 keeps buckets 6..11: 6 x 300.
  AssertNear(1800, ledger.WindowUsage("a", Series::kAllocated, 3599));
  // A longer window keeps everything: 12 x 300 = 3600, and then counts it
  // for the longer time.
  Ledger longer(Ledger::Options{7200, 300, 900});
  assert_true(DecodeLedger(EncodeLedger(saved), "f", &longer).ok());
  AssertNear(3600, longer.WindowUsage("a", Series::kAllocated, 3599));
  // Bucket 0 leaves at 0 + 7200: 3600 - 300 = 3300.
  AssertNear(3600, longer.WindowUsage("a", Series::kAllocated, 7199));
  AssertNear(3300, longer.WindowUsage("a", Series::kAllocated, 7200));
}

void TestRestartDoesNotChargeTwice(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/ledger";
  Ledger before(SmallOptions());
  // Job 5 on 2 GPUs since 0; passes at 600 and 900, save after 900.
  before.ChargeRunningJob(5, "a", Series::kAllocated, 0, 600, 2.0);
  before.ChargeRunningJob(5, "a", Series::kAllocated, 0, 900, 2.0);
  assert_true(SaveLedger(before, file).ok());
  // A pass at 1200 that is never saved (the controller is killed).
  before.ChargeRunningJob(5, "a", Series::kAllocated, 0, 1200, 2.0);

  Ledger after(SmallOptions());
  assert_true(LoadLedger(file, &after).ok());
  // After restart the job is charged from its saved cursor 900 to 1500:
  // 2 x 900 (saved) + 2 x 600 = 3000 = 2 GPUs x 1500 s, no gap, no double.
  after.ChargeRunningJob(5, "a", Series::kAllocated, 0, 1500, 2.0);
  AssertNear(3000, after.WindowUsage("a", Series::kAllocated, 1500));
  RemoveTree(dir);
}

void TestSaveIntoMissingDirectoryFails(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/missing/ledger";
  Status s = SaveLedger(SampleLedger(), file);
  assert_int_equal(static_cast<int>(Status::Code::kIOError), static_cast<int>(s.code()));
  assert_string_equal(("ledger file '" + file +
                       ".tmp': cannot create: No such file or directory").c_str(),
                      s.message().c_str());
  assert_false(Exists(file));
  RemoveTree(dir);
}

void TestFailedSaveKeepsTheGoodFile(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/ledger";
  assert_true(SaveLedger(SampleLedger(), file).ok());
  const std::string good = ReadWholeFile(file);

  // The temp file cannot be created (a directory is in its place, which
  // defeats even root): the save fails, the good file is untouched.
  assert_int_equal(0, ::mkdir((file + ".tmp").c_str(), 0755));
  Status s = SaveLedger(SentinelLedger(), file);
  assert_false(s.ok());
  assert_string_equal(("ledger file '" + file + ".tmp': cannot create: Is a directory").c_str(),
                      s.message().c_str());
  assert_true(good == ReadWholeFile(file));
  Ledger loaded(SmallOptions());
  assert_true(LoadLedger(file, &loaded).ok());
  AssertIsSample(loaded);
  assert_int_equal(0, ::rmdir((file + ".tmp").c_str()));
  RemoveTree(dir);
}

void TestFailedRenameRemovesTheTempFile(void**) {
  std::string dir = MakeTempDir();
  // The target is a non-empty directory: rename(2) refuses to replace it.
  std::string file = dir + "/ledger";
  assert_int_equal(0, ::mkdir(file.c_str(), 0755));
  WriteWholeFile(file + "/keep", "x");
  Status s = SaveLedger(SampleLedger(), file);
  assert_false(s.ok());
  assert_true(s.message().find("ledger file '" + file + "': cannot rename '" + file +
                               ".tmp' over it: ") == 0);
  assert_false(Exists(file + ".tmp"));
  RemoveTree(dir);
}

void TestStaleTempFileFromACrash(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/ledger";
  assert_true(SaveLedger(SampleLedger(), file).ok());
  // A crash mid-save left half a temp file: loading reads the real file...
  WriteWholeFile(file + ".tmp", "SBLEDGER half");
  Ledger loaded(SmallOptions());
  assert_true(LoadLedger(file, &loaded).ok());
  AssertIsSample(loaded);
  // ...and the next save replaces both.
  assert_true(SaveLedger(SentinelLedger(), file).ok());
  assert_false(Exists(file + ".tmp"));
  assert_true(LoadLedger(file, &loaded).ok());
  AssertIsSentinel(loaded);
  RemoveTree(dir);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestLoadWithCoarserBuckets),
      cmocka_unit_test(TestLoadWithFinerBuckets),
      cmocka_unit_test(TestLoadWithShorterWindowDropsOlderUsage),
      cmocka_unit_test(TestRestartDoesNotChargeTwice),
      cmocka_unit_test(TestSaveIntoMissingDirectoryFails),
      cmocka_unit_test(TestFailedSaveKeepsTheGoodFile),
      cmocka_unit_test(TestFailedRenameRemovesTheTempFile),
      cmocka_unit_test(TestStaleTempFileFromACrash),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
