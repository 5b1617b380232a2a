// Service metrics: how much GPU time an allocation was owed and how much it
// got, hour by hour, from the ledger. Used by the report tool and the
// simulator ("teams got 98% of the GPU time owed to them").
//
// Definitions, per "hour" h (one report bucket of the ledger, normally
// 3600 s; in time-compressed setups whatever report_bucket_width is):
//   demand(h)    = kDemand GPU-seconds recorded in h: running and waiting
//                  ALLOCATED work (min-runtime > 0)
//   owed(h)      = min(entitlement x capacity x hour, demand(h))
//                  -- the allocation capped at the actual hourly demand:
//                  nobody is owed time they did not ask for, and free work
//                  (min-runtime 0) asks the allocation for nothing;
//   delivered(h) = kAllocated GPU-seconds recorded in h (the funded work's;
//                  free work's time is reported beside it, never in it)
// and over a period, summing the hours:
//   delivered_over_owed     = sum delivered / sum owed; it can exceed 1
//                             (a team that used idle GPUs beyond its share).
//   owed_delivered_fraction = sum min(delivered(h), owed(h)) / sum owed,
//                             in [0, 1]: the share of owed time actually
//                             delivered, where a surplus in one hour does
//                             not hide a shortfall in another.
// 0/0: when nothing was owed (sum owed == 0) both ratios are 1: everything
// owed was delivered. This keeps an idle team at 100%, not at "undefined".
//
// Which paths count. The ledger charges usage to the path it names only.
// To measure a subtree, the caller (who knows the tree) lists the node and
// all its descendants in ServiceQuery::paths; their demand and delivery are
// summed hour by hour BEFORE the cap is applied, so the cap is the node's
// entitlement against the subtree's whole demand.
//
// Period. [from, to) is widened to whole hours (from rounded down, to
// rounded up). Hours outside the ledger's window hold no data and count as
// 0 demand, 0 owed and 0 delivered, so a period should lie within the last
// window.
//
// Thread safety: reads the ledger only; callers serialise as for any
// Ledger access.
#ifndef SLURM_BUDGET_LIBBUDGET_METRICS_H_
#define SLURM_BUDGET_LIBBUDGET_METRICS_H_

#include <map>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

struct ServiceQuery {
  // Ledger paths whose usage counts (the node, or a subtree's nodes). Each
  // at most once.
  std::vector<std::string> paths;
  // The node's share of the whole cluster, in [0, 1] (product of
  // normalised shares along its path).
  double entitlement = 0.0;
};

struct HourlyService {
  TimePoint start = 0;  // the hour is [start, start + ServiceReport::hour)
  double demand_gpu_seconds = 0.0;
  double owed_gpu_seconds = 0.0;
  double delivered_gpu_seconds = 0.0;
};

struct ServiceReport {
  Seconds hour = 0;  // the ledger's report_bucket_width
  std::vector<HourlyService> hours;
  double owed_gpu_seconds = 0.0;
  double delivered_gpu_seconds = 0.0;
  double delivered_over_owed = 1.0;
  double owed_delivered_fraction = 1.0;
};

// Measures one allocation over [from, to) on a cluster of `capacity_gpus`
// GPUs. InvalidArgument (naming the bad input) if the entitlement is not in
// [0, 1], the capacity is negative or not finite, from > to, a path is
// listed twice, or the period spans more than Ledger::kMaxHistoryPoints
// hours; *out is then unchanged. from == to gives an empty report.
// REQUIRES: out != nullptr.
Status MeasureService(const Ledger& ledger, const ServiceQuery& query,
                      double capacity_gpus, TimePoint from, TimePoint to,
                      ServiceReport* out);

// owed(h) of the definitions above: min(entitlement x capacity x hour,
// demand(h)).
inline double OwedInHour(double demand_gpu_seconds, double entitlement, double capacity_gpus,
                         Seconds hour) {
  const double entitled = entitlement * capacity_gpus * static_cast<double>(hour);
  return entitled < demand_gpu_seconds ? entitled : demand_gpu_seconds;
}

// The same measure from hourly sums the caller already holds (e.g. every
// node of a tree, its subtree's demand and delivery summed in one reverse
// scan, as the report snapshot does): hour i starts at start + i x hour;
// demand[i] and delivered[i] are GPU-seconds. MeasureService is this over
// the ledger's series. Only the first min(demand.size(), delivered.size())
// hours count. REQUIRES: hour > 0.
ServiceReport ServiceFromHourlySums(TimePoint start, Seconds hour,
                                    const std::vector<double>& demand,
                                    const std::vector<double>& delivered, double entitlement,
                                    double capacity_gpus);

// Measures each path alone against its own entitlement (path ->
// entitlement), e.g. every leaf of the tree. Stops at the first error,
// which names the path; *out is then unchanged.
// REQUIRES: out != nullptr.
Status MeasureServiceByPath(const Ledger& ledger,
                            const std::map<std::string, double>& entitlements,
                            double capacity_gpus, TimePoint from, TimePoint to,
                            std::map<std::string, ServiceReport>* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_METRICS_H_
