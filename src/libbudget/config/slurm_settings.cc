#include "libbudget/config/slurm_settings.h"

#include "libbudget/config/time_string.h"

namespace budget {

bool TimeSlicingOn(TimeSlicingKey key, bool preempt_mode_off) {
  switch (key) {
    case TimeSlicingKey::kYes:
      return true;
    case TimeSlicingKey::kNo:
      return false;
    case TimeSlicingKey::kUnset:
      break;
  }
  return !preempt_mode_off;
}

std::vector<std::string> SuiteSettingWarnings(const SlurmSettings& settings) {
  std::vector<std::string> warnings;
  // TimeSlicing=no is the site's own word: no warning. Unset, OFF turns
  // time slicing off, which a site that meant to quiet Slurm's schedulers
  // may not expect.
  if (settings.preempt_mode_off && settings.time_slicing == TimeSlicingKey::kUnset) {
    warnings.push_back(
        "PreemptMode=OFF: preempt/timeslice time-slices nothing (no job is preempted for another; nodes still "
        "drain at contract end); set TimeSlicing=yes in budget.conf to time-slice with PreemptMode=OFF, or "
        "TimeSlicing=no to say that nothing is to be time sliced");
  }
  if (settings.priority_type != "priority/budget") {
    const std::string type = settings.priority_type.empty() ? "(unset)" : settings.priority_type;
    warnings.push_back("PriorityType=" + type +
                       ": preempt/timeslice ranks allocations by the standings priority/budget writes "
                       "(budget_standings.json in StateSaveLocation); without priority/budget that file is "
                       "missing or stale; set PriorityType=priority/budget");
  }
  if (settings.preempt_exempt_time > 0) {
    warnings.push_back("PreemptExemptTime=" + FormatDuration(settings.preempt_exempt_time) +
                       ": not applied; each job is protected for its own --min-runtime (Slurm's schedulers "
                       "never preempt beside preempt/timeslice); remove PreemptExemptTime");
  }
  if (settings.quick_start_reserve_nodes > 0 && settings.select_type != "select/topo") {
    const std::string type = settings.select_type.empty() ? "(unset)" : settings.select_type;
    warnings.push_back("SelectType=" + type + ": budget.conf QuickStartReserveNodes=" +
                       std::to_string(settings.quick_start_reserve_nodes) +
                       " is not kept: only select/topo keeps long protections off the quick-start reserve; set "
                       "SelectType=select/topo or QuickStartReserveNodes=0");
  }
  return warnings;
}

std::vector<std::string> AccountMembershipWarnings(const SlurmSettings& settings) {
  if (settings.enforces_associations) return {};
  const std::string enforce =
      settings.accounting_storage_enforce.empty() ? "none" : settings.accounting_storage_enforce;
  std::string needs = "AccountingStorageEnforce=associations";
  if (settings.accounting_storage_type != "accounting_storage/slurmdbd") {
    const std::string type = settings.accounting_storage_type.empty() ? "(unset)" : settings.accounting_storage_type;
    needs = "AccountingStorageType=accounting_storage/slurmdbd (not " + type + ") and " + needs;
  }
  return {"AccountingStorageEnforce=" + enforce +
          ": any user may charge any account: a job is charged to the account its -A names, and Slurm refuses "
          "an account the user is not a member of only with " + needs +
          ", every account of the budget tree a Slurm account with its users (doc/admin-guide.md, "
          "\"Account membership\")"};
}

}  // namespace budget
