// Test-only: the ledgers the ledger file tests save and load (a sample of
// every series, a sentinel that proves a failed load changed nothing), their
// checks, and the temporary files they write. Included by
// ledger_file_test.cc and ledger_file_save_test.cc.
#ifndef SLURM_BUDGET_LIBBUDGET_STATE_LEDGER_FILE_TEST_SAMPLES_H_
#define SLURM_BUDGET_LIBBUDGET_STATE_LEDGER_FILE_TEST_SAMPLES_H_

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"
// Last: it includes CMocka, whose fail() macro would break <ios>.
#include "libbudget/testing/test_files.h"

namespace {

using budget::Ledger;
using Series = budget::Ledger::Series;

// window 3600 s, allocated buckets 300 s (12), report buckets 900 s (4).
Ledger::Options SmallOptions() { return Ledger::Options{3600, 300, 900}; }

void AssertNear(double expected, double actual) {
  if (std::fabs(expected - actual) > 1e-6 * std::max(1.0, std::fabs(expected))) {
    fail_msg("expected %.9g, got %.9g", expected, actual);
  }
}

// --- the temporary files -------------------------------------------

using budget::testing::ReadWholeFile;
using budget::testing::WriteWholeFile;

std::string MakeTempDir() { return budget::testing::MakeTempDir("ledger_file_test"); }

bool Exists(const std::string& file) {
  struct stat st;
  return ::stat(file.c_str(), &st) == 0;
}

void RemoveTree(const std::string& dir) {
  std::string command = "rm -rf '" + dir + "'";
  assert_int_equal(0, std::system(command.c_str()));
}

// --- the sample ledgers -------------------------------------------

// The ledger most tests save: two paths, all series, two job cursors.
Ledger SampleLedger() {
  Ledger ledger(SmallOptions());
  // llm/pretrain allocated: 2 GPUs on [3000, 3600) = 600 in each of
  // buckets 10 and 11.
  ledger.Charge("llm/pretrain", Series::kAllocated, 3000, 3600, 2.0);
  // llm/pretrain demand: 3 GPUs on [0, 1800) = 2700 in report buckets 0, 1.
  ledger.Charge("llm/pretrain", Series::kDemand, 0, 1800, 3.0);
  // robotics unallocated: 0.5 GPU on [900, 1000) = 50 in report bucket 1.
  ledger.Charge("robotics", Series::kUnallocated, 900, 1000, 0.5);
  ledger.SetChargedUntil(42, 3600);
  ledger.SetChargedUntil(7, 1800);
  return ledger;
}

// A ledger holding one recognisable value, to prove a failed load left it
// untouched: 1 GPU x 300 s on "sentinel".
Ledger SentinelLedger() {
  Ledger ledger(SmallOptions());
  ledger.Charge("sentinel", Series::kAllocated, 0, 300, 1.0);
  ledger.SetChargedUntil(99, 300);
  return ledger;
}

void AssertIsSentinel(Ledger& ledger) {
  assert_int_equal(1, ledger.path_count());
  AssertNear(300, ledger.WindowUsage("sentinel", Series::kAllocated, 300));
  assert_int_equal(300, ledger.ChargedUntil(99));
}

void AssertIsSample(Ledger& ledger) {
  assert_int_equal(2, ledger.path_count());
  // 600 + 600 = 1200
  AssertNear(1200, ledger.WindowUsage("llm/pretrain", Series::kAllocated, 3599));
  // 2700 + 2700 = 5400
  AssertNear(5400, ledger.WindowUsage("llm/pretrain", Series::kDemand, 3599));
  AssertNear(0, ledger.WindowUsage("llm/pretrain", Series::kUnallocated, 3599));
  AssertNear(50, ledger.WindowUsage("robotics", Series::kUnallocated, 3599));
  assert_int_equal(3600, ledger.ChargedUntil(42));
  assert_int_equal(1800, ledger.ChargedUntil(7));
  assert_int_equal(2, ledger.job_count());
}

// --- what the tests call --------------------------------------------

using budget::DecodeLedger;
using budget::EncodeLedger;
using budget::LoadLedger;
using budget::SaveLedger;
using budget::Status;

}  // namespace

#endif  // SLURM_BUDGET_LIBBUDGET_STATE_LEDGER_FILE_TEST_SAMPLES_H_
