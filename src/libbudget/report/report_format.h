// The report snapshot's JSON text (the layout report_snapshot.h describes):
// the whole document, the standings document, and the pieces of them that
// ReportFileWriter (report_file.h) formats one by one to keep their text
// from one pass to the next. The parser is report_reader.h.
//
// Written straight to text (json_writer.h): a json-c document of a
// 20,000-job snapshot cost ~0.6 s of the controller's CPU per write.
// Non-finite numbers are written as null (read back as +inf, the only
// non-finite value a snapshot holds).
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_LIBBUDGET_REPORT_FORMAT_H_
#define SLURM_BUDGET_LIBBUDGET_REPORT_FORMAT_H_

#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"

namespace budget {

class JsonWriter;

// The columns of a job row (versions 2 and 3), in the order the writer
// writes them. Readers map columns by name, so this order is the writer's
// choice, not part of the format.
extern const char* const kJobFields[19];
// Whose absence from job_fields means "no job was preempted", as the key's
// absence did in version 1; every other column is required.
extern const char kOptionalJobField[];

// The JSON text of the report file, and the same into *out, keeping *out's
// capacity. REQUIRES: out != nullptr.
std::string FormatReportSnapshot(const ReportSnapshot& snapshot);
void FormatReportSnapshotInto(const ReportSnapshot& snapshot, std::string* out);
// The standings document (WriteStandingsSnapshot) into *out.
// REQUIRES: out != nullptr.
void FormatStandingsSnapshotInto(const ReportSnapshot& report, std::string* out);

// --- The pieces, for ReportFileWriter. ---

// The document's head: '{' and every key before "nodes".
void WriteReportHead(JsonWriter& w, const ReportSnapshot& s);
// "job_fields" and "jobs" (an empty array without `rows`).
void WriteReportJobs(JsonWriter& w, const ReportSnapshot& s, bool rows);
// A node's fields that only the tree sets, first in its object, and the
// fields each pass computes, after them.
void WriteNodeTreeFields(JsonWriter& w, const SnapshotNode& n);
void WriteNodePassFields(JsonWriter& w, const SnapshotNode& n);
// Whether two nodes' tree fields are written the same (compared bit for
// bit: 0 and -0 are written differently).
bool SameTreeFields(const SnapshotNode& a, const SnapshotNode& b);
// One history entry, its values MilliRounded.
void WriteHistory(JsonWriter& w, const SnapshotHistory& h);
// A history value as written: to 0.001 GPU-s (report_snapshot.h,
// "History values").
double MilliRounded(double v);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_REPORT_FORMAT_H_
