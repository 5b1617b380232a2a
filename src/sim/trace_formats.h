// Internal to the trace readers: the per-format row parsers and the line
// loop they share (header, skip-bad-rows accounting). See trace_reader.h.
#ifndef SLURM_BUDGET_SIM_TRACE_FORMATS_H_
#define SLURM_BUDGET_SIM_TRACE_FORMATS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/csv_row.h"
#include "sim/trace_reader.h"

namespace budget {
namespace sim {

// Parses one data row into *out. `columns` is the number of fields of the
// file's header (0 for formats without one), so that a format whose later
// columns are optional knows which the file has. Returns InvalidArgument
// with a Where() message on a malformed row; for a well-formed row that is
// not a job to replay, sets *not_replayed to why, a phrase that completes
// "<file>: <count> " in ReadWarnings, e.g. "job(s) never ran and are not
// replayed" (rows with the same phrase are counted together).
using RowParser = std::function<Status(const std::vector<Field>& fields, uint64_t line,
                                       size_t columns, TraceJob* job, std::string* account,
                                       std::string* user, std::string* not_replayed)>;

// Checks a header whose columns are named (in any order) and remembers
// where each is; InvalidArgument with a Where() message when it lacks one.
using HeaderReader = std::function<Status(const std::vector<Field>& names, uint64_t line)>;

struct FormatSpec {
  char separator = ',';
  // Expected header fields (CSV formats); empty: no header, comment lines
  // start with `comment`.
  std::vector<std::string> header;
  // A header may stop after this many of `header`'s fields (the columns an
  // older version of the format had); 0: all are required.
  size_t required_columns = 0;
  // Instead of `header`: the first line is a header of named columns that
  // this reads (sacct). Rows must then have as many fields as it.
  HeaderReader named_header;
  // CSV quoting (csv_row.h); false: every separator separates, a quote is
  // text (sacct -P prints fields as they are).
  bool quoted_fields = true;
  char comment = '\0';
};

Status ReadRows(std::string_view text, const std::string& file, const FormatSpec& spec,
                const RowParser& parse, const TraceOptions& options, Workload* out,
                ReadStats* stats);
// ReadRows for a format without contracts (Philly, SWF): every job replayed
// takes the options' default contract as the controller applies
// DefaultMinRuntime (cut to the job's time limit), and the stats count them
// all as such.
// The contract the controller gives a job that declared none
// (src/libbudget/policy/job_contract.h ValidateContract without
// --min-runtime): the options' default, cut to job->time_limit, which must
// be set.
void ApplyDefaultContract(const TraceOptions& options, TraceJob* job);
Status ReadRowsWithDefaultContract(std::string_view text, const std::string& file, const FormatSpec& spec,
                                   const RowParser& parse, const TraceOptions& options, Workload* out,
                                   ReadStats* stats);

// Field parsers producing Where() messages naming the field.
Status IntField(const std::string& file, uint64_t line, const Field& f, const char* name,
                int64_t min, int64_t* out);
Status NumberField(const std::string& file, uint64_t line, const Field& f, const char* name,
                   double min, double* out);
// `value` (the number in `f`) must not exceed `max`, named in the message
// as `max_name`.
Status AtMost(const std::string& file, uint64_t line, const Field& f, const char* name, double value,
              int64_t max, const char* max_name);
// A submit time in seconds: [0, kMaxSubmitTime].
Status SubmitTimeField(const std::string& file, uint64_t line, const Field& f, const char* name,
                       int64_t* out);
// A duration in seconds: [min, kMaxJobDuration].
Status DurationField(const std::string& file, uint64_t line, const Field& f, const char* name, int64_t min,
                     int64_t* out);

Status ReadNative(std::string_view text, const std::string& file, const TraceOptions& options,
                  Workload* out, ReadStats* stats);
Status ReadPhilly(std::string_view text, const std::string& file, const TraceOptions& options,
                  Workload* out, ReadStats* stats);
Status ReadSwf(std::string_view text, const std::string& file, const TraceOptions& options,
               Workload* out, ReadStats* stats);
Status ReadSacct(std::string_view text, const std::string& file, const TraceOptions& options,
                 Workload* out, ReadStats* stats);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_TRACE_FORMATS_H_
