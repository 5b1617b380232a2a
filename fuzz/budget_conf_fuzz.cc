// Fuzz target: budget.conf, through ParseBudgetConfig, which LoadBudgetConfig
// (every plugin's init and reconfigure, sbudget, budget-sim) calls with the
// file's bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "libbudget/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  budget::BudgetConfig config;
  budget::Status st = budget::ParseBudgetConfig(text, "budget.conf", &config);
  if (!st.ok()) FUZZ_CHECK(!st.message().empty(), "a refused budget.conf says why");
  return 0;
}
