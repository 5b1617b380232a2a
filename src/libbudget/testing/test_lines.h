// Lines of text compared in the core's unit tests (a tree diff, a tree's
// nodes, the moves of a migration), the first difference named. Include
// after test_support.h (it uses cmocka's fail_msg).
#ifndef SLURM_BUDGET_LIBBUDGET_TEST_LINES_H_
#define SLURM_BUDGET_LIBBUDGET_TEST_LINES_H_

#include <string>
#include <vector>

namespace budget {
namespace testing {

inline void AssertLines(const std::vector<std::string>& got, const std::vector<std::string>& expected) {
  for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
    if (got[i] != expected[i]) {
      fail_msg("line %zu:\n got      %s\n expected %s", i, got[i].c_str(), expected[i].c_str());
    }
  }
  assert_int_equal(got.size(), expected.size());
}

}  // namespace testing
}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TEST_LINES_H_
