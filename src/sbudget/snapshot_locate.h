// Where sbudget finds the report snapshot, and what it says when the
// snapshot is missing, unreadable or stale.
//
// Lookup order: `--snapshot FILE`; else `<ReportDir>/`
// kReportSnapshotFileName when the budget.conf beside that slurm.conf sets
// ReportDir (a shared directory priority/budget also writes to: sbudget on
// any host); else, and also when nothing usable is there,
// `<StateSaveLocation>/` kReportSnapshotFileName, StateSaveLocation read from
// the slurm.conf that Slurm's commands read ($SLURM_CONF, else
// /etc/slurm/slurm.conf); else, if that file does not say, from the
// controller (slurm_api.h). Reading the files first keeps the report
// working while the controller is down.
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_
#define SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_

#include <string>
#include <string_view>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/status.h"

namespace sbudget {

constexpr char kDefaultSlurmConf[] = "/etc/slurm/slurm.conf";

// The value of StateSaveLocation in a slurm.conf text ("" if absent). Keys
// are case-insensitive, `#` starts a comment; the last assignment wins, as
// in Slurm.
std::string StateSaveLocationFromConf(std::string_view slurm_conf_text);
// The value of any one key of a slurm.conf text, read the same way.
std::string SettingFromConf(std::string_view slurm_conf_text, std::string_view key);

// $SLURM_CONF or kDefaultSlurmConf.
std::string SlurmConfPath();

// <dir>/budget_report.json.
std::string SnapshotFileIn(const std::string& state_save_location);

// The one-line message for a snapshot that could not be read: missing (the
// plugin is not PriorityType, or has not finished a pass), unreadable
// (permissions of StateSaveLocation), or corrupt.
std::string SnapshotProblem(const budget::Status& status, const std::string& file);

// ReportDir of the budget.conf beside `slurm_conf` ("" when unset, or the
// file is missing). A budget.conf that does not parse gives "" and a
// warning in *warning naming it (the plugin refuses to start on it, so no
// ReportDir is in force).
std::string ReportDirFromBudgetConf(const std::string& slurm_conf, std::string* warning);

// The one-line message for a snapshot written while no allocation tree had
// loaded (ReportSnapshot::tree_loaded false): priority/budget runs, but no
// budget applies until a tree loads.
std::string NoTreeProblem(const budget::ReportSnapshot& snapshot, budget::TimePoint now);

// "" when fresh; otherwise a warning naming its age and the rule.
std::string StalenessWarning(const budget::ReportSnapshot& snapshot, budget::TimePoint now);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_
