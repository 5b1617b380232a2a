// A ledger for the core's unit tests: a one-hour window of 5-minute
// buckets, reported in 15-minute ones.
#ifndef SLURM_BUDGET_LIBBUDGET_TEST_LEDGERS_H_
#define SLURM_BUDGET_LIBBUDGET_TEST_LEDGERS_H_

#include "libbudget/state/ledger.h"

namespace budget {
namespace testing {

inline Ledger SmallLedger() {
  Ledger::Options o;
  o.window = 3600;
  o.bucket_width = 300;
  o.report_bucket_width = 900;
  return Ledger(o);
}

}  // namespace testing
}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TEST_LEDGERS_H_
