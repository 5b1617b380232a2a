#include "sim/run_metrics.h"

#include <algorithm>
#include <cmath>

namespace budget {
namespace sim {

namespace {
constexpr Seconds kHour = 3600;
// Ledger keys of the top-level teams: a Slurm account name never starts
// with '/', so these never meet an account's.
constexpr char kTopTeamPrefix[] = "/team/";

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(1, rank)) - 1];
}

void CopyService(const ServiceReport& r, TeamResult* team) {
  team->owed_gpu_hours = r.owed_gpu_seconds / 3600.0;
  team->delivered_gpu_hours = r.delivered_gpu_seconds / 3600.0;
  team->delivered_over_owed = r.delivered_over_owed;
  team->owed_delivered_fraction = r.owed_delivered_fraction;
}
}  // namespace

WaitStats ComputeWaitStats(std::vector<double>* values) {
  WaitStats w;
  std::sort(values->begin(), values->end());
  w.count = values->size();
  if (values->empty()) return w;
  w.p50 = Percentile(*values, 50);
  w.p90 = Percentile(*values, 90);
  w.p99 = Percentile(*values, 99);
  double sum = 0;
  for (double v : *values) sum += v;
  w.mean = sum / double(values->size());
  return w;
}

RunMetrics::RunMetrics(const Workload& workload, const AllocationTree& tree, uint64_t capacity,
                       TimePoint start, TimePoint end, const ClassThresholds& thresholds)
    : workload_(workload), tree_(tree), capacity_(capacity), start_(start), end_(end),
      thresholds_(thresholds), last_(start) {
  // Whole hours covering [start, end], plus one so that the hour holding
  // `end` and the one holding `start` are both retained.
  Seconds span = (end / kHour - start / kHour + 2) * kHour;
  Ledger::Options o;
  o.window = span;
  o.bucket_width = kHour;
  o.report_bucket_width = kHour;
  ledger_ = std::make_unique<Ledger>(o);
  size_t n = workload.accounts.size();
  delivered_rate_.assign(n, 0);
  demand_rate_.assign(n, 0);
  delivered_since_.assign(n, start);
  demand_since_.assign(n, start);
  free_rate_.assign(n, 0);
  free_since_.assign(n, start);
  waits_debug_by_account_.assign(n, {});
  top_team_key_.assign(n, "");
  for (size_t a = 0; a < n; ++a) {
    NodeId node = tree_.NodeFor(workload.accounts[a], "");
    if (node == kNoNode || node == 0) continue;
    while (tree_.node(node).parent != 0 && tree_.node(node).parent != kNoNode) node = tree_.node(node).parent;
    top_team_key_[a] = kTopTeamPrefix + tree_.node(node).name;
  }
}

RunMetrics::~RunMetrics() = default;

void RunMetrics::AdvanceTo(TimePoint now, uint64_t busy, uint64_t unallocated, double frag) {
  TimePoint t = std::min(std::max(now, start_), end_);
  if (t <= last_) return;
  double dt = double(t - last_);
  double free = double(capacity_ - std::min<uint64_t>(capacity_, busy));
  busy_seconds_ += double(busy) * dt;
  unallocated_seconds_ += double(unallocated) * dt;
  free_seconds_ += free * dt;
  stranded_seconds_ += frag * free * dt;
  last_ = t;
}

void RunMetrics::Charge(int32_t account, Ledger::Series series, TimePoint now, double* rate,
                        TimePoint* since, double delta) {
  TimePoint t = std::min(std::max(now, start_), end_);
  if (*rate > 0 && t > *since) {
    ledger_->Charge(workload_.accounts[account], series, *since, t, *rate);
    if (!top_team_key_[account].empty()) ledger_->Charge(top_team_key_[account], series, *since, t, *rate);
  }
  *since = std::max(*since, t);
  *rate += delta;
}

void RunMetrics::ChangeDelivered(int32_t account, TimePoint now, double delta, bool funded) {
  if (funded) {
    Charge(account, Ledger::Series::kAllocated, now, &delivered_rate_[account], &delivered_since_[account], delta);
  } else {
    Charge(account, Ledger::Series::kUnallocated, now, &free_rate_[account], &free_since_[account], delta);
  }
}

void RunMetrics::ChangeDemand(int32_t account, TimePoint now, double delta) {
  Charge(account, Ledger::Series::kDemand, now, &demand_rate_[account], &demand_since_[account],
         delta);
}

void RunMetrics::RecordWait(uint32_t job, Seconds wait) {
  const TraceJob& t = workload_.jobs[job];
  double w = double(wait);
  waits_all_.push_back(w);
  if (t.min_runtime > 0 && t.min_runtime <= thresholds_.debug_max_min_runtime &&
      t.gpus <= thresholds_.debug_max_gpus) {
    waits_debug_.push_back(w);
    waits_debug_by_account_[size_t(t.account)].push_back(w);
  }
  if (t.gpus >= thresholds_.hero_min_gpus) waits_hero_.push_back(w);
}

void RunMetrics::Finish(PolicyResult* out) {
  for (size_t a = 0; a < workload_.accounts.size(); ++a) {
    ChangeDelivered(int32_t(a), end_, 0, true);
    ChangeDelivered(int32_t(a), end_, 0, false);
    ChangeDemand(int32_t(a), end_, 0);
  }
  double period = double(end_ - start_);
  out->start = start_;
  out->end = end_;
  out->capacity = capacity_;
  out->occupancy = period > 0 ? busy_seconds_ / (double(capacity_) * period) : 0;
  out->unallocated_share = busy_seconds_ > 0 ? unallocated_seconds_ / busy_seconds_ : 0;
  out->fragmentation = free_seconds_ > 0 ? stranded_seconds_ / free_seconds_ : 0;
  out->stranded_of_all = period > 0 ? stranded_seconds_ / (double(capacity_) * period) : 0;
  out->preemptions = preemptions_;
  out->wait_all = ComputeWaitStats(&waits_all_);
  out->wait_debug = ComputeWaitStats(&waits_debug_);
  out->wait_hero = ComputeWaitStats(&waits_hero_);
  std::map<std::string, double> entitlements;
  std::map<std::string, size_t> index_of;
  for (size_t a = 0; a < workload_.accounts.size(); ++a) index_of[workload_.accounts[a]] = a;
  for (const std::string& account : workload_.accounts) {
    NodeId node = tree_.NodeFor(account, "");
    entitlements[account] = node == kNoNode ? 0.0 : tree_.node(node).entitlement;
  }
  std::map<std::string, ServiceReport> reports;
  Status st = MeasureServiceByPath(*ledger_, entitlements, double(capacity_), start_, end_, &reports);
  out->teams.clear();
  for (const auto& [account, entitlement] : entitlements) {
    TeamResult team;
    team.account = account;
    team.entitlement = entitlement;
    if (st.ok()) {
      CopyService(reports[account], &team);
      team.hours = reports[account].hours;
    }
    team.free_gpu_hours = ledger_->WindowUsage(account, Ledger::Series::kUnallocated, end_) / 3600.0;
    team.debug_wait = ComputeWaitStats(&waits_debug_by_account_[index_of[account]]);
    out->teams.push_back(std::move(team));
  }
  // The top-level teams, charged under their own keys.
  out->top_teams.clear();
  std::map<std::string, double> team_entitlements;
  for (NodeId child : tree_.node(0).children)
    team_entitlements[kTopTeamPrefix + tree_.node(child).name] = tree_.node(child).entitlement;
  std::map<std::string, ServiceReport> team_reports;
  Status team_st = MeasureServiceByPath(*ledger_, team_entitlements, double(capacity_), start_, end_, &team_reports);
  for (const auto& [key, entitlement] : team_entitlements) {
    TeamResult team;
    team.account = key.substr(sizeof kTopTeamPrefix - 1);
    team.entitlement = entitlement;
    if (team_st.ok()) CopyService(team_reports[key], &team);
    team.free_gpu_hours = ledger_->WindowUsage(key, Ledger::Series::kUnallocated, end_) / 3600.0;
    out->top_teams.push_back(std::move(team));
  }
}

}  // namespace sim
}  // namespace budget
