// Tests of SuiteSettingWarnings (slurm_settings.h).
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/config/slurm_settings.h"

using budget::AccountMembershipWarnings;
using budget::SlurmSettings;
using budget::SuiteSettingWarnings;
using budget::TimeSlicingKey;
using budget::TimeSlicingOn;

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

// The switch: budget.conf TimeSlicing when set; unset, PreemptMode (OFF:
// no), as before the key existed.
void test_time_slicing_follows_the_key_then_preempt_mode(void**) {
  struct Case {
    TimeSlicingKey key;
    bool preempt_mode_off;
    bool on;
  };
  const Case cases[] = {
      {TimeSlicingKey::kUnset, false, true},   // PreemptMode=REQUEUE, as shipped up to now
      {TimeSlicingKey::kUnset, true, false},   // PreemptMode=OFF alone: drains only
      {TimeSlicingKey::kYes, true, true},      // OFF + TimeSlicing=yes: Slurm searches no candidates
      {TimeSlicingKey::kYes, false, true},
      {TimeSlicingKey::kNo, false, false},     // the key wins over REQUEUE
      {TimeSlicingKey::kNo, true, false},
  };
  for (const Case& c : cases) {
    if (TimeSlicingOn(c.key, c.preempt_mode_off) != c.on)
      fail_msg("key %d, PreemptMode off %d: want %d", int(c.key), int(c.preempt_mode_off), int(c.on));
  }
}

// PreemptMode=OFF warns only while the key is unset: with it, OFF is the
// site's word (and with TimeSlicing=yes nothing is lost).
void test_preempt_mode_off_warns_only_without_the_key(void**) {
  SlurmSettings s = AsShipped();
  s.preempt_mode_off = true;
  std::vector<std::string> w = SuiteSettingWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "PreemptMode=OFF: preempt/timeslice time-slices nothing"));
  assert_true(w[0].find("TimeSlicing=yes") != std::string::npos);
  s.time_slicing = TimeSlicingKey::kYes;
  assert_int_equal(SuiteSettingWarnings(s).size(), 0);
  s.time_slicing = TimeSlicingKey::kNo;
  assert_int_equal(SuiteSettingWarnings(s).size(), 0);
}

void test_a_reserve_needs_select_topo(void**) {
  SlurmSettings s = AsShipped();
  s.select_type = "select/cons_tres";
  assert_int_equal(SuiteSettingWarnings(s).size(), 0);  // no reserve asked for
  s.quick_start_reserve_nodes = 2;
  std::vector<std::string> w = SuiteSettingWarnings(s);
  assert_int_equal(w.size(), 1);
  assert_true(StartsWith(w[0], "SelectType=select/cons_tres: budget.conf QuickStartReserveNodes=2 is not kept"));
  s.select_type = "select/topo";
  assert_int_equal(SuiteSettingWarnings(s).size(), 0);
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

// A case: the settings, then the membership warnings they give: none, or
// one that starts with `starts`, holds each of `has` and none of `lacks`.
struct MembershipCase {
  const char* name;
  SlurmSettings settings;
  const char* starts;  // nullptr: no warning
  std::vector<std::string> has;
  std::vector<std::string> lacks;
};

void test_membership_warnings(void**) {
  const MembershipCase cases[] = {
      {"enforced by slurmdbd", EnforcedBySlurmdbd(), nullptr, {}, {}},
      // slurmdbd, but AccountingStorageEnforce unset: Slurm prints it "none".
      // slurmdbd is there already: the warning does not ask for it.
      {"without enforcement",
       [] {
         SlurmSettings s = EnforcedBySlurmdbd();
         s.enforces_associations = false;
         s.accounting_storage_enforce = "none";
         return s;
       }(),
       "AccountingStorageEnforce=none: any user may charge any account: ",
       {"AccountingStorageEnforce=associations", "doc/admin-guide.md"},
       {"AccountingStorageType="}},
      // etc/slurm.conf.example as shipped: no accounting storage. The
      // warning names the storage type too.
      {"without slurmdbd",
       [] {
         SlurmSettings s = AsShipped();
         s.accounting_storage_type = "accounting_storage/none";
         s.accounting_storage_enforce = "none";
         return s;
       }(),
       "AccountingStorageEnforce=none: any user may charge any account: ",
       {"AccountingStorageType=accounting_storage/slurmdbd (not accounting_storage/none) and "
        "AccountingStorageEnforce=associations"},
       {}},
      {"without any accounting setting",
       [] {
         SlurmSettings s = AsShipped();
         s.accounting_storage_type = "";
         s.accounting_storage_enforce = "";
         return s;
       }(),
       "AccountingStorageEnforce=none: ", {"(not (unset))"}, {}},
      // nojobs,nosteps are the only values that do not imply associations:
      // they still warn.
      {"enforce values without associations",
       [] {
         SlurmSettings s = EnforcedBySlurmdbd();
         s.enforces_associations = false;
         s.accounting_storage_enforce = "nojobs,nosteps";
         return s;
       }(),
       "AccountingStorageEnforce=nojobs,nosteps: any user may charge any account: ", {}, {}},
  };
  for (const MembershipCase& c : cases) {
    std::vector<std::string> w = AccountMembershipWarnings(c.settings);
    if (w.size() != (c.starts ? 1u : 0u)) fail_msg("%s: %zu warnings", c.name, w.size());
    if (!c.starts) continue;
    if (!StartsWith(w[0], c.starts)) fail_msg("%s: \"%s\" does not start \"%s\"", c.name, w[0].c_str(), c.starts);
    for (const std::string& part : c.has) {
      if (!Has(w[0], part)) fail_msg("%s: \"%s\" lacks \"%s\"", c.name, w[0].c_str(), part.c_str());
    }
    for (const std::string& part : c.lacks) {
      if (Has(w[0], part)) fail_msg("%s: \"%s\" holds \"%s\"", c.name, w[0].c_str(), part.c_str());
    }
  }
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
      cmocka_unit_test(test_time_slicing_follows_the_key_then_preempt_mode),
      cmocka_unit_test(test_preempt_mode_off_warns_only_without_the_key),
      cmocka_unit_test(test_a_reserve_needs_select_topo),
      cmocka_unit_test(test_one_conflict_alone),
      cmocka_unit_test(test_membership_warnings),
      cmocka_unit_test(test_the_membership_check_is_not_a_timeslice_warning),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
