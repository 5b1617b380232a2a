// Report writer: after each pass, the report snapshot that `sbudget` reads
// (libbudget/report/report_snapshot.h, <StateSaveLocation>/budget_report.json):
// the tree with each node's standing, owed and delivered GPU time and
// running/pending GPUs, and the running jobs with what they are charged to
// and their protection end, exactly as the pass decided. Pending jobs are
// counted but not listed (version 3): their place is the priority the pass
// gave them, which Slurm holds and `sbudget explain` reads back.
// The core's builders do the work; this file only translates JobViews.
//
// Unknown accounts (UnknownAccount=unallocated): such a job has no node;
// the plugin runs it as unallocated work, and the core's RankSnapshotJobs
// ranks it so: its entry says allocated=false and carries the priority the
// plugin applied.
//
// Slurm-free; the recalc thread calls it outside slurmctld's locks.
// Thread safety: none (it queries the ledger, which the caller owns).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_REPORT_WRITER_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_REPORT_WRITER_H_

#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/report/history_cache.h"
#include "libbudget/state/ledger.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/status.h"
#include "priority_budget/job_view.h"
#include "priority_budget/priority_pass.h"

namespace budget_prio {

// Depth of the tree nodes whose owed/delivered history goes in the report
// (programs and their projects; the file stays small).
constexpr int kReportHistoryDepth = 2;

// Builds the snapshot of the pass at `now` from `pass` (the order just
// computed over `jobs`, its per-node activity and its running jobs, which
// are listed), in place:
// the caller keeps `report` between passes so that its job list reuses its
// memory. On error *report is unspecified (write nothing from it).
// With a `history_cache` (kept by the caller; history_cache.h) the
// history is left out of *report: write it with
// ReportFileWriter::Write(*report, ..., history_cache, kReportHistoryDepth).
// Without, report->history holds it.
budget::Status BuildReport(const PassResult& pass, const std::vector<JobView>& jobs, double capacity_gpus,
                           const std::string& tree_source, budget::TimePoint now, budget::Ledger* ledger,
                           budget::ReportSnapshot* report, budget::SubtreeHistoryCache* history_cache = nullptr);

// Copies select/topo's fragmentation figure from its state file
// (libbudget/policy/packing_state.h, <StateSaveLocation>/select_topo_state.json)
// into *report, so that the report holds it wherever it is read. No file
// (select/topo not configured): has_fragmentation false, Ok. A file that
// does not parse: has_fragmentation false and the error, for the log.
budget::Status AddFragmentation(const std::string& packing_state_file, budget::ReportSnapshot* report);

// The report written while no allocation tree has loaded
// (report_snapshot.h, "No tree"): tree_loaded false, no nodes, jobs or
// history, tree_source naming the source, the window and intervals of
// `config`.
void BuildNoTreeReport(const budget::BudgetConfig& config, const std::string& tree_source, budget::TimePoint now,
                       budget::ReportSnapshot* report);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_REPORT_WRITER_H_
