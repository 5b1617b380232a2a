#include "libbudget/state/metrics.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace budget {

namespace {

// Adds `history` point by point into `sums`; both start at the same hour.
void AddInto(const Ledger::History& history, std::vector<double>* sums) {
  const size_t n = std::min(history.gpu_seconds.size(), sums->size());
  for (size_t i = 0; i < n; ++i) (*sums)[i] += history.gpu_seconds[i];
}

double RatioOrOne(double numerator, double owed) {
  return owed > 0.0 ? numerator / owed : 1.0;
}

Status CheckInputs(const Ledger& ledger, const ServiceQuery& query,
                   double capacity_gpus, TimePoint from, TimePoint to) {
  if (!(query.entitlement >= 0.0 && query.entitlement <= 1.0)) {
    return Status::InvalidArgument("service metrics: entitlement " +
                                   std::to_string(query.entitlement) +
                                   " is not in [0, 1]");
  }
  if (!(capacity_gpus >= 0.0) || !std::isfinite(capacity_gpus)) {
    return Status::InvalidArgument("service metrics: capacity " +
                                   std::to_string(capacity_gpus) +
                                   " GPUs is negative or not finite");
  }
  if (from > to) {
    return Status::InvalidArgument("service metrics: period [" + std::to_string(from) +
                                   ", " + std::to_string(to) + ") ends before it starts");
  }
  const Seconds hour = ledger.options().report_bucket_width;
  if (from < -Ledger::kTimeLimit || to > Ledger::kTimeLimit ||
      (to - from) / hour >= static_cast<int64_t>(Ledger::kMaxHistoryPoints)) {
    return Status::InvalidArgument("service metrics: period [" + std::to_string(from) +
                                   ", " + std::to_string(to) + ") is too long");
  }
  std::set<std::string> seen;
  for (const std::string& path : query.paths) {
    if (!seen.insert(path).second) {
      return Status::InvalidArgument("service metrics: path '" + path +
                                     "' is listed twice");
    }
  }
  return Status::Ok();
}

}  // namespace

ServiceReport ServiceFromHourlySums(TimePoint start, Seconds hour,
                                    const std::vector<double>& demand,
                                    const std::vector<double>& delivered, double entitlement,
                                    double capacity_gpus) {
  const size_t hours = std::min(demand.size(), delivered.size());
  ServiceReport report;
  report.hour = hour;
  report.hours.resize(hours);
  double owed_and_delivered = 0.0;
  for (size_t i = 0; i < hours; ++i) {
    HourlyService& h = report.hours[i];
    h.start = start + static_cast<TimePoint>(i) * hour;
    h.demand_gpu_seconds = demand[i];
    h.owed_gpu_seconds = OwedInHour(demand[i], entitlement, capacity_gpus, hour);
    h.delivered_gpu_seconds = delivered[i];
    report.owed_gpu_seconds += h.owed_gpu_seconds;
    report.delivered_gpu_seconds += h.delivered_gpu_seconds;
    owed_and_delivered += std::min(h.owed_gpu_seconds, h.delivered_gpu_seconds);
  }
  report.delivered_over_owed =
      RatioOrOne(report.delivered_gpu_seconds, report.owed_gpu_seconds);
  report.owed_delivered_fraction = RatioOrOne(owed_and_delivered, report.owed_gpu_seconds);
  return report;
}

Status MeasureService(const Ledger& ledger, const ServiceQuery& query,
                      double capacity_gpus, TimePoint from, TimePoint to,
                      ServiceReport* out) {
  Status s = CheckInputs(ledger, query, capacity_gpus, from, to);
  if (!s.ok()) return s;

  const Seconds hour = ledger.options().report_bucket_width;
  // The history of a path that is not in the ledger is all zeros with the
  // right shape, so it also gives the hours of the period.
  const Ledger::History shape =
      ledger.SeriesHistory("", Ledger::Series::kDemand, from, to, hour);
  const size_t hours = shape.gpu_seconds.size();
  std::vector<double> demand(hours, 0.0);
  std::vector<double> delivered(hours, 0.0);
  for (const std::string& path : query.paths) {
    AddInto(ledger.SeriesHistory(path, Ledger::Series::kDemand, from, to, hour), &demand);
    AddInto(ledger.SeriesHistory(path, Ledger::Series::kAllocated, from, to, hour),
            &delivered);
  }

  *out = ServiceFromHourlySums(shape.start, hour, demand, delivered, query.entitlement,
                               capacity_gpus);
  return Status::Ok();
}

Status MeasureServiceByPath(const Ledger& ledger,
                            const std::map<std::string, double>& entitlements,
                            double capacity_gpus, TimePoint from, TimePoint to,
                            std::map<std::string, ServiceReport>* out) {
  std::map<std::string, ServiceReport> reports;
  for (const auto& entry : entitlements) {
    ServiceQuery query;
    query.paths.push_back(entry.first);
    query.entitlement = entry.second;
    Status s = MeasureService(ledger, query, capacity_gpus, from, to, &reports[entry.first]);
    if (!s.ok()) {
      return Status::InvalidArgument(s.message() + " (for path '" + entry.first + "')");
    }
  }
  *out = std::move(reports);
  return Status::Ok();
}

}  // namespace budget
