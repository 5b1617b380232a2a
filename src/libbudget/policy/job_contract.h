// JobContract: the contract one job declares at submission
// (`sbatch --min-runtime=<time> --resumable`), the policy that admits it, and
// the record that carries it on the job for every other part of the suite.
//
// Policy (doc/admin-guide.md, "The job contract"):
//   - --min-runtime absent: DefaultMinRuntime applies (declared = false). A
//     default longer than the job's time limit is cut to the time limit: a
//     job that declared nothing is never refused for it.
//   - --min-runtime must parse as a Slurm time string (time_string.h), lie in
//     [0, MaxMinRuntime], and not be longer than the job's time limit.
//   - --resumable (or sbatch's own --requeue, the same: requeue_request.h)
//     makes the job resumable (requeued when preempted); without it the
//     job is cancelled when preempted.
//   - After the job has started, its owner can no longer change the contract
//     (nor shorten its time limit below the min-runtime); an operator can.
//
// The record (read by the other plugins and shown by `scontrol show job`):
//   The contract is kept in the job's AdminComment, which only operators can
//   set, so users cannot forge or change it. It is one token with no spaces:
//       contract:min_runtime=<seconds>,resumable=<0|1>,declared=<0|1>
//   e.g. `AdminComment=contract:min_runtime=900,resumable=1,declared=1`.
//   It may share the AdminComment with other text; it is then separated from
//   that text by a space. Readers find it with ParseContractRecord(), writers
//   replace it with ReplaceContractRecord(), which keeps the other text.
//   min_runtime is a decimal count of seconds (0 = unallocated work);
//   `declared=0` means DefaultMinRuntime was applied. Readers ignore keys they
//   do not know, so that later versions can add some.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_JOB_CONTRACT_H_
#define SLURM_BUDGET_LIBBUDGET_JOB_CONTRACT_H_

#include <optional>
#include <string>
#include <string_view>

#include "libbudget/config/config.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

struct JobContract {
  Seconds min_runtime = 0;  // protected runtime; 0 = unallocated work
  bool resumable = false;   // requeued (not cancelled) when preempted
  bool declared = false;    // false: DefaultMinRuntime was applied
};

inline bool operator==(const JobContract& a, const JobContract& b) {
  return a.min_runtime == b.min_runtime && a.resumable == b.resumable && a.declared == b.declared;
}
inline bool operator!=(const JobContract& a, const JobContract& b) { return !(a == b); }

// Admits the contract a job declares at submission. `min_runtime_text` is the
// raw --min-runtime text (nullptr: the option was not given); `time_limit` is
// the job's time limit in seconds (< 0: unlimited or unknown, not checked),
// from --time or from the partition; messages name it without saying which.
// On error *out is untouched and the message, written for the researcher at
// the terminal, names the option, the bad value (through LogSafe: one short
// printable line, fit for slurmctld.log) and the limit it broke, e.g.
//   --min-runtime=9:00:00 exceeds MaxMinRuntime=8:00:00, the longest ...
Status ValidateContract(const char* min_runtime_text, bool resumable, Seconds time_limit,
                        const BudgetConfig& config, JobContract* out);

// The longest --min-runtime text accepted: a time string needs far fewer
// bytes, and a longer value is refused before it is parsed or quoted.
inline constexpr size_t kMaxMinRuntimeOptionBytes = 64;

// Reads the --min-runtime text alone, before any limit is known: what
// spank/contract checks in srun for a step, where no job is submitted and
// the controller never sees the option. A text longer than
// kMaxMinRuntimeOptionBytes is refused unread. On error the message is the
// one ValidateContract gives for the same text, e.g.
//   --min-runtime=abc: invalid time "abc": not a number (expected ...)
Status ParseMinRuntimeOption(const std::string& text, Seconds* out);

// The job's SPANK environment (spank/contract and job_submit/contract):
// entries "NAME=value" that jobs and steps see as SLURM_SPANK_<NAME>.
//   MIN_RUNTIME         the contract's protected runtime, decimal seconds
//                       (set by the client when the option parses, and by
//                       job_submit/contract from the admitted contract)
//   MIN_RUNTIME_OPTION  --min-runtime as typed, what the controller
//                       validates and quotes in its messages
//   RESUMABLE           1 with --resumable; the admitted contract's 0 or 1
// A controller reading a job from an older client (MIN_RUNTIME as typed, no
// MIN_RUNTIME_OPTION) takes MIN_RUNTIME as the text.
inline constexpr char kSpankMinRuntime[] = "MIN_RUNTIME";
inline constexpr char kSpankMinRuntimeOption[] = "MIN_RUNTIME_OPTION";
inline constexpr char kSpankResumable[] = "RESUMABLE";
// CONTRACT_NOTICE=0: the submitting host's plugstack.conf gave spank/contract
// the argument notice=no (no DefaultContractNote for this submission).
inline constexpr char kSpankContractNotice[] = "CONTRACT_NOTICE";

// What a job that declared no --min-runtime is told at submission (one
// short line, shown by sbatch, srun or salloc): the contract it got from
// DefaultMinRuntime, e.g.
//   no --min-runtime given: the default contract applies (unallocated work, cancelled if preempted)
std::string DefaultContractNote(const JobContract& contract);

// Where a submission stands for the DefaultContractNote.
struct NoticeContext {
  bool conf_notice = true;            // budget.conf DefaultContractNotice=yes
  bool host_notice = true;            // no notice=no on the submitting host (kSpankContractNotice)
  bool later_het_component = false;   // a het job's component after the first
};

// Whether a submission with `contract` is told DefaultContractNote: only a
// job that declared nothing, at most once per submission (slurmctld
// prints each het component's message: the first one speaks for all),
// unless budget.conf or the host's plugstack.conf turned it off.
bool ShowsDefaultContractNote(const JobContract& contract, const NoticeContext& context);

// The record token, e.g. "contract:min_runtime=900,resumable=1,declared=1".
std::string FormatContractRecord(const JobContract& contract);

// Finds the first well-formed record in `text` (a whole AdminComment, which
// may hold other words) and reads it into *out. False, with *out untouched,
// when there is none.
bool ParseContractRecord(std::string_view text, JobContract* out);

// `admin_comment` with every record removed and the record of `contract`
// appended (after one space when other text remains).
std::string ReplaceContractRecord(std::string_view admin_comment, const JobContract& contract);

// What an update request (`scontrol update job`) asks of a job's contract;
// an absent field is left as it is.
struct ContractUpdate {
  std::optional<std::string> min_runtime_text;  // a new --min-runtime
  std::optional<bool> resumable;                // a new requeue flag
  std::optional<Seconds> time_limit;            // a new time limit (< 0: unlimited)
};

// The job an update applies to, as the contract rules see it.
struct ContractedJob {
  JobContract contract;
  Seconds time_limit = -1;  // < 0: unlimited or unknown
  bool started = false;     // running or suspended
};

enum class UpdateVerdict {
  kUnchanged,           // nothing contract-related changes: let it through
  kChanged,             // accept, and record `contract`
  kInvalid,             // the new --min-runtime is unparsable or out of bounds
  kTimeLimitTooShort,   // the new time limit is below the min-runtime
  kForbidden,           // the owner may not change a started job's contract
};

struct ContractUpdateReview {
  UpdateVerdict verdict = UpdateVerdict::kUnchanged;
  JobContract contract;  // the contract after the update (kUnchanged/kChanged)
  std::string message;   // why, for refusals (one line, for the requester)
};

// Decides an update of `job` requested by its owner (by_operator = false) or
// by an operator. The new contract is validated as at submission against the
// new time limit; an owner may change it only while the job has not started.
// An undeclared (default) min-runtime is cut to a shortened time limit
// rather than refusing the update.
ContractUpdateReview ReviewContractUpdate(const ContractedJob& job, bool by_operator,
                                          const ContractUpdate& update,
                                          const BudgetConfig& config);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_JOB_CONTRACT_H_
