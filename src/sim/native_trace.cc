// The native trace: the simulator's own CSV, the one the generator writes.
// Its 9th column, time_limit, came later: a file may have 8 columns (then
// every limit is derived) or 9 (an empty field is derived). The 10th,
// gpu_type, is the GPU type a job asks for on a mixed fleet (budget-sim
// --gpu-types); empty: any GPU.
#include "sim/trace_formats.h"

#include <cctype>

namespace budget {
namespace sim {

namespace {

// An explicit time limit: Slurm's --time is whole minutes, so a limit that
// is not a whole number of them is a mistake in the trace, not a value to
// round.
Status TimeLimitField(const std::string& file, uint64_t line, const Field& f, Seconds* out) {
  int64_t v;
  if (!ParseInt64(f.text, &v))
    return Status::InvalidArgument(Where(file, line, f.column,
                                         "time_limit: expected an integer (seconds), got '" +
                                             std::string(f.text) + "'"));
  if (v < 60 || v % 60 != 0)
    return Status::InvalidArgument(Where(file, line, f.column,
                                         "time_limit: must be a positive multiple of 60 "
                                         "(Slurm time limits are whole minutes), got " +
                                             std::to_string(v)));
  if (v > kMaxTimeLimit)
    return Status::InvalidArgument(Where(file, line, f.column,
                                         "time_limit: must be at most " +
                                             std::to_string(kMaxTimeLimit) + " (365 days), got " +
                                             std::to_string(v)));
  *out = v;
  return Status::Ok();
}

bool ValidGpuType(std::string_view type) {
  if (type.empty() || type.size() > 64) return false;
  for (char c : type)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

Status ReadNative(std::string_view text, const std::string& file, const TraceOptions& options,
                  Workload* out, ReadStats* stats) {
  FormatSpec spec;
  spec.header = {"submit", "account", "user", "gpus",
                 "duration", "min_runtime", "resumable", "priority", "time_limit", "gpu_type"};
  spec.required_columns = 8;
  const double factor = options.time_limit_factor;
  RowParser parse = [&file, factor, out](const std::vector<Field>& f, uint64_t line, size_t columns,
                                    TraceJob* job, std::string* account, std::string* user,
                                    std::string*) -> Status {
    if (f.size() != columns)
      return Status::InvalidArgument(Where(file, line, f.empty() ? 1 : f.back().column,
                                           "expected " + std::to_string(columns) +
                                               " fields, got " + std::to_string(f.size())));
    int64_t v;
    Status st = SubmitTimeField(file, line, f[0], "submit", &job->submit);
    if (!st.ok()) return st;
    if (f[1].text.empty())
      return Status::InvalidArgument(Where(file, line, f[1].column, "account: must not be empty"));
    *account = std::string(f[1].text);
    *user = std::string(f[2].text);
    if (!(st = IntField(file, line, f[3], "gpus", 1, &v)).ok()) return st;
    if (v > 1 << 20)
      return Status::InvalidArgument(Where(file, line, f[3].column, "gpus: too large"));
    job->gpus = static_cast<uint32_t>(v);
    if (!(st = DurationField(file, line, f[4], "duration", 1, &job->duration)).ok()) return st;
    if (!(st = DurationField(file, line, f[5], "min_runtime", 0, &job->min_runtime)).ok()) return st;
    if (!ParseBool(f[6].text, &job->resumable))
      return Status::InvalidArgument(Where(file, line, f[6].column,
                                           "resumable: expected 0, 1, true or false, got '" +
                                               std::string(f[6].text) + "'"));
    if (!(st = IntField(file, line, f[7], "priority", 0, &v)).ok()) return st;
    if (v > UINT32_MAX)
      return Status::InvalidArgument(Where(file, line, f[7].column, "priority: too large"));
    job->priority = static_cast<uint32_t>(v);
    if (columns == 10 && !f[9].text.empty()) {
      if (!ValidGpuType(f[9].text))
        return Status::InvalidArgument(Where(file, line, f[9].column,
                                             "gpu_type: letters, digits, '_' and '-' only, got '" +
                                                 std::string(f[9].text) + "'"));
      job->gpu_type = out->InternGpuType(std::string(f[9].text));
    }
    if (columns >= 9 && !f[8].text.empty()) return TimeLimitField(file, line, f[8], &job->time_limit);
    job->time_limit = DeriveTimeLimit(job->duration, factor);
    return Status::Ok();
  };
  return ReadRows(text, file, spec, parse, options, out, stats);
}

}  // namespace sim
}  // namespace budget
