#include "libbudget/config/time_string.h"

#include <cstdio>
#include <ctime>
#include <vector>

#include "libbudget/config/log_safe.h"

namespace budget {
namespace {

const char kForms[] = "M, M:S, H:M:S, D-H, D-H:M or D-H:M:S";

Status Bad(std::string_view text, const char* why) {
  return Status::InvalidArgument("invalid time \"" + LogSafe(text) + "\": " + why +
                                 " (expected " + kForms + ")");
}

// Reads a non-empty run of decimal digits. Values are capped well above
// kMaxDuration so that later multiplications cannot overflow.
bool ParseField(std::string_view field, Seconds* out) {
  if (field.empty() || field.size() > 12) return false;
  Seconds value = 0;
  for (char c : field) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

}  // namespace

Status ParseDuration(std::string_view text, Seconds* out) {
  if (text.empty()) return Bad(text, "empty");
  if (text.front() == '-') return Bad(text, "a duration cannot be negative");
  Seconds days = 0;
  std::string_view clock = text;
  size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    if (!ParseField(text.substr(0, dash), &days)) return Bad(text, "bad day count");
    clock = text.substr(dash + 1);
  }
  std::vector<std::string_view> fields = Split(clock, ':');
  if (fields.size() > 3) return Bad(text, "too many ':' fields");
  Seconds v[3] = {0, 0, 0};
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!ParseField(fields[i], &v[i])) return Bad(text, "not a number");
  }
  Seconds seconds = 0;
  if (dash != std::string_view::npos) {
    // D-H, D-H:M, D-H:M:S
    seconds = days * 86400 + v[0] * 3600 + v[1] * 60 + v[2];
  } else if (fields.size() == 1) {
    seconds = v[0] * 60;  // M
  } else if (fields.size() == 2) {
    seconds = v[0] * 60 + v[1];  // M:S
  } else {
    seconds = v[0] * 3600 + v[1] * 60 + v[2];  // H:M:S
  }
  if (seconds > kMaxDuration) return Bad(text, "longer than 10 years");
  *out = seconds;
  return Status::Ok();
}

std::string FormatDuration(Seconds seconds) {
  if (seconds < 0) seconds = 0;
  Seconds days = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", (long long)days, (long long)h,
                  (long long)m, (long long)s);
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", (long long)h, (long long)m, (long long)s);
  }
  return buf;
}

bool ParseUtcDateTime(std::string_view text, char separator, int64_t* out) {
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != separator || text[13] != ':' ||
      text[16] != ':')
    return false;
  int64_t parts[6];
  const size_t pos[6] = {0, 5, 8, 11, 14, 17};
  const size_t len[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    int64_t value = 0;
    for (char c : text.substr(pos[i], len[i])) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    parts[i] = value;
  }
  if (parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31 || parts[3] > 23 || parts[4] > 59 ||
      parts[5] > 60)
    return false;
  struct tm tm = {};
  tm.tm_year = static_cast<int>(parts[0] - 1900);
  tm.tm_mon = static_cast<int>(parts[1] - 1);
  tm.tm_mday = static_cast<int>(parts[2]);
  tm.tm_hour = static_cast<int>(parts[3]);
  tm.tm_min = static_cast<int>(parts[4]);
  tm.tm_sec = static_cast<int>(parts[5]);
  *out = static_cast<int64_t>(timegm(&tm));
  return true;
}

}  // namespace budget
