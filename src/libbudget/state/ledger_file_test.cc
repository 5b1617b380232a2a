// Tests of the ledger file's bytes: the CRC, the round trip, the format
// built by hand, and every kind of damage (a damaged file never changes the
// ledger it is loaded into). Saving and reloading: ledger_file_save_test.cc.
#include <cstring>
#include <string>
#include <vector>

#include "libbudget/state/ledger_file_test_samples.h"

using budget::Crc32;

namespace {

// --- little-endian builders for hand-made payloads --------------------

void PutU32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutF32(std::string* s, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  PutU32(s, bits);
}

// Wraps a payload in a valid envelope (magic, version, length, CRC).
std::string Envelope(const std::string& payload, uint32_t version = 1) {
  std::string file = "SBLEDGER";
  PutU32(&file, version);
  PutU64(&file, payload.size());
  file += payload;
  PutU32(&file, Crc32(file.data(), file.size()));
  return file;
}

std::string SmallOptionsPayload() {
  std::string p;
  PutU64(&p, 3600);
  PutU64(&p, 300);
  PutU64(&p, 900);
  return p;
}

// --- tests ----------------------------------------------------------

void TestCrc32KnownValues(void**) {
  // The standard check value of CRC-32/ISO-HDLC (zlib's crc32).
  assert_int_equal(0xCBF43926u, Crc32("123456789", 9));
  assert_int_equal(0u, Crc32("", 0));
  // zlib.crc32(b"a") = 0xe8b7be43
  assert_int_equal(0xE8B7BE43u, Crc32("a", 1));
  // Longer than the 8-byte blocks of the fast path:
  // zlib.crc32(b"The quick brown fox jumps over the lazy dog") = 0x414fa339
  assert_int_equal(0x414FA339u, Crc32("The quick brown fox jumps over the lazy dog", 43));
  // Every length 0..300 and alignment 0..7 agrees with the bit-by-bit
  // definition of the polynomial.
  unsigned char data[308];
  for (size_t i = 0; i < sizeof data; ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n <= 300; ++n) {
      uint32_t c = 0xFFFFFFFFu;
      for (size_t i = 0; i < n; ++i) {
        c ^= data[offset + i];
        for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      }
      assert_int_equal(c ^ 0xFFFFFFFFu, Crc32(data + offset, n));
    }
  }
}

void TestRoundTrip(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/ledger";
  Ledger saved = SampleLedger();
  assert_true(SaveLedger(saved, file).ok());
  assert_false(Exists(file + ".tmp"));

  Ledger loaded = SentinelLedger();
  Status s = LoadLedger(file, &loaded);
  assert_true(s.ok());
  assert_false(loaded.HasPath("sentinel"));
  // Bucket by bucket, not just the sums; compared before any query, since
  // queries move the heads forward.
  for (int series = 0; series < Ledger::kSeriesCount; ++series) {
    for (const std::string& path : saved.Paths()) {
      Ledger::RawSeries a = saved.ExportSeries(path, static_cast<Series>(series));
      Ledger::RawSeries b = loaded.ExportSeries(path, static_cast<Series>(series));
      assert_int_equal(a.head, b.head);
      assert_true(a.values == b.values);
    }
  }
  // Saving the loaded ledger reproduces the file byte for byte.
  assert_true(EncodeLedger(loaded) == ReadWholeFile(file));
  AssertIsSample(loaded);
  RemoveTree(dir);
}

// The file's bytes, built by hand from the format (ledger_file.h): each
// series from its first non-zero bucket, read in place from its ring
// whether that bucket is in the ring's older run, its newer run, or the
// first of either.
void TestFileBytesFromTheFormat(void**) {
  Ledger ledger = SampleLedger();
  // wrap allocated: buckets 5 and 13 (head 13; the ring starts at bucket 2,
  // in slot 2): 300 in each, 7 zeros between, 3 leading zeros skipped.
  ledger.Charge("wrap", Series::kAllocated, 1500, 1800, 1.0);
  ledger.Charge("wrap", Series::kAllocated, 3900, 4200, 1.0);

  auto series = [](int64_t head, const std::vector<float>& values) {
    std::string s(1, '\1');
    PutU64(&s, static_cast<uint64_t>(head));
    PutU32(&s, static_cast<uint32_t>(values.size()));
    for (float v : values) PutF32(&s, v);
    return s;
  };
  const std::string absent(1, '\0');
  std::string p = SmallOptionsPayload();
  PutU32(&p, 3);
  PutU32(&p, 12);
  p += "llm/pretrain";
  p += series(11, {600, 600});            // buckets 10, 11
  p += absent;                            // unallocated
  p += series(1, {2700, 2700});           // report buckets 0, 1 (ring from -2)
  PutU32(&p, 8);
  p += "robotics";
  p += absent;
  p += series(1, {50});                   // report bucket 1
  p += absent;
  PutU32(&p, 4);
  p += "wrap";
  p += series(13, {300, 0, 0, 0, 0, 0, 0, 0, 300});  // buckets 5..13
  p += absent;
  p += absent;
  PutU32(&p, 2);                          // job cursors, by job id
  PutU32(&p, 7);
  PutU64(&p, 1800);
  PutU32(&p, 42);
  PutU64(&p, 3600);
  assert_true(EncodeLedger(ledger) == Envelope(p, budget::kLedgerFileVersion));

  // And back: the buckets as charged.
  Ledger loaded(SmallOptions());
  assert_true(DecodeLedger(Envelope(p, budget::kLedgerFileVersion), "golden", &loaded).ok());
  assert_true(loaded.ExportSeries("wrap", Series::kAllocated).values == ledger.ExportSeries("wrap", Series::kAllocated).values);
}

void TestRoundTripOfEmptyLedger(void**) {
  Ledger empty(SmallOptions());
  Ledger loaded = SentinelLedger();
  assert_true(DecodeLedger(EncodeLedger(empty), "mem", &loaded).ok());
  assert_int_equal(0, loaded.path_count());
  assert_int_equal(0, loaded.job_count());
}

void TestMissingFileIsNotFound(void**) {
  Ledger ledger = SentinelLedger();
  Status s = LoadLedger("/nonexistent-dir/ledger", &ledger);
  assert_true(s.IsNotFound());
  assert_string_equal("ledger file '/nonexistent-dir/ledger': no such file",
                      s.message().c_str());
  AssertIsSentinel(ledger);
}

void TestDirectoryIsAnIOError(void**) {
  std::string dir = MakeTempDir();
  Ledger ledger = SentinelLedger();
  // Reading a directory fails with EISDIR.
  Status s = LoadLedger(dir, &ledger);
  assert_int_equal(static_cast<int>(Status::Code::kIOError), static_cast<int>(s.code()));
  assert_string_equal(("ledger file '" + dir + "': read failed: Is a directory").c_str(),
                      s.message().c_str());
  AssertIsSentinel(ledger);
  RemoveTree(dir);
}

void TestDamagedEnvelopes(void**) {
  const std::string good = EncodeLedger(SampleLedger());
  const size_t payload = good.size() - 24;
  std::string future = Envelope(good.substr(20, payload), 2);
  std::string zero = Envelope(good.substr(20, payload), 0);
  std::string trailing = good + "junk";
  std::string magic = good;
  magic[0] = 'X';
  struct Case {
    std::string bytes;
    std::string message;  // after "ledger file 'f': "
  } cases[] = {
      {"", "file is empty"},
      {"SBLEDGER", "truncated: 8 bytes, shorter than the 24-byte header and checksum"},
      {std::string(100, 'x'), "not a ledger file (bad magic)"},
      {magic, "not a ledger file (bad magic)"},
      {future, "format version 2 is newer than this build reads (reads 1..1)"},
      {zero, "format version 0 is invalid (reads 1..1)"},
      {trailing, "4 unexpected bytes after the checksum"},
  };
  for (const Case& c : cases) {
    Ledger ledger = SentinelLedger();
    Status s = DecodeLedger(c.bytes, "f", &ledger);
    assert_true(s.IsCorruption());
    assert_string_equal(("ledger file 'f': " + c.message).c_str(), s.message().c_str());
    AssertIsSentinel(ledger);
  }
}

void TestTruncationAtSeveralOffsets(void**) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/ledger";
  const std::string good = EncodeLedger(SampleLedger());
  const size_t size = good.size();
  const size_t payload = size - 24;
  struct Case {
    size_t length;
    std::string message;
  } cases[] = {
      {1, "truncated: 1 bytes, shorter than the 24-byte header and checksum"},
      {8, "truncated: 8 bytes, shorter than the 24-byte header and checksum"},
      {23, "truncated: 23 bytes, shorter than the 24-byte header and checksum"},
      // 24 bytes: the envelope fits but 0 of the payload bytes are there.
      {24, "truncated: header promises " + std::to_string(payload) +
               " payload bytes, the file has 0"},
      {size / 2, "truncated: header promises " + std::to_string(payload) +
                     " payload bytes, the file has " + std::to_string(size / 2 - 24)},
      {size - 4, "truncated: header promises " + std::to_string(payload) +
                     " payload bytes, the file has " + std::to_string(payload - 4)},
      {size - 1, "truncated: header promises " + std::to_string(payload) +
                     " payload bytes, the file has " + std::to_string(payload - 1)},
  };
  for (const Case& c : cases) {
    WriteWholeFile(file, good.substr(0, c.length));
    Ledger ledger = SentinelLedger();
    Status s = LoadLedger(file, &ledger);
    assert_true(s.IsCorruption());
    assert_string_equal(("ledger file '" + file + "': " + c.message).c_str(),
                        s.message().c_str());
    AssertIsSentinel(ledger);
  }
  RemoveTree(dir);
}

void TestEveryBitFlipIsDetected(void**) {
  const std::string good = EncodeLedger(SampleLedger());
  int magic = 0, length = 0, checksum = 0;
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      Ledger ledger = SentinelLedger();
      Status s = DecodeLedger(bad, "f", &ledger);
      if (!s.IsCorruption()) fail_msg("flip of byte %zu bit %d not detected", byte, bit);
      AssertIsSentinel(ledger);
      const std::string& m = s.message();
      if (m.find("bad magic") != std::string::npos) ++magic;
      if (m.find("truncated") != std::string::npos ||
          m.find("after the checksum") != std::string::npos) {
        ++length;
      }
      if (m.find("checksum mismatch") != std::string::npos) ++checksum;
    }
  }
  // 8 magic bytes x 8 bits = 64; 8 length bytes x 8 bits = 64; every other
  // flip (version, payload, checksum) is a checksum mismatch.
  assert_int_equal(64, magic);
  assert_int_equal(64, length);
  assert_int_equal(static_cast<int>(good.size()) * 8 - 128, checksum);
}

void TestDamagedPayloads(void**) {
  const std::string options = SmallOptionsPayload();
  std::string bad_options;
  PutU64(&bad_options, 0);
  PutU64(&bad_options, 300);
  PutU64(&bad_options, 900);

  // One path "a" with an allocated series, for the series cases.
  auto path_a = [&](const std::string& series_bytes) {
    std::string p = options;
    PutU32(&p, 1);
    PutU32(&p, 1);
    p += "a";
    p += series_bytes;
    p += std::string(2, '\0');  // unallocated, demand absent
    PutU32(&p, 0);              // no jobs
    return p;
  };
  auto allocated = [&](uint32_t count, float value) {
    std::string s(1, '\1');
    PutU64(&s, 11);  // head bucket 11
    PutU32(&s, count);
    for (uint32_t i = 0; i < count; ++i) PutF32(&s, value);
    return s;
  };
  std::string no_paths = options;
  PutU32(&no_paths, 0);
  auto jobs = [&](const std::vector<uint32_t>& ids, const std::string& tail) {
    std::string p = no_paths;
    PutU32(&p, static_cast<uint32_t>(ids.size()));
    for (uint32_t id : ids) {
      PutU32(&p, id);
      PutU64(&p, 100);
    }
    return p + tail;
  };
  std::string duplicate_path = options;
  PutU32(&duplicate_path, 2);
  for (int i = 0; i < 2; ++i) {
    PutU32(&duplicate_path, 1);
    duplicate_path += "a" + std::string(3, '\0');
  }
  PutU32(&duplicate_path, 0);
  std::string empty_path = options;
  PutU32(&empty_path, 1);
  PutU32(&empty_path, 0);
  std::string cut_path = options;
  PutU32(&cut_path, 1);
  PutU32(&cut_path, 5);
  cut_path += "ab";
  std::string many_jobs = no_paths;
  PutU32(&many_jobs, 1000);

  struct Case {
    std::string payload;
    std::string message;  // after "ledger file 'f': payload offset "
  } cases[] = {
      {options.substr(0, 10), "8: payload ends inside the options"},
      {bad_options, "24: stored ledger options: window (0 s) must be > 0"},
      {options, "24: payload ends inside the path count"},
      {empty_path, "32: path 0 is empty"},
      {cut_path, "32: payload ends inside a path"},
      // 24 options + 4 count + 4 length + 1 name + 1 flag + 8 head + 4 count
      {path_a(allocated(13, 1.0f)), "46: bucket count 13 exceeds the window's 12"},
      {path_a(allocated(2, -1.0f)),
       "50: bucket value -1.000000 is negative or not finite"},
      {path_a(allocated(1, NAN)), "50: bucket value nan is negative or not finite"},
      {path_a(std::string(1, '\2')), "34: series flag is 2, not 0 or 1"},
      {duplicate_path, "41: path 'a' appears twice"},
      {no_paths, "28: payload ends inside the job count"},
      {many_jobs, "32: job count 1000 does not fit in the 0 bytes left"},
      {jobs({3, 3}, ""), "56: job 3 appears twice"},
      {jobs({3}, "xy"), "44: 2 unexpected bytes after the last job"},
  };
  for (const Case& c : cases) {
    Ledger ledger = SentinelLedger();
    Status s = DecodeLedger(Envelope(c.payload), "f", &ledger);
    assert_true(s.IsCorruption());
    assert_string_equal(("ledger file 'f': payload offset " + c.message).c_str(),
                        s.message().c_str());
    AssertIsSentinel(ledger);
  }
  // The hand-made well-formed variant loads: 2 buckets of 5 = 10.
  Ledger ledger = SentinelLedger();
  assert_true(DecodeLedger(Envelope(path_a(allocated(2, 5.0f))), "f", &ledger).ok());
  AssertNear(10, ledger.WindowUsage("a", Series::kAllocated, 3599));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestCrc32KnownValues),
      cmocka_unit_test(TestRoundTrip),
      cmocka_unit_test(TestFileBytesFromTheFormat),
      cmocka_unit_test(TestRoundTripOfEmptyLedger),
      cmocka_unit_test(TestMissingFileIsNotFound),
      cmocka_unit_test(TestDirectoryIsAnIOError),
      cmocka_unit_test(TestDamagedEnvelopes),
      cmocka_unit_test(TestTruncationAtSeveralOffsets),
      cmocka_unit_test(TestEveryBitFlipIsDetected),
      cmocka_unit_test(TestDamagedPayloads),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
