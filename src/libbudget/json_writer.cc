// JsonWriter: see json_writer.h.
#include "libbudget/json_writer.h"

#include <charconv>
#include <cmath>

namespace budget {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_item_.empty()) {
    if (has_item_.back()) out_->push_back(',');
    has_item_.back() = true;
  }
}

void JsonWriter::AppendQuoted(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  out_->push_back('"');
  size_t plain_from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
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
  BeforeValue();
  out_->push_back('{');
  has_item_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_->push_back('}');
  has_item_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_->push_back('[');
  has_item_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_->push_back(']');
  has_item_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendQuoted(key);
  out_->push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendQuoted(value);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof buf, value);
  out_->append(buf, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof buf, value);
  out_->append(buf, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_->append(value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
  return *this;
}

}  // namespace budget
