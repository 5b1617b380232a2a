// Tests of ReportFileWriter (report_file.h): the plugin's pass-after-pass
// writer gives the plain writers' bytes, reusing what did not change.
// <fstream> first: cmocka's fail() macro breaks the standard headers.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "libbudget/testing/test_support.h"
#include "report_test_samples.h"

#include "libbudget/report/report_file.h"
#include "libbudget/report/report_format.h"
#include "libbudget/report/report_reader.h"
#include "libbudget/report/report_snapshot.h"

namespace {


constexpr size_t kAnyCount = static_cast<size_t>(-1);

// The two files as the plugin writes them each pass, compared with the
// plain writers' bytes.
void AssertWriterMatches(budget::ReportFileWriter* writer, const ReportSnapshot& report, const std::string& dir,
                         size_t expect_formatted) {
  const std::string file = dir + "/" + budget::kReportSnapshotFileName;
  const std::string standings = dir + "/" + budget::kStandingsSnapshotFileName;
  assert_true(writer->Write(report, file, standings).ok());
  assert_true(FileText(file) == budget::FormatReportSnapshot(report));
  std::string expected_standings;
  const std::string plain = dir + "/plain_standings.json";
  assert_true(budget::WriteStandingsSnapshot(report, plain, &expected_standings).ok());
  assert_true(FileText(standings) == FileText(plain));
  if (expect_formatted != kAnyCount) assert_int_equal(writer->history_values_formatted(), expect_formatted);
  struct stat st;
  assert_int_equal(stat(file.c_str(), &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
  unlink(plain.c_str());
}

// Without a history cache, every history value is formatted at every
// Write (history_cache_test.cc tests the writer with one).
void TestFileWriterWithoutCacheFormatsTheWholeHistory(void**) {
  std::string dir = TempDir();
  ReportSnapshot report = Sample();  // "llm": 2 slots
  SnapshotHistory second = report.history[0];
  second.path = "vision";
  second.delivered = {1.25, 2.5, 0, 4};
  second.owed = {0, 0, 0, 0};
  report.history.push_back(second);
  budget::ReportFileWriter writer;
  AssertWriterMatches(&writer, report, dir, 12);
  AssertWriterMatches(&writer, report, dir, 12);
  // Only the last slots changed, and a job was added.
  report.history[0].delivered.back() = 99.5;
  report.history[1].owed.back() = 7;
  report.jobs.push_back(report.jobs[0]);
  report.nodes[0].pending_gpus = 3;
  report.nodes[1].window_usage = 0.1;
  AssertWriterMatches(&writer, report, dir, 12);
  // The nodes' tree fields were formatted once: only their pass fields moved.
  assert_int_equal(writer.tree_formats(), 1);
  // A tree field changes (share 50 -> -0 is written "-0"): formatted again.
  report.nodes[1].share = -0.0;
  AssertWriterMatches(&writer, report, dir, 12);
  assert_int_equal(writer.tree_formats(), 2);
  report.nodes[2].owners.push_back("new-owner");
  AssertWriterMatches(&writer, report, dir, 12);
  assert_int_equal(writer.tree_formats(), 3);
  report.nodes.pop_back();
  AssertWriterMatches(&writer, report, dir, 12);
  assert_int_equal(writer.tree_formats(), 4);
  AssertWriterMatches(&writer, report, dir, 12);
  assert_int_equal(writer.tree_formats(), 4);
  report.history.erase(report.history.begin());
  AssertWriterMatches(&writer, report, dir, 8);
  report.history.clear();
  AssertWriterMatches(&writer, report, dir, 0);
  // What it wrote reads back.
  ReportSnapshot read;
  assert_true(budget::ReadReportSnapshot(dir + "/" + budget::kReportSnapshotFileName, &read).ok());
  assert_int_equal(read.jobs.size(), report.jobs.size());
  // A failed write names the file and leaves the old one.
  Status s = writer.Write(report, "/nonexistent/dir/r.json", dir + "/s.json");
  assert_non_null(strstr(s.message().c_str(), "/nonexistent/dir/r.json.tmp: cannot create"));
  assert_true(FileText(dir + "/" + budget::kReportSnapshotFileName) == budget::FormatReportSnapshot(report));
  unlink((dir + "/" + budget::kReportSnapshotFileName).c_str());
  unlink((dir + "/" + budget::kStandingsSnapshotFileName).c_str());
  rmdir(dir.c_str());
}

// Random passes: whatever changes, the bytes are the plain writer's.
void TestFileWriterMatchesThePlainWriterOverRandomPasses(void**) {
  std::string dir = TempDir();
  srand(7);
  const double kValues[] = {0.0, -0.0, 1.5, 3600, 0.0005, 1e9, 2.25};
  auto pick = [&] { return kValues[rand() % 7] + (rand() % 3 == 0 ? rand() % 1000 / 7.0 : 0.0); };
  ReportSnapshot report = Sample();
  report.history.clear();
  for (int h = 0; h < 4; ++h) {
    SnapshotHistory history;
    history.path = "p" + std::to_string(h);
    history.start = 1699996400;
    history.width = 3600;
    for (int k = 0; k < 6; ++k) {
      history.delivered.push_back(pick());
      history.owed.push_back(pick());
    }
    report.history.push_back(history);
  }
  budget::ReportFileWriter writer;
  for (int pass = 0; pass < 200; ++pass) {
    for (SnapshotHistory& h : report.history) {
      switch (rand() % 6) {
        case 0:  // the slots shift
          h.start += h.width * (1 + rand() % 2);
          h.delivered.erase(h.delivered.begin());
          h.delivered.push_back(pick());
          h.owed.erase(h.owed.begin());
          h.owed.push_back(pick());
          break;
        case 1:  // the series grows or shrinks
          if (rand() % 2 && !h.owed.empty()) {
            h.delivered.pop_back();
            h.owed.pop_back();
          } else {
            h.delivered.push_back(pick());
            h.owed.push_back(pick());
          }
          break;
        default:  // a few values change
          for (double& v : h.delivered) if (rand() % 4 == 0) v = pick();
          for (double& v : h.owed) if (rand() % 4 == 0) v = pick();
      }
    }
    if (rand() % 10 == 0) std::swap(report.history.front(), report.history.back());
    // The nodes: pass fields change at every pass, tree fields now and then.
    for (SnapshotNode& n : report.nodes) {
      n.window_usage = pick();
      n.sibling_ratio = pick();
      n.rank = static_cast<uint32_t>(rand() % 3);
      switch (rand() % 20) {
        case 0: n.name += "x"; break;
        case 1: n.entitlement = pick(); break;
        case 2: n.owners.push_back("o" + std::to_string(rand() % 3)); break;
        case 3: n.depth = rand() % 3; break;
        default: break;
      }
    }
    if (rand() % 20 == 0) std::swap(report.nodes.front(), report.nodes.back());
    if (rand() % 30 == 0) report.nodes.push_back(report.nodes[rand() % report.nodes.size()]);
    AssertWriterMatches(&writer, report, dir, kAnyCount);
  }
  unlink((dir + "/" + budget::kReportSnapshotFileName).c_str());
  unlink((dir + "/" + budget::kStandingsSnapshotFileName).c_str());
  rmdir(dir.c_str());
}

void TestScratchBufferGivesTheSameBytes(void**) {
  ReportSnapshot big = Sample();
  big.jobs.resize(500, big.jobs[0]);
  ReportSnapshot small = Sample();
  // A buffer that held something else is replaced, not appended to.
  std::string scratch = "left over";
  budget::FormatReportSnapshotInto(big, &scratch);
  assert_true(scratch == budget::FormatReportSnapshot(big));
  const size_t capacity = scratch.capacity();
  const char* data = scratch.data();
  budget::FormatReportSnapshotInto(small, &scratch);
  assert_true(scratch == budget::FormatReportSnapshot(small));
  // The smaller text went into the same memory: no new allocation.
  assert_int_equal(scratch.capacity(), capacity);
  assert_ptr_equal(scratch.data(), data);
  // Written through the scratch overload, the file holds those bytes, and
  // so does the scratch afterwards.
  std::string dir = TempDir();
  std::string file = dir + "/" + budget::kReportSnapshotFileName;
  assert_true(budget::WriteReportSnapshot(big, file, &scratch).ok());
  assert_true(FileText(file) == budget::FormatReportSnapshot(big));
  assert_true(budget::WriteReportSnapshot(small, file, &scratch).ok());
  assert_true(FileText(file) == budget::FormatReportSnapshot(small));
  assert_true(scratch == FileText(file));
  assert_ptr_equal(scratch.data(), data);
  // A failed write says why, through either overload.
  Status s = budget::WriteReportSnapshot(small, "/nonexistent/dir/r.json", &scratch);
  assert_non_null(strstr(s.message().c_str(), "/nonexistent/dir/r.json.tmp: cannot create"));
  unlink(file.c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestScratchBufferGivesTheSameBytes),
      cmocka_unit_test(TestFileWriterWithoutCacheFormatsTheWholeHistory),
      cmocka_unit_test(TestFileWriterMatchesThePlainWriterOverRandomPasses),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
