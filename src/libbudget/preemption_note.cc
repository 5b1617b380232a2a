#include "libbudget/preemption_note.h"

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

// `text` (kTimeLength characters) as local time; false if it is no time.
bool ReadLocalTime(std::string_view text, TimePoint* out) {
  std::string copy(text);
  struct tm tm = {};
  const char* end = strptime(copy.c_str(), kTimeFormat, &tm);
  if (end == nullptr || *end != '\0') return false;
  tm.tm_isdst = -1;  // let the zone decide, as the writer's localtime_r did
  time_t t = mktime(&tm);
  if (t == static_cast<time_t>(-1)) return false;
  *out = static_cast<TimePoint>(t);
  return true;
}

// A written time at the start of *s, consumed: its text and its value.
bool ConsumeLocalTime(std::string_view* s, std::string* text, TimePoint* at_time) {
  if (s->size() < kTimeLength || (*s)[4] != '-' || (*s)[10] != 'T') return false;
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

bool ParsePreemptionNote(std::string_view comment, PreemptionNote* out) {
  std::string_view s = comment;
  if (!ConsumePrefix(&s, kNotePrefix)) return false;
  uint64_t id = 0;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9' && digits < 10) {
    id = id * 10 + static_cast<uint64_t>(s[digits] - '0');
    ++digits;
  }
  if (digits == 0 || id == 0 || id > 0xffffffffULL) return false;
  s.remove_prefix(digits);
  if (!ConsumePrefix(&s, " at ")) return false;
  std::string at;
  TimePoint at_time = 0;
  if (!ConsumeLocalTime(&s, &at, &at_time)) return false;
  if (!ConsumePrefix(&s, " (rule: ")) return false;
  size_t close = s.find(')');
  if (close == std::string_view::npos || close == 0) return false;
  out->preempted_by = static_cast<uint32_t>(id);
  out->at = std::move(at);
  out->at_time = at_time;
  out->rule = std::string(s.substr(0, close));
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

bool ParseDrainNote(std::string_view comment, DrainNote* out) {
  std::string_view s = comment;
  PreemptAction action = PreemptAction::kRequeue;
  if (!ConsumePrefix(&s, kRequeuedPrefix)) {
    if (!ConsumePrefix(&s, kCancelledPrefix)) return false;
    action = PreemptAction::kCancel;
  }
  std::string at;
  TimePoint at_time = 0;
  if (!ConsumeLocalTime(&s, &at, &at_time) || !ConsumePrefix(&s, kDrainNode)) return false;
  size_t end = s.find(kDrainSuffix);
  if (end == std::string_view::npos || end == 0 || s.substr(0, end).find(' ') != std::string_view::npos) {
    return false;
  }
  out->action = action;
  out->at = std::move(at);
  out->at_time = at_time;
  out->node = std::string(s.substr(0, end));
  return true;
}

}  // namespace budget
