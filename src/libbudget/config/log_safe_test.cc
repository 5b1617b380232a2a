// Tests of LogSafe (log_safe.h): what a user writes cannot forge or flood a
// log line.
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/config/log_safe.h"

using budget::LogSafe;

namespace {

struct Case {
  std::string text;
  size_t max_bytes;
  const char* expected;
};

void test_escapes_and_caps(void**) {
  const Case kCases[] = {
      {"15", 64, "15"},                                          // plain text is kept
      {"teama", 64, "teama"},
      {"", 64, ""},
      // A newline cannot start a line of its own: "\n" is 0x0a.
      {"15\nerror: priority/budget: FORGED", 64, "15\\x0aerror: priority/budget: FORGED"},
      {"a\rb\tc", 64, "a\\x0db\\x09c"},                          // CR, TAB
      {std::string("a\0b", 3), 64, "a\\x00b"},                  // NUL inside the value
      {"\x1b[31mred", 64, "\\x1b[31mred"},                       // terminal escape
      {"x\x7f", 64, "x\\x7f"},                                   // DEL
      {"a\\x0a", 64, "a\\\\x0a"},                                // a typed backslash stays distinct
      // U+00E9 and U+202E (right-to-left override) are bytes c3 a9 and e2 80 ae.
      {"\xc3\xa9\xe2\x80\xae", 64, "\\xc3\\xa9\\xe2\\x80\\xae"},
      // 10 bytes capped at 4: "abcd" then the length.
      {"abcdefghij", 4, "abcd...(10 bytes)"},
      // The cap is on the escaped text and never cuts an escape: "ab" (2) +
      // "\x0a" (4) = 6 > 5, so the escape is left out whole.
      {"ab\ncd", 5, "ab...(5 bytes)"},
      {"abcd", 4, "abcd"},                                       // exactly at the cap: no tail
  };
  for (const Case& c : kCases) {
    std::string got = LogSafe(c.text, c.max_bytes);
    if (got != c.expected) fail_msg("LogSafe(%zu) = \"%s\", want \"%s\"", c.max_bytes, got.c_str(),
                                    c.expected);
  }
}

void test_output_is_one_short_printable_line(void**) {
  // 120 kB of newlines and forged lines: one line of at most 64 bytes plus
  // the tail "...(120000 bytes)" (17 bytes).
  std::string hostile;
  while (hostile.size() < 120000) hostile += "\nerror: priority/budget: X";
  hostile.resize(120000);
  std::string got = LogSafe(hostile);
  assert_true(got.size() <= budget::kLogQuoteMaxBytes + 17);
  for (char c : got) assert_true(c >= 0x20 && c <= 0x7e);
  assert_true(got.find("...(120000 bytes)") != std::string::npos);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_escapes_and_caps),
      cmocka_unit_test(test_output_is_one_short_printable_line),
  };
  return cmocka_run_group_tests_name("log_safe", tests, nullptr, nullptr);
}
