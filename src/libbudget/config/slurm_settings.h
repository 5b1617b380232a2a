// SuiteSettingWarnings: the slurm.conf settings that work against the suite
// while preempt/timeslice runs, one warning each, naming the key. Slurm
// accepts all of them, so without a word the suite would quietly do less
// than etc/slurm.conf.example promises:
//   PreemptMode=OFF        with budget.conf TimeSlicing unset: nothing is
//                          time sliced (drains still happen)
//   PriorityType other than priority/budget
//                          the time-slicing pass ranks allocations by the
//                          standings priority/budget writes
//                          (budget_standings.json in StateSaveLocation);
//                          without it that file is missing or stale
//   PreemptExemptTime > 0  not applied: each job's protection is its own
//                          --min-runtime
//   SelectType other than select/topo, with budget.conf
//   QuickStartReserveNodes > 0
//                          Slurm's schedulers do not keep long protections
//                          off the quick-start reserve (only select/topo
//                          does), so the reserve is soon covered
// preempt/timeslice logs them once at start.
//
// AccountMembershipWarnings: the settings that let any user pick the
// team a job is charged to. The suite charges a job to the account its -A
// names; Slurm refuses an account the user is not a member of only with
// AccountingStorageType=accounting_storage/slurmdbd and
// AccountingStorageEnforce=associations (or limits, qos, safe, wckeys, all:
// each implies associations; slurmctld itself clears AccountingStorageEnforce
// without slurmdbd). Without it anyone can submit to the best-ranked team.
// priority/budget, the plugin that charges, logs it once at start.
//
// TimeSlicingOn: whether preempt/timeslice's thread time-slices (serves
// waiting jobs by preempting others), from budget.conf TimeSlicing and
// slurm.conf PreemptMode. The key decides when set; unset, PreemptMode
// does (OFF: no), which is what the suite did before the key existed, so a
// site that never sets it sees no change. The key exists because Slurm
// 25.05+ treats preemption as enabled whenever PreemptMode is not OFF
// (slurm_preemption_enabled()): its main scheduler and backfill then
// search preemption candidates for every job they test, although the
// plugin answers that no job is preemptable. TimeSlicing=yes with
// PreemptMode=OFF time-slices without that search. Drains at contract end
// run either way; how a victim leaves (requeued if resumable, cancelled
// otherwise) is the job's contract, never PreemptMode's.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_
#define SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_

#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/standing.h"

namespace budget {

// The slurm.conf values the checks read, as slurmctld parsed them.
struct SlurmSettings {
  bool preempt_mode_off = false;       // PreemptMode=OFF
  TimeSlicingKey time_slicing = TimeSlicingKey::kUnset;  // budget.conf TimeSlicing
  std::string priority_type;           // PriorityType
  Seconds preempt_exempt_time = 0;     // PreemptExemptTime (0: not set)
  // AccountingStorageEnforce has associations (set by any value that
  // implies it), as slurmctld kept it after its own checks.
  bool enforces_associations = false;
  std::string accounting_storage_enforce;  // as Slurm prints it: "none", "nojobs,nosteps"
  std::string accounting_storage_type;     // AccountingStorageType
  std::string select_type;                 // SelectType
  uint32_t quick_start_reserve_nodes = 0;  // budget.conf QuickStartReserveNodes
};

// budget.conf TimeSlicing when set, otherwise !preempt_mode_off.
bool TimeSlicingOn(TimeSlicingKey key, bool preempt_mode_off);

// One line per conflicting key, each starting with "Key=value: ".
std::vector<std::string> SuiteSettingWarnings(const SlurmSettings& settings);

// No line when Slurm enforces account membership; otherwise one, starting
// with "AccountingStorageEnforce=value: any user may charge any account".
std::vector<std::string> AccountMembershipWarnings(const SlurmSettings& settings);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_
