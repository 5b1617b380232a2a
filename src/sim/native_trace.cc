// The native trace: the simulator's own CSV, the one the generator writes.
#include "sim/trace_formats.h"

namespace budget {
namespace sim {

Status ReadNative(std::string_view text, const std::string& file, const TraceOptions& options,
                  Workload* out, ReadStats* stats) {
  FormatSpec spec;
  spec.header = {"submit", "account", "user", "gpus",
                 "duration", "min_runtime", "resumable", "priority"};
  RowParser parse = [&file](const std::vector<Field>& f, uint64_t line, TraceJob* job,
                            std::string* account, std::string* user, bool*) -> Status {
    if (f.size() != 8)
      return Status::InvalidArgument(Where(file, line, f.empty() ? 1 : f.back().column,
                                           "expected 8 fields, got " + std::to_string(f.size())));
    int64_t v;
    Status st = IntField(file, line, f[0], "submit", 0, &job->submit);
    if (!st.ok()) return st;
    if (f[1].text.empty())
      return Status::InvalidArgument(Where(file, line, f[1].column, "account: must not be empty"));
    *account = std::string(f[1].text);
    *user = std::string(f[2].text);
    if (!(st = IntField(file, line, f[3], "gpus", 1, &v)).ok()) return st;
    if (v > 1 << 20)
      return Status::InvalidArgument(Where(file, line, f[3].column, "gpus: too large"));
    job->gpus = static_cast<uint32_t>(v);
    if (!(st = IntField(file, line, f[4], "duration", 1, &job->duration)).ok()) return st;
    if (!(st = IntField(file, line, f[5], "min_runtime", 0, &job->min_runtime)).ok()) return st;
    if (!ParseBool(f[6].text, &job->resumable))
      return Status::InvalidArgument(Where(file, line, f[6].column,
                                           "resumable: expected 0, 1, true or false, got '" +
                                               std::string(f[6].text) + "'"));
    if (!(st = IntField(file, line, f[7], "priority", 0, &v)).ok()) return st;
    if (v > UINT32_MAX)
      return Status::InvalidArgument(Where(file, line, f[7].column, "priority: too large"));
    job->priority = static_cast<uint32_t>(v);
    return Status::Ok();
  };
  return ReadRows(text, file, spec, parse, options, out, stats);
}

}  // namespace sim
}  // namespace budget
