#include "sim/csv_row.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "libbudget/config/time_string.h"

namespace budget {
namespace sim {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool Fail(size_t index, const char* what, SplitError* error) {
  error->column = index + 1;
  error->what = what;
  return false;
}

// The quoted field whose opening quote is at line[*i]; on return *i is
// just past the closing quote.
bool Quoted(std::string_view line, size_t* i, std::string* text, SplitError* error) {
  size_t open = *i;
  text->clear();
  for (size_t j = open + 1; j < line.size(); ++j) {
    if (line[j] != '"') {
      text->push_back(line[j]);
    } else if (j + 1 < line.size() && line[j + 1] == '"') {
      text->push_back('"');
      ++j;
    } else {
      *i = j + 1;
      return true;
    }
  }
  return Fail(open, "unterminated quoted field (a quoted field ends on its line)", error);
}

}  // namespace

bool SplitFields(std::string_view line, char sep, std::vector<Field>* fields, SplitError* error) {
  fields->clear();
  if (sep == ' ') {
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i == line.size()) break;
      size_t start = i;
      while (i < line.size() && !IsBlank(line[i])) ++i;
      fields->push_back(Field{std::string(line.substr(start, i - start)), start + 1});
    }
    return true;
  }
  size_t i = 0;
  for (;;) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    Field& f = fields->emplace_back();
    f.column = i + 1;
    if (i < line.size() && line[i] == '"') {
      if (!Quoted(line, &i, &f.text, error)) return false;
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i < line.size() && line[i] != sep)
        return Fail(i, "text after the closing quote of a quoted field", error);
    } else {
      size_t start = i;
      while (i < line.size() && line[i] != sep) {
        if (line[i] == '"')
          return Fail(i, "quote inside an unquoted field (quote the whole field and double the quote)", error);
        ++i;
      }
      size_t end = i;
      while (end > start && IsBlank(line[end - 1])) --end;
      f.text.assign(line.substr(start, end - start));
    }
    if (i == line.size()) return true;
    ++i;  // the separator
  }
}

void SplitUnquoted(std::string_view line, char sep, std::vector<Field>* fields) {
  fields->clear();
  size_t start = 0;
  for (;;) {
    size_t end = line.find(sep, start);
    if (end == std::string_view::npos) end = line.size();
    size_t first = start, last = end;
    while (first < last && IsBlank(line[first])) ++first;
    while (last > first && IsBlank(line[last - 1])) --last;
    fields->push_back(Field{std::string(line.substr(first, last - first)), first + 1});
    if (end == line.size()) return;
    start = end + 1;
  }
}

std::string CsvField(std::string_view text) {
  bool quote = !text.empty() && (IsBlank(text.front()) || IsBlank(text.back()));
  for (char c : text) quote = quote || c == ',' || c == '"';
  if (!quote) return std::string(text);
  std::string s = "\"";
  for (char c : text) s += c == '"' ? std::string("\"\"") : std::string(1, c);
  return s + "\"";
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

bool ParseUtcTimestamp(std::string_view text, int64_t* out) { return ParseUtcDateTime(text, ' ', out); }

std::string Where(const std::string& file, uint64_t line, size_t column,
                  const std::string& what) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what;
}

}  // namespace sim
}  // namespace budget
