#include "libbudget/policy/preemption_note.h"

#include <ctime>

namespace budget {
namespace {

bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix) return false;
  s->remove_prefix(prefix.size());
  return true;
}

constexpr char kNotePrefix[] = "preempted by job ";
constexpr char kRequeuedPrefix[] = "requeued at ";
constexpr char kCancelledPrefix[] = "cancelled at ";
constexpr char kDrainNode[] = ": node ";
constexpr char kDrainSuffix[] = " is draining (rule: drain at contract end)";
constexpr char kTimeFormat[] = "%Y-%m-%dT%H:%M:%S";
// YYYY-MM-DDTHH:MM:SS
constexpr size_t kTimeLength = 19;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The decimal value of `text`, all of whose characters are digits.
int DigitsValue(std::string_view text) {
  int value = 0;
  for (char c : text) value = value * 10 + (c - '0');
  return value;
}

// `text` (kTimeLength characters) as local time; false if it is no time the
// writer could have written: exactly YYYY-MM-DDTHH:MM:SS, every field all
// digits (no sign, space or TAB, which strptime would skip), a year of four
// digits >= 1000 (strftime writes years below 1000 with fewer digits), and
// a calendar time of the zone (no 31 November, no hour a DST change skips:
// mktime would move either and the round trip would not hold).
bool ReadLocalTime(std::string_view text, TimePoint* out) {
  constexpr size_t kDigits[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
  if (text.size() != kTimeLength || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return false;
  }
  for (size_t i : kDigits) {
    if (!IsDigit(text[i])) return false;
  }
  struct tm tm = {};
  tm.tm_year = DigitsValue(text.substr(0, 4)) - 1900;
  tm.tm_mon = DigitsValue(text.substr(5, 2)) - 1;
  tm.tm_mday = DigitsValue(text.substr(8, 2));
  tm.tm_hour = DigitsValue(text.substr(11, 2));
  tm.tm_min = DigitsValue(text.substr(14, 2));
  tm.tm_sec = DigitsValue(text.substr(17, 2));
  if (tm.tm_year + 1900 < 1000 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 59) {
    return false;
  }
  const struct tm wanted = tm;
  tm.tm_isdst = -1;  // let the zone decide, as the writer's localtime_r did
  time_t t = mktime(&tm);
  if (t == static_cast<time_t>(-1)) return false;  // also 1969-12-31T23:59:59 UTC: never a note's time
  // mktime normalizes what is no calendar time of the zone: refuse it.
  if (tm.tm_year != wanted.tm_year || tm.tm_mon != wanted.tm_mon || tm.tm_mday != wanted.tm_mday ||
      tm.tm_hour != wanted.tm_hour || tm.tm_min != wanted.tm_min || tm.tm_sec != wanted.tm_sec) {
    return false;
  }
  *out = static_cast<TimePoint>(t);
  return true;
}

// A rule as PreemptVerdictName writes it: words of a-z and '-', one space
// between them.
bool IsRuleName(std::string_view rule) {
  if (rule.empty() || rule.front() == ' ' || rule.back() == ' ') return false;
  for (size_t i = 0; i < rule.size(); ++i) {
    char c = rule[i];
    if (c == ' ' && rule[i - 1] == ' ') return false;
    if (!((c >= 'a' && c <= 'z') || c == '-' || c == ' ')) return false;
  }
  return true;
}

// A Slurm node name: letters, digits, '-', '_' and '.'.
bool IsNodeName(std::string_view node) {
  if (node.empty()) return false;
  for (char c : node) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '-' || c == '_' || c == '.'))
      return false;
  }
  return true;
}

// A written time at the start of *s, consumed: its text and its value.
bool ConsumeLocalTime(std::string_view* s, std::string* text, TimePoint* at_time) {
  if (s->size() < kTimeLength) return false;
  std::string_view at = s->substr(0, kTimeLength);
  if (!ReadLocalTime(at, at_time)) return false;
  *text = std::string(at);
  s->remove_prefix(kTimeLength);
  return true;
}

}  // namespace

std::string FormatLocalTime(TimePoint at) {
  time_t t = static_cast<time_t>(at);
  struct tm tm = {};
  char when[32] = "0000-00-00T00:00:00";
  if (localtime_r(&t, &tm) != nullptr) strftime(when, sizeof(when), kTimeFormat, &tm);
  return when;
}

bool ParseLocalTime(std::string_view text, TimePoint* out) { return ReadLocalTime(text, out); }

std::string FormatPreemptionNote(uint32_t preempted_by, TimePoint at, std::string_view rule) {
  std::string note = kNotePrefix;
  note += std::to_string(preempted_by);
  note += " at ";
  note += FormatLocalTime(at);
  note += " (rule: ";
  note += rule;
  note += ")";
  return note;
}

bool ParsePreemptionNote(std::string_view text, PreemptionNote* out) {
  std::string_view s = text;
  if (!ConsumePrefix(&s, kNotePrefix)) return false;
  uint64_t id = 0;
  size_t digits = 0;
  while (digits < s.size() && IsDigit(s[digits]) && digits < 10) {
    id = id * 10 + static_cast<uint64_t>(s[digits] - '0');
    ++digits;
  }
  // No leading zero: the writer never writes one.
  if (digits == 0 || s[0] == '0' || id > 0xffffffffULL) return false;
  s.remove_prefix(digits);
  if (!ConsumePrefix(&s, " at ")) return false;
  std::string at;
  TimePoint at_time = 0;
  if (!ConsumeLocalTime(&s, &at, &at_time)) return false;
  if (!ConsumePrefix(&s, " (rule: ")) return false;
  // The whole text is the note: it ends at its ')'.
  if (s.size() < 2 || s.back() != ')') return false;
  std::string_view rule = s.substr(0, s.size() - 1);
  if (!IsRuleName(rule)) return false;
  out->preempted_by = static_cast<uint32_t>(id);
  out->at = std::move(at);
  out->at_time = at_time;
  out->rule = std::string(rule);
  return true;
}

std::string FormatDrainNote(PreemptAction action, TimePoint at, std::string_view node) {
  std::string note = action == PreemptAction::kRequeue ? kRequeuedPrefix : kCancelledPrefix;
  note += FormatLocalTime(at);
  note += kDrainNode;
  note += node;
  note += kDrainSuffix;
  return note;
}

bool ParseDrainNote(std::string_view text, DrainNote* out) {
  std::string_view s = text;
  PreemptAction action = PreemptAction::kRequeue;
  if (!ConsumePrefix(&s, kRequeuedPrefix)) {
    if (!ConsumePrefix(&s, kCancelledPrefix)) return false;
    action = PreemptAction::kCancel;
  }
  std::string at;
  TimePoint at_time = 0;
  if (!ConsumeLocalTime(&s, &at, &at_time) || !ConsumePrefix(&s, kDrainNode)) return false;
  // The whole text is the note: it ends with the suffix.
  constexpr size_t kSuffixLength = sizeof(kDrainSuffix) - 1;
  if (s.size() <= kSuffixLength || s.substr(s.size() - kSuffixLength) != kDrainSuffix) return false;
  std::string_view node = s.substr(0, s.size() - kSuffixLength);
  if (!IsNodeName(node)) return false;
  out->action = action;
  out->at = std::move(at);
  out->at_time = at_time;
  out->node = std::string(node);
  return true;
}

}  // namespace budget
