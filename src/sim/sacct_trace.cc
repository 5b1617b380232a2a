// The sacct trace (sacct_trace.h): sacct -P's rows, read by the core's
// reader (libbudget/accounting/sacct_rows.h), into a Workload.
#include "sim/sacct_trace.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace_formats.h"

namespace budget {
namespace sim {

namespace {

std::vector<std::string_view> Texts(const std::vector<Field>& fields) {
  std::vector<std::string_view> texts;
  texts.reserve(fields.size());
  for (const Field& f : fields) texts.push_back(f.text);
  return texts;
}

Status Problem(const std::string& file, uint64_t line, const std::vector<Field>& f, const SacctProblem& p) {
  return Status::InvalidArgument(Where(file, line, f[p.field].column, p.what));
}

Status Bad(const std::string& file, uint64_t line, const Field& f, const char* name, const std::string& why) {
  return Status::InvalidArgument(Where(file, line, f.column, std::string(name) + ": " + why));
}

// A Timelimit: rounded up to whole minutes, or derived from the work when
// the job had none of its own.
Status TimeLimitOf(const std::string& file, uint64_t line, const Field& f, Seconds duration, double factor,
                   Seconds* out) {
  if (f.text.empty() || f.text == "UNLIMITED" || f.text == "Partition_Limit") {
    *out = DeriveTimeLimit(duration, factor);
    return Status::Ok();
  }
  Seconds limit = 0;
  Status st = ParseDuration(f.text, &limit);
  if (!st.ok()) return Bad(file, line, f, "Timelimit", st.message() + " (or UNLIMITED, Partition_Limit)");
  // DeriveTimeLimit with factor 1 rounds up to minutes and clamps, as for
  // an SWF requested time.
  *out = DeriveTimeLimit(limit, 1.0);
  return Status::Ok();
}

// Why a well-formed row is not a job to replay; empty when it is one.
std::string NotReplayed(const SacctRow& row) {
  if (row.id_kind == SacctJobId::kStep) return "row(s) were job steps and are not replayed (sacct -X leaves them out)";
  if (row.run == SacctRun::kEarlierRun)
    return "row(s) were earlier runs of requeued jobs (sacct -D) and are not replayed: a job's last run is its work";
  if (row.run == SacctRun::kStillRunning)
    return "job(s) were still running or suspended and are not replayed (run time unknown)";
  if (!row.ran) return "job(s) never ran and are not replayed";
  return "";
}

}  // namespace

Status ReadSacct(std::string_view text, const std::string& file, const TraceOptions& options, Workload* out,
                 ReadStats* stats) {
  FormatSpec spec;
  spec.separator = '|';
  spec.quoted_fields = false;
  SacctColumns col;
  spec.named_header = [&file, &col](const std::vector<Field>& names, uint64_t line) {
    SacctProblem problem;
    if (ReadSacctHeader(Texts(names), &col, &problem)) return Status::Ok();
    return Problem(file, line, names, problem);
  };
  uint64_t default_contracts = 0;
  RowParser parse = [&file, &options, &col, &default_contracts](const std::vector<Field>& f, uint64_t line,
                                                                size_t columns, TraceJob* job, std::string* account,
                                                                std::string* user,
                                                                std::string* not_replayed) -> Status {
    if (f.size() != columns)
      return Status::InvalidArgument(Where(file, line, f.back().column,
                                           "expected " + std::to_string(columns) + " fields (as the header), got " +
                                               std::to_string(f.size())));
    const std::vector<std::string_view> texts = Texts(f);
    SacctRow row;
    SacctProblem problem;
    if (!ParseSacctRowKind(texts, col, &row, &problem)) return Problem(file, line, f, problem);
    *not_replayed = NotReplayed(row);
    if (!not_replayed->empty()) return Status::Ok();
    if (!ParseSacctRun(texts, col, &row, &problem)) return Problem(file, line, f, problem);
    // Submit times are seconds since 1970 (the native writer's and reader's).
    const Field& submit = f[col.at[kSacctSubmit]];
    if (row.submit < 0)
      return Bad(file, line, submit, "Submit", "must not be before 1970-01-01T00:00:00, got '" + submit.text + "'");
    if (row.gpus == 0) {
      *not_replayed = "job(s) held no GPUs (no gres/gpu in AllocTRES) and are not replayed";
      return Status::Ok();
    }
    job->submit = row.submit;
    job->gpus = row.gpus;
    *account = row.account;
    *user = row.user;
    // A job that ran for less than a second still held its GPUs for one.
    job->duration = std::max<Seconds>(1, row.elapsed);
    Status st = TimeLimitOf(file, line, f[col.at[kSacctTimelimit]], job->duration, options.time_limit_factor,
                            &job->time_limit);
    if (!st.ok()) return st;
    if (!ParseSacctContract(texts, col, &row, &problem)) return Problem(file, line, f, problem);
    if (row.has_contract) {
      job->min_runtime = row.contract.min_runtime;
      job->resumable = row.contract.resumable;
    } else {
      ApplyDefaultContract(options, job);
      ++default_contracts;
    }
    return Status::Ok();
  };
  Status st = ReadRows(text, file, spec, parse, options, out, stats);
  if (st.ok()) stats->default_contract = default_contracts;
  return st;
}

}  // namespace sim
}  // namespace budget
