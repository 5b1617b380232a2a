#include "sim/trace_reader.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "libbudget/policy/job_contract.h"
#include "sim/output_file.h"
#include "sim/trace_formats.h"

namespace budget {
namespace sim {

Status ParseTraceFormat(std::string_view name, TraceFormat* out) {
  if (name == "native") {
    *out = TraceFormat::kNative;
  } else if (name == "philly") {
    *out = TraceFormat::kPhilly;
  } else if (name == "swf") {
    *out = TraceFormat::kSwf;
  } else if (name == "sacct") {
    *out = TraceFormat::kSacct;
  } else {
    return Status::InvalidArgument("--format: expected native, philly, swf or sacct, got '" +
                                   std::string(name) + "'");
  }
  return Status::Ok();
}

Status IntField(const std::string& file, uint64_t line, const Field& f, const char* name,
                int64_t min, int64_t* out) {
  if (!ParseInt64(f.text, out))
    return Status::InvalidArgument(Where(file, line, f.column, std::string(name) +
                                         ": expected an integer, got '" +
                                         std::string(f.text) + "'"));
  if (*out < min)
    return Status::InvalidArgument(Where(file, line, f.column, std::string(name) +
                                         ": must be >= " + std::to_string(min) + ", got " +
                                         std::to_string(*out)));
  return Status::Ok();
}

Status AtMost(const std::string& file, uint64_t line, const Field& f, const char* name, double value,
              int64_t max, const char* max_name) {
  if (value <= static_cast<double>(max)) return Status::Ok();
  return Status::InvalidArgument(Where(file, line, f.column, std::string(name) + ": must be at most " +
                                       std::to_string(max) + " (" + max_name + "), got '" +
                                       std::string(f.text) + "'"));
}

Status SubmitTimeField(const std::string& file, uint64_t line, const Field& f, const char* name,
                       int64_t* out) {
  Status st = IntField(file, line, f, name, 0, out);
  if (!st.ok()) return st;
  return AtMost(file, line, f, name, static_cast<double>(*out), kMaxSubmitTime, "9999-12-31 23:59:59 UTC");
}

Status DurationField(const std::string& file, uint64_t line, const Field& f, const char* name, int64_t min,
                     int64_t* out) {
  Status st = IntField(file, line, f, name, min, out);
  if (!st.ok()) return st;
  return AtMost(file, line, f, name, static_cast<double>(*out), kMaxJobDuration, "10 years");
}

Status NumberField(const std::string& file, uint64_t line, const Field& f, const char* name,
                   double min, double* out) {
  if (!ParseDouble(f.text, out))
    return Status::InvalidArgument(Where(file, line, f.column, std::string(name) +
                                         ": expected a number, got '" +
                                         std::string(f.text) + "'"));
  if (*out < min)
    return Status::InvalidArgument(Where(file, line, f.column, std::string(name) +
                                         ": must be >= " + std::to_string(min) + ", got '" +
                                         std::string(f.text) + "'"));
  return Status::Ok();
}

Status ReadRows(std::string_view text, const std::string& file, const FormatSpec& spec,
                const RowParser& parse, const TraceOptions& options, Workload* out,
                ReadStats* stats) {
  *out = Workload();
  *stats = ReadStats();
  std::vector<Field> fields;
  bool header_seen = spec.header.empty() && !spec.named_header;
  size_t columns = 0;  // of the header seen
  uint64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;  // blank line
    if (spec.comment != '\0' && line[first] == spec.comment) continue;
    SplitError split_error;
    bool split = true;
    if (spec.quoted_fields) {
      split = SplitFields(line, spec.separator, &fields, &split_error);
    } else {
      SplitUnquoted(line, spec.separator, &fields);
    }
    if (!header_seen) {
      if (!split) {
        *out = Workload();
        return Status::InvalidArgument(Where(file, line_no, split_error.column, "header: " + split_error.what));
      }
      if (spec.named_header) {
        Status st = spec.named_header(fields, line_no);
        if (!st.ok()) {
          *out = Workload();
          return st;
        }
        columns = fields.size();
        header_seen = true;
        continue;
      }
      size_t required = spec.required_columns == 0 ? spec.header.size() : spec.required_columns;
      bool same = fields.size() >= required && fields.size() <= spec.header.size();
      for (size_t i = 0; same && i < fields.size(); ++i) same = fields[i].text == spec.header[i];
      if (!same) {
        // "a,b,c[,d[,e]]": the optional trailing columns in brackets.
        std::string want;
        for (size_t i = 0; i < spec.header.size(); ++i)
          want += (i == 0 ? "" : i < required ? "," : "[,") + spec.header[i];
        want.append(spec.header.size() - required, ']');
        *out = Workload();
        return Status::InvalidArgument(
            Where(file, line_no, 1, "header: expected '" + want + "'"));
      }
      columns = fields.size();
      header_seen = true;
      continue;
    }
    ++stats->rows;
    TraceJob job;
    std::string account, user, not_replayed;
    Status st = split ? parse(fields, line_no, columns, &job, &account, &user, &not_replayed)
                      : Status::InvalidArgument(Where(file, line_no, split_error.column, split_error.what));
    if (!st.ok()) {
      if (!options.skip_bad_rows) {
        *out = Workload();
        return st;
      }
      ++stats->bad_rows;
      if (stats->first_errors.size() < ReadStats::kKeptErrors)
        stats->first_errors.push_back(st.message());
      continue;
    }
    if (!not_replayed.empty()) {
      ++stats->filtered;
      stats->CountNotReplayed(not_replayed);
      continue;
    }
    job.account = out->InternAccount(account);
    job.user = out->InternUser(user);
    out->jobs.push_back(job);
  }
  if (!header_seen) {
    *out = Workload();
    return Status::InvalidArgument(Where(file, line_no + 1, 1, "header: missing (empty file)"));
  }
  out->SortAndNumber();
  return Status::Ok();
}

void ApplyDefaultContract(const TraceOptions& options, TraceJob* job) {
  // A job is never refused for a contract it did not declare: with no
  // --min-runtime text, ValidateContract cannot fail.
  BudgetConfig site;
  site.default_min_runtime = options.default_min_runtime;
  JobContract contract;
  (void)ValidateContract(nullptr, options.default_resumable, job->time_limit, site, &contract);
  job->min_runtime = contract.min_runtime;
  job->resumable = contract.resumable;
}

Status ReadRowsWithDefaultContract(std::string_view text, const std::string& file, const FormatSpec& spec,
                                   const RowParser& parse, const TraceOptions& options, Workload* out,
                                   ReadStats* stats) {
  RowParser with_contract = [&parse, &options](const std::vector<Field>& fields, uint64_t line, size_t columns,
                                               TraceJob* job, std::string* account, std::string* user,
                                               std::string* not_replayed) -> Status {
    Status st = parse(fields, line, columns, job, account, user, not_replayed);
    if (st.ok() && not_replayed->empty()) ApplyDefaultContract(options, job);
    return st;
  };
  Status st = ReadRows(text, file, spec, with_contract, options, out, stats);
  if (st.ok()) stats->default_contract = out->jobs.size();
  return st;
}

Status ReadTraceText(std::string_view text, const std::string& file, TraceFormat format,
                     const TraceOptions& options, Workload* out, ReadStats* stats) {
  // Checked here, not left to DeriveTimeLimit's fallback: a caller's bad
  // factor must not quietly become 1.
  if (!std::isfinite(options.time_limit_factor) || options.time_limit_factor < 1) {
    *out = Workload();
    return Status::InvalidArgument("--time-limit-factor: must be a finite number >= 1");
  }
  switch (format) {
    case TraceFormat::kNative: return ReadNative(text, file, options, out, stats);
    case TraceFormat::kPhilly: return ReadPhilly(text, file, options, out, stats);
    case TraceFormat::kSwf: return ReadSwf(text, file, options, out, stats);
    case TraceFormat::kSacct: return ReadSacct(text, file, options, out, stats);
  }
  return Status::InvalidArgument("unknown trace format");
}

Status ReadTraceFile(const std::string& file, TraceFormat format, const TraceOptions& options,
                     Workload* out, ReadStats* stats) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file + ": cannot open for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IOError(file + ": read error");
  return ReadTraceText(buf.str(), file, format, options, out, stats);
}

void ReadStats::CountNotReplayed(const std::string& why) {
  for (auto& [known, count] : not_replayed) {
    if (known == why) {
      ++count;
      return;
    }
  }
  not_replayed.emplace_back(why, 1);
}

std::vector<std::string> ReadWarnings(const std::string& file, const ReadStats& stats) {
  std::vector<std::string> lines;
  if (stats.bad_rows > 0) {
    lines.push_back(file + ": skipped " + std::to_string(stats.bad_rows) + " malformed row(s) of " +
                    std::to_string(stats.rows) + " data rows (the header not counted); first:");
    for (const std::string& e : stats.first_errors) lines.push_back("  " + e);
  }
  for (const auto& [why, count] : stats.not_replayed)
    lines.push_back(file + ": " + std::to_string(count) + " " + why);
  return lines;
}

std::string DefaultContractNote(const ReadStats& stats, const TraceOptions& options) {
  if (stats.default_contract == 0 || options.default_min_runtime > 0) return "";
  const uint64_t n = stats.default_contract;
  return "note: " + std::to_string(n) + (n == 1 ? " job" : " jobs") +
         " had no contract; --default-min-runtime 0 made " + (n == 1 ? "it" : "them") + " unallocated (free) work";
}

std::string FormatNativeCsv(const Workload& w) {
  // The gpu_type column only when some job asks for a type: a one-type
  // workload keeps the 9 columns it always had.
  const bool typed = !w.gpu_types.empty();
  std::string s = "submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit";
  s += typed ? ",gpu_type\n" : "\n";
  char buf[128];
  for (const TraceJob& j : w.jobs) {
    s += std::to_string(j.submit);
    s += ',';
    s += CsvField(w.accounts[j.account]);
    s += ',';
    s += CsvField(w.UserName(j.user));
    std::snprintf(buf, sizeof buf, ",%u,%lld,%lld,%d,%u,%lld", j.gpus,
                  static_cast<long long>(j.duration), static_cast<long long>(j.min_runtime),
                  j.resumable ? 1 : 0, j.priority, static_cast<long long>(j.time_limit));
    s += buf;
    if (typed) s += "," + (j.gpu_type == kAnyGpuType ? std::string() : w.gpu_types[size_t(j.gpu_type)]);
    s += '\n';
  }
  return s;
}

Status WriteNativeCsv(const std::string& file, const Workload& workload) {
  return WriteTextFile(file, FormatNativeCsv(workload));
}

}  // namespace sim
}  // namespace budget
