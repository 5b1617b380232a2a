// Trace readers: native CSV, Microsoft Philly CSV, the Standard Workload
// Format (SWF) and Slurm's own accounting (`sacct -P`), each into a
// Workload.
//
//   native  header `submit,account,user,gpus,duration,min_runtime,resumable,
//           priority[,time_limit]`; times in seconds; resumable
//           0|1|true|false. time_limit, when the column is there and the
//           field not empty, must be a multiple of 60 from 60 to
//           kMaxTimeLimit; else it is derived. Traces written before the
//           column existed (8 columns) still read.
//   philly  header `timestamp,duration,num_gpus,gpu_time,cluster`; timestamp
//           `YYYY-MM-DD HH:MM:SS` (UTC), rows in any order; the virtual
//           cluster is the account; the contract comes from the options;
//           the time limit is derived (Philly kept none).
//   swf     18 whitespace-separated fields per job, `;` comments; GPUs =
//           ceil(processors / procs_per_gpu) (requested processors, else
//           allocated ones); account "group<G>", user "user<U>"; jobs with
//           a run time <= 0 (cancelled before running) are not jobs to
//           replay and are counted in ReadStats::filtered. The time limit
//           is the requested time (field 9) rounded up to whole minutes
//           (DeriveTimeLimit(requested, 1)), or derived when it is unknown
//           (-1) or 0.
//   sacct   `sacct -a -X -P --format=JobID,Account,User,Submit,Start,
//           Elapsed,Timelimit,AllocTRES,State[,AdminComment]` (sacct_trace.h):
//           columns found by name in the header line, in any order; jobs
//           that did not run to an end, steps and jobs without GPUs are
//           counted in ReadStats::filtered, per reason.
// "Derived" is DeriveTimeLimit(duration, time_limit_factor) (workload.h).
// Every format: submit times in [0, kMaxSubmitTime] (a philly timestamp
// before 1970 is an error), durations and min-runtimes at most
// kMaxJobDuration (workload.h); so every workload read is one the native
// writer writes and the native reader reads back to the same jobs.
// CSV fields (native, philly) may be quoted as RFC 4180 has it (csv_row.h);
// the native writer quotes the names that need it.
//
// Errors. A malformed row stops the read with InvalidArgument
//   "<file>:<line>:<column>: <field>: <why>"
// (line and column 1-based, the column of the offending field's first
// character), unless skip_bad_rows is set: then the row is dropped, counted
// in ReadStats::bad_rows, and the first few messages are kept in
// ReadStats::first_errors. A missing or wrong header is always an error.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_TRACE_READER_H_
#define SLURM_BUDGET_SIM_TRACE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libbudget/status.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

enum class TraceFormat { kNative, kPhilly, kSwf, kSacct };

// "native" | "philly" | "swf" | "sacct"; InvalidArgument otherwise.
Status ParseTraceFormat(std::string_view name, TraceFormat* out);

struct TraceOptions {
  bool skip_bad_rows = false;
  // Contract of jobs whose format carries none (philly, swf), applied as
  // the controller applies DefaultMinRuntime: cut to each job's time limit.
  Seconds default_min_runtime = 0;
  bool default_resumable = false;
  // swf: processors per GPU.
  uint32_t procs_per_gpu = 1;
  // Of DeriveTimeLimit, for jobs whose trace gives no time limit; finite
  // and >= 1 (--time-limit-factor checks it).
  double time_limit_factor = kDefaultTimeLimitFactor;
};

struct ReadStats {
  uint64_t rows = 0;       // data rows seen (not the header, blank or comment lines)
  uint64_t bad_rows = 0;   // dropped because malformed (skip_bad_rows)
  uint64_t filtered = 0;   // well-formed but not replayable (swf: never ran)
  // `filtered` by reason, in the order first seen: the phrase ReadWarnings
  // prints after the count, e.g. "job(s) never ran and are not replayed".
  std::vector<std::pair<std::string, uint64_t>> not_replayed;
  // Jobs whose contract is TraceOptions' default because the format carries
  // none (philly, swf; sacct rows without a contract record).
  uint64_t default_contract = 0;
  std::vector<std::string> first_errors;  // at most kKeptErrors
  static constexpr size_t kKeptErrors = 5;

  void CountNotReplayed(const std::string& why);
};

// Reads `text` (the content of `file`, named in messages) into *out, which
// is replaced: sorted and numbered (workload.h). On error *out is cleared.
Status ReadTraceText(std::string_view text, const std::string& file, TraceFormat format,
                     const TraceOptions& options, Workload* out, ReadStats* stats);
// Reads the file, then ReadTraceText. IOError if it cannot be read.
Status ReadTraceFile(const std::string& file, TraceFormat format, const TraceOptions& options,
                     Workload* out, ReadStats* stats);

// What budget-sim says on stderr of a read of `file`, one line each: the
// malformed rows skipped, "<file>: skipped 1 malformed row(s) of 5 data
// rows (the header not counted); first:" then the first errors indented;
// then one line per reason rows were not replayed, "<file>: 2 job(s) never
// ran and are not replayed". Empty when there is nothing to say.
std::vector<std::string> ReadWarnings(const std::string& file, const ReadStats& stats);

// The line budget-sim prints at the head of its table when the default
// contract was 0: "note: 6 jobs had no contract; --default-min-runtime 0
// made them unallocated (free) work". Empty otherwise.
std::string DefaultContractNote(const ReadStats& stats, const TraceOptions& options);

// Writes `workload` as native CSV (header included, all 9 columns): reading
// it back gives the same jobs, time limits included.
std::string FormatNativeCsv(const Workload& workload);
Status WriteNativeCsv(const std::string& file, const Workload& workload);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_TRACE_READER_H_
