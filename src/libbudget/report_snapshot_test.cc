// Tests of the report snapshot (report_snapshot.h): the JSON round trip and
// the atomic file, every refusal of a malformed or newer document, staleness,
// and the builders over a small hand-computed tree, ledger and order.
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

#include "libbudget/test_support.h"

#include "libbudget/ledger.h"
#include "libbudget/order.h"
#include "libbudget/report_snapshot.h"
#include "libbudget/tree.h"

namespace {

using budget::FairShareOrder;
using budget::ReportSnapshot;
using budget::SnapshotHistory;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::SnapshotNode;
using budget::Status;

std::string TempDir() {
  char tmpl[] = "/tmp/report_snapshot_test.XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) fail_msg("mkdtemp failed");
  return dir;
}

void WriteText(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

// A snapshot that uses every field, including the special values (null rank,
// infinite sibling ratio, absent times, a preemption record).
ReportSnapshot Sample() {
  ReportSnapshot s;
  s.generated_at = 1700000000;
  s.tree_source = "/etc/slurm/budget-tree.json";
  s.window = 604800;
  s.bucket_width = 300;
  s.history_width = 3600;
  s.recalc_interval = 30;
  s.capacity_gpus = 64;
  s.has_fragmentation = true;
  s.fragmentation = 0.125;
  SnapshotNode root;
  root.name = "cluster";
  root.owners = {"director"};
  root.window_usage = 7200.5;
  SnapshotNode llm;
  llm.path = "llm";
  llm.name = "llm";
  llm.depth = 1;
  llm.owners = {"pi-llm", "deputy"};
  llm.account = "llm";
  llm.user = "";
  llm.share = 50;
  llm.normalized_share = 0.5;
  llm.entitlement = 0.5;
  llm.window_usage = 3600;
  llm.usage_ratio = 0.25;
  llm.unallocated = 120;
  llm.owed = 7200;
  llm.delivered = 3600;
  llm.running_gpus = 8;
  llm.pending_gpus = 16;
  llm.sibling_ratio = 0.75;
  llm.rank = 0;
  SnapshotNode idle;
  idle.path = "idle";
  idle.name = "idle";
  idle.depth = 1;
  idle.account = "idle";
  idle.sibling_ratio = std::numeric_limits<double>::infinity();
  idle.rank = 1;
  s.nodes = {root, llm, idle};
  SnapshotJob pending;
  pending.job_id = 12;
  pending.user = "alice";
  pending.account = "llm";
  pending.node_path = "llm";
  pending.has_node = true;
  pending.gpus = 8;
  pending.contract_known = true;
  pending.min_runtime = 900;
  pending.resumable = true;
  pending.user_priority = 5;
  pending.priority = 0x80000000u + 7;
  pending.fairshare = 1.0;
  pending.rank = 0;
  pending.allocated = true;
  pending.queue_position = 0;
  pending.submit_time = 1699999000;
  SnapshotJob preempted;
  preempted.job_id = 9;
  preempted.state = SnapshotJobState::kPreempted;
  preempted.user = "bob";
  preempted.account = "nowhere";
  preempted.gpus = 4;
  preempted.submit_time = 1699990000;
  preempted.start_time = 1699991000;
  preempted.protection_end = 1699991000;
  preempted.has_preemption = true;
  preempted.preemption = {12, "unallocated", "requeue", 1699999500};
  s.jobs = {pending, preempted};
  SnapshotHistory h;
  h.path = "llm";
  h.start = 1699996400;
  h.width = 3600;
  h.delivered = {3600, 0};
  h.owed = {7200, 1.5};
  s.history = {h};
  return s;
}

void AssertNodesEqual(const SnapshotNode& a, const SnapshotNode& b) {
  assert_string_equal(a.path.c_str(), b.path.c_str());
  assert_string_equal(a.name.c_str(), b.name.c_str());
  assert_int_equal(a.depth, b.depth);
  assert_int_equal(a.owners.size(), b.owners.size());
  for (size_t i = 0; i < a.owners.size(); ++i) {
    assert_string_equal(a.owners[i].c_str(), b.owners[i].c_str());
  }
  assert_string_equal(a.account.c_str(), b.account.c_str());
  assert_string_equal(a.user.c_str(), b.user.c_str());
  const double pairs[][2] = {{a.share, b.share},
                             {a.normalized_share, b.normalized_share},
                             {a.entitlement, b.entitlement},
                             {a.window_usage, b.window_usage},
                             {a.usage_ratio, b.usage_ratio},
                             {a.unallocated, b.unallocated},
                             {a.owed, b.owed},
                             {a.delivered, b.delivered},
                             {a.running_gpus, b.running_gpus},
                             {a.pending_gpus, b.pending_gpus}};
  for (const auto& p : pairs) assert_float_equal(p[0], p[1], 0);
  if (std::isinf(a.sibling_ratio)) {
    assert_true(std::isinf(b.sibling_ratio));
  } else {
    assert_float_equal(a.sibling_ratio, b.sibling_ratio, 0);
  }
  assert_int_equal(a.rank, b.rank);
}

void AssertJobsEqual(const SnapshotJob& a, const SnapshotJob& b) {
  assert_int_equal(a.job_id, b.job_id);
  assert_int_equal(static_cast<int>(a.state), static_cast<int>(b.state));
  assert_string_equal(a.user.c_str(), b.user.c_str());
  assert_string_equal(a.account.c_str(), b.account.c_str());
  assert_string_equal(a.node_path.c_str(), b.node_path.c_str());
  assert_int_equal(a.has_node, b.has_node);
  assert_int_equal(a.gpus, b.gpus);
  assert_int_equal(a.contract_known, b.contract_known);
  assert_int_equal(a.min_runtime, b.min_runtime);
  assert_int_equal(a.resumable, b.resumable);
  assert_int_equal(a.user_priority, b.user_priority);
  assert_int_equal(a.priority, b.priority);
  assert_float_equal(a.fairshare, b.fairshare, 0);
  assert_int_equal(a.rank, b.rank);
  assert_int_equal(a.allocated, b.allocated);
  assert_int_equal(a.queue_position, b.queue_position);
  assert_int_equal(a.submit_time, b.submit_time);
  assert_int_equal(a.start_time, b.start_time);
  assert_int_equal(a.protection_end, b.protection_end);
  assert_int_equal(a.has_preemption, b.has_preemption);
  assert_int_equal(a.preemption.preempted_by, b.preemption.preempted_by);
  assert_string_equal(a.preemption.rule.c_str(), b.preemption.rule.c_str());
  assert_string_equal(a.preemption.action.c_str(), b.preemption.action.c_str());
  assert_int_equal(a.preemption.at, b.preemption.at);
}

void AssertSnapshotsEqual(const ReportSnapshot& a, const ReportSnapshot& b) {
  assert_int_equal(a.version, b.version);
  assert_int_equal(a.generated_at, b.generated_at);
  assert_string_equal(a.tree_source.c_str(), b.tree_source.c_str());
  assert_int_equal(a.window, b.window);
  assert_int_equal(a.bucket_width, b.bucket_width);
  assert_int_equal(a.history_width, b.history_width);
  assert_int_equal(a.recalc_interval, b.recalc_interval);
  assert_float_equal(a.capacity_gpus, b.capacity_gpus, 0);
  assert_int_equal(a.has_fragmentation, b.has_fragmentation);
  assert_float_equal(a.fragmentation, b.fragmentation, 0);
  assert_int_equal(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) AssertNodesEqual(a.nodes[i], b.nodes[i]);
  assert_int_equal(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) AssertJobsEqual(a.jobs[i], b.jobs[i]);
  assert_int_equal(a.history.size(), b.history.size());
  for (size_t i = 0; i < a.history.size(); ++i) {
    assert_string_equal(a.history[i].path.c_str(), b.history[i].path.c_str());
    assert_int_equal(a.history[i].start, b.history[i].start);
    assert_int_equal(a.history[i].width, b.history[i].width);
    assert_true(a.history[i].delivered == b.history[i].delivered);
    assert_true(a.history[i].owed == b.history[i].owed);
  }
}

// The standings file is the report without job rows and history: every
// other field reads back equal, jobs and history empty, mode 0644.
void TestStandingsFileIsTheReportWithoutJobsAndHistory(void**) {
  std::string dir = TempDir();
  std::string file = dir + "/" + budget::kStandingsSnapshotFileName;
  ReportSnapshot report = Sample();
  assert_true(!report.jobs.empty());
  assert_true(!report.history.empty());
  std::string scratch = "left over from an earlier write";
  Status s = budget::WriteStandingsSnapshot(report, file, &scratch);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  struct stat st;
  assert_int_equal(stat(file.c_str(), &st), 0);
  // rw-r--r--
  assert_int_equal(st.st_mode & 0777, 0644);
  // The buffer holds exactly the file's text (nothing of what it held).
  assert_int_equal(static_cast<size_t>(st.st_size), scratch.size());
  ReportSnapshot read;
  s = budget::ReadReportSnapshot(file, &read);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  ReportSnapshot expected = report;
  expected.jobs.clear();
  expected.history.clear();
  AssertSnapshotsEqual(expected, read);
  unlink(file.c_str());
  rmdir(dir.c_str());
}

void TestFileRoundTripIsExactAndReadableByAll(void**) {
  std::string dir = TempDir();
  std::string file = dir + "/" + budget::kReportSnapshotFileName;
  ReportSnapshot written = Sample();
  // A restrictive umask must not make the file private: users read it.
  mode_t old_umask = umask(077);
  Status s = budget::WriteReportSnapshot(written, file);
  umask(old_umask);
  assert_true(s.ok());
  struct stat st;
  assert_int_equal(stat(file.c_str(), &st), 0);
  // rw-r--r--
  assert_int_equal(st.st_mode & 0777, 0644);
  // No temporary file is left behind.
  assert_int_not_equal(access((file + ".tmp").c_str(), F_OK), 0);
  ReportSnapshot read;
  s = budget::ReadReportSnapshot(file, &read);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  AssertSnapshotsEqual(written, read);
  // Rewriting replaces the file whole.
  written.jobs.clear();
  assert_true(budget::WriteReportSnapshot(written, file).ok());
  assert_true(budget::ReadReportSnapshot(file, &read).ok());
  assert_int_equal(read.jobs.size(), 0);
  unlink(file.c_str());
  rmdir(dir.c_str());
}

// The column names of the job rows (versions 2 and 3), as FormatReportSnapshot
// writes them (the order is the writer's; readers map by name).
const char kJobFieldsJson[] =
    R"("job_fields":["job_id","state","user","account","node_path","gpus",)"
    R"("contract_known","min_runtime","resumable","user_priority","priority",)"
    R"("fairshare","rank","allocated","queue_position","submit_time","start_time",)"
    R"("protection_end","preemption"])";

void TestJobsAreRowsUnderTheirFieldNames(void**) {
  std::string text = budget::FormatReportSnapshot(Sample());
  assert_non_null(strstr(text.c_str(), "\"format\":\"slurm-budget-report\",\"version\":3,"));
  // The names once, then one array per job in their order.
  assert_non_null(strstr(text.c_str(), kJobFieldsJson));
  // Job 12: node "llm", priority 0x80000000 + 7 = 2147483655, fairshare
  // 1.0 as "1", rank 0, queue position 0, no start, no protection end, no
  // preemption (null in its column).
  assert_non_null(strstr(
      text.c_str(),
      R"("jobs":[[12,"pending","alice","llm","llm",8,true,900,true,5,2147483655,1,0,true,0,)"
      R"(1699999000,null,null,null],)"));
  // Job 9 maps to no node (null), has no rank and no queue position (null),
  // and carries its preemption as an object in the last column.
  assert_non_null(strstr(
      text.c_str(),
      R"([9,"preempted","bob","nowhere",null,4,false,0,false,0,0,0,null,false,null,1699990000,)"
      R"(1699991000,1699991000,{"preempted_by":12,"rule":"unallocated","action":"requeue",)"
      R"("at":1699999500}]],"history":)"));
  // No job key is repeated per job.
  assert_null(strstr(text.c_str(), "\"job_id\":"));
  // Nodes stay objects; the idle node's +inf ratio cannot be a JSON number.
  assert_non_null(strstr(text.c_str(), "\"sibling_ratio\":null"));
}

void TestMissingFileIsNotFound(void**) {
  ReportSnapshot out;
  Status s = budget::ReadReportSnapshot("/nonexistent/budget_report.json", &out);
  assert_true(s.IsNotFound());
  assert_non_null(strstr(s.message().c_str(), "/nonexistent/budget_report.json"));
}

void TestWriteIntoMissingDirectoryFails(void**) {
  Status s = budget::WriteReportSnapshot(Sample(), "/nonexistent/dir/budget_report.json");
  assert_false(s.ok());
  assert_non_null(strstr(s.message().c_str(), "cannot create"));
}

// Replaces the first occurrence of `from` in the sample's JSON by `to`.
std::string SampleWith(const std::string& from, const std::string& to) {
  std::string text = budget::FormatReportSnapshot(Sample());
  size_t at = text.find(from);
  if (at == std::string::npos) fail_msg("'%s' not in the sample", from.c_str());
  return text.replace(at, from.size(), to);
}

void TestMalformedDocumentsAreRefusedByPath(void**) {
  std::string whole = budget::FormatReportSnapshot(Sample());
  struct Case {
    std::string text;
    const char* expected;  // a substring of the error message
  };
  const Case cases[] = {
      {"", "empty file"},
      {"{\"format\": ", "truncated"},
      {whole.substr(0, whole.size() / 2), "truncated"},
      {"[1, 2]", "$: must be an object"},
      {"nonsense", "not JSON"},
      {whole + "{}", "trailing data"},
      {SampleWith("\"slurm-budget-report\"", "\"ledger\""),
       "$.format: must be \"slurm-budget-report\", got \"ledger\""},
      {SampleWith("\"version\":3", "\"version\":4"),
       "$.version: is 4, written by a newer slurm-budget; this sbudget reads up to 3: upgrade it"},
      {SampleWith("\"version\":3", "\"version\":0"), "$.version: must lie in [1, "},
      {SampleWith("\"generated_at\":1700000000,", ""), "$.generated_at: missing"},
      {SampleWith("\"window\":604800", "\"window\":\"7-0\""), "$.window: must be an integer"},
      {SampleWith("\"window\":604800", "\"window\":0"), "$.window: must lie in [1, "},
      {SampleWith("\"capacity_gpus\":64", "\"capacity_gpus\":null"),
       "$.capacity_gpus: must be a number, got null"},
      {SampleWith("\"nodes\":[", "\"nodes\":[1,"), "$.nodes[0]: must be an object"},
      {SampleWith("\"owners\":[\"director\"]", "\"owners\":[7]"),
       "$.nodes[0].owners[0]: must be a string"},
      {SampleWith("\"share\":50", "\"share\":\"50\""), "$.nodes[1].share: must be a number"},
      {SampleWith("\"rank\":0", "\"rank\":-1"), "$.nodes[1].rank: must lie in [0, "},
      {SampleWith("\"owed\":[7200", "\"owed\":[7200,1"),
       "$.history[0].owed: must have as many values as delivered (2), got 3"},
      {SampleWith("\"history\":[", "\"history\":7,\"x\":["), "$.history: must be an array"},
      // json-c reads a number beyond DBL_MAX as inf; the writer never writes
      // one (a non-finite value is written as null).
      {SampleWith("\"share\":50", "\"share\":1e400"), "$.nodes[1].share: must be a finite number"},
      {SampleWith("\"share\":50", "\"share\":-1e400"), "$.nodes[1].share: must be a finite number"},
      {SampleWith("\"sibling_ratio\":0.75", "\"sibling_ratio\":1e400"),
       "$.nodes[1].sibling_ratio: must be a finite number"},
      {SampleWith("\"capacity_gpus\":64", "\"capacity_gpus\":1e999"), "$.capacity_gpus: must be a finite number"},
      {SampleWith("\"owed\":[7200", "\"owed\":[1e400"), "$.history[0].owed[0]: must be a finite number"},
  };
  std::string dir = TempDir();
  std::string file = dir + "/bad.json";
  for (const Case& c : cases) {
    WriteText(file, c.text);
    ReportSnapshot out = Sample();
    out.tree_source = "untouched";
    Status s = budget::ReadReportSnapshot(file, &out);
    if (!s.IsCorruption()) fail_msg("not refused as corrupt: %s", c.expected);
    if (strstr(s.message().c_str(), c.expected) == nullptr) {
      fail_msg("expected '%s' in '%s'", c.expected, s.message().c_str());
    }
    // The message names the file, and *out is untouched.
    assert_non_null(strstr(s.message().c_str(), file.c_str()));
    assert_string_equal(out.tree_source.c_str(), "untouched");
  }
  unlink(file.c_str());
  rmdir(dir.c_str());
}

void TestExtremeFiniteNumbersRoundTripExactly(void**) {
  // The largest and smallest doubles the writer can meet are read back bit
  // for bit; +inf (a zero-share sibling's ratio) goes through null.
  ReportSnapshot s = Sample();
  s.nodes[1].share = std::numeric_limits<double>::max();
  s.nodes[1].window_usage = std::numeric_limits<double>::denorm_min();
  s.nodes[1].owed = -std::numeric_limits<double>::max();
  s.nodes[1].usage_ratio = 0.1 + 0.2;  // 0.30000000000000004
  s.capacity_gpus = 1e300;
  std::string text = budget::FormatReportSnapshot(s);
  assert_null(strstr(text.c_str(), "inf"));
  assert_null(strstr(text.c_str(), "Infinity"));
  ReportSnapshot out;
  Status st = budget::ParseReportSnapshot(text, "rt", &out);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  AssertSnapshotsEqual(s, out);
  assert_true(std::isinf(out.nodes[2].sibling_ratio));
}

void TestUnknownKeysAreIgnored(void**) {
  ReportSnapshot out;
  std::string text = SampleWith("\"generated_at\"", "\"later_field\":[1],\"generated_at\"");
  assert_true(budget::ParseReportSnapshot(text, "x", &out).ok());
  assert_int_equal(out.generated_at, 1700000000);
}

// --- job rows (version 2) and job objects (version 1) ------------------

// Formats `s` and parses it back; fails the test on an error.
ReportSnapshot RoundTrip(const ReportSnapshot& s) {
  ReportSnapshot out;
  Status st = budget::ParseReportSnapshot(budget::FormatReportSnapshot(s), "rt", &out);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  return out;
}

void TestRowsRoundTripEveryJobFieldSetAndUnset(void**) {
  SnapshotJob all_set;
  all_set.job_id = 4294967295u;  // the largest uint32
  all_set.state = SnapshotJobState::kRunning;
  all_set.user = "o\"brien\n";  // escaped in the row, read back as is
  all_set.account = "a\\b";
  all_set.node_path = "llm/pretrain";
  all_set.has_node = true;
  all_set.gpus = 64;
  all_set.contract_known = true;
  all_set.min_runtime = 86400;
  all_set.resumable = true;
  all_set.user_priority = 4294967295u;
  all_set.priority = 4294967295u;
  all_set.fairshare = 0.25;
  all_set.rank = FairShareOrder::kNoRank - 1;  // the largest real rank
  all_set.allocated = true;
  all_set.queue_position = SnapshotJob::kNoPosition - 1;
  all_set.submit_time = -5;  // before the epoch is still a time
  all_set.start_time = 1700000000;
  all_set.protection_end = 1700003600;
  all_set.has_preemption = true;
  all_set.preemption = {7, "over-entitlement", "cancel", 1700000100};
  // Every optional field absent: no node, rank, position, times, preemption.
  SnapshotJob all_unset;
  ReportSnapshot s = Sample();
  s.jobs = {all_set, all_unset};
  ReportSnapshot back = RoundTrip(s);
  assert_int_equal(back.version, 3);
  assert_int_equal(back.jobs.size(), 2);
  AssertJobsEqual(all_set, back.jobs[0]);
  AssertJobsEqual(all_unset, back.jobs[1]);
  // The unset job's row: 0, "pending", "", "", then null for the node,
  // 0/false for the facts, null rank, null position, submit 0, null times,
  // null preemption.
  std::string text = budget::FormatReportSnapshot(s);
  assert_non_null(strstr(text.c_str(),
                         R"([0,"pending","","",null,0,false,0,false,0,0,0,null,false,null,0,)"
                         R"(null,null,null]])"));
}

// Sample()'s jobs as version 1 wrote them: one object per job, the
// preemption key absent when there is none.
const char kVersion1[] = R"({"format":"slurm-budget-report","version":1,
  "generated_at":1700000000,"tree_source":"/etc/slurm/budget-tree.json",
  "window":604800,"bucket_width":300,"history_width":3600,"recalc_interval":30,
  "capacity_gpus":64,"fragmentation":null,"nodes":[],
  "jobs":[
    {"job_id":12,"state":"pending","user":"alice","account":"llm","node_path":"llm",
     "gpus":8,"contract_known":true,"min_runtime":900,"resumable":true,
     "user_priority":5,"priority":2147483655,"fairshare":1.0,"rank":0,
     "allocated":true,"queue_position":0,"submit_time":1699999000,
     "start_time":null,"protection_end":null},
    {"job_id":9,"state":"preempted","user":"bob","account":"nowhere","node_path":null,
     "gpus":4,"contract_known":false,"min_runtime":0,"resumable":false,
     "user_priority":0,"priority":0,"fairshare":0,"rank":null,"allocated":false,
     "queue_position":null,"submit_time":1699990000,"start_time":1699991000,
     "protection_end":1699991000,
     "preemption":{"preempted_by":12,"rule":"unallocated","action":"requeue","at":1699999500}}],
  "history":[]})";

// Replaces the first occurrence of `from` in `text` by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  if (at == std::string::npos) fail_msg("'%s' not in the text", from.c_str());
  return text.replace(at, from.size(), to);
}

void TestVersion1JobObjectsAreStillRead(void**) {
  ReportSnapshot out;
  Status s = budget::ParseReportSnapshot(kVersion1, "v1.json", &out);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  // Read as version 1, with the same job values as the version-2 sample.
  assert_int_equal(out.version, 1);
  assert_int_equal(out.generated_at, 1700000000);
  const ReportSnapshot expected = Sample();
  assert_int_equal(out.jobs.size(), 2);
  AssertJobsEqual(expected.jobs[0], out.jobs[0]);
  AssertJobsEqual(expected.jobs[1], out.jobs[1]);
  // Its errors name the object's key, as before.
  struct Case {
    std::string text;
    const char* expected;
  };
  const std::string v1 = kVersion1;
  const Case cases[] = {
      {Replaced(v1, "\"state\":\"pending\"", "\"state\":\"lost\""),
       "v1.json: $.jobs[0].state: must be pending, running or preempted, got 'lost'"},
      {Replaced(v1, "\"resumable\":true", "\"resumable\":1"),
       "v1.json: $.jobs[0].resumable: must be true or false"},
      {Replaced(v1, "\"gpus\":4,", ""), "v1.json: $.jobs[1].gpus: missing"},
      {Replaced(v1, "\"preempted_by\"", "\"by\""),
       "v1.json: $.jobs[1].preemption.preempted_by: missing"},
      {Replaced(v1, "\"preemption\":{", "\"preemption\":7,\"p\":{"),
       "v1.json: $.jobs[1].preemption: must be an object"},
      // A version-1 file's jobs are objects, not rows.
      {Replaced(v1, "\"jobs\":[", "\"jobs\":[[12],"), "v1.json: $.jobs[0]: must be an object"},
  };
  for (const Case& c : cases) {
    Status st = budget::ParseReportSnapshot(c.text, "v1.json", &out);
    if (!st.IsCorruption() || strstr(st.message().c_str(), c.expected) == nullptr) {
      fail_msg("expected '%s', got '%s'", c.expected, st.message().c_str());
    }
  }
}

// Sample()'s jobs as a later version might write them: the columns in
// another order, and a column ("gpu_type") this reader does not know.
const char kShuffledColumns[] = R"({"format":"slurm-budget-report","version":2,
  "generated_at":1700000000,"tree_source":"t","window":604800,"bucket_width":300,
  "history_width":3600,"recalc_interval":30,"capacity_gpus":64,"nodes":[],
  "job_fields":["preemption","submit_time","gpu_type","job_id","state","queue_position",
                "user","account","node_path","gpus","contract_known","min_runtime",
                "resumable","user_priority","priority","fairshare","rank","allocated",
                "start_time","protection_end"],
  "jobs":[
    [null,1699999000,"a100",12,"pending",0,"alice","llm","llm",8,true,900,true,5,
     2147483655,1.0,0,true,null,null],
    [{"preempted_by":12,"rule":"unallocated","action":"requeue","at":1699999500},
     1699990000,"h100",9,"preempted",null,"bob","nowhere",null,4,false,0,false,0,0,0,
     null,false,1699991000,1699991000]],
  "history":[]})";

void TestRowColumnsAreMappedByName(void**) {
  ReportSnapshot out;
  Status s = budget::ParseReportSnapshot(kShuffledColumns, "v2.json", &out);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  // The same jobs as the sample, whatever the column order; gpu_type ignored.
  const ReportSnapshot expected = Sample();
  assert_int_equal(out.jobs.size(), 2);
  AssertJobsEqual(expected.jobs[0], out.jobs[0]);
  AssertJobsEqual(expected.jobs[1], out.jobs[1]);
  // Without a preemption column no job has a preemption record.
  std::string text = Replaced(kShuffledColumns, "\"preemption\",", "");
  text = Replaced(text, "[null,1699999000", "[1699999000");
  text = Replaced(text,
                  R"([{"preempted_by":12,"rule":"unallocated","action":"requeue",)"
                  R"("at":1699999500},)",
                  "[");
  s = budget::ParseReportSnapshot(text, "v2.json", &out);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  assert_int_equal(out.jobs.size(), 2);
  assert_false(out.jobs[1].has_preemption);
  // job 9: state and gpus still found by name.
  assert_int_equal(out.jobs[1].job_id, 9);
  assert_int_equal(out.jobs[1].gpus, 4);
  assert_int_equal(static_cast<int>(out.jobs[1].state),
                   static_cast<int>(SnapshotJobState::kPreempted));
}

void TestMalformedJobRowsAreRefusedByPlace(void**) {
  struct Case {
    std::string text;
    const char* expected;
  };
  // Columns of the sample's rows (kJobFieldsJson): 0 job_id, 1 state,
  // 2 user, 5 gpus, 8 resumable, 11 fairshare, 18 preemption.
  const Case cases[] = {
      {SampleWith("\"gpus\",", ""), "$.job_fields: missing column \"gpus\""},
      {SampleWith("\"job_fields\"", "\"fields\""), "$.job_fields: missing"},
      {SampleWith("\"job_fields\":[", "\"job_fields\":7,\"x\":["),
       "$.job_fields: must be an array"},
      {SampleWith("\"state\",\"user\"", "\"state\",2"), "$.job_fields[2]: must be a string"},
      {SampleWith("\"preemption\"]", "\"preemption\",\"user\"]"),
       "$.job_fields[19]: column \"user\" appears twice"},
      {SampleWith("\"jobs\":[", "\"jobs\":{},\"x\":["), "$.jobs: must be an array"},
      {SampleWith("\"jobs\":[[12,", "\"jobs\":[{},[12,"),
       "$.jobs[0]: must be an array (a job row)"},
      // Job 12's row loses one of its three trailing nulls: 18 values.
      {SampleWith(",null,null,null],", ",null,null],"),
       "$.jobs[0]: has 18 values, job_fields names 19 columns"},
      // Job 9's row gains a value after its preemption: 20.
      {SampleWith("\"at\":1699999500}]", "\"at\":1699999500},7]"),
       "$.jobs[1]: has 20 values, job_fields names 19 columns"},
      {SampleWith("\"llm\",8,true", "\"llm\",\"8\",true"),
       "$.jobs[0][5] (gpus): must be an integer"},
      {SampleWith("[12,\"pending\"", "[12,\"lost\""),
       "$.jobs[0][1] (state): must be pending, running or preempted, got 'lost'"},
      {SampleWith("900,true,5", "900,1,5"), "$.jobs[0][8] (resumable): must be true or false"},
      {SampleWith("\"alice\"", "null"), "$.jobs[0][2] (user): must not be null"},
      {SampleWith("2147483655,1,0", "2147483655,null,0"),
       "$.jobs[0][11] (fairshare): must be a number, got null"},
      {SampleWith("[12,", "[-12,"), "$.jobs[0][0] (job_id): must lie in [0, 4294967295], got -12"},
      {SampleWith(R"({"preempted_by":12,"rule":"unallocated","action":"requeue","at":1699999500})",
                  "7"),
       "$.jobs[1][18] (preemption): must be an object"},
      {SampleWith("\"preempted_by\"", "\"by\""), "$.jobs[1][18].preempted_by: missing"},
  };
  for (const Case& c : cases) {
    ReportSnapshot out = Sample();
    out.tree_source = "untouched";
    Status s = budget::ParseReportSnapshot(c.text, "r.json", &out);
    if (!s.IsCorruption()) fail_msg("not refused as corrupt: %s", c.expected);
    if (strstr(s.message().c_str(), (std::string("r.json: ") + c.expected).c_str()) == nullptr) {
      fail_msg("expected '%s' in '%s'", c.expected, s.message().c_str());
    }
    assert_string_equal(out.tree_source.c_str(), "untouched");
  }
}

std::string FileText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

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

void TestStaleAfterThreeIntervalsOrNinetySeconds(void**) {
  ReportSnapshot s;
  s.generated_at = 1000;
  s.recalc_interval = 60;
  // 3 x 60 = 180 s > 90 s: stale only beyond 180 s.
  assert_int_equal(s.StaleAfter(), 180);
  assert_false(s.IsStale(1180));
  assert_true(s.IsStale(1181));
  s.recalc_interval = 5;
  // 3 x 5 = 15 s < 90 s: the floor applies.
  assert_int_equal(s.StaleAfter(), 90);
  assert_false(s.IsStale(1090));
  assert_true(s.IsStale(1091));
}

// --- builders ----------------------------------------------------------

// cluster 0 -> a 1 (share 70), b 2 (share 30).
const char kTwoTeams[] = R"({ "name": "cluster", "owners": ["boss"], "children": [
    { "name": "a", "share": 70, "account": "a" },
    { "name": "b", "share": 30, "account": "b" } ] })";

// 10 GPUs, a 2 h window of 10-minute buckets, 1 h history slots; now =
// 7199, so the window's slots are [0, 3600) and [3600, 7200).
constexpr double kCapacity = 10;
constexpr budget::TimePoint kNow = 7199;

struct Fixture {
  budget::AllocationTree tree;
  budget::Ledger ledger{budget::Ledger::Options{7200, 600, 3600}};
  FairShareOrder order;
  ReportSnapshot snapshot;
};

Fixture MakeFixture() {
  Fixture f;
  Status s = budget::AllocationTree::Parse(kTwoTeams, "t.json", &f.tree, nullptr);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  using S = budget::Ledger::Series;
  // a: 10 GPUs of allocated work through the first hour, asked for as well.
  f.ledger.Charge("a", S::kAllocated, 0, 3600, 10);
  f.ledger.Charge("a", S::kDemand, 0, 3600, 10);
  // b: 2 GPUs for half of the second hour, 4 GPUs asked for all of it, and
  // 1 GPU of unallocated work through it.
  f.ledger.Charge("b", S::kAllocated, 3600, 5400, 2);
  f.ledger.Charge("b", S::kDemand, 3600, 7200, 4);
  f.ledger.Charge("b", S::kUnallocated, 3600, 7200, 1);
  std::vector<double> usage(f.tree.size());
  for (size_t i = 0; i < f.tree.size(); ++i) {
    usage[i] = f.ledger.WindowUsage(f.tree.node(i).path, S::kAllocated, kNow);
  }
  s = f.order.Compute(f.tree, usage, {0, 1, 1}, kCapacity, 7200);
  if (!s.ok()) fail_msg("%s", s.message().c_str());
  f.snapshot.capacity_gpus = kCapacity;
  f.snapshot.window = 7200;
  f.snapshot.history_width = 3600;
  return f;
}

void TestNodesCarryOrderLedgerAndMetrics(void**) {
  Fixture f = MakeFixture();
  std::vector<budget::NodeActivity> activity = {{0, 0}, {10, 0}, {2, 2}};
  Status s = budget::BuildSnapshotNodes(f.tree, f.order, activity, kNow, &f.ledger, &f.snapshot);
  assert_true(s.ok());
  assert_int_equal(f.snapshot.nodes.size(), 3);
  const SnapshotNode& root = f.snapshot.nodes[0];
  const SnapshotNode& a = f.snapshot.nodes[1];
  const SnapshotNode& b = f.snapshot.nodes[2];
  assert_string_equal(root.name.c_str(), "cluster");
  assert_string_equal(root.owners[0].c_str(), "boss");
  assert_string_equal(a.path.c_str(), "a");
  assert_int_equal(a.depth, 1);
  // a: 10 x 3600 = 36000 GPU-s; b: 2 x 1800 = 3600; root 39600.
  assert_float_equal(a.window_usage, 36000, 0);
  assert_float_equal(b.window_usage, 3600, 0);
  assert_float_equal(root.window_usage, 39600, 0);
  // a's usage ratio: 36000 / (0.7 x 10 x 7200 = 50400) = 0.714
  assert_float_equal(a.usage_ratio, 36000.0 / 50400, 1e-12);
  // Ratios: a (36000/39600)/0.7 = 1.2987 > b (3600/39600)/0.3 = 0.3030, so
  // b ranks first (0), a second (1); the root has no rank.
  assert_int_equal(b.rank, 0);
  assert_int_equal(a.rank, 1);
  assert_false(root.has_rank());
  assert_float_equal(a.sibling_ratio, 36000.0 / 39600 / 0.7, 1e-12);
  // Entitled per hour: a 0.7 x 10 x 3600 = 25200, b 0.3 x 10 x 3600 = 10800.
  // a owed min(25200, 36000) + min(25200, 0) = 25200, delivered 36000.
  assert_float_equal(a.owed, 25200, 1e-9);
  assert_float_equal(a.delivered, 36000, 1e-9);
  // b owed min(10800, 0) + min(10800, 4 x 3600 = 14400) = 10800, delivered 3600.
  assert_float_equal(b.owed, 10800, 1e-9);
  assert_float_equal(b.delivered, 3600, 1e-9);
  // 3600 / 10800 = 1/3 of what b was owed.
  assert_float_equal(b.DeliveredOverOwed(), 1.0 / 3, 1e-12);
  // Root: min(36000, 36000) + min(36000, 14400) = 50400 owed; 39600 delivered.
  assert_float_equal(root.owed, 50400, 1e-9);
  assert_float_equal(root.delivered, 39600, 1e-9);
  // Unallocated: b 1 x 3600, summed into the root.
  assert_float_equal(b.unallocated, 3600, 0);
  assert_float_equal(root.unallocated, 3600, 0);
  // GPUs: root running 10 + 2 = 12, pending 0 + 2 = 2.
  assert_float_equal(root.running_gpus, 12, 0);
  assert_float_equal(root.pending_gpus, 2, 0);
  assert_float_equal(b.pending_gpus, 2, 0);
}

void TestNodesRefuseMismatchedInputs(void**) {
  Fixture f = MakeFixture();
  f.snapshot.nodes.resize(1);
  // activity of 2 entries for a 3-node tree.
  Status s = budget::BuildSnapshotNodes(f.tree, f.order, {{0, 0}, {0, 0}}, kNow, &f.ledger,
                                        &f.snapshot);
  assert_false(s.ok());
  assert_non_null(strstr(s.message().c_str(), "activity has 2 entries, the tree 3 nodes"));
  assert_int_equal(f.snapshot.nodes.size(), 1);
  // An order never computed covers 0 nodes.
  FairShareOrder empty;
  s = budget::BuildSnapshotNodes(f.tree, empty, {}, kNow, &f.ledger, &f.snapshot);
  assert_non_null(strstr(s.message().c_str(), "the order covers 0 nodes, the tree 3"));
  assert_int_equal(f.snapshot.nodes.size(), 1);
}

void TestHistoryIsHourlyDeliveredAgainstOwed(void**) {
  Fixture f = MakeFixture();
  budget::BuildSnapshotHistory(f.tree, 0, kNow, f.ledger, &f.snapshot);
  // max_depth 0: the root only.
  assert_int_equal(f.snapshot.history.size(), 1);
  const SnapshotHistory& h = f.snapshot.history[0];
  assert_string_equal(h.path.c_str(), "");
  // Two slots of the 2 h window, the first starting at 0.
  assert_int_equal(h.start, 0);
  assert_int_equal(h.width, 3600);
  assert_int_equal(h.delivered.size(), 2);
  // delivered: hour 0 a's 36000; hour 1 b's 3600.
  assert_float_equal(h.delivered[0], 36000, 1e-9);
  assert_float_equal(h.delivered[1], 3600, 1e-9);
  // owed: min(36000, 36000) = 36000; min(36000, 14400) = 14400.
  assert_float_equal(h.owed[0], 36000, 1e-9);
  assert_float_equal(h.owed[1], 14400, 1e-9);
  f.snapshot.history.clear();
  budget::BuildSnapshotHistory(f.tree, 1, kNow, f.ledger, &f.snapshot);
  // Depth 1: root, a, b.
  assert_int_equal(f.snapshot.history.size(), 3);
  assert_string_equal(f.snapshot.history[2].path.c_str(), "b");
  // b hour 1: min(10800, 14400) = 10800.
  assert_float_equal(f.snapshot.history[2].owed[1], 10800, 1e-9);
  // The same series from BuildSnapshotNodes's own reads, replacing the old.
  f.snapshot.history.resize(7);
  assert_true(budget::BuildSnapshotNodes(f.tree, f.order, {}, kNow, &f.ledger, &f.snapshot, 0).ok());
  assert_int_equal(f.snapshot.history.size(), 1);
  // Root hour 1: min(36000, 14400) = 14400 owed, 3600 delivered.
  assert_float_equal(f.snapshot.history[0].owed[1], 14400, 1e-9);
  assert_float_equal(f.snapshot.history[0].delivered[1], 3600, 1e-9);
}

void TestJobsGetPriorityAndQueuePositionFromTheOrder(void**) {
  Fixture f = MakeFixture();
  auto job = [](uint32_t id, SnapshotJobState state, const char* path, budget::Seconds min_rt,
                budget::TimePoint submit) {
    SnapshotJob j;
    j.job_id = id;
    j.state = state;
    j.node_path = path;
    j.has_node = path[0] != '\0';
    j.min_runtime = min_rt;
    j.submit_time = submit;
    return j;
  };
  std::vector<SnapshotJob> jobs = {
      job(1, SnapshotJobState::kPending, "a", 900, 10),
      job(2, SnapshotJobState::kPending, "b", 900, 20),
      job(3, SnapshotJobState::kPending, "b", 0, 5),
      job(4, SnapshotJobState::kRunning, "a", 900, 1),
      job(5, SnapshotJobState::kPending, "", 900, 1),
  };
  budget::RankSnapshotJobs(f.tree, f.order, &jobs);
  // Allocated first: b (rank 0) job 2, a (rank 1) job 1. Job 5 maps to no
  // node, so it is unallocated despite its min-runtime (as the plugin runs
  // it); among the unallocated, job 3 on b (rank 0) before job 5 (no rank),
  // although job 5 was submitted first.
  assert_int_equal(jobs[1].queue_position, 0);
  assert_int_equal(jobs[0].queue_position, 1);
  assert_int_equal(jobs[2].queue_position, 2);
  assert_int_equal(jobs[4].queue_position, 3);
  // Running jobs have no place in the queue.
  assert_int_equal(jobs[3].queue_position, SnapshotJob::kNoPosition);
  // Factors: b's rank 0 of 2 ranked nodes -> fairshare 1 - 0/2 = 1;
  // a's rank 1 -> 1 - 1/2 = 0.5.
  assert_int_equal(jobs[1].rank, 0);
  assert_float_equal(jobs[1].fairshare, 1.0, 1e-12);
  assert_float_equal(jobs[0].fairshare, 0.5, 1e-12);
  assert_int_equal(jobs[4].rank, FairShareOrder::kNoRank);
  assert_true(jobs[1].allocated);
  assert_false(jobs[2].allocated);
  assert_false(jobs[4].allocated);
  // Priorities follow the order: 2 > 1 > 3 > 5, none 0.
  assert_true(jobs[1].priority > jobs[0].priority);
  assert_true(jobs[0].priority > jobs[2].priority);
  assert_true(jobs[2].priority > jobs[4].priority);
  assert_true(jobs[4].priority > 0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(TestFileRoundTripIsExactAndReadableByAll),
      cmocka_unit_test(TestStandingsFileIsTheReportWithoutJobsAndHistory),
      cmocka_unit_test(TestJobsAreRowsUnderTheirFieldNames),
      cmocka_unit_test(TestMissingFileIsNotFound),
      cmocka_unit_test(TestWriteIntoMissingDirectoryFails),
      cmocka_unit_test(TestMalformedDocumentsAreRefusedByPath),
      cmocka_unit_test(TestUnknownKeysAreIgnored),
      cmocka_unit_test(TestExtremeFiniteNumbersRoundTripExactly),
      cmocka_unit_test(TestRowsRoundTripEveryJobFieldSetAndUnset),
      cmocka_unit_test(TestVersion1JobObjectsAreStillRead),
      cmocka_unit_test(TestRowColumnsAreMappedByName),
      cmocka_unit_test(TestMalformedJobRowsAreRefusedByPlace),
      cmocka_unit_test(TestScratchBufferGivesTheSameBytes),
      cmocka_unit_test(TestFileWriterWithoutCacheFormatsTheWholeHistory),
      cmocka_unit_test(TestFileWriterMatchesThePlainWriterOverRandomPasses),
      cmocka_unit_test(TestStaleAfterThreeIntervalsOrNinetySeconds),
      cmocka_unit_test(TestNodesCarryOrderLedgerAndMetrics),
      cmocka_unit_test(TestNodesRefuseMismatchedInputs),
      cmocka_unit_test(TestHistoryIsHourlyDeliveredAgainstOwed),
      cmocka_unit_test(TestJobsGetPriorityAndQueuePositionFromTheOrder),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
