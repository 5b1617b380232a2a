// sacct rows (sacct_rows.h): the fields of `sacct -P` output.
#include "libbudget/accounting/sacct_rows.h"

#include <algorithm>
#include <cctype>

#include "libbudget/config/time_string.h"

namespace budget {

const std::array<const char*, kSacctColumnCount> kSacctColumnNames = {
    "JobID", "Account", "User", "Submit", "Start", "Elapsed", "Timelimit", "AllocTRES", "State", "AdminComment",
    "JobIDRaw"};

namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A whole decimal number up to `max`, digits only.
bool ParseCount(std::string_view s, int64_t max, int64_t* out) {
  if (!AllDigits(s) || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  if (v > max) return false;
  *out = v;
  return true;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool Fail(SacctProblem* problem, size_t field, std::string what) {
  problem->field = field;
  problem->what = std::move(what);
  return false;
}

bool Started(std::string_view start) { return !start.empty() && start != "Unknown" && start != "None"; }

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

bool GpusOfTres(std::string_view tres, uint32_t* gpus, std::vector<TypedGpus>* typed) {
  constexpr int64_t kMaxGpus = 1 << 20;
  int64_t total = -1, typed_total = 0;  // total: gres/gpu=N, when given
  std::vector<TypedGpus> types;
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
    if (eq == std::string_view::npos || !ParseCount(entry.substr(eq + 1), kMaxGpus, &n)) return false;
    if (untyped) {
      total = n;
    } else {
      if ((typed_total += n) > kMaxGpus) return false;
      types.push_back(TypedGpus{std::string(name.substr(9)), static_cast<uint32_t>(n)});
    }
  }
  *gpus = static_cast<uint32_t>(total >= 0 ? total : typed_total);
  if (typed != nullptr) *typed = std::move(types);
  return true;
}

bool ParseSacctTime(std::string_view text, int64_t* out) { return ParseUtcDateTime(text, 'T', out); }

bool ReadSacctHeader(const std::vector<std::string_view>& names, SacctColumns* out, SacctProblem* problem) {
  *out = SacctColumns();
  out->count = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t c = 0; c < kSacctColumnCount; ++c) {
      if (!SameName(names[i], kSacctColumnNames[c])) continue;
      if (out->at[c] != SacctColumns::kAbsent)
        return Fail(problem, i, "header: column " + std::string(kSacctColumnNames[c]) + " appears twice");
      out->at[c] = i;
    }
  }
  std::string missing;
  for (size_t c = 0; c < kSacctRequiredColumns; ++c)
    if (out->at[c] == SacctColumns::kAbsent) missing += (missing.empty() ? "" : ",") + std::string(kSacctColumnNames[c]);
  if (missing.empty()) return true;
  return Fail(problem, 0,
              "header: missing column(s) " + missing +
                  " (export with sacct -a -X -P --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,"
                  "AllocTRES,State; the header line is required: no -n)");
}

bool ParseSacctRowKind(const std::vector<std::string_view>& f, const SacctColumns& col, SacctRow* row,
                       SacctProblem* problem) {
  const size_t id = col.at[kSacctJobId], state = col.at[kSacctState];
  if (!ParseSacctJobId(f[id], &row->id_kind))
    return Fail(problem, id,
                "JobID: expected 123, 123_4, 123_[1-3], 123+0 or a step such as 123.batch, got " + Quoted(f[id]));
  row->job_id = std::string(f[id]);
  if (!ParseSacctState(f[state], &row->run))
    return Fail(problem, state, "State: not a state sacct prints: " + Quoted(f[state]));
  if (col.has(kSacctJobIdRaw) && row->id_kind != SacctJobId::kStep && row->id_kind != SacctJobId::kPendingArray) {
    const size_t raw = col.at[kSacctJobIdRaw];
    int64_t n = 0;
    if (!ParseCount(f[raw], UINT32_MAX, &n) || n == 0)
      return Fail(problem, raw, "JobIDRaw: expected a job id (a whole number), got " + Quoted(f[raw]));
    row->raw_id = static_cast<uint32_t>(n);
  }
  row->ran = row->id_kind != SacctJobId::kStep && row->id_kind != SacctJobId::kPendingArray &&
             row->run != SacctRun::kNeverRan && Started(f[col.at[kSacctStart]]) &&
             !f[col.at[kSacctAllocTres]].empty();
  return true;
}

bool ParseSacctRun(const std::vector<std::string_view>& f, const SacctColumns& col, SacctRow* row,
                   SacctProblem* problem) {
  const size_t start = col.at[kSacctStart], submit = col.at[kSacctSubmit], tres = col.at[kSacctAllocTres];
  if (!ParseSacctTime(f[start], &row->start))
    return Fail(problem, start, "Start: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got " + Quoted(f[start]));
  if (!ParseSacctTime(f[submit], &row->submit))
    return Fail(problem, submit,
                "Submit: expected YYYY-MM-DDTHH:MM:SS (SLURM_TIME_FORMAT=standard), got " + Quoted(f[submit]));
  if (!GpusOfTres(f[tres], &row->gpus, &row->typed_gpus))
    return Fail(problem, tres, "AllocTRES: a gres/gpu count is not a whole number up to 1048576 in " + Quoted(f[tres]));
  if (row->gpus == 0) return true;
  const size_t account = col.at[kSacctAccount], elapsed = col.at[kSacctElapsed];
  if (f[account].empty()) return Fail(problem, account, "Account: must not be empty");
  row->account = std::string(f[account]);
  row->user = std::string(f[col.at[kSacctUser]]);
  Status st = ParseDuration(f[elapsed], &row->elapsed);
  if (!st.ok()) return Fail(problem, elapsed, "Elapsed: " + st.message());
  return true;
}

bool ParseSacctContract(const std::vector<std::string_view>& f, const SacctColumns& col, SacctRow* row,
                        SacctProblem* problem) {
  row->has_contract = false;
  if (!col.has(kSacctAdminComment)) return true;
  const size_t comment = col.at[kSacctAdminComment];
  JobContract recorded;
  if (!ParseContractRecord(f[comment], &recorded)) return true;
  if (recorded.min_runtime > kMaxDuration)
    return Fail(problem, comment,
                "AdminComment: min_runtime must be at most " + std::to_string(kMaxDuration) + " (10 years)");
  row->has_contract = true;
  row->contract = recorded;
  return true;
}

}  // namespace budget
