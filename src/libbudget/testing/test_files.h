// Test-only: the temporary files of the core's tests: a fresh directory, a
// file's whole text written and read back. It includes <fstream> before
// test_support.h (CMocka's fail() macro would break <ios>), so a test
// includes it before test_support.h, or instead of it.
#ifndef SLURM_BUDGET_LIBBUDGET_TESTING_TEST_FILES_H_
#define SLURM_BUDGET_LIBBUDGET_TESTING_TEST_FILES_H_

#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include "libbudget/testing/test_support.h"

namespace budget {
namespace testing {

// A new, empty directory /tmp/<prefix>.XXXXXX.
inline std::string MakeTempDir(const std::string& prefix) {
  std::string dir = "/tmp/" + prefix + ".XXXXXX";
  assert_non_null(mkdtemp(&dir[0]));
  return dir;
}

// `path` then holds exactly `bytes`.
inline void WriteWholeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  assert_true(out.good());
}

// What `path` holds; "" when it cannot be read.
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

}  // namespace testing
}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TESTING_TEST_FILES_H_
