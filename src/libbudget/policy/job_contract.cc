#include "libbudget/policy/job_contract.h"

#include <vector>

#include "libbudget/config/log_safe.h"
#include "libbudget/config/time_string.h"

namespace budget {
namespace {

constexpr std::string_view kRecordPrefix = "contract:";

// The record is a single word; words of an AdminComment are separated by
// blanks.
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The next blank-separated word of `text` at or after *pos ("" at the end);
// *pos moves past it.
std::string_view NextWord(std::string_view text, size_t* pos) {
  size_t i = *pos;
  while (i < text.size() && IsBlank(text[i])) ++i;
  size_t start = i;
  while (i < text.size() && !IsBlank(text[i])) ++i;
  *pos = i;
  return text.substr(start, i - start);
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t pos = 0;
  for (std::string_view word = NextWord(text, &pos); !word.empty(); word = NextWord(text, &pos)) {
    words.push_back(word);
  }
  return words;
}

bool IsRecordWord(std::string_view word) { return word.substr(0, kRecordPrefix.size()) == kRecordPrefix; }

// A non-empty decimal number no larger than `max`.
bool ParseBoundedNumber(std::string_view text, int64_t max, int64_t* out) {
  if (text.empty() || text.size() > 18) return false;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > max) return false;
  *out = value;
  return true;
}

// Reads one record word; min_runtime and resumable are required.
bool ParseRecordWord(std::string_view word, JobContract* out) {
  if (!IsRecordWord(word)) return false;
  std::string_view fields = word.substr(kRecordPrefix.size());
  JobContract contract;
  contract.declared = true;
  bool have_min_runtime = false, have_resumable = false;
  while (!fields.empty()) {
    size_t comma = fields.find(',');
    std::string_view field = fields.substr(0, comma);
    fields = comma == std::string_view::npos ? std::string_view() : fields.substr(comma + 1);
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    int64_t number = 0;
    if (key == "min_runtime") {
      if (!ParseBoundedNumber(value, kMaxDuration, &number)) return false;
      contract.min_runtime = number;
      have_min_runtime = true;
    } else if (key == "resumable" || key == "declared") {
      if (!ParseBoundedNumber(value, 1, &number)) return false;
      (key == "resumable" ? contract.resumable : contract.declared) = number == 1;
      have_resumable = have_resumable || key == "resumable";
    }
    // Other keys belong to later versions of the record: ignored.
  }
  if (!have_min_runtime || !have_resumable) return false;
  *out = contract;
  return true;
}

// The option as typed, fit to quote in a message and in slurmctld.log.
std::string OptionText(const std::string& text) { return "--min-runtime=" + LogSafe(text); }

}  // namespace

Status ParseMinRuntimeOption(const std::string& text, Seconds* out) {
  if (text.size() > kMaxMinRuntimeOptionBytes) {
    return Status::InvalidArgument(OptionText(text) + ": too long: at most " +
                                   std::to_string(kMaxMinRuntimeOptionBytes) +
                                   " bytes are accepted (a time such as 30, 1:30:00 or 2-0)");
  }
  Status parsed = ParseDuration(text, out);
  if (!parsed.ok()) return Status::InvalidArgument(OptionText(text) + ": " + parsed.message());
  return Status::Ok();
}

Status ValidateContract(const char* min_runtime_text, bool resumable, Seconds time_limit,
                        const BudgetConfig& config, JobContract* out) {
  JobContract contract;
  contract.resumable = resumable;
  if (min_runtime_text == nullptr) {
    // A job that declared nothing is never refused for the site's default.
    contract.min_runtime = config.default_min_runtime;
    if (time_limit >= 0 && contract.min_runtime > time_limit) contract.min_runtime = time_limit;
    contract.declared = false;
    *out = contract;
    return Status::Ok();
  }
  const std::string text(min_runtime_text);
  Seconds min_runtime = 0;
  Status parsed = ParseMinRuntimeOption(text, &min_runtime);
  if (!parsed.ok()) return parsed;
  if (min_runtime < 0 || min_runtime > config.max_min_runtime) {
    return Status::InvalidArgument(OptionText(text) + " exceeds MaxMinRuntime=" +
                                   FormatDuration(config.max_min_runtime) +
                                   ", the longest protected runtime this cluster grants");
  }
  if (time_limit >= 0 && min_runtime > time_limit) {
    return Status::InvalidArgument(OptionText(text) + " is longer than the job's time limit (" +
                                   FormatDuration(time_limit) +
                                   "); a job cannot be protected for longer than it may run");
  }
  contract.min_runtime = min_runtime;
  contract.declared = true;
  *out = contract;
  return Status::Ok();
}

std::string DefaultContractNote(const JobContract& contract) {
  const std::string what = contract.min_runtime <= 0 ? "unallocated work"
                                                     : "protected for " + FormatDuration(contract.min_runtime);
  return "no --min-runtime given: the default contract applies (" + what +
         (contract.resumable ? ", requeued" : ", cancelled") + " if preempted)";
}

bool ShowsDefaultContractNote(const JobContract& contract, const NoticeContext& context) {
  return !contract.declared && context.conf_notice && context.host_notice && !context.later_het_component;
}

std::string FormatContractRecord(const JobContract& contract) {
  Seconds min_runtime = contract.min_runtime < 0 ? 0 : contract.min_runtime;
  return std::string(kRecordPrefix) + "min_runtime=" + std::to_string(min_runtime) +
         ",resumable=" + (contract.resumable ? "1" : "0") + ",declared=" + (contract.declared ? "1" : "0");
}

bool ParseContractRecord(std::string_view text, JobContract* out) {
  // Word by word without a vector: the priority plugin reads every job's
  // record at every pass, under slurmctld's job lock.
  size_t pos = 0;
  for (std::string_view word = NextWord(text, &pos); !word.empty(); word = NextWord(text, &pos)) {
    if (ParseRecordWord(word, out)) return true;
  }
  return false;
}

std::string ReplaceContractRecord(std::string_view admin_comment, const JobContract& contract) {
  std::string result;
  for (std::string_view word : SplitWords(admin_comment)) {
    if (IsRecordWord(word)) continue;
    result.append(word);
    result.push_back(' ');
  }
  return result + FormatContractRecord(contract);
}

ContractUpdateReview ReviewContractUpdate(const ContractedJob& job, bool by_operator,
                                          const ContractUpdate& update,
                                          const BudgetConfig& config) {
  ContractUpdateReview review;
  review.contract = job.contract;
  const Seconds time_limit = update.time_limit.value_or(job.time_limit);
  if (update.resumable) review.contract.resumable = *update.resumable;

  if (update.min_runtime_text) {
    // Bounds only here; the time limit is checked below, for every case.
    JobContract asked;
    Status st = ValidateContract(update.min_runtime_text->c_str(), review.contract.resumable, -1, config,
                                 &asked);
    if (!st.ok()) {
      review.verdict = UpdateVerdict::kInvalid;
      review.message = st.message();
      return review;
    }
    review.contract.min_runtime = asked.min_runtime;
    review.contract.declared = true;
  }

  const bool terms_changed = review.contract.min_runtime != job.contract.min_runtime ||
                             review.contract.resumable != job.contract.resumable;
  if (terms_changed && job.started && !by_operator) {
    review.verdict = UpdateVerdict::kForbidden;
    review.message = "the job has started: its contract (--min-runtime=" +
                     FormatDuration(job.contract.min_runtime) +
                     (job.contract.resumable ? ", --resumable" : ", not resumable") +
                     ") can no longer be changed by its owner; ask an operator";
    return review;
  }

  if (time_limit >= 0 && review.contract.min_runtime > time_limit) {
    if (!review.contract.declared) {
      review.contract.min_runtime = time_limit;  // as at submission
    } else if (update.min_runtime_text) {
      review.verdict = UpdateVerdict::kInvalid;
      review.message = OptionText(*update.min_runtime_text) + " is longer than the job's time limit (" +
                       FormatDuration(time_limit) + ")";
      return review;
    } else {
      review.verdict = UpdateVerdict::kTimeLimitTooShort;
      review.message = "TimeLimit=" + FormatDuration(time_limit) +
                       " is shorter than the job's --min-runtime=" +
                       FormatDuration(review.contract.min_runtime) +
                       "; the time limit must cover the protected runtime";
      return review;
    }
  }
  review.verdict = review.contract == job.contract ? UpdateVerdict::kUnchanged : UpdateVerdict::kChanged;
  return review;
}

}  // namespace budget
