// Where sbudget finds the report snapshot, and what it says when the
// snapshot is missing, unreadable or stale.
//
// Lookup order: `--snapshot FILE`; else `<StateSaveLocation>/`
// kReportSnapshotFileName, StateSaveLocation read from the slurm.conf that
// Slurm's commands read ($SLURM_CONF, else /etc/slurm/slurm.conf); else, if
// that file does not say, from the controller (slurm_api.h). Reading the
// file first keeps the report working while the controller is down.
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_
#define SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_

#include <string>
#include <string_view>

#include "libbudget/report_snapshot.h"
#include "libbudget/status.h"

namespace sbudget {

constexpr char kDefaultSlurmConf[] = "/etc/slurm/slurm.conf";

// The value of StateSaveLocation in a slurm.conf text ("" if absent). Keys
// are case-insensitive, `#` starts a comment; the last assignment wins, as
// in Slurm.
std::string StateSaveLocationFromConf(std::string_view slurm_conf_text);

// $SLURM_CONF or kDefaultSlurmConf.
std::string SlurmConfPath();

// <dir>/budget_report.json.
std::string SnapshotFileIn(const std::string& state_save_location);

// The one-line message for a snapshot that could not be read: missing (the
// plugin is not PriorityType, or has not finished a pass), unreadable
// (permissions of StateSaveLocation), or corrupt.
std::string SnapshotProblem(const budget::Status& status, const std::string& file);

// "" when fresh; otherwise a warning naming its age and the rule.
std::string StalenessWarning(const budget::ReportSnapshot& snapshot, budget::TimePoint now);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_SNAPSHOT_LOCATE_H_
