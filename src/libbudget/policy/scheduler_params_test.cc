// Tests of SchedulerParameters as the scheduling model reads them
// (scheduler_params.h).
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/policy/scheduler_params.h"

using budget::ParseSchedulerParameters;
using budget::SchedulerParams;

namespace {

void test_empty_text_gives_slurms_defaults(void**) {
  SchedulerParams p;
  p.bf_interval = 1;
  assert_true(ParseSchedulerParameters("", &p).ok());
  // Slurm 22.05's defaults: 60 s, 100 jobs, 30 s, 1 day, 60 s, 500 jobs.
  assert_int_equal(p.sched_interval, 60);
  assert_int_equal(p.default_queue_depth, 100);
  assert_int_equal(p.sched_max_job_start, 0);
  assert_int_equal(p.bf_interval, 30);
  assert_int_equal(p.bf_window, 86400);
  assert_int_equal(p.bf_resolution, 60);
  assert_int_equal(p.bf_max_job_test, 500);
  assert_int_equal(p.bf_max_job_start, 0);
  assert_false(p.bf_continue);
  assert_true(p.not_modelled.empty());
}

struct GoodCase {
  const char* text;
  const char* formatted;  // FormatSchedulerParameters of the result
  const char* not_modelled;  // keys kept aside, joined by ','
};

const GoodCase kGood[] = {
    // bf_window is in minutes: 60 min = 3600 s, formatted back as 60.
    {"bf_interval=10,bf_window=60,bf_resolution=30,bf_continue",
     "sched_interval=60,default_queue_depth=100,sched_max_job_start=0,bf_interval=10,bf_window=60,"
     "bf_resolution=30,bf_max_job_test=500,bf_max_job_start=0,bf_continue",
     ""},
    // Spaces around items are Slurm's too; unknown keys are kept aside.
    {" default_queue_depth=20 , max_sched_time=2,bf_max_job_test=50,sched_interval=5,preempt_youngest_first",
     "sched_interval=5,default_queue_depth=20,sched_max_job_start=0,bf_interval=30,bf_window=1440,"
     "bf_resolution=60,bf_max_job_test=50,bf_max_job_start=0",
     "max_sched_time,preempt_youngest_first"},
    // Empty items (",,") are skipped; the largest values Slurm accepts.
    {",,bf_interval=10800,bf_resolution=3600,bf_window=43200,bf_max_job_start=10000,",
     "sched_interval=60,default_queue_depth=100,sched_max_job_start=0,bf_interval=10800,bf_window=43200,"
     "bf_resolution=3600,bf_max_job_test=500,bf_max_job_start=10000",
     ""},
};

void test_reads_the_modelled_keys(void**) {
  for (const GoodCase& c : kGood) {
    SchedulerParams p;
    budget::Status st = ParseSchedulerParameters(c.text, &p);
    if (!st.ok()) fail_msg("%s: %s", c.text, st.message().c_str());
    std::string formatted = budget::FormatSchedulerParameters(p);
    if (formatted != c.formatted) fail_msg("%s: formatted %s", c.text, formatted.c_str());
    std::string kept;
    for (const std::string& k : p.not_modelled) kept += (kept.empty() ? "" : ",") + k;
    if (kept != c.not_modelled) fail_msg("%s: not modelled %s", c.text, kept.c_str());
  }
}

void test_window_is_read_in_minutes(void**) {
  SchedulerParams p;
  assert_true(ParseSchedulerParameters("bf_window=90", &p).ok());
  assert_int_equal(p.bf_window, 5400);  // 90 min x 60
}

struct BadCase {
  const char* text;
  const char* message;  // must appear in the error
};

const BadCase kBad[] = {
    {"bf_interval=0", "bf_interval=0: expected a whole number in [1, 10800]"},
    {"bf_interval=-1", "bf_interval=-1: expected a whole number in [1, 10800]"},  // disabled: not modelled
    {"bf_interval=10800x", "bf_interval=10800x"},
    {"bf_interval=", "bf_interval=: expected a whole number"},
    {"bf_interval", "bf_interval needs a value"},
    {"bf_resolution=3601", "[1, 3600]"},
    {"bf_window=43201", "bf_window=43201"},
    {"bf_max_job_test=0", "bf_max_job_test=0"},
    {"default_queue_depth=-3", "default_queue_depth=-3"},
    {"sched_interval=abc", "sched_interval=abc"},
    {"bf_continue=1", "bf_continue takes no value"},
};

void test_bad_values_name_the_key(void**) {
  for (const BadCase& c : kBad) {
    SchedulerParams p;
    p.bf_interval = 7;
    budget::Status st = ParseSchedulerParameters(c.text, &p);
    if (st.ok()) fail_msg("%s: accepted", c.text);
    if (st.message().find(c.message) == std::string::npos)
      fail_msg("%s: message '%s' lacks '%s'", c.text, st.message().c_str(), c.message);
    assert_int_equal(p.bf_interval, 7);  // untouched on error
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_text_gives_slurms_defaults),
      cmocka_unit_test(test_reads_the_modelled_keys),
      cmocka_unit_test(test_window_is_read_in_minutes),
      cmocka_unit_test(test_bad_values_name_the_key),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
