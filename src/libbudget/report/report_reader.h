// Reading a report snapshot (the layout report_snapshot.h describes): what
// sbudget and preempt/timeslice use, whichever version wrote the file.
//
// Thread safety: plain functions; a reader may run while a writer replaces
// the file (report_file.h: the rename is atomic).
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_READER_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_READER_H_

#include <string>
#include <string_view>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/status.h"

namespace budget {

// Reads `file`. NotFound if it does not exist; Corruption naming the file and
// the JSON path for a malformed document or a version newer than this build
// reads; IOError for a read error. *out is replaced only on success.
// REQUIRES: out != nullptr.
Status ReadReportSnapshot(const std::string& file, ReportSnapshot* out);

// Parses the text FormatReportSnapshot (report_format.h) writes, or any
// earlier version's; `source` names the document in errors. Exposed for
// tests and for `sbudget --json`. REQUIRES: out != nullptr.
Status ParseReportSnapshot(std::string_view json, const std::string& source,
                           ReportSnapshot* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_READER_H_
