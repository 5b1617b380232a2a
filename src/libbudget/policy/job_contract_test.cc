// Tests of the job contract policy and its AdminComment record (job_contract.h).
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/policy/job_contract.h"

using budget::BudgetConfig;
using budget::ContractedJob;
using budget::ContractUpdate;
using budget::ContractUpdateReview;
using budget::JobContract;
using budget::Seconds;
using budget::Status;
using budget::UpdateVerdict;

namespace {

constexpr Seconds kUnlimited = -1;

// The shipped defaults: MaxMinRuntime=8:00:00, DefaultMinRuntime=0.
BudgetConfig Defaults() { return BudgetConfig(); }

void AssertContains(const std::string& text, const char* part) {
  if (text.find(part) == std::string::npos) fail_msg("\"%s\" lacks \"%s\"", text.c_str(), part);
}

void test_the_option_alone_reads_as_at_submission(void**) {
  Seconds s = -1;
  assert_true(budget::ParseMinRuntimeOption("15", &s).ok());
  assert_int_equal(s, 900);  // 15 min
  // The same message as ValidateContract's for the same text.
  for (const char* bad : {"abc", "", "-1", "1:2:3:4"}) {
    Seconds untouched = 42;
    Status alone = budget::ParseMinRuntimeOption(bad, &untouched);
    JobContract c;
    Status at_submission = budget::ValidateContract(bad, false, kUnlimited, Defaults(), &c);
    assert_false(alone.ok());
    assert_int_equal(untouched, 42);
    assert_string_equal(alone.message().c_str(), at_submission.message().c_str());
  }
  Seconds x = 0;
  AssertContains(budget::ParseMinRuntimeOption("abc", &x).message(), "--min-runtime=abc: invalid time \"abc\"");
}

void test_absent_min_runtime_gets_the_default(void**) {
  BudgetConfig config = Defaults();
  config.default_min_runtime = 600;
  JobContract c;
  assert_true(budget::ValidateContract(nullptr, true, kUnlimited, config, &c).ok());
  // DefaultMinRuntime=10:00 = 600 s, not declared by the user.
  assert_int_equal(c.min_runtime, 600);
  assert_true(c.resumable);
  assert_false(c.declared);
}

void test_default_is_cut_to_a_shorter_time_limit(void**) {
  BudgetConfig config = Defaults();
  config.default_min_runtime = 3600;
  JobContract c;
  // --time=5 (300 s) < default 3600 s: the default is cut to 300, not refused.
  assert_true(budget::ValidateContract(nullptr, false, 300, config, &c).ok());
  assert_int_equal(c.min_runtime, 300);
  assert_false(c.declared);
}

struct AcceptCase {
  const char* text;
  Seconds time_limit;
  Seconds expected;
};

const AcceptCase kAccepted[] = {
    {"15", kUnlimited, 900},          // 15 min
    {"0:20", kUnlimited, 20},         // M:S
    {"0", kUnlimited, 0},             // unallocated work
    {"8:00:00", kUnlimited, 28800},   // exactly MaxMinRuntime
    {"0-2", 7200, 7200},              // D-H = 2 h, exactly the time limit
    {"0:05", 60, 5},                  // 5 s within a 1-minute limit
};

void test_declared_min_runtime_within_bounds_is_accepted(void**) {
  for (const AcceptCase& a : kAccepted) {
    JobContract c;
    Status st = budget::ValidateContract(a.text, false, a.time_limit, Defaults(), &c);
    if (!st.ok()) fail_msg("refused %s: %s", a.text, st.message().c_str());
    assert_int_equal(c.min_runtime, a.expected);
    assert_true(c.declared);
    assert_false(c.resumable);
  }
}

struct RefuseCase {
  const char* text;
  Seconds time_limit;
  const char* expected;  // a substring of the message
};

const RefuseCase kRefused[] = {
    // 9 h > 8 h: names the option, the value and the limit.
    {"9:00:00", kUnlimited, "--min-runtime=9:00:00 exceeds MaxMinRuntime=08:00:00"},
    {"8:00:01", kUnlimited, "--min-runtime=8:00:01 exceeds MaxMinRuntime=08:00:00"},
    {"1-0", kUnlimited, "--min-runtime=1-0 exceeds MaxMinRuntime=08:00:00"},
    // Unparsable: names the bad value.
    {"abc", kUnlimited, "--min-runtime=abc: invalid time \"abc\""},
    {"", kUnlimited, "--min-runtime=: invalid time \"\""},
    {"-5", kUnlimited, "--min-runtime=-5: invalid time \"-5\""},
    {"1:2:3:4", kUnlimited, "--min-runtime=1:2:3:4: invalid time"},
    // 2 h > --time=1:00:00: names both.
    {"2:00:00", 3600, "--min-runtime=2:00:00 is longer than the job's time limit (01:00:00)"},
    {"0:61", 60, "--min-runtime=0:61 is longer than the job's time limit (00:01:00)"},
};

void test_each_refusal_names_the_value_and_the_limit(void**) {
  for (const RefuseCase& r : kRefused) {
    JobContract c;
    c.min_runtime = 42;
    Status st = budget::ValidateContract(r.text, true, r.time_limit, Defaults(), &c);
    if (st.ok()) fail_msg("accepted %s", r.text);
    AssertContains(st.message(), r.expected);
    assert_int_equal(c.min_runtime, 42);  // untouched
  }
}

void test_a_lower_site_limit_is_named(void**) {
  BudgetConfig config = Defaults();
  config.max_min_runtime = 1800;
  JobContract c;
  Status st = budget::ValidateContract("31", false, kUnlimited, config, &c);
  // 31 min > 30 min.
  assert_false(st.ok());
  AssertContains(st.message(), "--min-runtime=31 exceeds MaxMinRuntime=00:30:00");
}

void test_record_round_trip(void**) {
  const JobContract kCases[] = {{900, true, true}, {0, false, false}, {28800, false, true}, {5, true, false}};
  for (const JobContract& c : kCases) {
    JobContract back;
    assert_true(budget::ParseContractRecord(budget::FormatContractRecord(c), &back));
    assert_true(back == c);
  }
  assert_string_equal(budget::FormatContractRecord({900, true, true}).c_str(),
                      "contract:min_runtime=900,resumable=1,declared=1");
}

void test_record_is_found_inside_a_longer_admin_comment(void**) {
  JobContract c;
  assert_true(budget::ParseContractRecord("host n3 repaired\tcontract:min_runtime=60,resumable=0,declared=1 ok", &c));
  assert_int_equal(c.min_runtime, 60);
  assert_false(c.resumable);
  assert_true(c.declared);
  // Unknown keys (a later version) are skipped; declared defaults to 1.
  assert_true(budget::ParseContractRecord("contract:min_runtime=7,future=x,resumable=1", &c));
  assert_int_equal(c.min_runtime, 7);
  assert_true(c.resumable);
  assert_true(c.declared);
  // A malformed record is skipped for a later good one.
  assert_true(budget::ParseContractRecord("contract:min_runtime=x contract:min_runtime=3,resumable=1", &c));
  assert_int_equal(c.min_runtime, 3);
}

void test_malformed_records_are_not_read(void**) {
  const char* kBad[] = {
      "",
      "no record here",
      "contract:",
      "contract:min_runtime=900",                // resumable missing
      "contract:resumable=1",                    // min_runtime missing
      "contract:min_runtime=-1,resumable=1",     // negative
      "contract:min_runtime=abc,resumable=1",
      "contract:min_runtime=900,resumable=2",    // not a flag
      "contract:min_runtime=900,resumable",      // no value
      "contract:min_runtime=999999999999,resumable=1",  // > 10 years
      "xcontract:min_runtime=900,resumable=1",   // not at a word start
  };
  for (const char* text : kBad) {
    JobContract c{42, true, true};
    if (budget::ParseContractRecord(text, &c)) fail_msg("read a record from \"%s\"", text);
    assert_int_equal(c.min_runtime, 42);  // untouched
  }
}

void test_replace_keeps_other_text(void**) {
  JobContract c{900, true, true};
  assert_string_equal(budget::ReplaceContractRecord("", c).c_str(),
                      "contract:min_runtime=900,resumable=1,declared=1");
  assert_string_equal(
      budget::ReplaceContractRecord("note A contract:min_runtime=1,resumable=0 note B", c).c_str(),
      "note A note B contract:min_runtime=900,resumable=1,declared=1");
}

// Whatever a user types reaches slurmctld: every input gives a verdict, none
// a crash or an overflow (run under the sanitizers too).
void test_hostile_input_is_refused_not_crashed(void**) {
  const std::string kHuge(100000, '9');
  const std::string kColons(5000, ':');
  const char* kTexts[] = {"99999999999999999999", "1-", "-", ":", "::", "1::", "1-2-3", " 15", "15 ",
                          "0x10", "1e3", "\xff", kHuge.c_str(), kColons.c_str()};
  for (const char* text : kTexts) {
    JobContract c{42, true, true};
    Status st = budget::ValidateContract(text, false, kUnlimited, Defaults(), &c);
    if (st.ok()) fail_msg("accepted \"%.40s\"", text);
    AssertContains(st.message(), "--min-runtime=");
    assert_int_equal(c.min_runtime, 42);  // untouched
    // One short printable line, whatever the value: it goes to slurmctld.log
    // and back to the user.
    assert_true(st.message().size() < 300);
    for (char ch : st.message()) assert_true(ch >= 0x20 && ch <= 0x7e);
  }
  // A record built of the same junk is not read either.
  for (const std::string& junk : {kHuge, kColons, std::string("contract:") + kHuge,
                                  std::string("contract:min_runtime=") + kHuge + ",resumable=1"}) {
    JobContract c;
    assert_false(budget::ParseContractRecord(junk, &c));
  }
}

void test_min_runtime_is_capped_and_quoted_safely(void**) {
  // 64 bytes: refused only as a bad time (leading zeros make it a valid
  // number of the wrong length: "not a number" as the field is > 12 digits).
  // 65 bytes: refused for its length, before it is parsed.
  Seconds s = -1;
  Status at_cap = budget::ParseMinRuntimeOption(std::string(64, '0'), &s);
  assert_false(at_cap.ok());
  assert_true(at_cap.message().find("too long") == std::string::npos);
  Status over = budget::ParseMinRuntimeOption(std::string(65, '1'), &s);
  assert_false(over.ok());
  AssertContains(over.message(), "too long: at most 64 bytes are accepted");
  AssertContains(over.message(), "...(65 bytes)");
  assert_int_equal(s, -1);
  // 120 kB: the message quotes 64 bytes of it, not 2 x 120 kB.
  Status huge = budget::ParseMinRuntimeOption(std::string(120000, '1'), &s);
  assert_true(huge.message().size() < 200);
  // A newline and a forged log line stay inside the one line, escaped.
  JobContract c;
  Status forged = budget::ValidateContract("15\nerror: priority/budget: FORGED LOG LINE", false, kUnlimited,
                                           Defaults(), &c);
  assert_false(forged.ok());
  assert_true(forged.message().find('\n') == std::string::npos);
  AssertContains(forged.message(), "--min-runtime=15\\x0aerror: priority/budget: FORGED LOG LINE");
  // Every message quotes the value safely, also the time-limit ones.
  Status too_long_for_limit = budget::ValidateContract("30", false, 600, Defaults(), &c);
  AssertContains(too_long_for_limit.message(), "--min-runtime=30 is longer than");
}

// A running job declared --min-runtime=15 --resumable with --time=1:00:00.
ContractedJob RunningJob() {
  ContractedJob job;
  job.contract = {900, true, true};
  job.time_limit = 3600;
  job.started = true;
  return job;
}

void test_owner_cannot_change_a_started_contract(void**) {
  ContractUpdate requeue_off;
  requeue_off.resumable = false;
  ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), false, requeue_off, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kForbidden);
  AssertContains(r.message, "the job has started: its contract (--min-runtime=00:15:00, --resumable)");

  ContractUpdate longer;
  longer.min_runtime_text = "30";
  r = budget::ReviewContractUpdate(RunningJob(), false, longer, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kForbidden);
}

void test_owner_may_restate_a_started_contract(void**) {
  // requeue=1 on a resumable job and --min-runtime=0:15:00 (= 900 s) change nothing.
  ContractUpdate same;
  same.resumable = true;
  same.min_runtime_text = "0:15:00";
  ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), false, same, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kUnchanged);
}

void test_operator_may_change_a_started_contract(void**) {
  ContractUpdate requeue_off;
  requeue_off.resumable = false;
  ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), true, requeue_off, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kChanged);
  assert_false(r.contract.resumable);
  assert_int_equal(r.contract.min_runtime, 900);
}

void test_owner_may_change_a_pending_contract(void**) {
  ContractedJob pending = RunningJob();
  pending.started = false;
  ContractUpdate update;
  update.min_runtime_text = "0:30";
  update.resumable = false;
  ContractUpdateReview r = budget::ReviewContractUpdate(pending, false, update, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kChanged);
  // 0:30 = 30 s.
  assert_int_equal(r.contract.min_runtime, 30);
  assert_false(r.contract.resumable);
  assert_true(r.contract.declared);
}

void test_time_limit_below_min_runtime_is_refused(void**) {
  ContractUpdate shorter;
  shorter.time_limit = 600;  // 10 min < 15 min
  for (bool by_operator : {false, true}) {
    ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), by_operator, shorter, Defaults());
    assert_int_equal((int)r.verdict, (int)UpdateVerdict::kTimeLimitTooShort);
    AssertContains(r.message, "TimeLimit=00:10:00 is shorter than the job's --min-runtime=00:15:00");
  }
  // 20 min >= 15 min: fine, the contract is untouched.
  shorter.time_limit = 1200;
  ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), false, shorter, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kUnchanged);
}

void test_update_validates_like_submission(void**) {
  ContractUpdate too_long;
  too_long.min_runtime_text = "9:00:00";
  ContractUpdateReview r = budget::ReviewContractUpdate(RunningJob(), true, too_long, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kInvalid);
  AssertContains(r.message, "--min-runtime=9:00:00 exceeds MaxMinRuntime=08:00:00");

  ContractUpdate bad;
  bad.min_runtime_text = "soon";
  r = budget::ReviewContractUpdate(RunningJob(), true, bad, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kInvalid);
  AssertContains(r.message, "--min-runtime=soon: invalid time \"soon\"");

  // 2 h > the job's 1 h limit.
  ContractUpdate beyond_limit;
  beyond_limit.min_runtime_text = "2:00:00";
  r = budget::ReviewContractUpdate(RunningJob(), true, beyond_limit, Defaults());
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kInvalid);
  AssertContains(r.message, "--min-runtime=2:00:00 is longer than the job's time limit (01:00:00)");
}

void test_default_contract_is_cut_to_a_shorter_limit(void**) {
  ContractedJob job = RunningJob();
  job.contract.declared = false;  // DefaultMinRuntime=15:00 applied
  ContractUpdate shorter;
  shorter.time_limit = 300;
  ContractUpdateReview r = budget::ReviewContractUpdate(job, false, shorter, Defaults());
  // 15 min cut to the new 5-minute limit = 300 s.
  assert_int_equal((int)r.verdict, (int)UpdateVerdict::kChanged);
  assert_int_equal(r.contract.min_runtime, 300);
}


void test_a_job_that_declared_nothing_is_told_its_contract(void**) {
  budget::BudgetConfig config;  // DefaultMinRuntime=0
  budget::JobContract c;
  assert_true(budget::ValidateContract(nullptr, false, -1, config, &c).ok());
  assert_string_equal(budget::DefaultContractNote(c).c_str(),
                      "no --min-runtime given: the default contract applies (unallocated work, cancelled if "
                      "preempted)");
  // DefaultMinRuntime=15:00 cut to the 10-minute time limit.
  config.default_min_runtime = 900;
  assert_true(budget::ValidateContract(nullptr, true, 600, config, &c).ok());
  assert_string_equal(budget::DefaultContractNote(c).c_str(),
                      "no --min-runtime given: the default contract applies (protected for 00:10:00, requeued if "
                      "preempted)");
}

void test_the_note_is_said_once_per_submission_unless_turned_off(void**) {
  budget::JobContract undeclared;  // declared = false: DefaultMinRuntime applied
  budget::JobContract declared;
  declared.declared = true;
  struct Case {
    budget::JobContract contract;
    budget::NoticeContext context;  // {conf_notice, host_notice, later_het_component}
    bool shown;
  } cases[] = {
      {undeclared, {true, true, false}, true},   // a job (or a het job's first component) that declared nothing
      {declared, {true, true, false}, false},    // it declared --min-runtime: nothing to tell
      {undeclared, {true, true, true}, false},   // the second component of a het job: the first said it
      {undeclared, {false, true, false}, false}, // DefaultContractNotice=no
      {undeclared, {true, false, false}, false}, // notice=no in the host's plugstack.conf
  };
  for (const Case& c : cases) {
    assert_int_equal(budget::ShowsDefaultContractNote(c.contract, c.context), c.shown);
  }
}
}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_job_that_declared_nothing_is_told_its_contract),
      cmocka_unit_test(test_the_note_is_said_once_per_submission_unless_turned_off),
      cmocka_unit_test(test_absent_min_runtime_gets_the_default),
      cmocka_unit_test(test_default_is_cut_to_a_shorter_time_limit),
      cmocka_unit_test(test_declared_min_runtime_within_bounds_is_accepted),
      cmocka_unit_test(test_each_refusal_names_the_value_and_the_limit),
      cmocka_unit_test(test_a_lower_site_limit_is_named),
      cmocka_unit_test(test_record_round_trip),
      cmocka_unit_test(test_record_is_found_inside_a_longer_admin_comment),
      cmocka_unit_test(test_malformed_records_are_not_read),
      cmocka_unit_test(test_replace_keeps_other_text),
      cmocka_unit_test(test_hostile_input_is_refused_not_crashed),
      cmocka_unit_test(test_min_runtime_is_capped_and_quoted_safely),
      cmocka_unit_test(test_owner_cannot_change_a_started_contract),
      cmocka_unit_test(test_owner_may_restate_a_started_contract),
      cmocka_unit_test(test_operator_may_change_a_started_contract),
      cmocka_unit_test(test_owner_may_change_a_pending_contract),
      cmocka_unit_test(test_time_limit_below_min_runtime_is_refused),
      cmocka_unit_test(test_update_validates_like_submission),
      cmocka_unit_test(test_default_contract_is_cut_to_a_shorter_limit),
      cmocka_unit_test(test_the_option_alone_reads_as_at_submission),
  };
  return cmocka_run_group_tests_name("job_contract", tests, nullptr, nullptr);
}
