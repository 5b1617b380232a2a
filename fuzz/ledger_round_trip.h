// The property both ledger targets check after a successful decode: what
// EncodeLedger writes DecodeLedger reads back to the same ledger (compared
// by re-encoding, which is deterministic).
#ifndef SLURM_BUDGET_FUZZ_LEDGER_ROUND_TRIP_H_
#define SLURM_BUDGET_FUZZ_LEDGER_ROUND_TRIP_H_

#include <string>

#include "fuzz/fuzz_check.h"
#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"

inline void CheckLedgerRoundTrip(const budget::Ledger& ledger, const budget::Ledger::Options& options) {
  const std::string bytes = budget::EncodeLedger(ledger);
  budget::Ledger back(options);
  FUZZ_CHECK(budget::DecodeLedger(bytes, "re-encoded", &back).ok(),
             "DecodeLedger reads what EncodeLedger wrote");
  FUZZ_CHECK(budget::EncodeLedger(back) == bytes, "a decoded ledger re-encodes to the same bytes");
}

#endif  // SLURM_BUDGET_FUZZ_LEDGER_ROUND_TRIP_H_
