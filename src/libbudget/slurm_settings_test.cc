// Tests of SuiteSettingWarnings (slurm_settings.h).
#include "libbudget/test_support.h"

#include <string>

#include "libbudget/slurm_settings.h"

using budget::SlurmSettings;
using budget::SuiteSettingWarnings;

namespace {

bool StartsWith(const std::string& text, const std::string& head) { return text.compare(0, head.size(), head) == 0; }

// etc/slurm.conf.example: PreemptMode=REQUEUE, PriorityType=priority/budget,
// no PreemptExemptTime.
SlurmSettings AsShipped() {
  SlurmSettings s;
  s.priority_type = "priority/budget";
  return s;
}

void test_the_shipped_example_warns_of_nothing(void**) {
  assert_int_equal(SuiteSettingWarnings(AsShipped()).size(), 0);
}

void test_each_conflict_is_one_warning_naming_its_key(void**) {
  SlurmSettings s = AsShipped();
  s.preempt_mode_off = true;
  s.priority_type = "priority/multifactor";
  s.preempt_exempt_time = 600;
  std::vector<std::string> w = SuiteSettingWarnings(s);
  assert_int_equal(w.size(), 3);
  assert_true(StartsWith(w[0], "PreemptMode=OFF: "));
  assert_true(StartsWith(w[1], "PriorityType=priority/multifactor: "));
  assert_true(w[1].find("budget_standings.json") != std::string::npos);
  // 600 s in Slurm's format.
  assert_true(StartsWith(w[2], "PreemptExemptTime=00:10:00: "));
}

void test_one_conflict_alone(void**) {
  SlurmSettings s = AsShipped();
  s.preempt_exempt_time = 1;
  std::vector<std::string> w = SuiteSettingWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "PreemptExemptTime=00:00:01: "));
  s = AsShipped();
  s.priority_type = "";
  w = SuiteSettingWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "PriorityType=(unset): "));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_shipped_example_warns_of_nothing),
      cmocka_unit_test(test_each_conflict_is_one_warning_naming_its_key),
      cmocka_unit_test(test_one_conflict_alone),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
