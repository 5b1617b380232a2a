// The default `sbudget` report: the allocation tree as the last report
// snapshot saw it, one row per node, in the manner of `sshare`.
//
// Rows. Nodes come in the snapshot's pre-order (a parent before its
// children). SelectNodes picks the rows as sshare does:
//   - with no filter, every node except those bound to a user, and the
//     nodes bound to the invoking user;
//   - -a/--all: the nodes of every user too;
//   - -u USERS: the nodes bound to those users and the subtrees they own
//     (a manager sees everything they fund);
//   - -A ACCOUNTS: only nodes inside the subtrees of those Slurm accounts
//     or of those tree paths ("llm", "llm/pretrain": a node without an
//     account is chosen by its path);
//   - every shown node brings its ancestors, so the tree stays readable.
// Unmatched names the -A and -u items that match nothing, so that a typo
// is said rather than printed as an empty table.
//
// Ranks. The snapshot's rank orders every node that holds jobs, other
// users' nodes included; the table shows each row's place among the ranked
// rows it shows (Rank, 0 first), so that a hidden row never leaves a gap,
// and -l adds the tree's own rank (TreeRank: what `sbudget explain` and the
// job priorities use). Standing is the headline figure behind the rank:
// among siblings, nodes with work (running or pending) rank before those
// without ("idle"), then lower Standing (the sibling ratio: the share of
// its siblings' usage it took over the share it is entitled to) first; a
// child's rank follows its parent's (order.h).
//
// Output. FormatTable writes fixed-width columns (names indented by depth),
// or `|`-separated rows with -p (trailing `|`, as sshare) or -P (none);
// parsable rows show the full path instead of the indented name, and
// numbers without padding. The default columns fit options.width (80, or
// $COLUMNS; names are cut with a `+` as sshare does); -l is the wide form
// and is never cut. Each column has one precision for all its rows (GPU
// time: two decimals, more when the column's smallest non-zero value needs
// them, as on a time-compressed test cluster). FormatJson writes the
// selected rows as one JSON object (json-c), null where a value does not
// apply. GPU time is shown in GPU-hours.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_
#define SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"

namespace sbudget {

struct ReportFilter {
  std::vector<std::string> accounts;  // -A: accounts or tree paths; empty: all
  std::vector<std::string> users;     // -u; empty: the invoking user
  bool all_users = false;             // -a
  std::string current_user;           // who runs sbudget
};

enum class TableStyle { kColumns, kParsable, kParsable2 };

constexpr size_t kDefaultWidth = 80;

struct TableOptions {
  TableStyle style = TableStyle::kColumns;
  bool long_format = false;  // -l
  bool header = true;        // false with -n
  size_t width = kDefaultWidth;  // the terminal's columns (default form only)
};

// Indices into snapshot.nodes of the rows to show, in pre-order.
std::vector<size_t> SelectNodes(const budget::ReportSnapshot& snapshot,
                                const ReportFilter& filter);

// The filter's -A and -u items that match no node ("-A nosuch"), in order.
std::vector<std::string> Unmatched(const budget::ReportSnapshot& snapshot, const ReportFilter& filter);

// Each row's rank among the ranked rows of `rows` (kNoRank for unranked
// ones), indexed like `rows`.
std::vector<uint32_t> RanksAmongRows(const budget::ReportSnapshot& snapshot, const std::vector<size_t>& rows);

// "idle" for a node without work in its subtree, "inf" for a zero-share
// node that used GPUs, else the sibling ratio with 3 decimals; "" for the
// root.
std::string StandingText(const budget::SnapshotNode& node);

// The header names of the columns, in order (for tests and --help).
std::vector<std::string> ColumnNames(bool long_format);

// One line per column of the default (long_format false) or long form:
// "  Name        what it is", for --help.
std::string ColumnHelp(bool long_format);

std::string FormatTable(const budget::ReportSnapshot& snapshot, const std::vector<size_t>& rows,
                        const TableOptions& options);

// {"generated_at", "age", "stale", "capacity_gpus", "window",
//  "fragmentation", "tree_source", "unit" (GpuTimeUnit), "gpu_weights"
//  ({type: weight}), "nodes": [{...one object per row...}]}.
std::string FormatJson(const budget::ReportSnapshot& snapshot, const std::vector<size_t>& rows,
                       budget::TimePoint now);

// The unit of the snapshot's GPU times: "GPU-hours", or "weighted
// GPU-hours" when priority/budget ran with GpuTypeWeights.
std::string GpuTimeUnit(const budget::ReportSnapshot& snapshot);

// Lines for humans above the table: when the snapshot was taken, its age,
// capacity, window and fragmentation (two lines when wider than `width`);
// then the unit of the GPU times, with the weights in force.
std::string FormatSnapshotSummary(const budget::ReportSnapshot& snapshot, budget::TimePoint now,
                                  size_t width = kDefaultWidth);

// The decimals that show every one of `gpu_seconds` in GPU-hours: 2, or
// more (up to 6) so that the smallest non-zero one keeps two significant
// digits.
int GpuHoursDecimals(const std::vector<double>& gpu_seconds);

// GPU-seconds as GPU-hours with `decimals` decimals.
std::string FormatGpuHours(double gpu_seconds, int decimals);
// ... with the decimals of GpuHoursDecimals({gpu_seconds}).
std::string FormatGpuHours(double gpu_seconds);

// Local time as Slurm prints it: "YYYY-MM-DDTHH:MM:SS".
std::string FormatTimestamp(budget::TimePoint t);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_REPORT_TABLE_H_
