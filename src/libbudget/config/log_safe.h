// LogSafe: a user-supplied value made fit to quote in slurmctld.log or in a
// reply to the user. Whatever a user writes (an option, an account name, a
// comment) reaches the log only through it, so that no value can start a
// line of its own (and pass for a line of the plugin) or make a log line or
// reply as long as the value itself.
//
// What must stay true of the result:
//   - it holds printable ASCII only (0x20..0x7e): every other byte, control
//     characters, DEL and every byte of a multi-byte UTF-8 sequence alike,
//     is written as \xNN, and a backslash as \\, so the text can be read
//     back unambiguously;
//   - it is at most `max_bytes` long plus a short tail that says how long
//     the value was, e.g. `abc...(120000 bytes)`; an escape is never cut.
//
// Thread safety: a plain function over values.
#ifndef SLURM_BUDGET_LIBBUDGET_LOG_SAFE_H_
#define SLURM_BUDGET_LIBBUDGET_LOG_SAFE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace budget {

// The longest quote of a user's value in a log line or a message: enough
// to recognise a time string, an account or a job name.
inline constexpr size_t kLogQuoteMaxBytes = 64;

// `text` escaped and capped as described above.
std::string LogSafe(std::string_view text, size_t max_bytes = kLogQuoteMaxBytes);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_LOG_SAFE_H_
