// Tests of the report snapshot's format, reader and plain writers
// (report_snapshot.h, report_format.h, report_reader.h, report_file.h): the
// JSON round trip and the atomic file, every refusal of a malformed or newer
// document, and staleness.
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

// The weights in force (report_snapshot.h "Unit"): written as an object,
// read back; a file written before them has none (plain GPU-hours); a bad
// weight is refused by its path.
void TestGpuWeightsAreRecordedAndOldFilesHaveNone(void**) {
  const std::string whole = budget::FormatReportSnapshot(Sample());
  assert_true(whole.find("\"gpu_weights\":{\"b200\":2,\"h100\":1}") != std::string::npos);
  ReportSnapshot out;
  assert_true(budget::ParseReportSnapshot(whole, "x", &out).ok());
  assert_true(out.gpu_type_weights.WeightOf("b200") == 2);
  assert_true(out.gpu_type_weights.WeightOf("h100") == 1);

  ReportSnapshot old;
  old.gpu_type_weights.Set("stale", 3);
  const std::string without = SampleWith("\"gpu_weights\":{\"b200\":2,\"h100\":1},", "");
  assert_true(budget::ParseReportSnapshot(without, "x", &old).ok());
  assert_true(old.gpu_type_weights.empty());

  struct Case {
    std::string text;
    const char* expected;
  };
  const Case cases[] = {
      {SampleWith("\"b200\":2", "\"b200\":0"), "$.gpu_weights.b200: must be a weight in (0, 1000]"},
      {SampleWith("\"b200\":2", "\"b200\":\"2\""), "$.gpu_weights.b200: must be a weight"},
      {SampleWith("\"gpu_weights\":{\"b200\":2,\"h100\":1}", "\"gpu_weights\":[2]"),
       "$.gpu_weights: must be an object"},
  };
  for (const Case& c : cases) {
    ReportSnapshot bad;
    Status st = budget::ParseReportSnapshot(c.text, "x", &bad);
    if (st.ok()) fail_msg("accepted: %s", c.expected);
    if (st.message().find(c.expected) == std::string::npos)
      fail_msg("message \"%s\" lacks \"%s\"", st.message().c_str(), c.expected);
  }
}

// PreemptNotice is recorded; a file written before it was has none (0).
void TestPreemptNoticeIsRecordedAndOldFilesHaveNone(void**) {
  ReportSnapshot s = Sample();
  s.preempt_notice = 45;
  const std::string whole = budget::FormatReportSnapshot(s);
  assert_true(whole.find("\"preempt_notice\":45") != std::string::npos);
  ReportSnapshot out;
  assert_true(budget::ParseReportSnapshot(whole, "x", &out).ok());
  assert_int_equal(out.preempt_notice, 45);
  const std::string without = SampleWith("\"preempt_notice\":0,", "");
  assert_true(without.find("preempt_notice") == std::string::npos);
  out.preempt_notice = 7;
  assert_true(budget::ParseReportSnapshot(without, "x", &out).ok());
  assert_int_equal(out.preempt_notice, 0);
  ReportSnapshot bad;
  assert_false(budget::ParseReportSnapshot(SampleWith("\"preempt_notice\":0", "\"preempt_notice\":-1"), "x", &bad).ok());
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
  // Written before pass_seconds: not recorded.
  assert_false(out.has_pass_seconds());
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
      // pass_seconds (report_snapshot.h "Pass duration") is a duration.
      {Replaced(v1, "\"fragmentation\":null", "\"fragmentation\":null,\"pass_seconds\":-1"),
       "v1.json: $.pass_seconds: must not be negative"},
      {Replaced(v1, "\"fragmentation\":null", "\"fragmentation\":null,\"pass_seconds\":null"),
       "v1.json: $.pass_seconds: must be a number, got null"},
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
      cmocka_unit_test(TestGpuWeightsAreRecordedAndOldFilesHaveNone),
      cmocka_unit_test(TestPreemptNoticeIsRecordedAndOldFilesHaveNone),
      cmocka_unit_test(TestExtremeFiniteNumbersRoundTripExactly),
      cmocka_unit_test(TestRowsRoundTripEveryJobFieldSetAndUnset),
      cmocka_unit_test(TestVersion1JobObjectsAreStillRead),
      cmocka_unit_test(TestRowColumnsAreMappedByName),
      cmocka_unit_test(TestMalformedJobRowsAreRefusedByPlace),
      cmocka_unit_test(TestStaleAfterThreeIntervalsOrNinetySeconds),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
