// The files budget-sim writes (--write-trace, --json, --events-json, --svg,
// --svg-usage), each named on a log line once written, so that a user sees
// where every output went.
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_SIM_OUTPUT_FILE_H_
#define SLURM_BUDGET_SIM_OUTPUT_FILE_H_

#include <cstdio>
#include <string>

#include "libbudget/status.h"

namespace budget {
namespace sim {

// Writes `text` to `file` (replaced). IOError naming the file.
Status WriteTextFile(const std::string& file, const std::string& text);

// WriteTextFile, then "budget-sim: wrote FILE (what)" on `log`; nothing on
// `log` when the write fails.
Status WriteOutputFile(const std::string& file, const std::string& text, const std::string& what,
                       std::FILE* log);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_OUTPUT_FILE_H_
