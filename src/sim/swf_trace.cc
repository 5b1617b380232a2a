// The Standard Workload Format of the Parallel Workloads Archive: 18
// whitespace-separated integer fields per job, `;` header comments.
//   1 job  2 submit  3 wait  4 run time  5 allocated procs  6 avg cpu
//   7 used mem  8 requested procs  9 requested time  10 requested mem
//   11 status  12 user  13 group  14 executable  15 queue  16 partition
//   17 preceding job  18 think time          (-1 = unknown)
// The requested time (9, seconds) is the job's time limit as its scheduler
// knew it; rounded up to whole minutes, because that is all Slurm's --time
// can express. Without it (-1, or 0), the limit is derived from the run time.
#include <string>

#include "sim/trace_formats.h"

namespace budget {
namespace sim {

Status ReadSwf(std::string_view text, const std::string& file, const TraceOptions& options,
               Workload* out, ReadStats* stats) {
  FormatSpec spec;
  spec.separator = ' ';
  spec.comment = ';';
  if (options.procs_per_gpu == 0)
    return Status::InvalidArgument("--swf-procs-per-gpu: must be >= 1");
  RowParser parse = [&file, &options](const std::vector<Field>& f, uint64_t line, size_t,
                                      TraceJob* job, std::string* account, std::string* user,
                                      std::string* not_replayed) -> Status {
    if (f.size() != 18)
      return Status::InvalidArgument(Where(file, line, f.empty() ? 1 : f.back().column,
                                           "expected 18 fields, got " + std::to_string(f.size())));
    int64_t v[18];
    static const char* kNames[18] = {
        "job number", "submit time", "wait time", "run time", "allocated processors",
        "average cpu time", "used memory", "requested processors", "requested time",
        "requested memory", "status", "user id", "group id", "executable", "queue",
        "partition", "preceding job", "think time"};
    for (int i = 0; i < 18; ++i) {
      // Fields 6 and 7 (average CPU time, memory) may be fractional; unused.
      if (i == 5 || i == 6) {
        double d;
        Status st = NumberField(file, line, f[i], kNames[i], -1, &d);
        if (!st.ok()) return st;
        v[i] = 0;
        continue;
      }
      Status st = IntField(file, line, f[i], kNames[i], -1, &v[i]);
      if (!st.ok()) return st;
    }
    if (v[1] < 0)
      return Status::InvalidArgument(Where(file, line, f[1].column, "submit time: unknown (-1)"));
    Status bound = AtMost(file, line, f[1], "submit time", double(v[1]), kMaxSubmitTime, "9999-12-31 23:59:59 UTC");
    if (!bound.ok()) return bound;
    if (!(bound = AtMost(file, line, f[3], "run time", double(v[3]), kMaxJobDuration, "10 years")).ok()) return bound;
    int64_t procs = v[7] > 0 ? v[7] : v[4];
    if (v[3] <= 0 || procs <= 0) {
      // Never ran, or no processor count: nothing to replay.
      *not_replayed = "job(s) never ran and are not replayed";
      return Status::Ok();
    }
    int64_t gpus = (procs + options.procs_per_gpu - 1) / options.procs_per_gpu;
    if (gpus > 1 << 20)
      return Status::InvalidArgument(Where(file, line, f[7].column,
                                           "requested processors: too large"));
    job->submit = v[1];
    job->duration = v[3];
    job->gpus = static_cast<uint32_t>(gpus);
    // DeriveTimeLimit with factor 1 is the rounding up to minutes (and the
    // clamp to kMaxTimeLimit) a requested time needs.
    job->time_limit = v[8] > 0 ? DeriveTimeLimit(v[8], 1.0)
                               : DeriveTimeLimit(job->duration, options.time_limit_factor);
    *account = "group" + std::to_string(v[12]);
    *user = "user" + std::to_string(v[11]);
    return Status::Ok();
  };
  return ReadRowsWithDefaultContract(text, file, spec, parse, options, out, stats);
}

}  // namespace sim
}  // namespace budget
