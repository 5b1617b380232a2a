// Tests of the sacct row reader (sacct_rows.h): JobID forms, states, GPU
// counts of a TRES list (typed ones kept), times, the header and the three
// steps of a row. The file-level behaviour (lines, columns in messages,
// skipped rows) is tested by its callers: src/sim/sacct_trace_test.cc and
// ledger_seed_test.cc.
#include "libbudget/testing/test_support.h"

#include <string>
#include <string_view>
#include <vector>

#include "libbudget/accounting/sacct_rows.h"

using namespace budget;

namespace {

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t bar = line.find('|', pos);
    out.push_back(line.substr(pos, bar == std::string_view::npos ? std::string_view::npos : bar - pos));
    if (bar == std::string_view::npos) return out;
    pos = bar + 1;
  }
}

void test_job_id_forms(void**) {
  struct Case {
    const char* text;
    bool ok;
    SacctJobId kind;
  };
  const Case cases[] = {
      {"123", true, SacctJobId::kJob},
      {"123_4", true, SacctJobId::kArrayTask},
      {"123_[1-3]", true, SacctJobId::kPendingArray},
      {"123_[1-3,7%2]", true, SacctJobId::kPendingArray},
      {"123+0", true, SacctJobId::kHetComponent},
      {"123+1", true, SacctJobId::kHetComponent},
      {"123.batch", true, SacctJobId::kStep},
      {"123.extern", true, SacctJobId::kStep},
      {"123.0", true, SacctJobId::kStep},
      {"123_4.batch", true, SacctJobId::kStep},
      {"123+1.0", true, SacctJobId::kStep},
      {"", false, SacctJobId::kJob},
      {"abc", false, SacctJobId::kJob},
      {"123.", false, SacctJobId::kJob},
      {"123_", false, SacctJobId::kJob},
      {"123_[]", false, SacctJobId::kJob},
      {"123_[1-3", false, SacctJobId::kJob},
      {"123+", false, SacctJobId::kJob},
      {"123+a", false, SacctJobId::kJob},
      {"_4", false, SacctJobId::kJob},
  };
  for (const Case& c : cases) {
    SacctJobId kind = SacctJobId::kJob;
    bool ok = ParseSacctJobId(c.text, &kind);
    if (ok != c.ok) fail_msg("'%s': expected %s", c.text, c.ok ? "valid" : "invalid");
    if (ok && kind != c.kind) fail_msg("'%s': wrong kind", c.text);
  }
}

void test_states(void**) {
  struct Case {
    const char* text;
    SacctRun run;
  };
  const Case cases[] = {
      {"COMPLETED", SacctRun::kEnded},       {"FAILED", SacctRun::kEnded},
      {"TIMEOUT", SacctRun::kEnded},         {"CANCELLED by 1000", SacctRun::kEnded},
      {"CANCELLED", SacctRun::kEnded},       {"PREEMPTED", SacctRun::kEnded},
      {"NODE_FAIL", SacctRun::kEnded},       {"OUT_OF_MEMORY", SacctRun::kEnded},
      {"PENDING", SacctRun::kNeverRan},      {"RUNNING", SacctRun::kStillRunning},
      {"SUSPENDED", SacctRun::kStillRunning}, {"REQUEUED", SacctRun::kEarlierRun},
      {"REQUEUE_HOLD", SacctRun::kEarlierRun},
  };
  for (const Case& c : cases) {
    SacctRun run = SacctRun::kEnded;
    if (!ParseSacctState(c.text, &run)) fail_msg("'%s' refused", c.text);
    if (run != c.run) fail_msg("'%s': wrong kind of run", c.text);
  }
  SacctRun run;
  assert_false(ParseSacctState("DONE", &run));
  assert_false(ParseSacctState("", &run));
  assert_false(ParseSacctState("completed", &run));
}

void test_gpus_of_tres(void**) {
  struct Case {
    const char* tres;
    bool ok;
    uint32_t gpus;
  };
  const Case cases[] = {
      {"billing=8,cpu=8,gres/gpu=8,mem=64G,node=1", true, 8},
      // Typed GPUs: Slurm lists the total and each type; the total counts.
      {"cpu=2,gres/gpu:a100=2,gres/gpu=2,node=1", true, 2},
      // Only typed entries (a site that accounts gres/gpu:a100 alone): their sum.
      {"cpu=2,gres/gpu:a100=2,gres/gpu:h100=1,node=1", true, 3},
      {"cpu=2,gres/gpumem=40G,mem=4G,node=1", true, 0},  // not a GPU count
      {"cpu=2,mem=4G,node=1", true, 0},
      {"", true, 0},
      {"gres/gpu=x", false, 0},
      {"gres/gpu=-1", false, 0},
      {"gres/gpu", false, 0},
      {"gres/gpu=1048577", false, 0},
  };
  for (const Case& c : cases) {
    uint32_t gpus = 99;
    bool ok = GpusOfTres(c.tres, &gpus);
    if (ok != c.ok) fail_msg("'%s': expected %s", c.tres, c.ok ? "valid" : "invalid");
    if (ok && gpus != c.gpus) fail_msg("'%s': %u GPUs, expected %u", c.tres, gpus, c.gpus);
  }
}

void test_typed_gpus_are_kept(void**) {
  uint32_t gpus = 0;
  std::vector<TypedGpus> typed;
  assert_true(GpusOfTres("cpu=2,gres/gpu:a100=2,gres/gpu:h100=1,gres/gpu=3,node=1", &gpus, &typed));
  // The total is gres/gpu=3; the types are listed in order.
  assert_int_equal(gpus, 3);
  assert_int_equal(typed.size(), 2);
  assert_string_equal(typed[0].type.c_str(), "a100");
  assert_int_equal(typed[0].gpus, 2);
  assert_string_equal(typed[1].type.c_str(), "h100");
  assert_int_equal(typed[1].gpus, 1);
  assert_true(GpusOfTres("gres/gpu=4", &gpus, &typed));
  assert_int_equal(typed.size(), 0);
}

void test_times_are_utc(void**) {
  int64_t t = 0;
  // 2026-11-02T08:00:00 UTC = 1793606400.
  assert_true(ParseSacctTime("2026-11-02T08:00:00", &t));
  assert_int_equal(t, 1793606400);
  assert_false(ParseSacctTime("2026-11-02 08:00:00", &t));
  assert_false(ParseSacctTime("2026-13-02T08:00:00", &t));
  assert_false(ParseSacctTime("Unknown", &t));
}

void test_header(void**) {
  SacctColumns col;
  SacctProblem problem;
  assert_true(ReadSacctHeader(Split("JobIDRaw|JobID|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|state"),
                              &col, &problem));
  assert_int_equal(col.at[kSacctJobIdRaw], 0);
  assert_int_equal(col.at[kSacctState], 9);
  assert_false(col.has(kSacctAdminComment));
  assert_int_equal(col.count, 10);
  assert_false(ReadSacctHeader(Split("JobID|State"), &col, &problem));
  assert_true(problem.what.rfind("header: missing column(s) Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES (", 0) ==
              0);
  assert_false(ReadSacctHeader(Split("JobID|JobID"), &col, &problem));
  assert_int_equal(problem.field, 1);
  assert_string_equal(problem.what.c_str(), "header: column JobID appears twice");
}

const char kHeader[] = "JobID|JobIDRaw|Account|User|Submit|Start|Elapsed|Timelimit|AllocTRES|State|AdminComment";

void test_row_steps(void**) {
  SacctColumns col;
  SacctProblem problem;
  assert_true(ReadSacctHeader(Split(kHeader), &col, &problem));
  // A heterogeneous job's second component: its own id, 2 a100 GPUs, an
  // allocated contract of 15 minutes.
  auto fields = Split(
      "7+1|8|llm|alice|2026-11-02T08:00:00|2026-11-02T08:00:30|01:00:00|02:00:00|cpu=2,gres/gpu:a100=2|COMPLETED|"
      "contract:min_runtime=900,resumable=1,declared=1");
  SacctRow row;
  assert_true(ParseSacctRowKind(fields, col, &row, &problem));
  assert_true(row.id_kind == SacctJobId::kHetComponent);
  assert_true(row.ran);
  assert_int_equal(row.raw_id, 8);
  assert_true(ParseSacctRun(fields, col, &row, &problem));
  assert_int_equal(row.start, 1793606430);
  assert_int_equal(row.gpus, 2);
  assert_int_equal(row.elapsed, 3600);
  assert_string_equal(row.account.c_str(), "llm");
  assert_true(ParseSacctContract(fields, col, &row, &problem));
  assert_true(row.has_contract);
  assert_int_equal(row.contract.min_runtime, 900);

  // Cancelled while pending: did not run; Start None is not read.
  fields = Split("9|9|llm|alice|2026-11-02T08:00:00|None|00:00:00|02:00:00||CANCELLED by 1000|");
  row = SacctRow();
  assert_true(ParseSacctRowKind(fields, col, &row, &problem));
  assert_false(row.ran);

  // A bad JobIDRaw names its field.
  fields = Split("9|x|llm|alice|2026-11-02T08:00:00|None|00:00:00|02:00:00||CANCELLED|");
  assert_false(ParseSacctRowKind(fields, col, &row, &problem));
  assert_int_equal(problem.field, 1);
  assert_string_equal(problem.what.c_str(), "JobIDRaw: expected a job id (a whole number), got 'x'");

  // A run without an account.
  fields = Split("10|10||alice|2026-11-02T08:00:00|2026-11-02T08:00:00|00:10:00|02:00:00|gres/gpu=1|COMPLETED|");
  row = SacctRow();
  assert_true(ParseSacctRowKind(fields, col, &row, &problem));
  assert_false(ParseSacctRun(fields, col, &row, &problem));
  assert_int_equal(problem.field, 2);
  assert_string_equal(problem.what.c_str(), "Account: must not be empty");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_job_id_forms),      cmocka_unit_test(test_states),
      cmocka_unit_test(test_gpus_of_tres),      cmocka_unit_test(test_typed_gpus_are_kept),
      cmocka_unit_test(test_times_are_utc),     cmocka_unit_test(test_header),
      cmocka_unit_test(test_row_steps),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
