// Tests of SuiteSettingWarnings (slurm_settings.h).
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/config/slurm_settings.h"

using budget::AccountMembershipWarnings;
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

// The membership check reads only the accounting settings.
SlurmSettings EnforcedBySlurmdbd() {
  SlurmSettings s = AsShipped();
  s.accounting_storage_type = "accounting_storage/slurmdbd";
  s.accounting_storage_enforce = "associations,limits";
  s.enforces_associations = true;
  return s;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void test_membership_enforced_by_slurmdbd_warns_of_nothing(void**) {
  assert_int_equal(AccountMembershipWarnings(EnforcedBySlurmdbd()).size(), 0);
}

void test_without_enforcement_one_warning_says_any_user_may_charge_any_account(void**) {
  // slurmdbd, but AccountingStorageEnforce unset: Slurm prints it "none".
  SlurmSettings s = EnforcedBySlurmdbd();
  s.enforces_associations = false;
  s.accounting_storage_enforce = "none";
  std::vector<std::string> w = AccountMembershipWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "AccountingStorageEnforce=none: any user may charge any account: "));
  assert_true(Has(w[0], "AccountingStorageEnforce=associations"));
  // slurmdbd is there already: the warning does not ask for it.
  assert_false(Has(w[0], "AccountingStorageType="));
  assert_true(Has(w[0], "doc/admin-guide.md"));
}

void test_without_slurmdbd_the_warning_names_the_storage_type_too(void**) {
  // etc/slurm.conf.example as shipped: no accounting storage.
  SlurmSettings s = AsShipped();
  s.accounting_storage_type = "accounting_storage/none";
  s.accounting_storage_enforce = "none";
  std::vector<std::string> w = AccountMembershipWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "AccountingStorageEnforce=none: any user may charge any account: "));
  assert_true(Has(w[0], "AccountingStorageType=accounting_storage/slurmdbd (not accounting_storage/none) and "
                        "AccountingStorageEnforce=associations"));
  s.accounting_storage_type = "";
  s.accounting_storage_enforce = "";
  w = AccountMembershipWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "AccountingStorageEnforce=none: "));
  assert_true(Has(w[0], "(not (unset))"));
}

void test_enforce_values_without_associations_still_warn(void**) {
  // nojobs,nosteps are the only values that do not imply associations.
  SlurmSettings s = EnforcedBySlurmdbd();
  s.enforces_associations = false;
  s.accounting_storage_enforce = "nojobs,nosteps";
  std::vector<std::string> w = AccountMembershipWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "AccountingStorageEnforce=nojobs,nosteps: any user may charge any account: "));
}

void test_the_membership_check_is_not_a_timeslice_warning(void**) {
  // preempt/timeslice's warnings ignore accounting: no slurmdbd, no line.
  SlurmSettings s = AsShipped();
  s.accounting_storage_type = "accounting_storage/none";
  assert_int_equal(SuiteSettingWarnings(s).size(), 0);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_shipped_example_warns_of_nothing),
      cmocka_unit_test(test_each_conflict_is_one_warning_naming_its_key),
      cmocka_unit_test(test_one_conflict_alone),
      cmocka_unit_test(test_membership_enforced_by_slurmdbd_warns_of_nothing),
      cmocka_unit_test(test_without_enforcement_one_warning_says_any_user_may_charge_any_account),
      cmocka_unit_test(test_without_slurmdbd_the_warning_names_the_storage_type_too),
      cmocka_unit_test(test_enforce_values_without_associations_still_warn),
      cmocka_unit_test(test_the_membership_check_is_not_a_timeslice_warning),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
