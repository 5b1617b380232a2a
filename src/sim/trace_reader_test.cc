// Tests of the trace readers (native, philly, swf): small samples, and
// malformed ones whose errors must name file, line and column.
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "sim/trace_reader.h"
#include "sim/sim_test_util.h"

using budget::Status;
using namespace budget::sim;
using budget::sim::testing::AssertSameJob;

namespace {

const char kNativeHeader[] = "submit,account,user,gpus,duration,min_runtime,resumable,priority\n";

Status ReadNative(const std::string& text, Workload* w, ReadStats* stats, bool skip = false) {
  TraceOptions o;
  o.skip_bad_rows = skip;
  return ReadTraceText(text, "t.csv", TraceFormat::kNative, o, w, stats);
}

// `text` read as a native trace, which must read.
Workload ReadNativeOk(const std::string& text, ReadStats* stats) {
  Workload w;
  Status st = ReadNative(text, &w, stats);
  assert_true(st.ok());
  return w;
}

void test_native_reads_and_sorts_by_submit(void**) {
  std::string text = std::string(kNativeHeader) +
                     "100,llm,alice,8,3600,900,1,5\n"
                     "\n"
                     "50,robotics,,1,900,0,false,0\r\n";
  ReadStats stats;
  Workload w = ReadNativeOk(text, &stats);
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

// Each row after `header` fails with its message, and nothing is half-read.
void AssertRowsFail(const std::string& header, const std::vector<BadRow>& cases) {
  for (const BadRow& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = ReadNative(header + c.row + "\n", &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
    assert_int_equal(w.jobs.size(), 0);
  }
}

void test_native_errors_name_file_line_column(void**) {
  // Line 2 is the first data row; columns count from 1 at the field's first
  // character.
  const std::vector<BadRow> cases = {
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
  AssertRowsFail(kNativeHeader, cases);
}

void test_native_header_is_required(void**) {
  // The 9th and 10th columns are optional (8-column traces predate them);
  // any other header is refused with the same message, the optional part
  // bracketed.
  const char* kWant =
      "t.csv:1:1: header: expected 'submit,account,user,gpus,duration,"
      "min_runtime,resumable,priority[,time_limit[,gpu_type]]'";
  const char* bad_headers[] = {
      "submit,account\n1,a\n",
      // 9 columns, but the 9th misnamed.
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,timelimit\n",
      // 10 columns, the 10th misnamed.
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit,x\n",
      // 11 columns: one more than the format has.
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit,gpu_type,x\n",
  };
  Workload w;
  ReadStats stats;
  for (const char* text : bad_headers) {
    Status st = ReadNative(text, &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), kWant);
  }
  Status st = ReadNative("", &w, &stats);
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

void test_skipped_rows_are_data_rows(void**) {
  // The header, a blank line and (swf) comment lines are not rows: 1 of
  // the 2 data rows is skipped, in each format.
  TraceOptions o;
  o.skip_bad_rows = true;
  Workload w;
  ReadStats stats;
  std::string native = std::string(kNativeHeader) + "0,llm,a,8,60,0,1,0\n\n1,llm,a,x,60,0,1,0\n";
  assert_true(ReadTraceText(native, "t.csv", TraceFormat::kNative, o, &w, &stats).ok());
  assert_int_equal(stats.rows, 2);
  std::vector<std::string> lines = ReadWarnings("t.csv", stats);
  assert_int_equal(lines.size(), 2);
  assert_string_equal(lines[0].c_str(),
                      "t.csv: skipped 1 malformed row(s) of 2 data rows (the header not counted); first:");
  assert_string_equal(lines[1].c_str(), "  t.csv:4:9: gpus: expected an integer, got 'x'");
  std::string philly =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-03 10:00:00,60,8,480,vc1\n"
      "2017-10-03 10:00:00,60,x,480,vc1\n";
  assert_true(ReadTraceText(philly, "p.csv", TraceFormat::kPhilly, o, &w, &stats).ok());
  assert_int_equal(stats.rows, 2);
  assert_int_equal(stats.bad_rows, 1);
  std::string swf =
      "; a header comment\n"
      "1 0 0 100 8 -1 -1 8 200 -1 1 1 1 -1 1 1 -1 -1\n"
      "2 0 0 100 x -1 -1 8 200 -1 1 1 1 -1 1 1 -1 -1\n"
      "3 0 0 -1 8 -1 -1 8 200 -1 0 1 1 -1 1 1 -1 -1\n";
  assert_true(ReadTraceText(swf, "s.swf", TraceFormat::kSwf, o, &w, &stats).ok());
  assert_int_equal(stats.rows, 3);
  lines = ReadWarnings("s.swf", stats);
  assert_int_equal(lines.size(), 3);
  assert_string_equal(lines[0].c_str(),
                      "s.swf: skipped 1 malformed row(s) of 3 data rows (the header not counted); first:");
  assert_string_equal(lines[2].c_str(), "s.swf: 1 job(s) never ran and are not replayed");
  // A clean read says nothing.
  assert_true(ReadTraceText(std::string(kNativeHeader) + "0,llm,a,8,60,0,1,0\n", "t.csv", TraceFormat::kNative, o,
                            &w, &stats).ok());
  assert_int_equal(ReadWarnings("t.csv", stats).size(), 0);
}

void test_a_default_contract_of_0_is_noted(void**) {
  // philly and swf carry no contract: with --default-min-runtime 0 every
  // job is free work, which the table's head says; a native trace gives
  // its own, and a default > 0 is a contract.
  std::string philly =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-03 10:00:00,60,8,480,vc1\n"
      "2017-10-03 11:00:00,60,8,480,vc1\n";
  TraceOptions o;
  Workload w;
  ReadStats stats;
  assert_true(ReadTraceText(philly, "p.csv", TraceFormat::kPhilly, o, &w, &stats).ok());
  assert_int_equal(stats.default_contract, 2);
  assert_string_equal(DefaultContractNote(stats, o).c_str(),
                      "note: 2 jobs had no contract; --default-min-runtime 0 made them unallocated (free) work");
  std::string swf = "1 0 0 100 8 -1 -1 8 200 -1 1 1 1 -1 1 1 -1 -1\n";
  assert_true(ReadTraceText(swf, "s.swf", TraceFormat::kSwf, o, &w, &stats).ok());
  assert_string_equal(DefaultContractNote(stats, o).c_str(),
                      "note: 1 job had no contract; --default-min-runtime 0 made it unallocated (free) work");
  o.default_min_runtime = 900;
  assert_true(ReadTraceText(philly, "p.csv", TraceFormat::kPhilly, o, &w, &stats).ok());
  assert_string_equal(DefaultContractNote(stats, o).c_str(), "");
  assert_true(ReadNative(std::string(kNativeHeader) + "0,llm,a,8,60,0,1,0\n", &w, &stats).ok());
  assert_int_equal(stats.default_contract, 0);
  assert_string_equal(DefaultContractNote(stats, TraceOptions()).c_str(), "");
}

void test_a_default_contract_is_cut_to_the_time_limit(void**) {
  // The controller cuts a DefaultMinRuntime longer than a job's time limit
  // to the limit (src/libbudget/policy/job_contract.h); the reader applies
  // --default-min-runtime the same way. Under a 1 h default, with the
  // default --time-limit-factor 2:
  struct Case {
    const char* row;
    budget::Seconds time_limit, min_runtime;
  } cases[] = {
      // 10 min of work: limit ceil(600 x 2 / 60) x 60 = 1200 s, below the
      // 1 h default, so the contract is the limit, 1200 s.
      {"2017-10-03 10:00:00,600,8,4800,vc1\n", 1200, 1200},
      // 3 h of work: limit 21600 s, above the default: 3600 s as given.
      {"2017-10-03 10:00:00,10800,8,86400,vc1\n", 21600, 3600},
  };
  TraceOptions o;
  o.default_min_runtime = 3600;
  for (const Case& c : cases) {
    Workload w;
    ReadStats stats;
    std::string text = std::string("timestamp,duration,num_gpus,gpu_time,cluster\n") + c.row;
    assert_true(ReadTraceText(text, "p.csv", TraceFormat::kPhilly, o, &w, &stats).ok());
    assert_int_equal(w.jobs[0].time_limit, c.time_limit);
    assert_int_equal(w.jobs[0].min_runtime, c.min_runtime);
    assert_int_equal(stats.default_contract, 1);
  }
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
      // 1e300 s has no value as whole seconds (once a 1 s job, by UB).
      {"2017-10-03 10:00:00,1e300,8,480,vc1",
       "p.csv:2:21: duration: must be at most 316224000 (10 years), got '1e300'"},
      // 10 x 366 days = 316224000 s, and 1 s more.
      {"2017-10-03 10:00:00,316224000.5,8,480,vc1",
       "p.csv:2:21: duration: must be at most 316224000 (10 years), got '316224000.5'"},
      // Before 1970: a negative submit time, which no trace can hold.
      {"1969-12-31 23:59:59,60,8,480,vc1",
       "p.csv:2:1: timestamp: must not be before 1970-01-01 00:00:00, got '1969-12-31 23:59:59'"},
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

void test_quoted_fields_are_read(void**) {
  // RFC 4180: a quoted field may hold the separator, a doubled quote is one
  // quote, blanks around the quotes go and blanks inside stay; any field
  // may be quoted, the header's too.
  std::string text =
      "\"submit\",account,user,gpus,duration,min_runtime,resumable,priority\n"
      "\"100\",\"llm, pretrain\",\"al \"\"ice\"\"\",8,3600,900,1,5\n"
      "50, \"robotics\" ,\"\",\" 1\",900,0,false,0\n";
  ReadStats stats;
  Workload w = ReadNativeOk(text, &stats);
  assert_int_equal(w.jobs.size(), 2);
  assert_string_equal(w.accounts[w.jobs[0].account].c_str(), "robotics");
  assert_int_equal(w.jobs[0].user, kNoUser);
  assert_int_equal(w.jobs[0].gpus, 1);
  assert_int_equal(w.jobs[1].submit, 100);
  assert_string_equal(w.accounts[w.jobs[1].account].c_str(), "llm, pretrain");
  assert_string_equal(w.UserName(w.jobs[1].user).c_str(), "al \"ice\"");
  // Philly's timestamp, quoted as spreadsheets write it.
  text = "timestamp,duration,num_gpus,gpu_time,cluster\n"
         "\"2017-10-03 10:00:00\",7200,8,57600,\"vc,1\"\n";
  Status st = ReadTraceText(text, "p.csv", TraceFormat::kPhilly, TraceOptions(), &w, &stats);
  assert_true(st.ok());
  assert_int_equal(w.jobs[0].submit, 1507024800);
  assert_string_equal(w.accounts[w.jobs[0].account].c_str(), "vc,1");
}

void test_malformed_quotes_name_the_column(void**) {
  const std::vector<BadRow> cases = {
      // The opening quote of the field that does not end.
      {"0,\"llm,a,8,60,0,1,0", "t.csv:2:3: unterminated quoted field (a quoted field ends on its line)"},
      {"0,\"llm\"x,a,8,60,0,1,0", "t.csv:2:8: text after the closing quote of a quoted field"},
      {"0,ll\"m,a,8,60,0,1,0",
       "t.csv:2:5: quote inside an unquoted field (quote the whole field and double the quote)"},
      // A quoted number is still checked as a number, at its quote.
      {"0,llm,a,\"8x\",60,0,1,0", "t.csv:2:9: gpus: expected an integer, got '8x'"},
  };
  AssertRowsFail(kNativeHeader, cases);
  // With --skip-bad-rows such a row is one malformed row like any other.
  Workload w;
  ReadStats stats;
  Status st = ReadNative(std::string(kNativeHeader) + "0,\"llm,a,8,60,0,1,0\n1,llm,a,8,60,0,1,0\n", &w, &stats,
                         /*skip=*/true);
  assert_true(st.ok());
  assert_int_equal(stats.bad_rows, 1);
  assert_int_equal(w.jobs.size(), 1);
  // In the header, it is a header error.
  st = ReadNative("submit,\"account\n", &w, &stats);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(),
                      "t.csv:1:8: header: unterminated quoted field (a quoted field ends on its line)");
}

void test_names_with_commas_and_quotes_round_trip(void**) {
  Workload w;
  TraceJob j;
  j.account = w.InternAccount("llm, \"pre\"");
  j.user = w.InternUser(" padded ");
  j.time_limit = 60;
  w.jobs.push_back(j);
  w.SortAndNumber();
  std::string text = FormatNativeCsv(w);
  assert_non_null(strstr(text.c_str(), "\n0,\"llm, \"\"pre\"\"\",\" padded \",1,"));
  Workload back;
  ReadStats stats;
  assert_true(ReadNative(text, &back, &stats).ok());
  AssertSameJob(w, w.jobs[0], back, back.jobs[0]);
}

void test_gpu_types_are_read_and_written(void**) {
  // The optional 10th column: a type per job, empty for any GPU.
  ReadStats stats;
  Workload w = ReadNativeOk(
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit,gpu_type\n"
      "0,llm,a,8,3600,600,1,0,,b200\n"
      "1,llm,a,1,60,0,1,0,,\n"
      "2,cv,b,8,3600,600,1,0,7200,h100\n",
      &stats);
  assert_int_equal(w.jobs.size(), 3);
  assert_int_equal(w.gpu_types.size(), 2);
  assert_string_equal(w.gpu_types[size_t(w.jobs[0].gpu_type)].c_str(), "b200");
  assert_int_equal(w.jobs[1].gpu_type, budget::sim::kAnyGpuType);
  assert_string_equal(w.gpu_types[size_t(w.jobs[2].gpu_type)].c_str(), "h100");
  assert_int_equal(w.jobs[2].time_limit, 7200);
  // Written back with the column (a typeless workload keeps nine).
  std::string text = FormatNativeCsv(w);
  assert_non_null(strstr(text.c_str(), ",time_limit,gpu_type\n"));
  Workload back = ReadNativeOk(text, &stats);
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const int32_t a = w.jobs[i].gpu_type, b = back.jobs[i].gpu_type;
    assert_true((a < 0 && b < 0) || (a >= 0 && b >= 0 && w.gpu_types[size_t(a)] == back.gpu_types[size_t(b)]));
  }
  // A type is a name: letters, digits, '_' and '-'.
  Workload bad;
  Status st = ReadNative(
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit,gpu_type\n"
      "0,llm,a,8,3600,600,1,0,,b 200\n",
      &bad, &stats);
  assert_false(st.ok());
  // Line 2; "0,llm,a,8,3600,600,1,0,," is 24 characters: column 25.
  assert_string_equal(st.message().c_str(), "t.csv:2:25: gpu_type: letters, digits, '_' and '-' only, got 'b 200'");
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
      {"1 253402300800 5 3600 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1",
       "w.swf:1:3: submit time: must be at most 253402300799 (9999-12-31 23:59:59 UTC), got '253402300800'"},
      {"1 0 5 316224001 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1",
       "w.swf:1:7: run time: must be at most 316224000 (10 years), got '316224001'"},
      {"1 0 5 9223372036854775807 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1",
       "w.swf:1:7: run time: must be at most 316224000 (10 years), got '9223372036854775807'"},
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

struct LimitCase {
  int64_t duration;
  double factor;
  int64_t want;
};

void test_derive_time_limit(void**) {
  // ceil(duration x factor / 60) x 60, at least 60, at most 365 days
  // (kMaxTimeLimit = 31,536,000 s = 525,600 min).
  const LimitCase cases[] = {
      {1, 2.0, 60},        // 2 s -> 1 min
      {1, 1.0, 60},        // 1 s -> 1 min
      {30, 2.0, 60},       // 60 s exactly: 1 min, not 2
      {31, 2.0, 120},      // 62 s -> 2 min
      {60, 1.0, 60},       // a whole minute stays as it is
      {61, 1.0, 120},      // 61 s -> 2 min
      {3600, 1.0, 3600},   // factor 1: the duration in whole minutes
      {3600, 2.0, 7200},   // the default factor
      {900, 2.0, 1800},    // the scenario's debug jobs: 15 min -> 30 min
      {100, 1.5, 180},     // 150 s -> 3 min
      {7200, 1.25, 9000},  // 150 min exactly
      // 1980 s = 33 min exactly; in doubles 1980.0000000000002 -> 34 min.
      {1800, 1.1, 1980},
      {31535999, 1.0, 31536000},    // 1 s short of 365 days: rounds up to it
      {31536000, 1.0, 31536000},    // 365 days
      {15768000, 2.0, 31536000},    // 182.5 days x 2 = 365 days exactly
      {20000000, 2.0, 31536000},    // 463 days: clamped
      {INT64_MAX, 2.0, 31536000},   // no overflow
      {INT64_MAX, 1e300, 31536000},
      {3600, 1e300, 31536000},
      // Outside the precondition: a factor < 1 or NaN is taken as 1, a
      // duration < 1 as 1.
      {3600, 0.5, 3600},
      {3600, NAN, 3600},
      {0, 2.0, 60},
  };
  for (const LimitCase& c : cases) {
    int64_t got = DeriveTimeLimit(c.duration, c.factor);
    if (got != c.want)
      print_error("duration %lld factor %g: got %lld, want %lld\n", (long long)c.duration,
                  c.factor, (long long)got, (long long)c.want);
    assert_int_equal(got, c.want);
  }
}

struct FormatLimitCase {
  TraceFormat format;
  const char* text;   // one job
  double factor;
  int64_t want_duration;
  int64_t want_limit;
};

void test_time_limit_per_format(void**) {
  const char* kPhilly = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  std::string native8 = kNativeHeader;
  std::string native9 =
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit\n";
  // SWF: 9th field the requested time. Run time 3600 in every row.
  const std::string swf_head = "1 0 5 3600 8 -1 -1 8 ";
  const std::string swf_tail = " -1 1 3 7 -1 1 -1 -1 -1\n";
  const std::string rows[] = {
      native8 + "0,llm,a,1,3600,0,1,0\n",
      native9 + "0,llm,a,1,3600,0,1,0,600\n",
      native9 + "0,llm,a,1,3600,0,1,0,\n",
      std::string(kPhilly) + "2017-10-03 10:00:00,7200,8,57600,vc1\n",
      std::string(kPhilly) + "2017-10-03 10:00:00,0.4,1,0.4,vc1\n",
      swf_head + "7200" + swf_tail,
      swf_head + "7201" + swf_tail,
      swf_head + "59" + swf_tail,
      swf_head + "1800" + swf_tail,
      swf_head + "-1" + swf_tail,
      swf_head + "0" + swf_tail,
      swf_head + "99999999999" + swf_tail,
  };
  const FormatLimitCase cases[] = {
      // native, 8 columns: derived, 3600 x 3 = 180 min.
      {TraceFormat::kNative, rows[0].c_str(), 3.0, 3600, 10800},
      // 9 columns: the trace's own limit, even below the duration (the job
      // then cannot finish in one run; that is the trace's statement).
      {TraceFormat::kNative, rows[1].c_str(), 3.0, 3600, 600},
      // An empty field: derived, 3600 x 2.
      {TraceFormat::kNative, rows[2].c_str(), 2.0, 3600, 7200},
      // philly: always derived; 7200 x 1.5 = 180 min.
      {TraceFormat::kPhilly, rows[3].c_str(), 1.5, 7200, 10800},
      // 0.4 s is held for 1 s; 2 s -> 1 min.
      {TraceFormat::kPhilly, rows[4].c_str(), 2.0, 1, 60},
      // swf: the requested time, whatever the factor.
      {TraceFormat::kSwf, rows[5].c_str(), 3.0, 3600, 7200},
      // 7201 s rounded up to 121 min.
      {TraceFormat::kSwf, rows[6].c_str(), 3.0, 3600, 7260},
      // 59 s -> 1 min.
      {TraceFormat::kSwf, rows[7].c_str(), 3.0, 3600, 60},
      // Less than the run time: kept (the archive's scheduler said so).
      {TraceFormat::kSwf, rows[8].c_str(), 3.0, 3600, 1800},
      // Unknown (-1) or 0: derived from the run time, 3600 x 3.
      {TraceFormat::kSwf, rows[9].c_str(), 3.0, 3600, 10800},
      {TraceFormat::kSwf, rows[10].c_str(), 3.0, 3600, 10800},
      // 3,170 years requested: clamped to 365 days.
      {TraceFormat::kSwf, rows[11].c_str(), 3.0, 3600, 31536000},
  };
  for (const FormatLimitCase& c : cases) {
    TraceOptions o;
    o.time_limit_factor = c.factor;
    Workload w;
    ReadStats stats;
    Status st = ReadTraceText(c.text, "f", c.format, o, &w, &stats);
    if (!st.ok()) print_error("%s\n", st.message().c_str());
    assert_true(st.ok());
    assert_int_equal(w.jobs.size(), 1);
    assert_int_equal(w.jobs[0].duration, c.want_duration);
    assert_int_equal(w.jobs[0].time_limit, c.want_limit);
    assert_true(w.Validate().ok());
  }
}

void test_native_time_limit_errors(void**) {
  const std::string header =
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit\n";
  // "0,llm,a,8,60,0,1,0," is 19 characters: time_limit starts at column 20.
  const std::vector<BadRow> cases = {
      {"0,llm,a,8,60,0,1,0,90",
       "t.csv:2:20: time_limit: must be a positive multiple of 60 (Slurm time limits are "
       "whole minutes), got 90"},
      {"0,llm,a,8,60,0,1,0,0",
       "t.csv:2:20: time_limit: must be a positive multiple of 60 (Slurm time limits are "
       "whole minutes), got 0"},
      {"0,llm,a,8,60,0,1,0,-60",
       "t.csv:2:20: time_limit: must be a positive multiple of 60 (Slurm time limits are "
       "whole minutes), got -60"},
      {"0,llm,a,8,60,0,1,0,1:00",
       "t.csv:2:20: time_limit: expected an integer (seconds), got '1:00'"},
      // 365 days and one minute.
      {"0,llm,a,8,60,0,1,0,31536060",
       "t.csv:2:20: time_limit: must be at most 31536000 (365 days), got 31536060"},
      // A 9-column file wants 9 fields in every row (an empty one derives);
      // "0,llm,a,8,60,0,1," is 17 characters: the 8th field at column 18.
      {"0,llm,a,8,60,0,1,0", "t.csv:2:18: expected 9 fields, got 8"},
      {"0,llm,a,8,60,0,1,0,60,7", "t.csv:2:23: expected 9 fields, got 10"},
      // The old messages hold in 9-column files too.
      {"0,llm,a,0,60,0,1,0,60", "t.csv:2:9: gpus: must be >= 1, got 0"},
  };
  AssertRowsFail(header, cases);
}

void test_bad_time_limit_factor_is_refused(void**) {
  // The readers check the factor themselves: a caller's bad one must not
  // quietly become 1.
  const double factors[] = {0.5, 0, -2, NAN, INFINITY};
  for (double f : factors) {
    TraceOptions o;
    o.time_limit_factor = f;
    Workload w;
    ReadStats stats;
    Status st = ReadTraceText(std::string(kNativeHeader) + "0,llm,a,1,60,0,1,0\n", "t.csv",
                              TraceFormat::kNative, o, &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(),
                        "--time-limit-factor: must be a finite number >= 1");
  }
}

struct ValidateCase {
  int64_t time_limit;
  const char* message;  // nullptr: valid
};

void test_validate_checks_the_time_limit(void**) {
  const ValidateCase cases[] = {
      {60, nullptr},
      {31536000, nullptr},
      // 0 is what a TraceJob holds until a reader sets it.
      {0, "job 1: time_limit must be a whole number of minutes, 60 s to 365 days, got 0 s"},
      {59, "job 1: time_limit must be a whole number of minutes, 60 s to 365 days, got 59 s"},
      {90, "job 1: time_limit must be a whole number of minutes, 60 s to 365 days, got 90 s"},
      {31536060,
       "job 1: time_limit must be a whole number of minutes, 60 s to 365 days, got 31536060 s"},
  };
  for (const ValidateCase& c : cases) {
    Workload w;
    TraceJob j;
    j.account = w.InternAccount("llm");
    j.time_limit = c.time_limit;
    w.jobs.push_back(j);
    w.SortAndNumber();
    Status st = w.Validate();
    if (c.message == nullptr) {
      assert_true(st.ok());
    } else {
      assert_false(st.ok());
      assert_string_equal(st.message().c_str(), c.message);
    }
  }
}

void test_native_refuses_times_out_of_range(void**) {
  const BadRow cases[] = {
      {"253402300800,llm,alice,8,3600,900,1,5",
       "t.csv:2:1: submit: must be at most 253402300799 (9999-12-31 23:59:59 UTC), got '253402300800'"},
      {"-1,llm,alice,8,3600,900,1,5", "t.csv:2:1: submit: must be >= 0, got -1"},
      {"0,llm,alice,8,316224001,0,1,5",
       "t.csv:2:15: duration: must be at most 316224000 (10 years), got '316224001'"},
      {"0,llm,alice,8,60,316224001,1,5",
       "t.csv:2:18: min_runtime: must be at most 316224000 (10 years), got '316224001'"},
  };
  for (const BadRow& c : cases) {
    Workload w;
    ReadStats stats;
    Status st = ReadNative(std::string(kNativeHeader) + c.row + "\n", &w, &stats);
    assert_false(st.ok());
    assert_string_equal(st.message().c_str(), c.message);
  }
}

// What any reader accepts, the native writer writes and the native reader
// reads back to the same jobs: the extremes of every format.
void test_every_reader_round_trips_through_the_native_writer(void**) {
  struct Source {
    TraceFormat format;
    std::string text;
  };
  const Source sources[] = {
      {TraceFormat::kNative, std::string(kNativeHeader) + "0,a,u,1,1,0,0,0\n"
                                 "253402300799,a,u,1048576,316224000,316224000,1,4294967295\n"},
      // 1970-01-01 00:00:00 is 0; 9999-12-31 23:59:59 is 253402300799; a
      // 0.2 s duration is held for 1 s.
      {TraceFormat::kPhilly, "timestamp,duration,num_gpus,gpu_time,cluster\n"
                             "1970-01-01 00:00:00,0.2,1,0,vc\n"
                             "9999-12-31 23:59:59,316224000,8,0,vc\n"},
      {TraceFormat::kSwf, "1 0 5 1 16 -1 -1 16 7200 -1 1 3 7 -1 1 -1 -1 -1\n"
                          "2 253402300799 5 316224000 16 -1 -1 16 -1 -1 1 3 7 -1 1 -1 -1 -1\n"},
  };
  for (const Source& src : sources) {
    Workload w, back;
    ReadStats stats;
    Status st = ReadTraceText(src.text, "in", src.format, TraceOptions(), &w, &stats);
    if (!st.ok()) fail_msg("%s", st.message().c_str());
    assert_int_equal(w.jobs.size(), 2);
    assert_true(w.Validate().ok());
    const std::string written = FormatNativeCsv(w);
    st = ReadTraceText(written, "out", TraceFormat::kNative, TraceOptions(), &back, &stats);
    if (!st.ok()) fail_msg("%s", st.message().c_str());
    assert_int_equal(back.jobs.size(), w.jobs.size());
    for (size_t i = 0; i < w.jobs.size(); ++i) AssertSameJob(w, w.jobs[i], back, back.jobs[i]);
    assert_string_equal(FormatNativeCsv(back).c_str(), written.c_str());
  }
}

void test_native_round_trip_and_file_errors(void**) {
  // An 8-column trace: the limits are derived (3600 x 2 = 7200; 50 x 2 =
  // 100 s -> 2 min = 120) and written in the 9th column.
  std::string text = std::string(kNativeHeader) +
                     "5,llm,alice,16,3600,900,1,2\n"
                     "9,robotics,,1,50,0,0,0\n";
  Workload w;
  ReadStats stats;
  assert_true(ReadNative(text, &w, &stats).ok());
  const std::string written =
      "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit\n"
      "5,llm,alice,16,3600,900,1,2,7200\n"
      "9,robotics,,1,50,0,0,0,120\n";
  assert_string_equal(FormatNativeCsv(w).c_str(), written.c_str());
  // Read back, with another factor: the written limits are kept, not
  // derived again, and writing once more gives the same text.
  TraceOptions other;
  other.time_limit_factor = 5;
  Workload again;
  assert_true(ReadTraceText(written, "w.csv", TraceFormat::kNative, other, &again, &stats).ok());
  assert_int_equal(again.jobs.size(), w.jobs.size());
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const TraceJob& a = w.jobs[i];
    const TraceJob& b = again.jobs[i];
    AssertSameJob(w, a, again, b);
  }
  assert_string_equal(FormatNativeCsv(again).c_str(), written.c_str());
  char path[] = "/tmp/trace_reader_testXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_true(WriteNativeCsv(path, w).ok());
  Workload back;
  assert_true(ReadTraceFile(path, TraceFormat::kNative, TraceOptions(), &back, &stats).ok());
  assert_string_equal(FormatNativeCsv(back).c_str(), written.c_str());
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
      cmocka_unit_test(test_skipped_rows_are_data_rows),
      cmocka_unit_test(test_a_default_contract_of_0_is_noted),
      cmocka_unit_test(test_philly_reads_any_order_with_default_contract),
      cmocka_unit_test(test_a_default_contract_is_cut_to_the_time_limit),
      cmocka_unit_test(test_philly_errors),
      cmocka_unit_test(test_quoted_fields_are_read),
      cmocka_unit_test(test_malformed_quotes_name_the_column),
      cmocka_unit_test(test_names_with_commas_and_quotes_round_trip),
      cmocka_unit_test(test_gpu_types_are_read_and_written),
      cmocka_unit_test(test_swf_maps_processors_to_gpus),
      cmocka_unit_test(test_swf_errors),
      cmocka_unit_test(test_derive_time_limit),
      cmocka_unit_test(test_time_limit_per_format),
      cmocka_unit_test(test_native_time_limit_errors),
      cmocka_unit_test(test_bad_time_limit_factor_is_refused),
      cmocka_unit_test(test_validate_checks_the_time_limit),
      cmocka_unit_test(test_native_round_trip_and_file_errors),
      cmocka_unit_test(test_native_refuses_times_out_of_range),
      cmocka_unit_test(test_every_reader_round_trips_through_the_native_writer),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
