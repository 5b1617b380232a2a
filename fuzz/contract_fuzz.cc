// Fuzz target: the job contract. The input is split at its first NUL into
//   an AdminComment, read by ParseContractRecord (job_submit/contract,
//   priority/budget, sched/timeslice, select/topo, sbudget) and rewritten by
//   ReplaceContractRecord (job_submit/contract), and
//   a --min-runtime text, read by ParseMinRuntimeOption (spank/contract in
//   srun) and ValidateContract (job_submit/contract at submission).
// Properties: a record read back from FormatContractRecord is the same
// contract, and the comment ReplaceContractRecord writes holds the contract
// it was given.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "libbudget/config/config.h"
#include "libbudget/policy/job_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view comment = input.substr(0, nul);
  const std::string option(nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1));

  budget::JobContract contract;
  if (budget::ParseContractRecord(comment, &contract)) {
    budget::JobContract back;
    FUZZ_CHECK(budget::ParseContractRecord(budget::FormatContractRecord(contract), &back) &&
                   back == contract,
               "ParseContractRecord(FormatContractRecord(c)) == c");
  }
  const budget::JobContract given{3600, true, true};
  const std::string replaced = budget::ReplaceContractRecord(comment, given);
  budget::JobContract read;
  FUZZ_CHECK(budget::ParseContractRecord(replaced, &read) && read == given,
             "ReplaceContractRecord's comment holds the contract it was given");

  budget::Seconds seconds = 0;
  (void)budget::ParseMinRuntimeOption(option, &seconds);
  const budget::BudgetConfig config;
  for (const budget::Seconds time_limit : {budget::Seconds{-1}, budget::Seconds{7200}}) {
    budget::JobContract validated;
    (void)budget::ValidateContract(option.c_str(), (size & 1) != 0, time_limit, config, &validated);
  }
  (void)budget::ValidateContract(nullptr, false, -1, config, &contract);
  return 0;
}
