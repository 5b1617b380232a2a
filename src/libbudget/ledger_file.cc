#include "libbudget/ledger_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace budget {

namespace {

constexpr char kMagic[8] = {'S', 'B', 'L', 'E', 'D', 'G', 'E', 'R'};
constexpr size_t kHeaderSize = 20;   // magic + version + payload length
constexpr size_t kTrailerSize = 4;   // CRC-32
using Series = Ledger::Series;

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

// --- Little-endian encoding --------------------------------------------

void PutU8(std::string* out, uint8_t v) { out->push_back(static_cast<char>(v)); }

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void PutI64(std::string* out, int64_t v) { PutU64(out, static_cast<uint64_t>(v)); }

void PutF32(std::string* out, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  PutU32(out, bits);
}

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

// Reads the payload front to back; the first failure sticks, so callers
// check error() once per record rather than after every field.
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
  bool F32(const char* what, float* v) {
    uint32_t bits;
    if (!U32(what, &bits)) return false;
    std::memcpy(v, &bits, sizeof *v);
    return true;
  }
  bool Bytes(const char* what, size_t n, std::string* v) {
    if (!Need(n, what)) return false;
    v->assign(bytes_, pos_, n);
    pos_ += n;
    return true;
  }

  bool at_end() const { return pos_ == end_; }
  size_t remaining() const { return end_ - pos_; }
  // Offset into the payload, for messages.
  size_t offset() const { return pos_ - begin_; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(std::string why) {
    if (error_.empty()) error_ = "payload offset " + std::to_string(offset()) + ": " + why;
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

void EncodeSeries(const Ledger& ledger, const std::string& path, Series series,
                  std::string* out) {
  Ledger::RawSeries raw = ledger.ExportSeries(path, series);
  if (raw.head == Ledger::kNoHead) {
    PutU8(out, 0);
    return;
  }
  size_t first = 0;
  while (first < raw.values.size() && raw.values[first] == 0.0f) ++first;
  PutU8(out, 1);
  PutI64(out, raw.head);
  PutU32(out, static_cast<uint32_t>(raw.values.size() - first));
  for (size_t i = first; i < raw.values.size(); ++i) PutF32(out, raw.values[i]);
}

// A series as read from the file, in the file's bucket width. Only the
// stored buckets are held (newest[i] is bucket head - C + 1 + i), so memory
// stays proportional to the file's size whatever counts it claims.
struct FileSeries {
  bool present = false;
  int64_t head = 0;
  std::vector<float> newest;
};

struct FilePath {
  std::string path;
  FileSeries series[Ledger::kSeriesCount];
};

struct FileContents {
  Ledger::Options options;
  std::vector<FilePath> paths;
  std::vector<std::pair<uint32_t, TimePoint>> cursors;
};

bool ReadSeries(PayloadReader* in, int64_t bucket_count, Seconds width,
                FileSeries* out) {
  uint8_t present;
  if (!in->U8("a series flag", &present)) return false;
  if (present > 1) {
    in->Fail("series flag is " + std::to_string(present) + ", not 0 or 1");
    return false;
  }
  out->present = present == 1;
  if (!out->present) return true;
  uint32_t count;
  if (!in->I64("a series head", &out->head) ||
      !in->U32("a bucket count", &count)) {
    return false;
  }
  if (out->head > Ledger::kTimeLimit / width ||
      out->head < -Ledger::kTimeLimit / width) {
    in->Fail("series head bucket " + std::to_string(out->head) + " is out of range");
    return false;
  }
  if (count > bucket_count) {
    in->Fail("bucket count " + std::to_string(count) + " exceeds the window's " +
             std::to_string(bucket_count));
    return false;
  }
  if (count > in->remaining() / 4) {
    in->Fail("payload ends inside bucket values");
    return false;
  }
  out->newest.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    float v;
    if (!in->F32("bucket values", &v)) return false;
    if (!std::isfinite(v) || v < 0.0f) {
      in->Fail("bucket value " + std::to_string(v) + " is negative or not finite");
      return false;
    }
    out->newest[i] = v;
  }
  return true;
}

bool ReadPayload(PayloadReader* in, FileContents* out) {
  Ledger::Options& o = out->options;
  if (!in->I64("the options", &o.window) || !in->I64("the options", &o.bucket_width) ||
      !in->I64("the options", &o.report_bucket_width)) {
    return false;
  }
  Status options_ok = Ledger::CheckOptions(o);
  if (!options_ok.ok()) {
    in->Fail("stored " + options_ok.message());
    return false;
  }
  const int64_t counts[Ledger::kSeriesCount] = {
      o.window / o.bucket_width, o.window / o.report_bucket_width,
      o.window / o.report_bucket_width};
  const Seconds widths[Ledger::kSeriesCount] = {
      o.bucket_width, o.report_bucket_width, o.report_bucket_width};

  uint32_t path_count;
  if (!in->U32("the path count", &path_count)) return false;
  std::set<std::string> seen;
  for (uint32_t p = 0; p < path_count; ++p) {
    FilePath entry;
    uint32_t length;
    if (!in->U32("a path length", &length)) return false;
    if (length == 0) {
      in->Fail("path " + std::to_string(p) + " is empty");
      return false;
    }
    if (!in->Bytes("a path", length, &entry.path)) return false;
    if (!seen.insert(entry.path).second) {
      in->Fail("path '" + entry.path + "' appears twice");
      return false;
    }
    for (int s = 0; s < Ledger::kSeriesCount; ++s) {
      if (!ReadSeries(in, counts[s], widths[s], &entry.series[s])) return false;
    }
    out->paths.push_back(std::move(entry));
  }

  uint32_t job_count;
  if (!in->U32("the job count", &job_count)) return false;
  // Each job takes 12 bytes: refuse a count the payload cannot hold before
  // reserving memory for it.
  if (job_count > in->remaining() / 12) {
    in->Fail("job count " + std::to_string(job_count) + " does not fit in the " +
             std::to_string(in->remaining()) + " bytes left");
    return false;
  }
  std::set<uint32_t> jobs;
  out->cursors.reserve(job_count);
  for (uint32_t j = 0; j < job_count; ++j) {
    uint32_t id;
    int64_t until;
    if (!in->U32("a job id", &id) || !in->I64("a job cursor", &until)) return false;
    if (!jobs.insert(id).second) {
      in->Fail("job " + std::to_string(id) + " appears twice");
      return false;
    }
    out->cursors.emplace_back(id, until);
  }
  if (!in->at_end()) {
    in->Fail(std::to_string(in->remaining()) + " unexpected bytes after the last job");
    return false;
  }
  return true;
}

// Moves a series stored with width `from_width` into `ledger`, whose width
// for that series may differ (see "Different options" in the header).
Status Rebucket(const std::string& path, Series series, const FileSeries& fs,
                Seconds from_width, Ledger* ledger) {
  const Seconds to_width = ledger->BucketWidth(series);
  const int64_t count = static_cast<int64_t>(fs.newest.size());
  // The new head is the bucket holding the last second the file covered, so
  // the window ends where it ended before.
  const TimePoint last_second = (fs.head + 1) * from_width - 1;
  int64_t head = last_second >= 0 ? last_second / to_width
                                  : -((-last_second + to_width - 1) / to_width);
  Ledger::RawSeries empty;
  empty.head = head;
  empty.values.assign(ledger->options().window / to_width, 0.0f);
  Status s = ledger->ImportSeries(path, series, empty);
  if (!s.ok()) return s;
  for (int64_t i = 0; i < count; ++i) {
    if (fs.newest[i] == 0.0f) continue;
    const int64_t k = fs.head - (count - 1) + i;
    ledger->Charge(path, series, k * from_width, (k + 1) * from_width,
                   static_cast<double>(fs.newest[i]) / static_cast<double>(from_width));
  }
  return Status::Ok();
}

// Same options: the stored buckets go back where they were.
Status Import(const std::string& path, Series series, const FileSeries& fs,
              Ledger* ledger) {
  Ledger::RawSeries raw;
  raw.head = fs.head;
  raw.values.assign(ledger->options().window / ledger->BucketWidth(series), 0.0f);
  std::copy(fs.newest.begin(), fs.newest.end(), raw.values.end() - fs.newest.size());
  return ledger->ImportSeries(path, series, raw);
}

Status BuildLedger(const FileContents& contents, Ledger* ledger) {
  const Ledger::Options& mine = ledger->options();
  const Ledger::Options& theirs = contents.options;
  const bool same = mine.window == theirs.window &&
                    mine.bucket_width == theirs.bucket_width &&
                    mine.report_bucket_width == theirs.report_bucket_width;
  const Seconds file_widths[Ledger::kSeriesCount] = {
      theirs.bucket_width, theirs.report_bucket_width, theirs.report_bucket_width};
  for (const FilePath& entry : contents.paths) {
    for (int s = 0; s < Ledger::kSeriesCount; ++s) {
      const FileSeries& fs = entry.series[s];
      if (!fs.present) continue;
      const Series series = static_cast<Series>(s);
      Status status = same ? Import(entry.path, series, fs, ledger)
                           : Rebucket(entry.path, series, fs, file_widths[s], ledger);
      if (!status.ok()) return status;
    }
  }
  for (const auto& cursor : contents.cursors) {
    ledger->SetChargedUntil(cursor.first, cursor.second);
  }
  return Status::Ok();
}

std::string Quoted(const std::string& file) { return "ledger file '" + file + "'"; }

std::string ErrnoText(int err) { return std::strerror(err); }

Status WriteAll(int fd, const std::string& bytes, const std::string& file) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(Quoted(file) + ": write failed: " + ErrnoText(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string DirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return file.substr(0, slash);
}

// Writes and fsyncs `tmp`; the caller renames it.
Status WriteTempFile(const std::string& tmp, const std::string& bytes) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IOError(Quoted(tmp) + ": cannot create: " + ErrnoText(errno));
  }
  Status s = WriteAll(fd, bytes, tmp);
  if (s.ok() && ::fsync(fd) != 0) {
    s = Status::IOError(Quoted(tmp) + ": fsync failed: " + ErrnoText(errno));
  }
  if (::close(fd) != 0 && s.ok()) {
    s = Status::IOError(Quoted(tmp) + ": close failed: " + ErrnoText(errno));
  }
  return s;
}

Status SyncDirectory(const std::string& dir, const std::string& file) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError(Quoted(file) + ": cannot open directory '" + dir +
                           "' to fsync it: " + ErrnoText(errno));
  }
  Status s;
  if (::fsync(fd) != 0) {
    s = Status::IOError(Quoted(file) + ": fsync of directory '" + dir +
                        "' failed: " + ErrnoText(errno));
  }
  ::close(fd);
  return s;
}

Status ReadWholeFile(const std::string& file, std::string* bytes) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(Quoted(file) + ": no such file");
    return Status::IOError(Quoted(file) + ": cannot open: " + ErrnoText(errno));
  }
  Status s;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      s = Status::IOError(Quoted(file) + ": read failed: " + ErrnoText(errno));
      break;
    }
    if (n == 0) break;
    bytes->append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return s;
}

}  // namespace

uint32_t Crc32(const void* data, size_t size) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string EncodeLedger(const Ledger& ledger) {
  std::string payload;
  const Ledger::Options& o = ledger.options();
  PutI64(&payload, o.window);
  PutI64(&payload, o.bucket_width);
  PutI64(&payload, o.report_bucket_width);
  const std::vector<std::string> paths = ledger.Paths();
  PutU32(&payload, static_cast<uint32_t>(paths.size()));
  for (const std::string& path : paths) {
    PutU32(&payload, static_cast<uint32_t>(path.size()));
    payload += path;
    for (int s = 0; s < Ledger::kSeriesCount; ++s) {
      EncodeSeries(ledger, path, static_cast<Series>(s), &payload);
    }
  }
  auto cursors = ledger.JobCursors();
  std::sort(cursors.begin(), cursors.end());
  PutU32(&payload, static_cast<uint32_t>(cursors.size()));
  for (const auto& cursor : cursors) {
    PutU32(&payload, cursor.first);
    PutI64(&payload, cursor.second);
  }

  std::string file(kMagic, sizeof kMagic);
  PutU32(&file, kLedgerFileVersion);
  PutU64(&file, payload.size());
  file += payload;
  PutU32(&file, Crc32(file.data(), file.size()));
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
  const uint64_t expected = payload_size > size ? UINT64_MAX
                                                : kHeaderSize + payload_size + kTrailerSize;
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

  FileContents contents;
  PayloadReader in(bytes, kHeaderSize, size - kTrailerSize);
  if (!ReadPayload(&in, &contents)) {
    return Status::Corruption(where + ": " + in.error());
  }
  Ledger fresh(out->options());
  Status s = BuildLedger(contents, &fresh);
  if (!s.ok()) return Status::Corruption(where + ": " + s.message());
  *out = std::move(fresh);
  return Status::Ok();
}

Status SaveLedger(const Ledger& ledger, const std::string& file) {
  const std::string bytes = EncodeLedger(ledger);
  const std::string tmp = file + ".tmp";
  Status s = WriteTempFile(tmp, bytes);
  if (s.ok() && ::rename(tmp.c_str(), file.c_str()) != 0) {
    s = Status::IOError(Quoted(file) + ": cannot rename '" + tmp + "' over it: " +
                        ErrnoText(errno));
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  // The rename is only durable once the directory entry is on disk.
  return SyncDirectory(DirectoryOf(file), file);
}

Status LoadLedger(const std::string& file, Ledger* out) {
  std::string bytes;
  Status s = ReadWholeFile(file, &bytes);
  if (!s.ok()) return s;
  return DecodeLedger(bytes, file, out);
}

}  // namespace budget
