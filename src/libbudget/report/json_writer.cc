// JsonWriter: see json_writer.h.
#include "libbudget/report/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace budget {

bool JsonWriter::CommaDue() {
  if (after_key_) {
    after_key_ = false;
    return false;
  }
  const bool due = need_comma_;
  need_comma_ = !enclosing_need_comma_.empty();
  return due;
}

void JsonWriter::BeforeValue() {
  if (CommaDue()) out_->push_back(',');
}

void JsonWriter::AppendWithComma(std::string_view comma_and_text) {
  if (!CommaDue()) comma_and_text.remove_prefix(1);
  out_->append(comma_and_text.data(), comma_and_text.size());
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  out_->push_back(bracket);
  enclosing_need_comma_.push_back(need_comma_);
  need_comma_ = false;
}

void JsonWriter::Close(char bracket) {
  out_->push_back(bracket);
  need_comma_ = enclosing_need_comma_.back();
  enclosing_need_comma_.pop_back();
}

namespace {

// The bytes a JSON string cannot hold as they are: '"', '\\' and the
// control characters below 0x20.
struct EscapeTable {
  bool needs_escape[256] = {};
  constexpr EscapeTable() {
    for (int c = 0; c < 0x20; ++c) needs_escape[c] = true;
    needs_escape[static_cast<unsigned char>('"')] = true;
    needs_escape[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr EscapeTable kEscape;

// The index of the first byte of `text` to escape, or text.size().
size_t FirstToEscape(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && !kEscape.needs_escape[static_cast<unsigned char>(text[i])]) ++i;
  return i;
}

// A string up to this long that needs no escaping goes out in one append,
// built on the stack with its comma and quotes (most of a snapshot's
// strings: states, user, account and path names).
constexpr size_t kShortString = 96;

}  // namespace

void JsonWriter::AppendQuoted(std::string_view text, bool comma) {
  static const char kHex[] = "0123456789abcdef";
  size_t plain_from = 0;
  size_t i = FirstToEscape(text);
  if (i == text.size() && text.size() <= kShortString) {
    char buf[kShortString + 3];
    char* p = buf;
    if (comma) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, text.data(), text.size());
    p += text.size();
    *p++ = '"';
    out_->append(buf, static_cast<size_t>(p - buf));
    return;
  }
  if (comma) out_->push_back(',');
  out_->push_back('"');
  for (; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!kEscape.needs_escape[c]) continue;
    out_->append(text.data() + plain_from, i - plain_from);
    plain_from = i + 1;
    switch (c) {
      case '"': out_->append("\\\""); break;
      case '\\': out_->append("\\\\"); break;
      case '\n': out_->append("\\n"); break;
      case '\t': out_->append("\\t"); break;
      case '\r': out_->append("\\r"); break;
      case '\b': out_->append("\\b"); break;
      case '\f': out_->append("\\f"); break;
      default:
        out_->append("\\u00");
        out_->push_back(kHex[c >> 4]);
        out_->push_back(kHex[c & 0xf]);
    }
  }
  out_->append(text.data() + plain_from, text.size() - plain_from);
  out_->push_back('"');
}

JsonWriter& JsonWriter::BeginObject() {
  Open('{');
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  Close('}');
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Open('[');
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  Close(']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  AppendQuoted(key, CommaDue());
  out_->push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_->append(json.data(), json.size());
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  AppendQuoted(value, CommaDue());
  return *this;
}

// Numbers are formatted after their comma in one stack buffer and appended
// once: a std::string call per piece showed as a fifth of the formatting.
JsonWriter& JsonWriter::Int(int64_t value) {
  char buf[24];  // ',' and 20 characters of INT64_MIN
  char* p = buf;
  if (CommaDue()) *p++ = ',';
  p = std::to_chars(p, buf + sizeof buf, value).ptr;
  out_->append(buf, static_cast<size_t>(p - buf));
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  if (!std::isfinite(value)) return Null();
  char buf[40];  // ',' and at most 24 characters (-2.2250738585072014e-308)
  char* p = buf;
  if (CommaDue()) *p++ = ',';
  // Small whole numbers (zeros and GPU counts fill most of a report) take
  // the integer path, several times faster than the shortest-double search.
  // Below 1e4 the shortest form is the plain integer too (1e4 and up may be
  // written "1e+04"), so the text is the same either way.
  if (value > -1e4 && value < 1e4 && value == static_cast<double>(static_cast<int64_t>(value)) &&
      !(value == 0 && std::signbit(value))) {
    p = std::to_chars(p, buf + sizeof buf, static_cast<int64_t>(value)).ptr;
  } else {
    p = std::to_chars(p, buf + sizeof buf, value).ptr;
  }
  out_->append(buf, static_cast<size_t>(p - buf));
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  AppendWithComma(value ? ",true" : ",false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  AppendWithComma(",null");
  return *this;
}

}  // namespace budget
