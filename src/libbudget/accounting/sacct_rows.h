// sacct rows: Slurm's accounting as `sacct -P` prints it, one job
// allocation (or one run of it) a row, read field by field. The one reader
// of sacct output: budget-sim replays it (src/sim/sacct_trace.h), sbudget
// seed-ledger charges it into the ledger (ledger_seed.h). Each caller
// splits lines and fields and decides what a row is worth; this file says
// what the fields mean and which are malformed.
//
// The commands (TZ=UTC and SLURM_TIME_FORMAT=standard make the times UTC
// and ISO; local times would jump at daylight saving changes):
//
//   budget-sim:  sacct -a -X -P --starttime S --endtime E
//                --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment
//   seed-ledger: the same with -D (every run of a requeued job) and
//                JobIDRaw (kSeedSacctFormat, ledger_seed.h)
//
// The header line is required (no -n): columns are found by name, in any
// order and any case, and columns not listed here are ignored. JobID,
// Account, User, Submit, Start, Elapsed, Timelimit, AllocTRES and State are
// required; AdminComment and JobIDRaw are optional. -p (a '|' after the last
// field) reads as -P does. Fields are taken as printed: no quoting.
//
//   JobID      123 (a job), 123_4 (an array task: a job of its own),
//              123+1 (a heterogeneous job's component: a job of its own,
//              with its own GPUs and run), 123_[1-3] (an array's tasks that
//              never left the queue: never ran), 123.batch, 123.extern,
//              123.0 (steps, which sacct prints without -X: their job's own
//              row counts).
//   JobIDRaw   the job's own id (an array task's or a component's, as
//              slurmctld knows it): a whole number.
//   State      first word ("CANCELLED by 1000" is CANCELLED), see SacctRun.
//   Submit     YYYY-MM-DDTHH:MM:SS, taken as UTC.
//   Start      the same, or Unknown/None (never started).
//   Elapsed    [D-]HH:MM:SS: the run's length (0 for a run of under 1 s).
//   Timelimit  a Slurm time string, UNLIMITED, Partition_Limit or empty:
//              read by the caller (the simulator derives missing limits).
//   AllocTRES  the GPUs held: gres/gpu=N, or else the sum of the typed
//              gres/gpu:TYPE=N (each type kept). Empty: no allocation.
//   AdminComment  the contract job_submit/contract recorded
//              (policy/job_contract.h ParseContractRecord), when there is
//              one.
// A row that did not run (SacctRow::ran false) is checked for JobID, State
// and JobIDRaw only.
//
// Errors name the field at fault (its index in the row, for the caller's
// "<file>:<line>:<column>" prefix) and say what was expected.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_ACCOUNTING_SACCT_ROWS_H_
#define SLURM_BUDGET_LIBBUDGET_ACCOUNTING_SACCT_ROWS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/policy/job_contract.h"
#include "libbudget/standing.h"

namespace budget {

enum class SacctJobId { kJob, kArrayTask, kPendingArray, kHetComponent, kStep };

// What a JobID names; false when it is none of the forms above.
bool ParseSacctJobId(std::string_view text, SacctJobId* out);

// What a State says of the row's run:
//   kEnded         COMPLETED, FAILED, TIMEOUT, CANCELLED, PREEMPTED,
//                  NODE_FAIL, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY: a job that
//                  ended (it ran if Start is a time and AllocTRES is not
//                  empty: one cancelled while pending shows Start None, one
//                  slurmdbd learnt of only after it ended may show a Start
//                  but no allocation);
//   kNeverRan      PENDING and the pending holds;
//   kStillRunning  RUNNING, SUSPENDED and the transient states: running
//                  when sacct looked, Elapsed being its run so far;
//   kEarlierRun    REQUEUED, REQUEUE_HOLD, REQUEUE_FED, SPECIAL_EXIT: an
//                  earlier run of a requeued job (sacct -D prints them;
//                  without -D only a job's last run is printed).
enum class SacctRun { kEnded, kNeverRan, kStillRunning, kEarlierRun };

// False for a state Slurm does not print (Slurm's job_state_string()).
bool ParseSacctState(std::string_view text, SacctRun* out);

struct TypedGpus {
  std::string type;  // "a100" of gres/gpu:a100=4
  uint32_t gpus = 0;
};

// The GPUs a TRES list holds (0 when it names none), and, when `typed` is
// given, the typed entries in the order listed; false when a gres/gpu count
// is not a whole number or a total exceeds 2^20.
bool GpusOfTres(std::string_view tres, uint32_t* gpus, std::vector<TypedGpus>* typed = nullptr);

// YYYY-MM-DDTHH:MM:SS as UTC seconds since the epoch.
bool ParseSacctTime(std::string_view text, int64_t* out);

// The columns read, in the order of SacctColumns::at.
enum SacctColumn : size_t {
  kSacctJobId, kSacctAccount, kSacctUser, kSacctSubmit, kSacctStart, kSacctElapsed, kSacctTimelimit,
  kSacctAllocTres, kSacctState,
  // Optional from here on.
  kSacctAdminComment, kSacctJobIdRaw,
  kSacctColumnCount
};
constexpr size_t kSacctRequiredColumns = kSacctAdminComment;  // all before it
// The sacct --format names, by SacctColumn.
extern const std::array<const char*, kSacctColumnCount> kSacctColumnNames;

// Where each column is in the file's rows.
struct SacctColumns {
  static constexpr size_t kAbsent = SIZE_MAX;
  std::array<size_t, kSacctColumnCount> at;
  SacctColumns() { at.fill(kAbsent); }
  bool has(SacctColumn c) const { return at[c] != kAbsent; }
  size_t count = 0;  // fields of the header, which every row must have
};

// What is wrong, and with which field (its index in the row or header).
struct SacctProblem {
  size_t field = 0;
  std::string what;  // "JobID: expected ..., got '12x'"
};

// Reads the header line's fields (names). False, with *problem, when a
// column appears twice or a required one is missing ("header: missing
// column(s) JobID,State (export with sacct ...)").
bool ReadSacctHeader(const std::vector<std::string_view>& names, SacctColumns* out, SacctProblem* problem);

// One row, as far as it was read.
struct SacctRow {
  SacctJobId id_kind = SacctJobId::kJob;
  SacctRun run = SacctRun::kEnded;
  // The row held an allocation: not a step nor an array's pending tasks,
  // its state not kNeverRan, Start a time and AllocTRES not empty.
  bool ran = false;
  uint32_t raw_id = 0;  // JobIDRaw; 0 without the column
  std::string job_id;   // JobID as printed
  // Read by ParseSacctRun:
  int64_t submit = 0;
  int64_t start = 0;
  uint32_t gpus = 0;
  std::vector<TypedGpus> typed_gpus;
  // Read by ParseSacctRun only when gpus > 0:
  std::string account;
  std::string user;
  Seconds elapsed = 0;
  // Read by ParseSacctContract:
  bool has_contract = false;
  JobContract contract;
};

// `fields` is one data row, with as many fields as the header (the caller
// checks the count). Each step REQUIRES the one before it to have passed.
//   1. JobID, State, JobIDRaw; sets id_kind, run, ran, raw_id, job_id.
bool ParseSacctRowKind(const std::vector<std::string_view>& fields, const SacctColumns& columns, SacctRow* row,
                       SacctProblem* problem);
//   2. For a row that ran: Start, Submit, AllocTRES; then, if it held GPUs,
//      Account (not empty), User and Elapsed.
bool ParseSacctRun(const std::vector<std::string_view>& fields, const SacctColumns& columns, SacctRow* row,
                   SacctProblem* problem);
//   3. AdminComment's contract record, when the column is there and holds
//      one (has_contract); a min_runtime over kMaxDuration is an error.
bool ParseSacctContract(const std::vector<std::string_view>& fields, const SacctColumns& columns, SacctRow* row,
                        SacctProblem* problem);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_ACCOUNTING_SACCT_ROWS_H_
