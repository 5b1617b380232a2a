// CsvRow: one line of a trace split into fields that remember where they
// started, so that errors can name the column, plus the strict number
// parsers every reader shares.
//
// CSV fields may be quoted as RFC 4180 has it: "a,b" is one field a,b, and
// a doubled quote inside quotes is one quote ("say ""hi""" is say "hi").
// Blanks around a field, quoted or not, are dropped; blanks inside quotes
// are kept. A quoted field ends on its line (a trace row is one line).
// Whitespace-separated lines (SWF) know no quoting.
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
  std::string text;   // trimmed of blanks and '\r'; unquoted
  size_t column = 1;  // 1-based column of the field's first character (a
                      // quoted field's opening quote)
};

// Why a line does not split, and where (1-based column).
struct SplitError {
  size_t column = 1;
  std::string what;
};

// Splits on `sep`; with sep == ' ' any run of blanks/tabs separates. False
// for a malformed quoted field, with *error: "unterminated quoted field",
// text after a closing quote, a quote inside an unquoted field.
bool SplitFields(std::string_view line, char sep, std::vector<Field>* fields, SplitError* error);

// Splits on every `sep`, quotes being text like any other (sacct -P);
// fields are trimmed of blanks as SplitFields trims them.
void SplitUnquoted(std::string_view line, char sep, std::vector<Field>* fields);

// `text` as a CSV field that SplitFields(',') reads back as `text`: quoted,
// with its quotes doubled, when it holds a comma or a quote or starts or
// ends with a blank; as it is otherwise.
std::string CsvField(std::string_view text);

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
