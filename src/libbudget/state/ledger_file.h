// Ledger file: the crash-safe on-disk form of a Ledger (buckets and job
// cursors), saved by the priority plugin in StateSaveLocation every pass and
// at shutdown, and read back at start.
//
// Format, version 1. All integers little-endian, fixed width; f32 is an
// IEEE-754 binary32 stored as its little-endian bit pattern.
//
//   offset  size  field
//   0       8     magic "SBLEDGER"
//   8       4     u32 format version (1)
//   12      8     u64 payload length P
//   20      P     payload
//   20+P    4     u32 CRC-32 (IEEE 802.3, as zlib's crc32) of bytes [0, 20+P)
//
// This envelope is the same in every version, so any file can be checked
// (size, checksum) before its version is interpreted. Payload of version 1:
//
//   i64 window, i64 bucket_width, i64 report_bucket_width   (the Options)
//   u32 path count, then per path, in byte order of the path:
//     u32 length L, L bytes of path (not NUL-terminated, L >= 1)
//     3 x series (allocated, unallocated, demand):
//       u8 present (0 or 1); if 1:
//         i64 head bucket index
//         u32 count C (<= window / width of the series)
//         C x f32: buckets head-C+1 .. head; older buckets are 0
//         (leading zero buckets are not written)
//   u32 job count, then per job, by id: u32 job id, i64 charged-until
//   nothing after the last job.
//
// Saving is atomic: the bytes go to `file.tmp`, which is fsynced, renamed
// over `file`, and the directory is fsynced. A crash at any point leaves
// either the old file or the new one (plus perhaps a stale `file.tmp`,
// which the next save truncates and which loading never reads).
//
// Loading checks, in order: the file exists (else NotFound), is not empty,
// is at least as long as the envelope, has the magic, has the length the
// header states, has a matching checksum, has a version this build reads,
// and then every field of the payload (counts within bounds, finite
// non-negative buckets, no duplicate path or job, no trailing bytes). Any
// failure is a Corruption (or IOError for a read error) whose one-line
// message names the file and what is wrong, and leaves `*out` untouched:
// the file is parsed into a fresh Ledger that replaces `*out` only on
// success.
//
// Different options. The loaded ledger keeps the options of `*out` (the
// current configuration), not those in the file. If the file's window or
// bucket widths differ, its buckets are rebucketed: each stored bucket's
// GPU-seconds are spread uniformly over its time span and charged into the
// new buckets, and whatever falls outside the new window is dropped. Totals
// are preserved exactly when the new widths are multiples of the old ones;
// otherwise usage moves by at most one old bucket width in time. Changing
// LookbackWindow or the bucket width therefore never throws a week of
// usage away. Job cursors are kept as they are.
//
// Memory: a save streams the file in 1 MB chunks (no copy of the whole
// file); a load holds the file's bytes and the new ledger at once, next to
// the old *out, i.e. about twice the ledger's size at its peak.
//
// Thread safety: SaveLedger reads the ledger (callers serialise, as for any
// Ledger access); LoadLedger writes *out only at the end.
#ifndef SLURM_BUDGET_LIBBUDGET_LEDGER_FILE_H_
#define SLURM_BUDGET_LIBBUDGET_LEDGER_FILE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "libbudget/state/ledger.h"
#include "libbudget/status.h"

namespace budget {

constexpr uint32_t kLedgerFileVersion = 1;

// Writes `ledger` to `file` atomically (see above). IOError naming the file
// and the failing step on any error; `file` is then unchanged.
Status SaveLedger(const Ledger& ledger, const std::string& file);

// SaveLedger's first step alone: writes `ledger` to `path` (created or
// truncated) and fsyncs it; no rename, no directory fsync. For callers that
// rotate generations themselves (ledger_generations.h). IOError naming the
// file and the failing step; `path` may then hold a partial file.
Status WriteLedgerFile(const Ledger& ledger, const std::string& path);

// Reads `file` into `*out` (see above). NotFound if the file does not
// exist; Corruption or IOError otherwise, with `*out` untouched.
// REQUIRES: out != nullptr.
Status LoadLedger(const std::string& file, Ledger* out);

// The bytes SaveLedger writes, handed to `sink` in chunks of 1 MB (never
// the whole file at once); the first error `sink` returns ends the stream
// and is returned.
Status StreamLedger(const Ledger& ledger, const std::function<Status(const char*, size_t)>& sink);

// The bytes SaveLedger writes, and their parser; exposed for tests and for
// tools that ship a ledger elsewhere. `name` is used in messages only.
std::string EncodeLedger(const Ledger& ledger);
Status DecodeLedger(const std::string& bytes, const std::string& name,
                    Ledger* out);

// CRC-32 (IEEE polynomial 0xEDB88320, reflected, initial and final xor
// 0xFFFFFFFF): Crc32("123456789") == 0xCBF43926.
uint32_t Crc32(const void* data, size_t size);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_LEDGER_FILE_H_
