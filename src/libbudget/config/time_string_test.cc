// Tests of Slurm time strings (time_string.h).
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/config/time_string.h"

using budget::FormatDuration;
using budget::ParseDuration;
using budget::Seconds;

namespace {

struct GoodCase {
  const char* text;
  Seconds expected;
};

// Each expected value worked out by hand from the form in the comment.
const GoodCase kGood[] = {
    {"0", 0},                  // M: 0 min
    {"15", 900},               // M: 15 x 60
    {"90", 5400},              // M: not range-checked, as in Slurm: 90 x 60
    {"0:20", 20},              // M:S: 20 s
    {"2:30", 150},             // M:S: 2 x 60 + 30
    {"8:00:00", 28800},        // H:M:S: 8 x 3600
    {"1:02:03", 3723},         // H:M:S: 3600 + 120 + 3
    {"7-0", 604800},           // D-H: 7 x 86400
    {"1-2", 93600},            // D-H: 86400 + 2 x 3600
    {"1-2:30", 95400},         // D-H:M: 86400 + 7200 + 1800
    {"1-0:0:1", 86401},        // D-H:M:S: 86400 + 1
    {"0-00:00:05", 5},         // D-H:M:S with leading zeros
};

void test_parses_every_slurm_form(void**) {
  for (const GoodCase& c : kGood) {
    Seconds got = -1;
    budget::Status st = ParseDuration(c.text, &got);
    if (!st.ok()) fail_msg("%s: %s", c.text, st.message().c_str());
    if (got != c.expected) fail_msg("%s: got %lld, want %lld", c.text, (long long)got, (long long)c.expected);
  }
}

struct BadCase {
  const char* text;
  const char* reason;  // must appear in the message
};

const BadCase kBad[] = {
    {"", "empty"},
    {"abc", "not a number"},
    {"-5", "a duration cannot be negative"},
    {"-1-00:00:00", "a duration cannot be negative"},
    {"x-5", "bad day count"},
    {"1:2:3:4", "too many"},
    {"1::2", "not a number"},
    {"1-", "not a number"},
    {"5m", "not a number"},
    {" 5", "not a number"},
    {"1.5", "not a number"},
    {"UNLIMITED", "not a number"},
    {"99999999999", "longer than 10 years"},
    {"4000-0", "longer than 10 years"},  // 4000 days > 3660
};

void test_rejects_bad_strings_naming_them(void**) {
  for (const BadCase& c : kBad) {
    Seconds got = 42;
    budget::Status st = ParseDuration(c.text, &got);
    if (st.ok()) fail_msg("\"%s\" was accepted as %lld", c.text, (long long)got);
    // The message quotes the bad text and gives the reason.
    std::string quoted = std::string("\"") + c.text + "\"";
    if (st.message().find(quoted) == std::string::npos) fail_msg("message lacks %s: %s", quoted.c_str(), st.message().c_str());
    if (st.message().find(c.reason) == std::string::npos) fail_msg("message lacks '%s': %s", c.reason, st.message().c_str());
    // *out untouched on error.
    assert_int_equal(got, 42);
  }
}

void test_format_round_trips(void**) {
  // Slurm's [D-]HH:MM:SS, as squeue and scontrol print time limits:
  // 20 s -> "00:00:20"; 3723 s -> "01:02:03"; 95400 s -> "1-02:30:00".
  assert_string_equal(FormatDuration(0).c_str(), "00:00:00");
  assert_string_equal(FormatDuration(20).c_str(), "00:00:20");
  assert_string_equal(FormatDuration(900).c_str(), "00:15:00");
  assert_string_equal(FormatDuration(3723).c_str(), "01:02:03");
  assert_string_equal(FormatDuration(28800).c_str(), "08:00:00");
  assert_string_equal(FormatDuration(93600).c_str(), "1-02:00:00");
  assert_string_equal(FormatDuration(95400).c_str(), "1-02:30:00");
  const Seconds samples[] = {0, 1, 59, 60, 3599, 3600, 86399, 86400, 604800, 28800, 123456789};
  for (Seconds s : samples) {
    Seconds back = -1;
    assert_true(ParseDuration(FormatDuration(s), &back).ok());
    assert_int_equal(back, s);
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parses_every_slurm_form),
      cmocka_unit_test(test_rejects_bad_strings_naming_them),
      cmocka_unit_test(test_format_round_trips),
  };
  return cmocka_run_group_tests_name("time_string", tests, nullptr, nullptr);
}
