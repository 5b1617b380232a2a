// Tests of the GPU type weights (gpu_type_weights.h) and of the budget.conf
// key that sets them (config.h GpuTypeWeights).
#include "libbudget/testing/test_support.h"

#include <string>

#include "libbudget/config/config.h"
#include "libbudget/config/gpu_type_weights.h"

using budget::BudgetConfig;
using budget::GpuTypeWeights;

namespace {

struct WeightCase {
  const char* type;
  double expected;
};

// GpuTypeWeights=h100:1.0,B200:2,b300:2.5 (one type upper-case).
void test_listed_types_weigh_as_set_and_others_one(void**) {
  GpuTypeWeights w;
  assert_true(GpuTypeWeights::Parse("h100:1.0,B200:2,b300:2.5", &w).ok());
  const WeightCase cases[] = {
      {"h100", 1.0},
      {"b200", 2.0},  // written B200: types match case-insensitively
      {"B200", 2.0},
      {"b300", 2.5},
      {"a100", 1.0},  // not listed: 1.0
      {"", 1.0},      // GPUs of no type: 1.0
  };
  for (const WeightCase& c : cases) {
    if (w.WeightOf(c.type) != c.expected) fail_msg("%s weighs %g, expected %g", c.type, w.WeightOf(c.type), c.expected);
  }
  // Kept lower-case and sorted by type, as logged and recorded.
  assert_string_equal(w.ToString().c_str(), "b200:2,b300:2.5,h100:1");
}

void test_an_empty_table_weighs_every_gpu_one(void**) {
  GpuTypeWeights w;
  assert_true(w.empty());
  assert_true(w.WeightOf("b300") == 1.0);
  assert_string_equal(w.ToString().c_str(), "");
}

struct BadCase {
  const char* text;
  const char* expected;  // a substring of the message
};

const BadCase kBad[] = {
    {"", "must list TYPE:WEIGHT entries"},
    {"h100", "entry \"h100\": expected TYPE:WEIGHT"},
    {"h100:1,", "entry \"\": expected TYPE:WEIGHT"},
    {",h100:1", "entry \"\": expected TYPE:WEIGHT"},
    {":2", "entry \":2\": the GPU type must be a GRES type name"},
    {"b 200:2", "the GPU type must be a GRES type name"},
    {"b200:", "entry \"b200:\": the weight must be a decimal number, got \"\""},
    {"b200:two", "the weight must be a decimal number, got \"two\""},
    {"b200:-1", "the weight must be a decimal number, got \"-1\""},
    {"b200:1e3", "the weight must be a decimal number, got \"1e3\""},
    {"b200:inf", "the weight must be a decimal number, got \"inf\""},
    {"b200:nan", "the weight must be a decimal number"},
    {"b200:1.2.3", "the weight must be a decimal number"},
    {"b200:2:3", "the weight must be a decimal number, got \"2:3\""},
    {"b200:0", "entry \"b200:0\": the weight must be > 0 and at most 1000"},
    {"b200:0.0", "the weight must be > 0 and at most 1000"},
    {"b200:1000.5", "the weight must be > 0 and at most 1000"},
    {"b200:2,h100:1,B200:3", "entry \"B200:3\": GPU type \"b200\" is listed twice"},
};

void test_bad_lists_are_refused_naming_the_entry(void**) {
  for (const BadCase& c : kBad) {
    GpuTypeWeights w;
    w.Set("untouched", 7);
    budget::Status st = GpuTypeWeights::Parse(c.text, &w);
    if (st.ok()) fail_msg("accepted: \"%s\"", c.text);
    if (st.message().find(c.expected) == std::string::npos) {
      fail_msg("\"%s\": message \"%s\" lacks \"%s\"", c.text, st.message().c_str(), c.expected);
    }
    assert_true(w.WeightOf("untouched") == 7);
  }
}

// The budget.conf key: read like the others, errors name file, line and key.
void test_the_budget_conf_key(void**) {
  BudgetConfig c;
  assert_true(budget::ParseBudgetConfig("", "budget.conf", &c).ok());
  assert_true(c.gpu_type_weights.empty());  // default: no weights

  assert_true(budget::ParseBudgetConfig("gputypeweights=h100:1.0,b200:2.0\n", "budget.conf", &c).ok());
  assert_true(c.gpu_type_weights.WeightOf("b200") == 2.0);
  assert_true(c.gpu_type_weights.WeightOf("h100") == 1.0);

  const BadCase bad[] = {
      {"# weights\nGpuTypeWeights=b200:2,h100\n", "budget.conf:2: key GpuTypeWeights: entry \"h100\": expected TYPE:WEIGHT"},
      {"GpuTypeWeights=\n", "budget.conf:1: key GpuTypeWeights: must list TYPE:WEIGHT entries"},
      {"GpuTypeWeights=b200:0\n", "budget.conf:1: key GpuTypeWeights: entry \"b200:0\": the weight must be > 0"},
      {"GpuTypeWeights=\"b200:2, h100:1\"\n", "budget.conf:1: key GpuTypeWeights: entry \" h100:1\""},
      {"GpuTypeWeights=b200:2, h100:1\n", "budget.conf:1: key GpuTypeWeights: one Key=Value per line"},
      {"GpuTypeWeights=b200:2\nGpuTypeWeights=b200:3\n", "budget.conf:2: key GpuTypeWeights is already set on line 1"},
  };
  for (const BadCase& b : bad) {
    BudgetConfig out;
    budget::Status st = budget::ParseBudgetConfig(b.text, "budget.conf", &out);
    if (st.ok()) fail_msg("accepted: %s", b.text);
    if (st.message().find(b.expected) == std::string::npos) {
      fail_msg("message \"%s\" lacks \"%s\"", st.message().c_str(), b.expected);
    }
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_listed_types_weigh_as_set_and_others_one),
      cmocka_unit_test(test_an_empty_table_weighs_every_gpu_one),
      cmocka_unit_test(test_bad_lists_are_refused_naming_the_entry),
      cmocka_unit_test(test_the_budget_conf_key),
  };
  return cmocka_run_group_tests_name("gpu_type_weights", tests, nullptr, nullptr);
}
