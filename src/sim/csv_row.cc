#include "sim/csv_row.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace budget {
namespace sim {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

Field Trimmed(std::string_view line, size_t begin, size_t end) {
  while (begin < end && IsBlank(line[begin])) ++begin;
  while (end > begin && IsBlank(line[end - 1])) --end;
  return Field{line.substr(begin, end - begin), begin + 1};
}

}  // namespace

void SplitFields(std::string_view line, char sep, std::vector<Field>* fields) {
  fields->clear();
  if (sep == ' ') {
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i == line.size()) break;
      size_t start = i;
      while (i < line.size() && !IsBlank(line[i])) ++i;
      fields->push_back(Field{line.substr(start, i - start), start + 1});
    }
    return;
  }
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == sep) {
      fields->push_back(Trimmed(line, start, i));
      start = i + 1;
    }
  }
}

bool ParseInt64(std::string_view text, int64_t* out) {
  if (text.empty() || text.size() > 30) return false;
  std::string s(text);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

bool ParseDouble(std::string_view text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  std::string s(text);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool ParseBool(std::string_view text, bool* out) {
  std::string s;
  for (char c : text) s += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (s == "1" || s == "true" || s == "yes") {
    *out = true;
  } else if (s == "0" || s == "false" || s == "no") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

bool ParseUtcTimestamp(std::string_view text, int64_t* out) {
  // Exactly "YYYY-MM-DD HH:MM:SS".
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' ||
      text[13] != ':' || text[16] != ':')
    return false;
  int64_t parts[6];
  const size_t pos[6] = {0, 5, 8, 11, 14, 17};
  const size_t len[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    std::string_view p = text.substr(pos[i], len[i]);
    for (char c : p)
      if (c < '0' || c > '9') return false;
    if (!ParseInt64(p, &parts[i])) return false;
  }
  if (parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31 || parts[3] > 23 ||
      parts[4] > 59 || parts[5] > 60)
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

std::string Where(const std::string& file, uint64_t line, size_t column,
                  const std::string& what) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what;
}

}  // namespace sim
}  // namespace budget
