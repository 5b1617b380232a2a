// Tests of the sacct trace reader (sacct_trace.h): the rows `sacct -a -X -P`
// really prints, the ones it prints without -X or with -D, and malformed or
// truncated files, whose errors must name file, line and column.
#include "libbudget/testing/test_support.h"

#include <cstring>
#include <string>
#include <vector>

#include "sim/sacct_trace.h"
#include "sim/sim_test_util.h"
#include "sim/trace_reader.h"

using budget::Status;
using namespace budget::sim;
using budget::sim::testing::AssertSameJob;

namespace {

const char kHeader[] = "JobID|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State\n";
// 2026-11-02T08:00:00 UTC.
constexpr int64_t kT0 = 1793606400;

// One row of kHeader's columns, submitted at kT0 and started 30 s later,
// unless a test says otherwise.
struct Row {
  std::string job_id = "100";
  std::string account = "llm";
  std::string user = "alice";
  std::string submit = "2026-11-02T08:00:00";
  std::string start = "2026-11-02T08:00:30";
  std::string elapsed = "01:00:00";
  std::string timelimit = "02:00:00";
  std::string alloc_tres = "billing=8,cpu=8,gres/gpu=8,mem=64G,node=1";
  std::string state = "COMPLETED";

  std::string Line() const {
    return job_id + "|" + account + "|" + user + "|" + submit + "|" + start + "|" + elapsed + "|" + timelimit + "|" +
           alloc_tres + "|" + state + "\n";
  }
};

std::string Text(const std::vector<Row>& rows) {
  std::string text = kHeader;
  for (const Row& r : rows) text += r.Line();
  return text;
}

Status Read(const std::string& text, Workload* w, ReadStats* stats, TraceOptions o = TraceOptions()) {
  return ReadTraceText(text, "h.sacct", TraceFormat::kSacct, o, w, stats);
}

Workload ReadOk(const std::string& text, ReadStats* stats, TraceOptions o = TraceOptions()) {
  Workload w;
  Status st = Read(text, &w, stats, o);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  return w;
}

void test_format_name(void**) {
  TraceFormat f = TraceFormat::kNative;
  assert_true(ParseTraceFormat("sacct", &f).ok());
  assert_true(f == TraceFormat::kSacct);
  Status st = ParseTraceFormat("sacct2", &f);
  assert_string_equal(st.message().c_str(), "--format: expected native, philly, swf or sacct, got 'sacct2'");
}

void test_reads_jobs_with_columns_in_any_order(void**) {
  // sacct prints the columns in --format's order; extra ones (End,
  // ReqTRES, Partition) are ignored, names are matched whatever their case.
  std::string text =
      "Partition|State|jobid|ReqTRES|AllocTRES|Timelimit|Elapsed|Start|Submit|User|Account|End\n"
      "gpu|COMPLETED|7|gres/gpu=4|cpu=4,gres/gpu=4,node=1|1-02:03:04|00:10:00|2026-11-02T08:01:00|"
      "2026-11-02T08:00:30|bob|robotics|2026-11-02T08:11:00\n"
      "gpu|TIMEOUT|5|gres/gpu=2|gres/gpu=2|30:00|00:30:02|2026-11-02T08:00:00|2026-11-02T08:00:00|alice|llm|"
      "2026-11-02T08:30:02\n";
  ReadStats stats;
  Workload w = ReadOk(text, &stats);
  assert_int_equal(stats.rows, 2);
  assert_int_equal(w.jobs.size(), 2);
  // Sorted by submit: job 5 (kT0) before job 7 (kT0 + 30).
  const TraceJob& a = w.jobs[0];
  assert_int_equal(a.submit, kT0);
  assert_string_equal(w.accounts[a.account].c_str(), "llm");
  assert_string_equal(w.UserName(a.user).c_str(), "alice");
  assert_int_equal(a.gpus, 2);
  // TIMEOUT: it ran 30:02, 2 s past its 30-minute limit (30:00 is M:S).
  assert_int_equal(a.duration, 1802);
  assert_int_equal(a.time_limit, 1800);
  const TraceJob& b = w.jobs[1];
  assert_int_equal(b.submit, kT0 + 30);
  assert_int_equal(b.gpus, 4);
  assert_int_equal(b.duration, 600);
  // 1-02:03:04 = 93784 s, rounded up to whole minutes: 1563 min = 93780 +
  // 60 = 93840.
  assert_int_equal(b.time_limit, 93840);
  assert_true(w.Validate().ok());
}

void test_time_limits(void**) {
  struct Case {
    const char* timelimit;
    int64_t limit;
  };
  // The job ran 01:00:00; a job without a limit of its own gets 3600 x 2
  // (the default --time-limit-factor) = 7200.
  const Case cases[] = {
      {"UNLIMITED", 7200},   {"Partition_Limit", 7200}, {"", 7200},
      {"1-02:03:04", 93840}, {"30:00", 1800},           {"02:00:00", 7200},
      {"00:00:30", 60},  // rounded up to a whole minute
      {"400-00:00:00", 365 * 86400},  // clamped to kMaxTimeLimit
  };
  for (const Case& c : cases) {
    Row r;
    r.timelimit = c.timelimit;
    ReadStats stats;
    Workload w = ReadOk(Text({r}), &stats);
    if (w.jobs[0].time_limit != c.limit)
      fail_msg("'%s': limit %lld, expected %lld", c.timelimit, (long long)w.jobs[0].time_limit, (long long)c.limit);
  }
}

void test_rows_not_replayed_are_counted_by_reason(void**) {
  std::vector<Row> rows(13);
  rows[0].job_id = "1";                       // replayed
  rows[1].job_id = "2_3";                     // an array task: replayed
  rows[2].job_id = "4+0";                     // het components: each replayed
  rows[3].job_id = "4+1";
  rows[4].job_id = "1.batch";                 // steps (sacct without -X)
  rows[5].job_id = "1.extern";
  rows[6].job_id = "5_[1-3]";                 // pending array
  rows[6].start = "Unknown";
  rows[6].state = "PENDING";
  rows[6].alloc_tres = "";
  rows[7].job_id = "6";                       // as sacct showed a job
  rows[7].elapsed = "00:00:25";               // slurmdbd learnt of after
  rows[7].alloc_tres = "";                    // it ended: a Start, an
  rows[7].state = "CANCELLED";                // Elapsed, no allocation
  rows[8].job_id = "7";
  rows[8].state = "RUNNING";
  rows[9].job_id = "8";                       // an earlier run (sacct -D)
  rows[9].state = "REQUEUED";
  rows[10].job_id = "9";                      // a CPU job
  rows[10].alloc_tres = "billing=1,cpu=1,mem=1G,node=1";
  rows[11].job_id = "10";                     // cancelled while pending
  rows[11].start = "None";
  rows[11].elapsed = "00:00:00";
  rows[11].alloc_tres = "";
  rows[11].state = "CANCELLED by 0";
  rows[12].job_id = "11";                     // cancelled after it started:
  rows[12].state = "CANCELLED by 0";          // replayed for what it ran
  rows[12].elapsed = "00:00:00";              // (under a second: 1 s)
  ReadStats stats;
  Workload w = ReadOk(Text(rows), &stats);
  assert_int_equal(stats.rows, 13);
  // Replayed: 1, 2_3, 4+0, 4+1, 11.
  assert_int_equal(w.jobs.size(), 5);
  assert_int_equal(w.jobs[4].duration, 1);
  // Not replayed: 2 steps, 3 never ran (5_[1-3], 6, 10), 1 running, 1
  // earlier run, 1 without GPUs.
  assert_int_equal(stats.filtered, 8);
  std::vector<std::string> lines = ReadWarnings("h.sacct", stats);
  assert_int_equal(lines.size(), 5);
  assert_string_equal(lines[0].c_str(),
                      "h.sacct: 2 row(s) were job steps and are not replayed (sacct -X leaves them out)");
  assert_string_equal(lines[1].c_str(), "h.sacct: 3 job(s) never ran and are not replayed");
  assert_string_equal(lines[2].c_str(),
                      "h.sacct: 1 job(s) were still running or suspended and are not replayed (run time unknown)");
  assert_string_equal(lines[3].c_str(),
                      "h.sacct: 1 row(s) were earlier runs of requeued jobs (sacct -D) and are not replayed: "
                      "a job's last run is its work");
  assert_string_equal(lines[4].c_str(),
                      "h.sacct: 1 job(s) held no GPUs (no gres/gpu in AllocTRES) and are not replayed");
}

void test_header_must_name_every_needed_column(void**) {
  Workload w;
  ReadStats stats;
  Status st = Read("JobID|User|Submit|Start|Timelimit|AllocTRES|State|End\n100|a|x|x|x|x|x|x\n", &w, &stats);
  assert_string_equal(st.message().c_str(),
                      "h.sacct:1:1: header: missing column(s) Account,Elapsed (export with sacct -a -X -P "
                      "--format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State; the header line "
                      "is required: no -n)");
  // sacct -n: the first line is a job, not a header.
  st = Read(Row().Line(), &w, &stats);
  assert_false(st.ok());
  assert_true(st.message().rfind("h.sacct:1:1: header: missing column(s) JobID,", 0) == 0);
  st = Read("JobID|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|jobid\n", &w, &stats);
  assert_string_equal(st.message().c_str(), "h.sacct:1:67: header: column JobID appears twice");
  st = Read("", &w, &stats);
  assert_string_equal(st.message().c_str(), "h.sacct:1:1: header: missing (empty file)");
}

void test_parsable_with_a_trailing_separator(void**) {
  // sacct -p ends every line with '|': an empty last column, ignored.
  std::string text = "JobID|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|\n" +
                     Row().Line().substr(0, Row().Line().size() - 1) + "|\n";
  ReadStats stats;
  Workload w = ReadOk(text, &stats);
  assert_int_equal(w.jobs.size(), 1);
  assert_int_equal(w.jobs[0].gpus, 8);
}

void test_malformed_rows_name_line_and_column(void**) {
  struct Case {
    Row row;
    const char* message;
  };
  auto with = [](void (*edit)(Row*)) {
    Row r;
    edit(&r);
    return r;
  };
  // Row 2 of the file; the columns are those of the default row:
  // "100|llm|alice|" is 14 characters, so Submit starts at 15, Start at 35
  // (after 19 + 1), Elapsed at 55, Timelimit at 64, AllocTRES at 73 and
  // State at 115 (after AllocTRES's 41 + 1).
  const Case cases[] = {
      {with([](Row* r) { r->job_id = "x1"; }),
       "h.sacct:2:1: JobID: expected 123, 123_4, 123_[1-3], 123+0 or a step such as 123.batch, got 'x1'"},
      {with([](Row* r) { r->state = "DONE"; }), "h.sacct:2:115: State: not a state sacct prints: 'DONE'"},
      {with([](Row* r) { r->submit = "Unknown"; }),
       "h.sacct:2:15: Submit: expected YYYY-MM-DDTHH:MM:SS (SLURM_TIME_FORMAT=standard), got 'Unknown'"},
      {with([](Row* r) { r->submit = "11/02-08:00:00"; }),
       "h.sacct:2:15: Submit: expected YYYY-MM-DDTHH:MM:SS (SLURM_TIME_FORMAT=standard), got '11/02-08:00:00'"},
      {with([](Row* r) { r->start = "yesterday"; }),
       "h.sacct:2:35: Start: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got 'yesterday'"},
      {with([](Row* r) { r->submit = "1969-12-31T23:59:59"; }),
       "h.sacct:2:15: Submit: must not be before 1970-01-01T00:00:00, got '1969-12-31T23:59:59'"},
      {with([](Row* r) { r->account = ""; }), "h.sacct:2:5: Account: must not be empty"},
      {with([](Row* r) { r->alloc_tres = "gres/gpu=two"; }),
       "h.sacct:2:73: AllocTRES: a gres/gpu count is not a whole number up to 1048576 in 'gres/gpu=two'"},
  };
  for (const Case& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = Read(Text({Row(), c.row}), &w, &stats);
    if (st.ok()) fail_msg("expected: %s", c.message);
    // Line 3: the header is line 1, a good row line 2.
    std::string want = c.message;
    want.replace(want.find(":2:"), 3, ":3:");
    assert_string_equal(st.message().c_str(), want.c_str());
    assert_int_equal(w.jobs.size(), 0);
  }
  // Elapsed and Timelimit quote Slurm's time-string parser.
  Row bad_elapsed;
  bad_elapsed.elapsed = "INVALID";
  Workload w;
  ReadStats stats;
  Status st = Read(Text({bad_elapsed}), &w, &stats);
  assert_true(st.message().rfind("h.sacct:2:55: Elapsed: ", 0) == 0);
  Row bad_limit;
  bad_limit.timelimit = "forever";
  st = Read(Text({bad_limit}), &w, &stats);
  assert_true(st.message().rfind("h.sacct:2:64: Timelimit: ", 0) == 0);
  assert_true(st.message().find("(or UNLIMITED, Partition_Limit)") != std::string::npos);
}

void test_truncated_file_is_an_error_or_a_skipped_row(void**) {
  // A copy cut short in the middle of its last row.
  std::string text = Text({Row(), Row()});
  text.resize(text.size() - 40);
  Workload w;
  ReadStats stats;
  Status st = Read(text, &w, &stats);
  assert_false(st.ok());
  assert_true(st.message().rfind("h.sacct:3:", 0) == 0);
  assert_true(st.message().find("expected 9 fields (as the header), got ") != std::string::npos);
  TraceOptions skip;
  skip.skip_bad_rows = true;
  w = ReadOk(text, &stats, skip);
  assert_int_equal(w.jobs.size(), 1);
  assert_int_equal(stats.bad_rows, 1);
  // Cut inside the header: columns are missing, whatever the cut.
  for (size_t n = 1; n < std::strlen(kHeader) - 1; ++n) {
    st = Read(std::string(kHeader, n), &w, &stats, skip);
    assert_false(st.ok());
  }
}

void test_contracts_default_or_recorded(void**) {
  // Without AdminComment every job takes the default contract, cut to its
  // time limit as the controller cuts DefaultMinRuntime: 2 h default, 30
  // min limit -> 30 min.
  Row short_limit;
  short_limit.timelimit = "30:00";
  short_limit.elapsed = "00:20:00";
  TraceOptions o;
  o.default_min_runtime = 7200;
  o.default_resumable = true;
  ReadStats stats;
  Workload w = ReadOk(Text({Row(), short_limit}), &stats, o);
  assert_int_equal(stats.default_contract, 2);
  // Both submitted at kT0: file order, Row() first (limit 2 h: the whole 2 h).
  assert_int_equal(w.jobs[0].min_runtime, 7200);
  assert_int_equal(w.jobs[1].min_runtime, 1800);
  assert_true(w.jobs[1].resumable);
  assert_string_equal(DefaultContractNote(stats, o).c_str(), "");
  assert_string_equal(DefaultContractNote(stats, TraceOptions()).c_str(),
                      "note: 2 jobs had no contract; --default-min-runtime 0 made them unallocated (free) work");
  // With AdminComment, the contract job_submit/contract recorded wins; a
  // job without one (submitted before the suite) takes the default.
  std::string text = std::string("AdminComment|") + kHeader +
                     "contract:min_runtime=900,resumable=0,declared=1|" + Row().Line() +
                     "|" + short_limit.Line();
  w = ReadOk(text, &stats, o);
  assert_int_equal(stats.default_contract, 1);
  assert_int_equal(w.jobs[0].min_runtime, 900);
  assert_false(w.jobs[0].resumable);
  assert_int_equal(w.jobs[1].min_runtime, 1800);
  assert_true(w.jobs[1].resumable);
}

void test_round_trips_through_the_native_writer(void**) {
  Row typed;
  typed.job_id = "200_7";
  typed.alloc_tres = "cpu=2,gres/gpu:h100=2,gres/gpu=2,node=1";
  typed.timelimit = "UNLIMITED";
  ReadStats stats;
  Workload w = ReadOk(Text({Row(), typed}), &stats);
  assert_true(w.Validate().ok());
  Workload back;
  assert_true(ReadTraceText(FormatNativeCsv(w), "out", TraceFormat::kNative, TraceOptions(), &back, &stats).ok());
  assert_int_equal(back.jobs.size(), 2);
  for (size_t i = 0; i < w.jobs.size(); ++i) AssertSameJob(w, w.jobs[i], back, back.jobs[i]);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_name),
      cmocka_unit_test(test_reads_jobs_with_columns_in_any_order),
      cmocka_unit_test(test_time_limits),
      cmocka_unit_test(test_rows_not_replayed_are_counted_by_reason),
      cmocka_unit_test(test_header_must_name_every_needed_column),
      cmocka_unit_test(test_parsable_with_a_trailing_separator),
      cmocka_unit_test(test_malformed_rows_name_line_and_column),
      cmocka_unit_test(test_truncated_file_is_an_error_or_a_skipped_row),
      cmocka_unit_test(test_contracts_default_or_recorded),
      cmocka_unit_test(test_round_trips_through_the_native_writer),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
