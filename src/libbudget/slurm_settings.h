// SuiteSettingWarnings: the slurm.conf settings that work against the suite
// while preempt/timeslice runs, one warning each, naming the key. Slurm
// accepts all of them, so without a word the suite would quietly do less
// than etc/slurm.conf.example promises:
//   PreemptMode=OFF        nothing is time sliced (drains still happen)
//   PriorityType other than priority/budget
//                          the time-slicing pass ranks allocations by the
//                          standings priority/budget writes
//                          (budget_standings.json in StateSaveLocation);
//                          without it that file is missing or stale
//   PreemptExemptTime > 0  not applied: each job's protection is its own
//                          --min-runtime
// preempt/timeslice logs them once at start.
//
// Thread safety: a plain function over values.
#ifndef SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_
#define SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_

#include <string>
#include <vector>

#include "libbudget/standing.h"

namespace budget {

// The slurm.conf values the check reads, as slurmctld parsed them.
struct SlurmSettings {
  bool preempt_mode_off = false;       // PreemptMode=OFF
  std::string priority_type;           // PriorityType
  Seconds preempt_exempt_time = 0;     // PreemptExemptTime (0: not set)
};

// One line per conflicting key, each starting with "Key=value: ".
std::vector<std::string> SuiteSettingWarnings(const SlurmSettings& settings);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_SLURM_SETTINGS_H_
