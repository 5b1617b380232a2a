// Fuzz target: a ledger file's bytes as they are on disk, through
// DecodeLedger, which LoadLedger (priority/budget at start) calls with the
// file's bytes. Most inputs stop at the envelope's checks (magic, length,
// checksum); ledger_framed_fuzz.cc reaches the payload parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/ledger_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const budget::Ledger::Options options;
  budget::Ledger ledger(options);
  if (budget::DecodeLedger(bytes, "budget_ledger.dat", &ledger).ok()) {
    CheckLedgerRoundTrip(ledger, options);
  }
  return 0;
}
