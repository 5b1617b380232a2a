// JsonWriter: appends compact JSON text to a std::string, value by value,
// for the files the suite writes often and large (the sbudget report
// snapshot: ~2.6 MB for 1,000 accounts with a week of history). Building a json-c document
// first costs ~30x more (one heap object per value and printf per number).
//
//   std::string text;
//   JsonWriter w(&text);
//   w.BeginObject().Key("path").String("llm/pretrain").Key("share").Double(70)
//    .Key("rank").Null().EndObject();
//   // {"path":"llm/pretrain","share":70,"rank":null}
//
// Numbers: Double writes the shortest text that reads back to the same
// double (std::to_chars), and null for a non-finite value (JSON has no
// infinity; each reader says what null means). Strings: '"', '\\' and
// control characters are escaped; other bytes (UTF-8) are copied as they are.
// Commas and colons are the writer's business: callers say only Key and
// values. Nesting mistakes (a value without a key inside an object, End of
// the wrong kind) are programming errors caught by the tests, not checked
// at run time.
//
// Thread safety: one writer per string, no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_JSON_WRITER_H_
#define SLURM_BUDGET_LIBBUDGET_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace budget {

class JsonWriter {
 public:
  // REQUIRES: out != nullptr and outlives the writer. Text is appended.
  explicit JsonWriter(std::string* out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value);  // null if not finite
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Writes `json`, a complete JSON value formatted elsewhere (by another
  // JsonWriter), as the next value: text reused from one document to the
  // next. REQUIRES: `json` is one valid JSON value.
  JsonWriter& Raw(std::string_view json);

 private:
  // Whether a comma must go before the value about to be written (none
  // after a key, at the first item, or at the top level); notes that the
  // innermost array/object now holds something.
  bool CommaDue();
  // Writes the comma CommaDue() asks for.
  void BeforeValue();
  // Appends `comma_and_text` (which starts with ','), without its comma if
  // none is due.
  void AppendWithComma(std::string_view comma_and_text);
  void Open(char bracket);
  void Close(char bracket);
  // Appends `text` quoted and escaped, after a comma if `comma`.
  void AppendQuoted(std::string_view text, bool comma);

  std::string* out_;
  // Whether the next value of the innermost open array/object needs a
  // comma before it (something was written in it); false at the top level.
  bool need_comma_ = false;
  // need_comma_ of each enclosing array/object, restored when the inner one
  // closes (a plain byte per level: vector<bool>'s bit arithmetic showed as
  // 10% of a snapshot's formatting).
  std::vector<char> enclosing_need_comma_;
  bool after_key_ = false;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_JSON_WRITER_H_
