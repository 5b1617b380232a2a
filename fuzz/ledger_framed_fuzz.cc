// Fuzz target: a ledger file's payload in a valid envelope, so that every
// input reaches DecodeLedger's payload parser (and its rebucketing) instead
// of stopping at the checksum. The input is
//   byte 0:   which options the loading ledger has (the current budget.conf),
//             from kOptions below; differing from the file's options makes
//             DecodeLedger rebucket
//   byte 1-:  the payload (see src/libbudget/state/ledger_file.h)
// and the target wraps the payload in the header and CRC-32 that SaveLedger
// writes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/ledger_round_trip.h"

namespace {

// Valid Ledger::Options: the default (one week, 5-minute and hourly buckets)
// and a few a site may configure.
const budget::Ledger::Options kOptions[] = {
    {7 * 86400, 300, 3600},
    {86400, 60, 600},
    {14 * 86400, 600, 7200},
    {3600, 1, 60},
};

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const budget::Ledger::Options& options = kOptions[data[0] % (sizeof kOptions / sizeof kOptions[0])];
  const size_t payload_size = size - 1;

  std::string file("SBLEDGER", 8);
  PutLe(&file, budget::kLedgerFileVersion, 4);
  PutLe(&file, payload_size, 8);
  file.append(reinterpret_cast<const char*>(data + 1), payload_size);
  PutLe(&file, budget::Crc32(file.data(), file.size()), 4);

  budget::Ledger ledger(options);
  if (budget::DecodeLedger(file, "budget_ledger.dat", &ledger).ok()) {
    CheckLedgerRoundTrip(ledger, options);
  }
  return 0;
}
