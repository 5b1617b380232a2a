// Tests of JsonWriter (json_writer.h): separators, escaping, numbers, and
// that json-c reads back what it writes.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <json-c/json.h>

#include "libbudget/testing/test_support.h"

#include "libbudget/report/json_writer.h"

namespace {

using budget::JsonWriter;

// A case writes with a fresh writer onto a string holding `before`; the
// string then holds `after`.
struct WriteCase {
  const char* name;
  std::string before;
  std::function<void(JsonWriter&)> write;
  std::string after;
};

void ExpectWrites(const std::vector<WriteCase>& cases) {
  for (const WriteCase& c : cases) {
    std::string text = c.before;
    JsonWriter w(&text);
    c.write(w);
    if (text != c.after) fail_msg("%s: wrote %s, expected %s", c.name, text.c_str(), c.after.c_str());
  }
}

void test_separators_and_strings(void**) {
  const std::string a96(96, 'a'), a97(97, 'a'), b199(199, 'b');
  ExpectWrites({
      // Commas between items only, none after a key or before a closing bracket.
      {"nested separators", "",
       [](JsonWriter& w) {
         w.BeginObject()
             .Key("a").Int(1)
             .Key("b").BeginArray().Int(2).BeginObject().EndObject().BeginArray().EndArray().Null().EndArray()
             .Key("c").Bool(true)
             .Key("d").Bool(false)
             .EndObject();
       },
       R"({"a":1,"b":[2,{},[],null],"c":true,"d":false})"},
      // Raw text is a value like any other: after a key no comma, between
      // items one.
      {"raw values take their separators", "",
       [](JsonWriter& w) {
         w.BeginObject().Key("a").Raw("[1,2]").Key("b").BeginArray().Raw("{}").Raw("3").EndArray().EndObject();
       },
       R"({"a":[1,2],"b":[{},3]})"},
      // Appends to what the string held.
      {"a top-level array appends", "x=", [](JsonWriter& w) { w.BeginArray().String("p").String("q").EndArray(); },
       R"(x=["p","q"])"},
      // '"' and '\\' escaped, \n \t short forms, 0x01 as \u0001, '/' and the
      // UTF-8 bytes of 'é' copied as they are.
      {"string escapes", "", [](JsonWriter& w) { w.String("a\"b\\c\nd\te\x01/\xc3\xa9"); },
       "\"a\\\"b\\\\c\\nd\\te\\u0001/\xc3\xa9\""},
      // 96 bytes (the longest written in one piece), 97, and 200 ending in a
      // quote: the same text whichever way the writer takes.
      {"plain and escaped strings of any length", "",
       [&](JsonWriter& w) {
         w.BeginArray().String(a96).String(a97).String(b199 + "\"").String("").Bool(true).Bool(false)
             .Null().EndArray();
       },
       "[\"" + a96 + "\",\"" + a97 + "\",\"" + b199 + "\\\"\",\"\",true,false,null]"},
  });
}

void test_numbers(void**) {
  ExpectWrites({
      // Shortest round-trip forms; non-finite values are null.
      {"numbers", "",
       [](JsonWriter& w) {
         w.BeginArray()
             .Int(-9223372036854775807LL - 1)
             .Int(4294967295LL)
             .Double(70)
             .Double(0.1)
             .Double(-2.5e-7)
             .Double(1e300)
             .Double(std::numeric_limits<double>::infinity())
             .Double(std::nan(""))
             .EndArray();
       },
       "[-9223372036854775808,4294967295,70,0.1,-2.5e-07,1e+300,null,null]"},
      // Whole numbers below 1e4 take an integer path: the text must stay the
      // shortest round-trip form, as for every other double. 0, "-0" (the
      // sign kept), 60, -5, 9999, 9999.5; from 1e4 on the double path: 10000
      // (fixed and scientific both 5 chars: fixed), 1e+05 (5 chars beat 6),
      // 1e+06.
      {"whole doubles print as the shortest form", "",
       [](JsonWriter& w) {
         w.BeginArray()
             .Double(0)
             .Double(-0.0)
             .Double(60)
             .Double(-5)
             .Double(9999)
             .Double(9999.5)
             .Double(10000)
             .Double(100000)
             .Double(1e6)
             .EndArray();
       },
       "[0,-0,60,-5,9999,9999.5,10000,1e+05,1e+06]"},
  });
}

void test_json_c_reads_it_back(void**) {
  const double third = 1.0 / 3.0;
  std::string text;
  JsonWriter w(&text);
  w.BeginObject().Key("k\"ey").String("v\n").Key("x").Double(third).Key("n").Int(-7).EndObject();
  json_object* root = json_tokener_parse(text.c_str());
  assert_non_null(root);
  json_object* v = nullptr;
  assert_true(json_object_object_get_ex(root, "k\"ey", &v));
  assert_string_equal(json_object_get_string(v), "v\n");
  assert_true(json_object_object_get_ex(root, "x", &v));
  // The shortest form of 1/3 reads back to exactly the same double.
  assert_true(json_object_get_double(v) == third);
  assert_true(json_object_object_get_ex(root, "n", &v));
  assert_int_equal(json_object_get_int64(v), -7);
  json_object_put(root);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_separators_and_strings),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_json_c_reads_it_back),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
