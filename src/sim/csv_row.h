// CsvRow: one line of a trace split into fields that remember where they
// started, so that errors can name the column, plus the strict number
// parsers every reader shares.
//
// Splitting is plain (no quoting): none of the supported formats quotes.
// Thread safety: plain values.
#ifndef SLURM_BUDGET_SIM_CSV_ROW_H_
#define SLURM_BUDGET_SIM_CSV_ROW_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace budget {
namespace sim {

struct Field {
  std::string_view text;  // trimmed of blanks and '\r'
  size_t column = 1;      // 1-based column of the field's first character
};

// Splits on `sep`; with sep == ' ' any run of blanks/tabs separates.
void SplitFields(std::string_view line, char sep, std::vector<Field>* fields);

// Strict parsers: the whole text must be the number. False on anything else
// (empty, trailing junk, overflow).
bool ParseInt64(std::string_view text, int64_t* out);
bool ParseDouble(std::string_view text, double* out);
// 0|1|true|false|yes|no (case-insensitive).
bool ParseBool(std::string_view text, bool* out);
// `YYYY-MM-DD HH:MM:SS` as UTC seconds since the epoch.
bool ParseUtcTimestamp(std::string_view text, int64_t* out);

// "<file>:<line>:<column>: <what>".
std::string Where(const std::string& file, uint64_t line, size_t column,
                  const std::string& what);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_CSV_ROW_H_
