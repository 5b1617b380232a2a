#include "libbudget/preemption_note.h"

namespace budget {
namespace {

bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix) return false;
  s->remove_prefix(prefix.size());
  return true;
}

}  // namespace

bool ParsePreemptionNote(std::string_view comment, PreemptionNote* out) {
  std::string_view s = comment;
  if (!ConsumePrefix(&s, "preempted by job ")) return false;
  uint64_t id = 0;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9' && digits < 10) {
    id = id * 10 + static_cast<uint64_t>(s[digits] - '0');
    ++digits;
  }
  if (digits == 0 || id == 0 || id > 0xffffffffULL) return false;
  s.remove_prefix(digits);
  if (!ConsumePrefix(&s, " at ")) return false;
  size_t space = s.find(' ');
  // YYYY-MM-DDTHH:MM:SS is 19 characters.
  if (space != 19 || s[4] != '-' || s[10] != 'T') return false;
  std::string_view at = s.substr(0, space);
  s.remove_prefix(space);
  if (!ConsumePrefix(&s, " (rule: ")) return false;
  size_t close = s.find(')');
  if (close == std::string_view::npos || close == 0) return false;
  out->preempted_by = static_cast<uint32_t>(id);
  out->at = std::string(at);
  out->rule = std::string(s.substr(0, close));
  return true;
}

}  // namespace budget
