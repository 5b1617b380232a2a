// Writing the report snapshot's files (the layout report_snapshot.h
// describes) into the StateSaveLocation: the plain atomic writers, and the
// plugin's ReportFileWriter, which keeps what did not change from one pass
// to the next.
//
// Thread safety: WriteReportSnapshot may run concurrently with readers of
// the same file (rename is atomic).
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_FILE_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/status.h"

namespace budget {

class SubtreeHistoryCache;

// A run of bytes of a file being written, where they lie (the writer turns
// these into the iovecs of writev; <sys/uio.h> stays out of this header).
struct TextPiece {
  const char* data;
  size_t size;
};

// Writes `snapshot` to `file` atomically with mode 0644. IOError naming the
// file and the failing step; `file` is then unchanged.
Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file);
// The same, formatting into `*scratch` (FormatReportSnapshotInto), which the
// caller keeps from one write to the next: a writer that runs every pass
// then neither allocates nor page-faults a fresh multi-MB buffer each time.
// *scratch holds the file's text afterwards (whatever the status).
// REQUIRES: scratch != nullptr, used by one thread at a time.
Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file,
                           std::string* scratch);

// Replaces `file` with `text` the same way (file.tmp, fsync, rename, mode
// 0644): for `sbudget metrics -o`, whose reader (node_exporter's textfile
// collector) must never see half a file, and reads only names ending .prom.
Status WriteTextFileAtomically(const std::string& file, const std::string& text);

// Writes the standings of `report` to `file` the same way: the report's
// document with every field but the job rows and the history ("jobs" and
// "history" are empty arrays), so ReadReportSnapshot reads it. For a reader
// that needs only the tree nodes' standings inside slurmctld: reading the
// benchmark's report (1,011 nodes with a week of history, 1,000 running
// jobs: 2.6 MB) takes 69 ms of CPU, its standings 6.4 ms (bench
// report_snapshot_read_cpu and standings_snapshot_read_cpu).
// REQUIRES: scratch != nullptr (as above).
Status WriteStandingsSnapshot(const ReportSnapshot& report, const std::string& file,
                              std::string* scratch);

// Writes a plugin's report and standings files pass after pass, with the
// same bytes WriteReportSnapshot and WriteStandingsSnapshot write, reusing
// what did not change since the previous Write:
//   - the nodes are formatted once for both files, and the text of their
//     tree fields (path to entitlement) is kept while those stay the same;
//   - with a SubtreeHistoryCache (the one BuildSnapshotNodes just updated
//     for this report), the history is that cache's series of the nodes
//     down to history_max_depth, as BuildSnapshotNodes would have copied
//     them into report.history (which is then not read). The text of every
//     slot but the last is kept in one buffer while the cache's closed
//     slots stand (SubtreeHistoryCache::closed_generation), so a pass within
//     an hour formats two values per node and writes the rest from where it
//     lies. At 1,011 nodes with a week of hourly history that
//     is 340,000 numbers, most of the report's formatting, formatted once an
//     hour instead of once a pass. Without a cache, report.history is
//     formatted whole;
//   - each file is written with writev from those pieces, not copied into
//     one buffer first.
// The files are derived data, rewritten every pass and again by the first
// pass after a restart: they are replaced atomically (write file.tmp,
// rename) with mode 0644, but not fsynced. A crash of the machine can at
// worst leave an empty or partial file, which readers refuse with a message
// naming it ("empty file", Corruption) until the next pass rewrites it; the
// state that matters (the ledger) is fsynced by its own writer.
// Thread safety: one thread at a time.
class ReportFileWriter {
 public:
  // Writes `report` to report_file, the same bytes to report_copy (skipped
  // if empty: budget.conf's ReportDir), then its standings to
  // standings_file (skipped if empty). IOError naming the file and the
  // step (the first that failed; the other files are still written); a
  // file whose write failed is unchanged.
  Status Write(const ReportSnapshot& report, const std::string& report_file, const std::string& standings_file,
               const SubtreeHistoryCache* history = nullptr, int history_max_depth = -1,
               const std::string& report_copy = std::string());
  // How many history values the last Write formatted (the others kept
  // their text); for tests and the benchmark.
  size_t history_values_formatted() const { return history_values_formatted_; }
  // How many times the nodes' tree fields (path to entitlement) were
  // formatted: once, and again whenever the nodes or those fields change.
  size_t tree_formats() const { return tree_formats_; }

 private:
  // The "nodes" array into nodes_text_, the tree's fields from tree_text_
  // (formatted again when they changed).
  void FormatNodes(const std::vector<SnapshotNode>& nodes);
  void FormatTreeFields(const std::vector<SnapshotNode>& nodes);
  // Formats the closed text of `cache`'s series down to max_depth.
  void FormatClosedHistory(const SubtreeHistoryCache& cache, int max_depth);
  void AppendValue(double value, std::string* out);
  // Appends to pieces_ (skipped if empty).
  void AddPiece(const char* data, size_t size);
  // The "history" array's pieces: the closed text with each series' last
  // value (formatted into last_text_).
  void AddHistoryPieces(const SubtreeHistoryCache& cache);

  // Per history entry, two parts of its text, one after the other in
  // closed_text_: everything before its last delivered value, then
  // everything between that and its last owed value; closed_ends_ holds
  // where each part ends, closed_nodes_ the entry's node.
  std::string closed_text_;
  std::vector<uint32_t> closed_ends_;
  std::vector<size_t> closed_nodes_;
  uint64_t closed_generation_ = 0;  // the cache's, when formatted; 0: none
  int closed_depth_ = -1;
  std::string history_text_;  // the history, formatted whole (no cache)
  // Each history entry's last delivered and owed values, one after the
  // other (last_ends_: where each ends).
  std::string last_text_;
  std::vector<uint32_t> last_ends_;
  std::vector<TextPiece> pieces_;  // what the file being written holds, in order
  // Per node, the start of its object up to its tree fields, one after the
  // other in tree_text_ (tree_ends_: where each ends), and those fields as
  // formatted (tree_nodes_: the nodes they were formatted from).
  std::string tree_text_;
  std::vector<uint32_t> tree_ends_;
  std::vector<SnapshotNode> tree_nodes_;
  size_t tree_formats_ = 0;
  std::string nodes_text_;
  std::string value_text_;
  std::string text_;
  size_t history_values_formatted_ = 0;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_FILE_H_
