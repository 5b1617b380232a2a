// The bytes of a ledger file (the layout ledger_file.h states): encoding,
// the CRC, and the checks of a load. The file I/O is ledger_file.cc.
#include "libbudget/state/ledger_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

namespace budget {

namespace {

constexpr char kMagic[8] = {'S', 'B', 'L', 'E', 'D', 'G', 'E', 'R'};
constexpr size_t kHeaderSize = 20;  // magic + version + payload length
constexpr size_t kTrailerSize = 4;  // CRC-32
constexpr size_t kChunk = 1 << 20;  // bytes buffered between writes
using Series = Ledger::Series;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool kLittleEndianHost = true;
#else
constexpr bool kLittleEndianHost = false;
#endif

// --- CRC-32, slicing by 8 (the save and load of a 100 MB ledger must not
// be dominated by a byte-at-a-time loop) ---------------------------------

struct CrcTables {
  uint32_t t[8][256];
  CrcTables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    }
  }
};

// Advances a CRC register (already inverted) over `size` bytes.
uint32_t CrcUpdate(uint32_t c, const void* data, size_t size) {
  static const CrcTables tables;
  const uint32_t(&t)[8][256] = tables.t;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size >= 8) {
    const uint32_t lo = c ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
                             uint32_t{p[3]} << 24);
    const uint32_t hi =
        uint32_t{p[4]} | uint32_t{p[5]} << 8 | uint32_t{p[6]} << 16 | uint32_t{p[7]} << 24;
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) c = t[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return c;
}

// --- Little-endian decoding ----------------------------------------------

uint32_t GetU32At(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(s[pos + i])) << (8 * i);
  return v;
}

uint64_t GetU64At(const std::string& s, size_t pos) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[pos + i])) << (8 * i);
  return v;
}

// --- Encoding ----------------------------------------------------------

// Streams the file to a sink in chunks of kChunk bytes, keeping the CRC of
// everything written, so a save never holds the whole file in memory. The
// first sink error sticks and is returned by Finish().
class ChunkWriter {
 public:
  using Sink = std::function<Status(const char*, size_t)>;
  explicit ChunkWriter(Sink sink) : sink_(std::move(sink)) { buffer_.reserve(kChunk); }

  void Bytes(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      const size_t take = std::min(n, kChunk - buffer_.size());
      buffer_.append(p, take);
      p += take;
      n -= take;
      if (buffer_.size() == kChunk) Flush();
    }
  }
  void U8(uint8_t v) { Bytes(&v, 1); }
  void U32(uint32_t v) {
    char b[4];
    for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    Bytes(b, 4);
  }
  void U64(uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    Bytes(b, 8);
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Floats(const float* v, size_t n) {
    if (kLittleEndianHost) {
      Bytes(v, n * sizeof(float));
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &v[i], sizeof bits);
      U32(bits);
    }
  }

  // Writes what is buffered and the CRC trailer.
  Status Finish() {
    Flush();
    const uint32_t crc = crc_ ^ 0xFFFFFFFFu;
    char trailer[4];
    for (int i = 0; i < 4; ++i) trailer[i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
    if (status_.ok()) status_ = sink_(trailer, sizeof trailer);
    return status_;
  }

 private:
  void Flush() {
    if (buffer_.empty()) return;
    crc_ = CrcUpdate(crc_, buffer_.data(), buffer_.size());
    if (status_.ok()) status_ = sink_(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

  Sink sink_;
  std::string buffer_;
  uint32_t crc_ = 0xFFFFFFFFu;
  Status status_;
};

// Leading zero buckets of a series: they are not written.
size_t LeadingZeros(const Ledger::SeriesView& view) {
  size_t i = 0;
  while (i < view.older_size && view.older[i] == 0.0f) ++i;
  if (i < view.older_size) return i;
  size_t j = 0;
  while (j < view.newer_size && view.newer[j] == 0.0f) ++j;
  return i + j;
}

// Writes a series's buckets from index `first` on, straight from the ring.
void WriteBuckets(const Ledger::SeriesView& view, size_t first, ChunkWriter* out) {
  if (first < view.older_size) {
    out->Floats(view.older + first, view.older_size - first);
    out->Floats(view.newer, view.newer_size);
  } else {
    const size_t skip = first - view.older_size;
    out->Floats(view.newer + skip, view.newer_size - skip);
  }
}

void Encode(const Ledger& ledger, ChunkWriter* out) {
  // A first walk for the payload's size, which the header that precedes it
  // (and that the CRC covers first) states, noting each series's leading
  // zeros for the second walk, which writes.
  std::vector<uint32_t> leading;
  uint64_t payload = 3 * 8 + 4;
  ledger.ExportAllSeries(
      [&](const std::string& path, const Ledger::SeriesView (&series)[Ledger::kSeriesCount]) {
        payload += 4 + path.size();
        for (const Ledger::SeriesView& view : series) {
          payload += 1;
          if (view.head == Ledger::kNoHead) continue;
          leading.push_back(static_cast<uint32_t>(LeadingZeros(view)));
          payload += 8 + 4 + 4 * (view.size() - leading.back());
        }
      });
  payload += 4 + 12 * uint64_t{ledger.job_count()};

  out->Bytes(kMagic, sizeof kMagic);
  out->U32(kLedgerFileVersion);
  out->U64(payload);

  const Ledger::Options& o = ledger.options();
  out->I64(o.window);
  out->I64(o.bucket_width);
  out->I64(o.report_bucket_width);
  out->U32(static_cast<uint32_t>(ledger.path_count()));
  size_t next = 0;
  ledger.ExportAllSeries(
      [&](const std::string& path, const Ledger::SeriesView (&series)[Ledger::kSeriesCount]) {
        out->U32(static_cast<uint32_t>(path.size()));
        out->Bytes(path.data(), path.size());
        for (const Ledger::SeriesView& view : series) {
          if (view.head == Ledger::kNoHead) {
            out->U8(0);
            continue;
          }
          const size_t first = leading[next++];
          out->U8(1);
          out->I64(view.head);
          out->U32(static_cast<uint32_t>(view.size() - first));
          WriteBuckets(view, first, out);
        }
      });
  auto cursors = ledger.JobCursors();
  std::sort(cursors.begin(), cursors.end());
  out->U32(static_cast<uint32_t>(cursors.size()));
  for (const auto& cursor : cursors) {
    out->U32(cursor.first);
    out->I64(cursor.second);
  }
}

// --- Decoding ----------------------------------------------------------

// Reads the payload front to back; the first failure sticks, so callers
// check the result once per record rather than after every field.
class PayloadReader {
 public:
  PayloadReader(const std::string& bytes, size_t begin, size_t end)
      : bytes_(bytes), pos_(begin), begin_(begin), end_(end) {}

  bool U8(const char* what, uint8_t* v) {
    if (!Need(1, what)) return false;
    *v = static_cast<uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool U32(const char* what, uint32_t* v) {
    if (!Need(4, what)) return false;
    *v = GetU32At(bytes_, pos_);
    pos_ += 4;
    return true;
  }
  bool I64(const char* what, int64_t* v) {
    if (!Need(8, what)) return false;
    *v = static_cast<int64_t>(GetU64At(bytes_, pos_));
    pos_ += 8;
    return true;
  }
  bool Bytes(const char* what, size_t n, std::string* v) {
    if (!Need(n, what)) return false;
    v->assign(bytes_, pos_, n);
    pos_ += n;
    return true;
  }
  // Reads n floats into v[0..n), checking each is finite and >= 0.
  bool Buckets(size_t n, float* v) {
    if (failed()) return false;
    if (n > remaining() / 4) {
      Fail("payload ends inside bucket values");
      return false;
    }
    if (n == 0) return true;
    const size_t start = pos_;
    if (kLittleEndianHost) {
      std::memcpy(v, bytes_.data() + pos_, n * sizeof(float));
    } else {
      for (size_t i = 0; i < n; ++i) {
        const uint32_t bits = GetU32At(bytes_, pos_ + 4 * i);
        std::memcpy(&v[i], &bits, sizeof bits);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(v[i]) || v[i] < 0.0f) {
        pos_ = start + 4 * (i + 1);  // report the offset after the bad value
        Fail("bucket value " + std::to_string(v[i]) + " is negative or not finite");
        return false;
      }
    }
    pos_ += 4 * n;
    return true;
  }

  bool at_end() const { return pos_ == end_; }
  size_t remaining() const { return end_ - pos_; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(const std::string& why) {
    if (error_.empty()) error_ = "payload offset " + std::to_string(pos_ - begin_) + ": " + why;
  }

 private:
  bool Need(size_t n, const char* what) {
    if (failed()) return false;
    if (remaining() < n) {
      Fail(std::string("payload ends inside ") + what);
      return false;
    }
    return true;
  }

  const std::string& bytes_;
  size_t pos_;
  size_t begin_;
  size_t end_;
  std::string error_;
};

// Moves one stored series (`newest` = buckets head-C+1 .. head of width
// from_width) into `ledger`, whose width for that series may differ (see
// "Different options" in the header).
Status Rebucket(const std::string& path, Series series, int64_t head,
                const std::vector<float>& newest, Seconds from_width, Ledger* ledger) {
  const Seconds to_width = ledger->BucketWidth(series);
  const int64_t count = static_cast<int64_t>(newest.size());
  // The new head is the bucket holding the last second the file covered, so
  // the window ends where it ended before.
  const TimePoint last_second = (head + 1) * from_width - 1;
  Ledger::RawSeries empty;
  empty.head = last_second >= 0 ? last_second / to_width
                                : -((-last_second + to_width - 1) / to_width);
  empty.values.assign(ledger->options().window / to_width, 0.0f);
  Status s = ledger->ImportSeries(path, series, empty);
  if (!s.ok()) return s;
  for (int64_t i = 0; i < count; ++i) {
    if (newest[i] == 0.0f) continue;
    const int64_t k = head - (count - 1) + i;
    ledger->Charge(path, series, k * from_width, (k + 1) * from_width,
                   static_cast<double>(newest[i]) / static_cast<double>(from_width));
  }
  return Status::Ok();
}

// Parses the payload straight into `ledger` (a fresh one the caller
// discards on failure). Sets *error on a semantic failure of the import.
class PayloadParser {
 public:
  PayloadParser(PayloadReader* in, Ledger* ledger) : in_(*in), ledger_(*ledger) {}

  bool Parse() {
    if (!ReadOptions()) return false;
    uint32_t path_count;
    if (!in_.U32("the path count", &path_count)) return false;
    for (uint32_t p = 0; p < path_count; ++p) {
      if (!ReadPath(p)) return false;
    }
    if (!ReadJobs()) return false;
    if (!in_.at_end()) {
      in_.Fail(std::to_string(in_.remaining()) + " unexpected bytes after the last job");
      return false;
    }
    return true;
  }

 private:
  bool ReadOptions() {
    Ledger::Options& o = stored_;
    if (!in_.I64("the options", &o.window) || !in_.I64("the options", &o.bucket_width) ||
        !in_.I64("the options", &o.report_bucket_width)) {
      return false;
    }
    Status ok = Ledger::CheckOptions(o);
    if (!ok.ok()) {
      in_.Fail("stored " + ok.message());
      return false;
    }
    const Ledger::Options& mine = ledger_.options();
    same_options_ = mine.window == o.window && mine.bucket_width == o.bucket_width &&
                    mine.report_bucket_width == o.report_bucket_width;
    return true;
  }

  bool ReadPath(uint32_t index) {
    uint32_t length;
    std::string path;
    if (!in_.U32("a path length", &length)) return false;
    if (length == 0) {
      in_.Fail("path " + std::to_string(index) + " is empty");
      return false;
    }
    if (!in_.Bytes("a path", length, &path)) return false;
    if (!seen_paths_.insert(path).second) {
      in_.Fail("path '" + path + "' appears twice");
      return false;
    }
    for (int s = 0; s < Ledger::kSeriesCount; ++s) {
      if (!ReadSeries(path, static_cast<Series>(s))) return false;
    }
    return true;
  }

  bool ReadSeries(const std::string& path, Series series) {
    const Seconds width =
        series == Series::kAllocated ? stored_.bucket_width : stored_.report_bucket_width;
    const int64_t bucket_count = stored_.window / width;
    uint8_t present;
    if (!in_.U8("a series flag", &present)) return false;
    if (present > 1) {
      in_.Fail("series flag is " + std::to_string(present) + ", not 0 or 1");
      return false;
    }
    if (present == 0) return true;
    int64_t head;
    uint32_t count;
    if (!in_.I64("a series head", &head) || !in_.U32("a bucket count", &count)) return false;
    if (head > Ledger::kTimeLimit / width || head < -Ledger::kTimeLimit / width) {
      in_.Fail("series head bucket " + std::to_string(head) + " is out of range");
      return false;
    }
    if (count > bucket_count) {
      in_.Fail("bucket count " + std::to_string(count) + " exceeds the window's " +
               std::to_string(bucket_count));
      return false;
    }
    Status s;
    if (same_options_) {
      // Straight into place: buckets head-C+1 .. head are the last C values.
      raw_.head = head;
      raw_.values.assign(bucket_count, 0.0f);
      if (!in_.Buckets(count, raw_.values.data() + (bucket_count - count))) return false;
      s = ledger_.ImportSeries(path, series, raw_);
    } else {
      newest_.resize(count);
      if (!in_.Buckets(count, newest_.data())) return false;
      s = Rebucket(path, series, head, newest_, width, &ledger_);
    }
    if (!s.ok()) {
      in_.Fail(s.message());
      return false;
    }
    return true;
  }

  bool ReadJobs() {
    uint32_t job_count;
    if (!in_.U32("the job count", &job_count)) return false;
    // Each job takes 12 bytes: refuse a count the payload cannot hold.
    if (job_count > in_.remaining() / 12) {
      in_.Fail("job count " + std::to_string(job_count) + " does not fit in the " +
               std::to_string(in_.remaining()) + " bytes left");
      return false;
    }
    for (uint32_t j = 0; j < job_count; ++j) {
      uint32_t id;
      int64_t until;
      if (!in_.U32("a job id", &id) || !in_.I64("a job cursor", &until)) return false;
      const size_t before = ledger_.job_count();
      ledger_.SetChargedUntil(id, until);
      if (ledger_.job_count() == before) {
        in_.Fail("job " + std::to_string(id) + " appears twice");
        return false;
      }
    }
    return true;
  }

  PayloadReader& in_;
  Ledger& ledger_;
  Ledger::Options stored_;
  bool same_options_ = true;
  std::unordered_set<std::string> seen_paths_;
  Ledger::RawSeries raw_;      // reused across series
  std::vector<float> newest_;  // reused across series
};

std::string Quoted(const std::string& file) { return "ledger file '" + file + "'"; }

}  // namespace

uint32_t Crc32(const void* data, size_t size) {
  return CrcUpdate(0xFFFFFFFFu, data, size) ^ 0xFFFFFFFFu;
}

Status StreamLedger(const Ledger& ledger, const std::function<Status(const char*, size_t)>& sink) {
  ChunkWriter writer(sink);
  Encode(ledger, &writer);
  return writer.Finish();
}

std::string EncodeLedger(const Ledger& ledger) {
  std::string file;
  ChunkWriter writer([&file](const char* data, size_t size) {
    file.append(data, size);
    return Status::Ok();
  });
  Encode(ledger, &writer);
  writer.Finish();
  return file;
}

Status DecodeLedger(const std::string& bytes, const std::string& name, Ledger* out) {
  const std::string where = Quoted(name);
  const size_t size = bytes.size();
  if (size == 0) return Status::Corruption(where + ": file is empty");
  if (size < kHeaderSize + kTrailerSize) {
    return Status::Corruption(where + ": truncated: " + std::to_string(size) +
                              " bytes, shorter than the " +
                              std::to_string(kHeaderSize + kTrailerSize) +
                              "-byte header and checksum");
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return Status::Corruption(where + ": not a ledger file (bad magic)");
  }
  const uint64_t payload_size = GetU64At(bytes, 12);
  const uint64_t expected =
      payload_size > size ? UINT64_MAX : kHeaderSize + payload_size + kTrailerSize;
  if (expected != size) {
    if (expected > size) {
      return Status::Corruption(where + ": truncated: header promises " +
                                std::to_string(payload_size) + " payload bytes, the file has " +
                                std::to_string(size - kHeaderSize - kTrailerSize));
    }
    return Status::Corruption(where + ": " + std::to_string(size - expected) +
                              " unexpected bytes after the checksum");
  }
  const uint32_t stored = GetU32At(bytes, size - kTrailerSize);
  const uint32_t computed = Crc32(bytes.data(), size - kTrailerSize);
  if (stored != computed) {
    char text[96];
    std::snprintf(text, sizeof text,
                  ": checksum mismatch (stored 0x%08x, computed 0x%08x): file is corrupt",
                  stored, computed);
    return Status::Corruption(where + text);
  }
  const uint32_t version = GetU32At(bytes, 8);
  if (version == 0 || version > kLedgerFileVersion) {
    return Status::Corruption(where + ": format version " + std::to_string(version) +
                              (version == 0 ? " is invalid" : " is newer than this build reads") +
                              " (reads 1.." + std::to_string(kLedgerFileVersion) + ")");
  }

  // Parsed into a fresh ledger that replaces *out only on success.
  Ledger fresh(out->options());
  PayloadReader in(bytes, kHeaderSize, size - kTrailerSize);
  PayloadParser parser(&in, &fresh);
  if (!parser.Parse()) return Status::Corruption(where + ": " + in.error());
  *out = std::move(fresh);
  return Status::Ok();
}

}  // namespace budget
