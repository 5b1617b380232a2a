// Tests of the trace readers (native, philly, swf): small samples, and
// malformed ones whose errors must name file, line and column.
#include "libbudget/test_support.h"

#include <cstdio>
#include <string>
#include <unistd.h>

#include "sim/trace_reader.h"

using budget::Status;
using namespace budget::sim;

namespace {

const char kNativeHeader[] = "submit,account,user,gpus,duration,min_runtime,resumable,priority\n";

Status ReadNative(const std::string& text, Workload* w, ReadStats* stats, bool skip = false) {
  TraceOptions o;
  o.skip_bad_rows = skip;
  return ReadTraceText(text, "t.csv", TraceFormat::kNative, o, w, stats);
}

void test_native_reads_and_sorts_by_submit(void**) {
  std::string text = std::string(kNativeHeader) +
                     "100,llm,alice,8,3600,900,1,5\n"
                     "\n"
                     "50,robotics,,1,900,0,false,0\r\n";
  Workload w;
  ReadStats stats;
  Status st = ReadNative(text, &w, &stats);
  assert_true(st.ok());
  // Two data rows, the blank line is not one.
  assert_int_equal(stats.rows, 2);
  assert_int_equal(w.jobs.size(), 2);
  // Sorted by submit: the robotics job (50) becomes job 1.
  assert_int_equal(w.jobs[0].submit, 50);
  assert_int_equal(w.jobs[0].id, 1);
  assert_string_equal(w.accounts[w.jobs[0].account].c_str(), "robotics");
  assert_int_equal(w.jobs[0].user, kNoUser);
  assert_false(w.jobs[0].resumable);
  assert_int_equal(w.jobs[1].gpus, 8);
  assert_int_equal(w.jobs[1].duration, 3600);
  assert_int_equal(w.jobs[1].min_runtime, 900);
  assert_true(w.jobs[1].resumable);
  assert_int_equal(w.jobs[1].priority, 5);
  assert_string_equal(w.UserName(w.jobs[1].user).c_str(), "alice");
}

struct BadRow {
  const char* row;
  const char* message;
};

void test_native_errors_name_file_line_column(void**) {
  // Line 2 is the first data row; columns count from 1 at the field's first
  // character.
  const BadRow cases[] = {
      {"x,llm,a,8,60,0,1,0", "t.csv:2:1: submit: expected an integer, got 'x'"},
      {"0,,a,8,60,0,1,0", "t.csv:2:3: account: must not be empty"},
      // "0,llm,a," is 8 characters: gpus starts at column 9.
      {"0,llm,a,0,60,0,1,0", "t.csv:2:9: gpus: must be >= 1, got 0"},
      {"0,llm,a,8,-5,0,1,0", "t.csv:2:11: duration: must be >= 1, got -5"},
      {"0,llm,a,8,60,-1,1,0", "t.csv:2:14: min_runtime: must be >= 0, got -1"},
      {"0,llm,a,8,60,0,maybe,0",
       "t.csv:2:16: resumable: expected 0, 1, true or false, got 'maybe'"},
      {"0,llm,a,8,60,0,1,high", "t.csv:2:18: priority: expected an integer, got 'high'"},
      // 7 fields: the column of the last field is named.
      {"0,llm,a,8,60,0,1", "t.csv:2:16: expected 8 fields, got 7"},
  };
  for (const BadRow& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = ReadNative(std::string(kNativeHeader) + c.row + "\n", &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
    // Nothing half-read.
    assert_int_equal(w.jobs.size(), 0);
  }
}

void test_native_header_is_required(void**) {
  Workload w;
  ReadStats stats;
  Status st = ReadNative("submit,account\n1,a\n", &w, &stats);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(),
                      "t.csv:1:1: header: expected 'submit,account,user,gpus,duration,"
                      "min_runtime,resumable,priority'");
  st = ReadNative("", &w, &stats);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(), "t.csv:1:1: header: missing (empty file)");
}

void test_skip_bad_rows_counts_them(void**) {
  std::string text = std::string(kNativeHeader) +
                     "0,llm,a,8,60,0,1,0\n"
                     "1,llm,a,zero,60,0,1,0\n"
                     "2,llm,a,8,60,0,1\n"
                     "3,llm,a,8,60,0,1,0\n";
  Workload w;
  ReadStats stats;
  Status st = ReadNative(text, &w, &stats, /*skip=*/true);
  assert_true(st.ok());
  // 4 rows, 2 bad (lines 3 and 4), 2 kept.
  assert_int_equal(stats.rows, 4);
  assert_int_equal(stats.bad_rows, 2);
  assert_int_equal(w.jobs.size(), 2);
  assert_int_equal(stats.first_errors.size(), 2);
  assert_string_equal(stats.first_errors[0].c_str(),
                      "t.csv:3:9: gpus: expected an integer, got 'zero'");
}

void test_philly_reads_any_order_with_default_contract(void**) {
  std::string text =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-03 10:00:00,7200,8,57600,vc1\n"
      "2017-10-03 09:00:00,0.4,1,0.4,vc2\n";
  TraceOptions o;
  o.default_min_runtime = 900;
  o.default_resumable = true;
  Workload w;
  ReadStats stats;
  Status st = ReadTraceText(text, "p.csv", TraceFormat::kPhilly, o, &w, &stats);
  assert_true(st.ok());
  assert_int_equal(w.jobs.size(), 2);
  // 2017-10-03 09:00:00 UTC = 1507021200; the 9:00 job comes first.
  assert_int_equal(w.jobs[0].submit, 1507021200);
  assert_string_equal(w.accounts[w.jobs[0].account].c_str(), "vc2");
  // 0.4 s rounds up to the 1 s a job holds its GPUs at least.
  assert_int_equal(w.jobs[0].duration, 1);
  assert_int_equal(w.jobs[1].submit, 1507021200 + 3600);
  assert_int_equal(w.jobs[1].gpus, 8);
  assert_int_equal(w.jobs[1].min_runtime, 900);
  assert_true(w.jobs[1].resumable);
}

void test_philly_errors(void**) {
  const BadRow cases[] = {
      {"2017-13-03 10:00:00,60,8,480,vc1",
       "p.csv:2:1: timestamp: expected YYYY-MM-DD HH:MM:SS, got '2017-13-03 10:00:00'"},
      // The timestamp is 19 characters and a comma: duration at column 21.
      {"2017-10-03 10:00:00,abc,8,480,vc1", "p.csv:2:21: duration: expected a number, got 'abc'"},
      {"2017-10-03 10:00:00,60,0,0,vc1", "p.csv:2:24: num_gpus: must be >= 1, got 0"},
      {"2017-10-03 10:00:00,60,8,480,", "p.csv:2:30: cluster: must not be empty"},
  };
  for (const BadRow& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = ReadTraceText(std::string("timestamp,duration,num_gpus,gpu_time,cluster\n") +
                                  c.row + "\n",
                              "p.csv", TraceFormat::kPhilly, TraceOptions(), &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
}

void test_swf_maps_processors_to_gpus(void**) {
  std::string text =
      "; Version: 2.2\n"
      ";   comment lines start with a semicolon\n"
      "1 0 5 3600 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1\n"
      "2 10 0 -1 4 -1 -1 4 600 -1 0 4 7 -1 1 -1 -1 -1\n"
      "3 20 1 60 -1 -1 -1 3 600 -1 1 4 8 -1 1 -1 -1 -1\n";
  TraceOptions o;
  o.procs_per_gpu = 2;
  Workload w;
  ReadStats stats;
  Status st = ReadTraceText(text, "w.swf", TraceFormat::kSwf, o, &w, &stats);
  assert_true(st.ok());
  // Job 2 never ran (run time -1): filtered, not an error.
  assert_int_equal(stats.rows, 3);
  assert_int_equal(stats.filtered, 1);
  assert_int_equal(w.jobs.size(), 2);
  // 16 requested processors / 2 per GPU = 8 GPUs; group 7, user 3.
  assert_int_equal(w.jobs[0].gpus, 8);
  assert_int_equal(w.jobs[0].duration, 3600);
  assert_string_equal(w.accounts[w.jobs[0].account].c_str(), "group7");
  assert_string_equal(w.UserName(w.jobs[0].user).c_str(), "user3");
  // 3 processors / 2 = 1.5, rounded up to 2 GPUs.
  assert_int_equal(w.jobs[1].gpus, 2);
}

void test_swf_errors(void**) {
  const BadRow cases[] = {
      // The 17th field "-1" starts at column 46 (16 fields and their
      // blanks take 45 characters: 1+1+1+4+2+2+2+2+4+2+1+1+1+2+1+2 + 16).
      {"1 0 5 3600 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1",
       "w.swf:1:46: expected 18 fields, got 17"},
      {"1 x 5 3600 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1",
       "w.swf:1:3: submit time: expected an integer, got 'x'"},
      {"1 -1 5 3600 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1",
       "w.swf:1:3: submit time: unknown (-1)"},
  };
  for (const BadRow& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = ReadTraceText(std::string(c.row) + "\n", "w.swf", TraceFormat::kSwf,
                              TraceOptions(), &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
}

void test_native_round_trip_and_file_errors(void**) {
  std::string text = std::string(kNativeHeader) + "5,llm,alice,16,3600,900,1,2\n";
  Workload w;
  ReadStats stats;
  assert_true(ReadNative(text, &w, &stats).ok());
  // Writing then reading gives the same text back.
  assert_string_equal(FormatNativeCsv(w).c_str(), text.c_str());
  char path[] = "/tmp/trace_reader_testXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_true(WriteNativeCsv(path, w).ok());
  Workload back;
  assert_true(ReadTraceFile(path, TraceFormat::kNative, TraceOptions(), &back, &stats).ok());
  assert_int_equal(back.jobs.size(), 1);
  unlink(path);
  Status st = ReadTraceFile("/nonexistent/x.csv", TraceFormat::kNative, TraceOptions(), &back, &stats);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(), "/nonexistent/x.csv: cannot open for reading");
  TraceFormat f;
  assert_false(ParseTraceFormat("csv", &f).ok());
  assert_true(ParseTraceFormat("swf", &f).ok());
  assert_true(f == TraceFormat::kSwf);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_native_reads_and_sorts_by_submit),
      cmocka_unit_test(test_native_errors_name_file_line_column),
      cmocka_unit_test(test_native_header_is_required),
      cmocka_unit_test(test_skip_bad_rows_counts_them),
      cmocka_unit_test(test_philly_reads_any_order_with_default_contract),
      cmocka_unit_test(test_philly_errors),
      cmocka_unit_test(test_swf_maps_processors_to_gpus),
      cmocka_unit_test(test_swf_errors),
      cmocka_unit_test(test_native_round_trip_and_file_errors),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
