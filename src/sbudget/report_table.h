// The default `sbudget` report: the allocation tree as the last report
// snapshot saw it, one row per node, in the manner of `sshare -l`.
//
// Rows. Nodes come in the snapshot's pre-order (a parent before its
// children). SelectNodes picks the rows as sshare does:
//   - with no filter, every node except those bound to a user, and the
//     nodes bound to the invoking user;
//   - -a/--all: the nodes of every user too;
//   - -u USERS: the nodes bound to those users and the subtrees they own
//     (a manager sees everything they fund);
//   - -A ACCOUNTS: only nodes inside those accounts' subtrees;
//   - every shown node brings its ancestors, so the tree stays readable.
//
// Output. FormatTable writes fixed-width columns (names indented by depth),
// or `|`-separated rows with -p (trailing `|`, as sshare) or -P (none);
// parsable rows show the full path instead of the indented name, and
// numbers without padding. FormatJson writes the selected rows as one JSON
// object (json-c). GPU time is shown in GPU-hours.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_
#define SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "libbudget/report_snapshot.h"

namespace sbudget {

struct ReportFilter {
  std::vector<std::string> accounts;  // -A; empty: every account
  std::vector<std::string> users;     // -u; empty: the invoking user
  bool all_users = false;             // -a
  std::string current_user;           // who runs sbudget
};

enum class TableStyle { kColumns, kParsable, kParsable2 };

struct TableOptions {
  TableStyle style = TableStyle::kColumns;
  bool long_format = false;  // -l
  bool header = true;        // false with -n
};

// Indices into snapshot.nodes of the rows to show, in pre-order.
std::vector<size_t> SelectNodes(const budget::ReportSnapshot& snapshot,
                                const ReportFilter& filter);

// The header names of the columns, in order (for tests and the man page).
std::vector<std::string> ColumnNames(bool long_format);

std::string FormatTable(const budget::ReportSnapshot& snapshot, const std::vector<size_t>& rows,
                        const TableOptions& options);

// {"generated_at", "age", "stale", "capacity_gpus", "window",
//  "fragmentation", "tree_source", "nodes": [{...one object per row...}]}.
std::string FormatJson(const budget::ReportSnapshot& snapshot, const std::vector<size_t>& rows,
                       budget::TimePoint now);

// One line for humans above the table: when the snapshot was taken, its
// age, capacity, window and fragmentation.
std::string FormatSnapshotSummary(const budget::ReportSnapshot& snapshot, budget::TimePoint now);

// GPU-seconds as GPU-hours with two decimals; a small non-zero amount keeps
// two significant digits ("0.0022") instead of reading "0.00".
std::string FormatGpuHours(double gpu_seconds);

// Local time as Slurm prints it: "YYYY-MM-DDTHH:MM:SS".
std::string FormatTimestamp(budget::TimePoint t);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_
