// The Philly trace (Microsoft's published GPU cluster log, as CSV): one row
// per job, in any order; the virtual cluster stands for the account, and the
// contract, which Philly did not have, comes from the options. Philly kept
// no requested time either: the time limit is derived from the duration.
#include <algorithm>
#include <cmath>

#include "sim/trace_formats.h"

namespace budget {
namespace sim {

Status ReadPhilly(std::string_view text, const std::string& file, const TraceOptions& options,
                  Workload* out, ReadStats* stats) {
  FormatSpec spec;
  spec.header = {"timestamp", "duration", "num_gpus", "gpu_time", "cluster"};
  RowParser parse = [&file, &options](const std::vector<Field>& f, uint64_t line, size_t,
                                      TraceJob* job, std::string* account, std::string*,
                                      std::string*) -> Status {
    if (f.size() != 5)
      return Status::InvalidArgument(Where(file, line, f.empty() ? 1 : f.back().column,
                                           "expected 5 fields, got " + std::to_string(f.size())));
    if (!ParseUtcTimestamp(f[0].text, &job->submit))
      return Status::InvalidArgument(Where(file, line, f[0].column,
                                           "timestamp: expected YYYY-MM-DD HH:MM:SS, got '" +
                                               std::string(f[0].text) + "'"));
    // Submit times are seconds since 1970 (the native writer's and reader's).
    if (job->submit < 0)
      return Status::InvalidArgument(Where(file, line, f[0].column,
                                           "timestamp: must not be before 1970-01-01 00:00:00, got '" +
                                               std::string(f[0].text) + "'"));
    double duration, gpu_time;
    int64_t gpus;
    Status st = NumberField(file, line, f[1], "duration", 0, &duration);
    if (!st.ok()) return st;
    // Checked in doubles, before the conversion to whole seconds: a double
    // beyond the range of Seconds has no value as one.
    if (!(st = AtMost(file, line, f[1], "duration", duration, kMaxJobDuration, "10 years")).ok()) return st;
    if (!(st = IntField(file, line, f[2], "num_gpus", 1, &gpus)).ok()) return st;
    if (gpus > 1 << 20)
      return Status::InvalidArgument(Where(file, line, f[2].column, "num_gpus: too large"));
    if (!(st = NumberField(file, line, f[3], "gpu_time", 0, &gpu_time)).ok()) return st;
    if (f[4].text.empty())
      return Status::InvalidArgument(Where(file, line, f[4].column, "cluster: must not be empty"));
    job->gpus = static_cast<uint32_t>(gpus);
    // A job that ran for less than a second still held its GPUs for one.
    job->duration = std::max<Seconds>(1, static_cast<Seconds>(std::ceil(duration)));
    job->time_limit = DeriveTimeLimit(job->duration, options.time_limit_factor);
    *account = std::string(f[4].text);
    return Status::Ok();
  };
  return ReadRowsWithDefaultContract(text, file, spec, parse, options, out, stats);
}

}  // namespace sim
}  // namespace budget
