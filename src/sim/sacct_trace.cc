// The sacct trace (sacct_trace.h): sacct -P's rows into a Workload.
#include "sim/sacct_trace.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/policy/job_contract.h"
#include "sim/trace_formats.h"

namespace budget {
namespace sim {

namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The columns read, in the order of Columns::at.
enum Column { kJobId, kAccount, kUser, kSubmit, kStart, kElapsed, kTimelimit, kAllocTres, kState,
              kAdminComment, kColumnCount };
constexpr std::array<const char*, kColumnCount> kColumnNames = {
    "JobID", "Account", "User", "Submit", "Start", "Elapsed", "Timelimit", "AllocTRES", "State", "AdminComment"};
constexpr size_t kRequiredColumns = kAdminComment;  // all before it
constexpr size_t kAbsent = SIZE_MAX;

// Where each column is in the file's rows.
struct Columns {
  std::array<size_t, kColumnCount> at;
  Columns() { at.fill(kAbsent); }
};

Status ReadHeader(const std::string& file, const std::vector<Field>& names, uint64_t line, Columns* out) {
  *out = Columns();
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t c = 0; c < kColumnCount; ++c) {
      if (!SameName(names[i].text, kColumnNames[c])) continue;
      if (out->at[c] != kAbsent)
        return Status::InvalidArgument(Where(file, line, names[i].column,
                                             "header: column " + std::string(kColumnNames[c]) + " appears twice"));
      out->at[c] = i;
    }
  }
  std::string missing;
  for (size_t c = 0; c < kRequiredColumns; ++c)
    if (out->at[c] == kAbsent) missing += (missing.empty() ? "" : ",") + std::string(kColumnNames[c]);
  if (missing.empty()) return Status::Ok();
  return Status::InvalidArgument(Where(
      file, line, 1,
      "header: missing column(s) " + missing +
          " (export with sacct -a -X -P --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State;"
          " the header line is required: no -n)"));
}

Status Bad(const std::string& file, uint64_t line, const Field& f, const char* name, const std::string& why) {
  return Status::InvalidArgument(Where(file, line, f.column, std::string(name) + ": " + why));
}

std::string Quoted(const Field& f) { return "'" + f.text + "'"; }

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
std::string NotReplayed(SacctJobId id, SacctRun run, const Field& start, const Field& alloc_tres) {
  if (id == SacctJobId::kStep) return "row(s) were job steps and are not replayed (sacct -X leaves them out)";
  if (run == SacctRun::kEarlierRun)
    return "row(s) were earlier runs of requeued jobs (sacct -D) and are not replayed: a job's last run is its work";
  if (run == SacctRun::kStillRunning)
    return "job(s) were still running or suspended and are not replayed (run time unknown)";
  const bool started = start.text != "Unknown" && start.text != "None" && !start.text.empty();
  if (run == SacctRun::kNeverRan || id == SacctJobId::kPendingArray || !started || alloc_tres.text.empty())
    return "job(s) never ran and are not replayed";
  return "";
}

}  // namespace

bool ParseSacctJobId(std::string_view text, SacctJobId* out) {
  size_t dot = text.find('.');
  std::string_view job = text.substr(0, dot);
  if (dot != std::string_view::npos && dot + 1 == text.size()) return false;
  size_t mark = job.find_first_of("_+");
  if (!AllDigits(job.substr(0, mark))) return false;
  SacctJobId kind = SacctJobId::kJob;
  if (mark != std::string_view::npos) {
    std::string_view rest = job.substr(mark + 1);
    if (job[mark] == '+' && AllDigits(rest)) {
      kind = SacctJobId::kHetComponent;
    } else if (job[mark] == '_' && AllDigits(rest)) {
      kind = SacctJobId::kArrayTask;
    } else if (job[mark] == '_' && rest.size() > 2 && rest.front() == '[' && rest.back() == ']' &&
               rest.find_first_not_of("0123456789-,%:", 1) == rest.size() - 1) {
      kind = SacctJobId::kPendingArray;
    } else {
      return false;
    }
  }
  *out = dot == std::string_view::npos ? kind : SacctJobId::kStep;
  return true;
}

bool ParseSacctState(std::string_view text, SacctRun* out) {
  std::string_view word = text.substr(0, text.find(' '));
  struct Known {
    const char* name;
    SacctRun run;
  };
  // Every name of job_state_string() (Slurm's src/common/slurm_protocol_defs.c).
  static const Known kStates[] = {
      {"COMPLETED", SacctRun::kEnded},      {"FAILED", SacctRun::kEnded},
      {"TIMEOUT", SacctRun::kEnded},        {"CANCELLED", SacctRun::kEnded},
      {"PREEMPTED", SacctRun::kEnded},      {"NODE_FAIL", SacctRun::kEnded},
      {"BOOT_FAIL", SacctRun::kEnded},      {"DEADLINE", SacctRun::kEnded},
      {"OUT_OF_MEMORY", SacctRun::kEnded},  {"PENDING", SacctRun::kNeverRan},
      {"RESV_DEL_HOLD", SacctRun::kNeverRan}, {"REVOKED", SacctRun::kNeverRan},
      {"RUNNING", SacctRun::kStillRunning}, {"SUSPENDED", SacctRun::kStillRunning},
      {"COMPLETING", SacctRun::kStillRunning}, {"CONFIGURING", SacctRun::kStillRunning},
      {"STAGE_OUT", SacctRun::kStillRunning}, {"RESIZING", SacctRun::kStillRunning},
      {"SIGNALING", SacctRun::kStillRunning}, {"STOPPED", SacctRun::kStillRunning},
      {"REQUEUED", SacctRun::kEarlierRun},  {"REQUEUE_HOLD", SacctRun::kEarlierRun},
      {"REQUEUE_FED", SacctRun::kEarlierRun}, {"SPECIAL_EXIT", SacctRun::kEarlierRun},
  };
  for (const Known& k : kStates) {
    if (word == k.name) {
      *out = k.run;
      return true;
    }
  }
  return false;
}

bool GpusOfTres(std::string_view tres, uint32_t* gpus) {
  constexpr int64_t kMaxGpus = 1 << 20;
  int64_t total = -1, typed = 0;  // total: gres/gpu=N, when given
  size_t pos = 0;
  while (pos < tres.size()) {
    size_t end = std::min(tres.find(',', pos), tres.size());
    std::string_view entry = tres.substr(pos, end - pos);
    pos = end + 1;
    size_t eq = entry.find('=');
    std::string_view name = entry.substr(0, eq);
    bool untyped = name == "gres/gpu";
    if (!untyped && name.rfind("gres/gpu:", 0) != 0) continue;
    int64_t n = 0;
    if (eq == std::string_view::npos || !AllDigits(entry.substr(eq + 1)) || !ParseInt64(entry.substr(eq + 1), &n) ||
        n > kMaxGpus)
      return false;
    if (untyped) {
      total = n;
    } else if ((typed += n) > kMaxGpus) {
      return false;
    }
  }
  *gpus = static_cast<uint32_t>(total >= 0 ? total : typed);
  return true;
}

bool ParseSacctTime(std::string_view text, int64_t* out) {
  if (text.size() != 19 || text[10] != 'T') return false;
  std::string spaced(text);
  spaced[10] = ' ';
  return ParseUtcTimestamp(spaced, out);
}

Status ReadSacct(std::string_view text, const std::string& file, const TraceOptions& options, Workload* out,
                 ReadStats* stats) {
  FormatSpec spec;
  spec.separator = '|';
  spec.quoted_fields = false;
  Columns col;
  spec.named_header = [&file, &col](const std::vector<Field>& names, uint64_t line) {
    return ReadHeader(file, names, line, &col);
  };
  uint64_t default_contracts = 0;
  RowParser parse = [&file, &options, &col, &default_contracts](const std::vector<Field>& f, uint64_t line, size_t columns, TraceJob* job,
                        std::string* account, std::string* user, std::string* not_replayed) -> Status {
    if (f.size() != columns)
      return Status::InvalidArgument(Where(file, line, f.back().column,
                                           "expected " + std::to_string(columns) + " fields (as the header), got " +
                                               std::to_string(f.size())));
    auto field = [&](Column c) -> const Field& { return f[col.at[c]]; };
    SacctJobId id;
    if (!ParseSacctJobId(field(kJobId).text, &id))
      return Bad(file, line, field(kJobId), "JobID",
                 "expected 123, 123_4, 123_[1-3], 123+0 or a step such as 123.batch, got " + Quoted(field(kJobId)));
    SacctRun run;
    if (!ParseSacctState(field(kState).text, &run))
      return Bad(file, line, field(kState), "State", "not a state sacct prints: " + Quoted(field(kState)));
    *not_replayed = NotReplayed(id, run, field(kStart), field(kAllocTres));
    if (!not_replayed->empty()) return Status::Ok();
    int64_t start = 0;
    if (!ParseSacctTime(field(kStart).text, &start))
      return Bad(file, line, field(kStart), "Start",
                 "expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got " + Quoted(field(kStart)));
    const Field& submit = field(kSubmit);
    if (!ParseSacctTime(submit.text, &job->submit))
      return Bad(file, line, submit, "Submit", "expected YYYY-MM-DDTHH:MM:SS (SLURM_TIME_FORMAT=standard), got " +
                                                   Quoted(submit));
    // Submit times are seconds since 1970 (the native writer's and reader's).
    if (job->submit < 0)
      return Bad(file, line, submit, "Submit", "must not be before 1970-01-01T00:00:00, got " + Quoted(submit));
    if (!GpusOfTres(field(kAllocTres).text, &job->gpus))
      return Bad(file, line, field(kAllocTres), "AllocTRES",
                 "a gres/gpu count is not a whole number up to 1048576 in " + Quoted(field(kAllocTres)));
    if (job->gpus == 0) {
      *not_replayed = "job(s) held no GPUs (no gres/gpu in AllocTRES) and are not replayed";
      return Status::Ok();
    }
    if (field(kAccount).text.empty()) return Bad(file, line, field(kAccount), "Account", "must not be empty");
    *account = field(kAccount).text;
    *user = field(kUser).text;
    Seconds elapsed = 0;
    Status st = ParseDuration(field(kElapsed).text, &elapsed);
    if (!st.ok()) return Bad(file, line, field(kElapsed), "Elapsed", st.message());
    // A job that ran for less than a second still held its GPUs for one.
    job->duration = std::max<Seconds>(1, elapsed);
    st = TimeLimitOf(file, line, field(kTimelimit), job->duration, options.time_limit_factor, &job->time_limit);
    if (!st.ok()) return st;
    JobContract recorded;
    if (col.at[kAdminComment] != kAbsent && ParseContractRecord(field(kAdminComment).text, &recorded)) {
      if (recorded.min_runtime > kMaxJobDuration)
        return Bad(file, line, field(kAdminComment), "AdminComment", "min_runtime must be at most " +
                                                                         std::to_string(kMaxJobDuration) + " (10 years)");
      job->min_runtime = recorded.min_runtime;
      job->resumable = recorded.resumable;
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
