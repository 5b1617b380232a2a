// What the four trace targets share: the input is a whole trace file, read
// by ReadTraceText (which ReadTraceFile, i.e. budget-sim --trace, calls with
// the file's bytes) strictly and with --skip-bad-rows. A trace that reads is
// written back with FormatNativeCsv (budget-sim --write-trace) and must read
// back as the same jobs: a reader accepts what its writer writes.
#ifndef SLURM_BUDGET_FUZZ_TRACE_FUZZ_H_
#define SLURM_BUDGET_FUZZ_TRACE_FUZZ_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "sim/trace_reader.h"
#include "sim/workload.h"

inline bool SameJobs(const budget::sim::Workload& a, const budget::sim::Workload& b) {
  if (a.jobs.size() != b.jobs.size()) return false;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const budget::sim::TraceJob& x = a.jobs[i];
    const budget::sim::TraceJob& y = b.jobs[i];
    if (x.submit != y.submit || x.gpus != y.gpus || x.duration != y.duration ||
        x.min_runtime != y.min_runtime || x.time_limit != y.time_limit ||
        x.resumable != y.resumable || a.accounts[x.account] != b.accounts[y.account] ||
        a.UserName(x.user) != b.UserName(y.user)) {
      return false;
    }
  }
  return true;
}

inline int FuzzTrace(budget::sim::TraceFormat format, const char* file, const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bool skip_bad_rows : {false, true}) {
    budget::sim::TraceOptions options;
    options.skip_bad_rows = skip_bad_rows;
    options.default_min_runtime = 600;
    budget::sim::Workload workload;
    budget::sim::ReadStats stats;
    if (!budget::sim::ReadTraceText(text, file, format, options, &workload, &stats).ok()) continue;
    (void)budget::sim::ReadWarnings(file, stats);
    const std::string written = budget::sim::FormatNativeCsv(workload);
    budget::sim::Workload back;
    budget::sim::ReadStats back_stats;
    budget::Status st = budget::sim::ReadTraceText(written, "written.csv", budget::sim::TraceFormat::kNative,
                                                   budget::sim::TraceOptions(), &back, &back_stats);
    FUZZ_CHECK(st.ok(), "the native reader reads what FormatNativeCsv wrote");
    FUZZ_CHECK(SameJobs(workload, back), "a written trace reads back as the same jobs");
  }
  return 0;
}

#endif  // SLURM_BUDGET_FUZZ_TRACE_FUZZ_H_
