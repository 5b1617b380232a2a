// Job notes: see job_notes.h.
#include "libbudget/policy/job_notes.h"

#include "libbudget/policy/preemption_note.h"

namespace budget {
namespace {

constexpr char kSeparator[] = "; ";
constexpr char kRefusalPrefix[] = "contract change refused at ";
constexpr char kRefusalReason[] = ": ";
constexpr size_t kTimeLength = 19;  // YYYY-MM-DDTHH:MM:SS
constexpr char kNoticePrefix[] = " with notice until ";
constexpr size_t kNoticeLength = sizeof(kNoticePrefix) - 1 + kTimeLength;

// Splits " with notice until <time>" off the end of a departure note:
// false if it ends so but the time is no time the writer writes.
bool SplitNotice(std::string_view* departure, TimePoint* until) {
  *until = 0;
  if (departure->size() <= kNoticeLength) return true;
  std::string_view tail = departure->substr(departure->size() - kNoticeLength);
  if (tail.substr(0, sizeof(kNoticePrefix) - 1) != kNoticePrefix) return true;
  if (!ParseLocalTime(tail.substr(sizeof(kNoticePrefix) - 1), until)) return false;
  departure->remove_suffix(kNoticeLength);
  return true;
}

bool IsDeparture(std::string_view text) {
  PreemptionNote preemption;
  DrainNote drain;
  return ParsePreemptionNote(text, &preemption) || ParseDrainNote(text, &drain);
}

bool IsPrintable(char c) { return c >= 0x20 && c <= 0x7e; }

}  // namespace

std::string FormatJobNotes(const JobNotes& notes) {
  if (notes.departure.empty()) return notes.refusal;
  std::string departure = notes.departure;
  if (notes.notice_until != 0) departure += kNoticePrefix + FormatLocalTime(notes.notice_until);
  if (notes.refusal.empty()) return departure;
  return departure + kSeparator + notes.refusal;
}

bool ParseJobNotes(std::string_view system_comment, JobNotes* out) {
  JobNotes notes;
  std::string_view s = system_comment;
  RefusalNote refusal;
  if (!s.empty() && s.substr(0, sizeof(kRefusalPrefix) - 1) != kRefusalPrefix) {
    size_t end = s.find(kSeparator);
    std::string_view departure = s.substr(0, end);
    if (!SplitNotice(&departure, &notes.notice_until) || !IsDeparture(departure)) return false;
    notes.departure = std::string(departure);
    s = end == std::string_view::npos ? std::string_view() : s.substr(end + sizeof(kSeparator) - 1);
    if (end != std::string_view::npos && s.empty()) return false;  // a separator with nothing after it
  }
  if (!s.empty()) {
    if (!ParseRefusalNote(s, &refusal)) return false;
    notes.refusal = std::string(s);
  }
  *out = std::move(notes);
  return true;
}

JobNotes JobNotesOf(std::string_view system_comment) {
  JobNotes notes;
  ParseJobNotes(system_comment, &notes);
  return notes;
}

std::string WithDeparture(std::string_view system_comment, std::string_view departure, TimePoint notice_until) {
  JobNotes notes = JobNotesOf(system_comment);
  notes.departure = std::string(departure);
  notes.notice_until = notice_until;
  return FormatJobNotes(notes);
}

std::string WithRefusal(std::string_view system_comment, std::string_view refusal) {
  JobNotes notes = JobNotesOf(system_comment);
  notes.refusal = std::string(refusal);
  return FormatJobNotes(notes);
}

bool DepartureAt(const JobNotes& notes, TimePoint now, TimePoint* at) {
  PreemptionNote preemption;
  DrainNote drain;
  TimePoint when = 0;
  if (ParsePreemptionNote(notes.departure, &preemption)) {
    when = preemption.at_time;
  } else if (ParseDrainNote(notes.departure, &drain)) {
    when = drain.at_time;
  } else {
    return false;
  }
  if (when > now) return false;
  if (notes.notice_until != 0) {
    if (notes.notice_until > now) return false;
    when = notes.notice_until;
  }
  *at = when;
  return true;
}

std::string FormatRefusalNote(TimePoint at, std::string_view reason) {
  std::string note = kRefusalPrefix;
  note += FormatLocalTime(at);
  note += kRefusalReason;
  if (reason.empty()) reason = "refused";
  std::string_view kept = reason.substr(0, kMaxRefusalReason);
  for (char c : kept) note += IsPrintable(c) ? c : '?';
  return note;
}

bool ParseRefusalNote(std::string_view text, RefusalNote* out) {
  std::string_view s = text;
  if (s.substr(0, sizeof(kRefusalPrefix) - 1) != kRefusalPrefix) return false;
  s.remove_prefix(sizeof(kRefusalPrefix) - 1);
  if (s.size() < kTimeLength) return false;
  TimePoint at_time = 0;
  if (!ParseLocalTime(s.substr(0, kTimeLength), &at_time)) return false;
  std::string at(s.substr(0, kTimeLength));
  s.remove_prefix(kTimeLength);
  if (s.substr(0, sizeof(kRefusalReason) - 1) != kRefusalReason) return false;
  s.remove_prefix(sizeof(kRefusalReason) - 1);
  if (s.empty() || s.size() > kMaxRefusalReason) return false;
  for (char c : s) {
    if (!IsPrintable(c)) return false;
  }
  out->at = std::move(at);
  out->at_time = at_time;
  out->reason = std::string(s);
  return true;
}

}  // namespace budget
