// Slurm's time strings, as `sbatch --time` reads them, for durations in the
// contract (`--min-runtime`) and in budget.conf.
//
// Accepted forms (every field a non-negative decimal integer):
//   M          minutes            "15"        = 900 s
//   M:S        minutes:seconds    "0:20"      = 20 s
//   H:M:S      hours:min:sec      "8:00:00"   = 28800 s
//   D-H        days-hours         "7-0"       = 604800 s
//   D-H:M      days-hours:min     "1-2:30"    = 95400 s
//   D-H:M:S    days-h:m:s         "1-0:0:1"   = 86401 s
// As in Slurm, fields are not range-checked ("90" minutes and "1:90" are
// accepted), but a duration longer than 10 years is refused (it is a typo,
// and it keeps arithmetic on TimePoint far from overflow). "UNLIMITED" and
// "INFINITE" are not durations here: a contract must be finite.
#ifndef SLURM_BUDGET_LIBBUDGET_TIME_STRING_H_
#define SLURM_BUDGET_LIBBUDGET_TIME_STRING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

// The longest duration ParseDuration accepts: 10 years.
constexpr Seconds kMaxDuration = 10LL * 366 * 86400;

// Parses `text` into seconds. On error *out is untouched and the message
// quotes the text and says which form was expected.
Status ParseDuration(std::string_view text, Seconds* out);

// Parses exactly "YYYY-MM-DD<separator>HH:MM:SS", a UTC date and time
// (sacct's "2026-11-01T09:00:00" with 'T', a trace's "2026-11-01 09:00:00"
// with ' '), into seconds since the epoch. False, *out untouched, on any
// other text or a field out of range.
bool ParseUtcDateTime(std::string_view text, char separator, int64_t* out);

// Formats seconds the way Slurm prints time limits (squeue, scontrol):
// "HH:MM:SS" or "D-HH:MM:SS", e.g. 20 s is "00:00:20" and 26 h "1-02:00:00".
// ParseDuration(FormatDuration(s)) == s for 0 <= s <= kMaxDuration.
std::string FormatDuration(Seconds seconds);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TIME_STRING_H_
