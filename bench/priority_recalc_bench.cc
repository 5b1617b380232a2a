// bench priority_recalc_*: the CPU priority/budget's recalc thread spends
// per pass outside slurmctld's locks, on the controller benchmark's scale
// (priority_budget_bench.sh): 20,000 pending jobs over 1,000 accounts (10
// programs x 100 accounts), each asking 1 GPU with a 1-minute contract, a
// pass every 60 s, a 7-day window of 5-minute buckets.
//
// Each pass runs what RecalcThread::RunPass runs after its job snapshot, in
// the same order and through the same adapter functions (the snapshot and
// the apply need slurmctld; the live benchmark measures them):
//   charge   ChargeJobs (cursors, demand into the ledger)
//   compute  ComputePriorities (order + every pending job's priority)
//   save     SaveLedger (atomic write of the ledger file)
//   report   BuildReport + ReportFileWriter::Write (the sbudget snapshot
//            and sched/timeslice's standings)
// The job views are held as the plugin holds them between passes
// (job_view_cache.h: nodes resolved once), and each job's priority is the
// one the previous pass set, as Slurm would hold it.
//
//   bench priority_recalc_pass_cpu: <ms> ms          charge + compute
//   bench priority_recalc_save_cpu: <ms> ms          ledger save
//   bench priority_recalc_report_cpu: <ms> ms        report build + write
//   bench priority_recalc_report_build_cpu: <ms> ms  of which the build
//   bench priority_recalc_total_cpu: <ms> ms         all of one pass
//   bench priority_recalc_cold_*: the same, each pass after 64 MB of other
//                                 writes (the caches as a pass finds them
//                                 in slurmctld, a RecalcInterval later)
//
// Medians of the thread's CPU time over kPasses passes after kWarmup
// (CPU, not wall: the machine is shared; the write's fsync waits are not
// counted, as in the plugin's own per-pass log line).
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "libbudget/config/config.h"
#include "libbudget/policy/gpu_worth.h"
#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "libbudget/report/history_cache.h"
#include "libbudget/state/tree.h"
#include "priority_budget/job_view.h"
#include "priority_budget/job_view_cache.h"
#include "priority_budget/priority_pass.h"
#include "priority_budget/report_writer.h"
#include "priority_budget/usage_charging.h"

namespace {

using bench::Median;
using bench::ThreadCpuMs;

constexpr int kPrograms = 10;
constexpr int kAccountsPerProgram = 100;
constexpr int kJobs = 20000;
constexpr int kWarmup = 3;
constexpr int kPasses = 15;
constexpr double kCapacityGpus = 8;
constexpr budget::Seconds kPassInterval = 60;
constexpr budget::TimePoint kStart = 1700000000 / 3600 * 3600;

std::string AccountName(int n) {
  char name[32];
  std::snprintf(name, sizeof name, "acct%04d", n);
  return name;
}

// The live benchmark's tree: programs with shares 1..10, accounts 1..100.
std::string TreeJson() {
  std::string json = R"({"name":"cluster","children":[)";
  int n = 0;
  for (int p = 0; p < kPrograms; ++p) {
    json += (p ? "," : "") + std::string(R"({"name":"prog)") + std::to_string(p) + R"(","share":)" +
            std::to_string(p + 1) + R"(,"children":[)";
    for (int a = 0; a < kAccountsPerProgram; ++a, ++n) {
      json += (a ? "," : "") + std::string(R"({"name":")") + AccountName(n) + R"(","share":)" +
              std::to_string(a + 1) + R"(,"account":")" + AccountName(n) + "\"}";
    }
    json += "]}";
  }
  return json + "]}";
}

// What priority_budget_bench.sh submits: round-robin over the accounts.
std::vector<budget_prio::JobView> PendingJobs() {
  std::vector<budget_prio::JobView> jobs(kJobs);
  for (int i = 0; i < kJobs; ++i) {
    budget_prio::JobView& job = jobs[i];
    job.job_id = static_cast<uint32_t>(i + 1);
    job.account = AccountName(i % (kPrograms * kAccountsPerProgram));
    job.user = "root";
    job.phase = budget_prio::JobPhase::kPending;
    job.gpus = 1;
    job.submit_time = kStart - kJobs + i;
    job.priority = 1;
    job.has_contract = true;
    job.contract.min_runtime = 60;
    job.contract.declared = true;
  }
  return jobs;
}

int Fail(const budget::Status& s) {
  std::fprintf(stderr, "priority_recalc_bench: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main() {
  budget::AllocationTree parsed;
  budget::Status st = budget::AllocationTree::Parse(TreeJson(), "bench tree", &parsed, nullptr);
  if (!st.ok()) return Fail(st);
  // Shared as the plugin shares its tree with each pass's order.
  const auto shared_tree = std::make_shared<const budget::AllocationTree>(std::move(parsed));
  const budget::AllocationTree& tree = *shared_tree;
  budget::BudgetConfig config;
  config.recalc_interval = kPassInterval;
  // No GpuTypeWeights unless BENCH_GPU_WEIGHTS (e.g. "b200:2") sets some:
  // then every pending job demands its GPUs x the fleet's mean weight (one
  // 8-GPU B200 node, the capacity's).
  if (const char* weights = std::getenv("BENCH_GPU_WEIGHTS")) {
    st = budget::GpuTypeWeights::Parse(weights, &config.gpu_type_weights);
    if (!st.ok()) return Fail(st);
  }
  budget::FleetWorth fleet(&config.gpu_type_weights);
  fleet.AddNode(0, "gpu:b200:8(S:0-1)", kCapacityGpus);
  budget::Ledger::Options options;  // 7 days, 5-min buckets, 1-h report buckets
  budget::Ledger ledger(options);
  // The views as the plugin holds them between passes (job_view_cache.h):
  // built once, nodes resolved once for the tree.
  budget_prio::JobViewCache cache;
  cache.BeginPass({}, false);
  for (budget_prio::JobView& job : PendingJobs()) cache.Store(std::move(job), budget_prio::JobFingerprint());
  cache.EndPass();
  budget_prio::UserNames names;
  cache.Resolve(tree, 1, &names);
  std::vector<budget_prio::JobView>& jobs = cache.views();

  char dir_template[] = "/tmp/priority_recalc_bench.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) return Fail(budget::Status::IOError("mkdtemp failed"));
  const std::string ledger_file = std::string(dir) + "/ledger";
  const std::string report_file = std::string(dir) + "/" + budget::kReportSnapshotFileName;
  const std::string standings_file = std::string(dir) + "/" + budget::kStandingsSnapshotFileName;

  budget::ReportSnapshot report;  // kept between passes, as the plugin does
  budget::ReportFileWriter writer;  // kept between passes, as the plugin does
  budget::SubtreeHistoryCache history;
  // Cold passes: the controller runs a pass every RecalcInterval, and by
  // then its other threads have evicted the pass's memory from the caches.
  // Writing this buffer before a pass does the same.
  std::vector<char> evict(64u << 20);
  struct Medians {
    double pass, save, build, report, total;
  };
  budget::TimePoint last_pass = kStart - kPassInterval;
  int pass_number = 0;
  auto run = [&](bool cold, Medians* out) -> budget::Status {
    std::vector<double> pass_ms, save_ms, build_ms, report_ms, total_ms;
    for (int i = 0; i < kWarmup + kPasses; ++i, ++pass_number) {
      const budget::TimePoint now = kStart + pass_number * kPassInterval;
      if (cold) {
        for (size_t k = 0; k < evict.size(); k += 64) evict[k] = static_cast<char>(k + i);
      }
      const double t0 = ThreadCpuMs();
      budget_prio::ChargeJobs(jobs, tree, config, fleet, last_pass, now, &ledger);
      budget_prio::PassResult result;
      budget::Status st = budget_prio::ComputePriorities(shared_tree, config, jobs, kCapacityGpus, now, &ledger, &result);
      if (!st.ok()) return st;
      // What Slurm then holds, and the next pass's snapshot reads back (job
      // i has id i + 1).
      for (const auto& [job_id, priority] : result.priorities) jobs[job_id - 1].priority = priority;
      last_pass = now;
      const double t1 = ThreadCpuMs();
      st = budget::SaveLedger(ledger, ledger_file);
      if (!st.ok()) return st;
      const double t2 = ThreadCpuMs();
      st = budget_prio::BuildReport(result, jobs, kCapacityGpus, "bench", now, &ledger, &report, &history);
      const double t_built = ThreadCpuMs();
      if (st.ok()) st = writer.Write(report, report_file, standings_file, &history, budget_prio::kReportHistoryDepth);
      if (!st.ok()) return st;
      const double t3 = ThreadCpuMs();
      if (i < kWarmup) continue;
      pass_ms.push_back(t1 - t0);
      save_ms.push_back(t2 - t1);
      build_ms.push_back(t_built - t2);
      report_ms.push_back(t3 - t2);
      total_ms.push_back(t3 - t0);
    }
    *out = {Median(pass_ms), Median(save_ms), Median(build_ms), Median(report_ms), Median(total_ms)};
    return budget::Status::Ok();
  };
  Medians warm, cold;
  st = run(false, &warm);
  if (st.ok()) st = run(true, &cold);
  if (!st.ok()) return Fail(st);
  unlink(ledger_file.c_str());
  unlink(report_file.c_str());
  unlink(standings_file.c_str());
  rmdir(dir);
  const std::pair<const char*, Medians> runs[] = {{"priority_recalc", warm}, {"priority_recalc_cold", cold}};
  for (const auto& [prefix, m] : runs) {
    std::printf("bench %s_pass_cpu: %.2f ms\n", prefix, m.pass);
    std::printf("bench %s_save_cpu: %.2f ms\n", prefix, m.save);
    std::printf("bench %s_report_cpu: %.2f ms\n", prefix, m.report);
    std::printf("bench %s_report_build_cpu: %.2f ms\n", prefix, m.build);
    std::printf("bench %s_total_cpu: %.2f ms\n", prefix, m.total);
  }
  return 0;
}
