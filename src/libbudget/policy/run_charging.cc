// Run charging: see run_charging.h for the rules.
#include "libbudget/policy/run_charging.h"

#include <algorithm>

namespace budget {

bool IsAllocatedWork(bool has_contract, const JobContract& contract, const BudgetConfig& config) {
  return has_contract ? contract.min_runtime > 0 : config.default_min_runtime > 0;
}

double ChargeRun(uint32_t job_id, const std::string& path, Ledger::Series occupancy, TimePoint start,
                 TimePoint until, double rate, Ledger* ledger) {
  const TimePoint from = std::max(start, ledger->ChargedUntil(job_id));
  double allocated = 0;
  if (occupancy == Ledger::Series::kAllocated && until > from) allocated = rate * static_cast<double>(until - from);
  ledger->ChargeRunningJob(job_id, path, occupancy, start, until, rate);
  // ChargeRunningJob ignores jobs without GPUs; their cursor must still move.
  ledger->SetChargedUntil(job_id, until);
  return allocated;
}

Ledger::Options LedgerOptionsFor(const BudgetConfig& config) {
  Ledger::Options options;
  options.window = config.lookback_window;
  options.bucket_width = config.ledger_bucket;
  options.report_bucket_width = (config.lookback_window % 3600 == 0 && 3600 % config.ledger_bucket == 0)
                                    ? 3600
                                    : config.ledger_bucket;
  return options;
}

}  // namespace budget
