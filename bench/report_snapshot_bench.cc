// bench report_snapshot_*: what priority/budget spends writing the sbudget
// report snapshot (report_snapshot.h) on the benchmark cluster's scale:
// 20,000 jobs (19,000 pending, 1,000 running) over 1,000 accounts (10
// programs x 100 accounts), a 7-day window of 5-minute buckets with usage
// and demand behind every account. As priority/budget does since report
// version 3, the snapshot lists the 1,000 running jobs and counts the
// pending ones per node.
//
//   bench report_snapshot_nodes: <ms> ms    BuildSnapshotNodes with the
//                                           history (owed/delivered per hour)
//   bench report_snapshot_rank: <ms> ms     RankSnapshotJobs (priorities of
//                                           the listed jobs)
//   bench report_snapshot_format: <ms> ms   FormatReportSnapshotInto (the
//                                           JSON, into a kept buffer)
//   bench report_snapshot_write: <ms> ms    WriteReportSnapshot (format into
//                                           a kept buffer, write, fsync,
//                                           rename)
//   bench report_snapshot_total_cpu: <ms> ms  CPU of nodes + rank + write
//   bench report_snapshot_bytes: <n> bytes  the file's size
//   bench report_snapshot_read_cpu: <ms> ms     ReadReportSnapshot of it
//                                               (what sbudget pays)
//   bench standings_snapshot_read_cpu: <ms> ms  ReadReportSnapshot of the
//                                               standings file written from
//                                               it (what sched/timeslice
//                                               pays inside slurmctld)
//
// Medians of kRounds rounds, wall time; the CPU total is the median of the
// thread's CPU time for the three steps. Format and write reuse one buffer
// each across the rounds, as priority/budget does from pass to pass, after
// a first untimed write that grows them (what is measured is the second
// write on, not the first one's allocation and page faults). Note: in this
// single-threaded program glibc's dynamic mmap threshold makes even a fresh
// multi-MB buffer per write cheap after the first; in slurmctld it was not
// (perf showed sysmalloc and page faults). To see that case, run with
// MALLOC_MMAP_THRESHOLD_=131072: a fresh 6 MB buffer then costs ~35 ms of
// CPU more per write than the kept one (measured on the 2-core CI machine).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_reader.h"
#include "libbudget/report/report_file.h"
#include "libbudget/report/report_format.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/state/tree.h"

namespace {

using bench::Median;
using bench::NextRandom;
using bench::ThreadCpuMs;

constexpr int kPrograms = 10;
constexpr int kAccountsPerProgram = 100;
constexpr int kJobs = 20000;
constexpr int kRunning = 1000;
constexpr int kRounds = 7;
constexpr double kCapacityGpus = 1000;
constexpr budget::Seconds kWeek = 7 * 86400;
constexpr budget::Seconds kBucket = 300;
constexpr budget::TimePoint kStart = 1700000000 / 3600 * 3600;

std::string AccountName(int program, int account) {
  char name[32];
  std::snprintf(name, sizeof name, "acct%04d", program * kAccountsPerProgram + account);
  return name;
}

std::string TreeJson() {
  std::string json = R"({"name":"cluster","owners":["director"],"children":[)";
  for (int p = 0; p < kPrograms; ++p) {
    json += (p ? "," : "") + std::string(R"({"name":"prog)") + std::to_string(p) +
            R"(","share":)" + std::to_string(p + 1) + R"(,"owners":["pi)" + std::to_string(p) +
            R"("],"children":[)";
    for (int a = 0; a < kAccountsPerProgram; ++a) {
      const std::string account = AccountName(p, a);
      json += (a ? "," : "") + std::string(R"({"name":")") + account + R"(","share":)" +
              std::to_string(a + 1) + R"(,"account":")" + account + "\"}";
    }
    json += "]}";
  }
  return json + "]}";
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int Fail(const budget::Status& s) {
  std::fprintf(stderr, "report_snapshot_bench: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main() {
  budget::AllocationTree tree;
  budget::Status s = budget::AllocationTree::Parse(TreeJson(), "bench", &tree, nullptr);
  if (!s.ok()) return Fail(s);
  std::vector<budget::NodeId> leaves;
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree.node(static_cast<budget::NodeId>(i)).children.empty()) {
      leaves.push_back(static_cast<budget::NodeId>(i));
    }
  }

  budget::Ledger::Options options;
  options.window = kWeek;
  options.bucket_width = kBucket;
  options.report_bucket_width = 3600;
  budget::Ledger ledger(options);
  uint64_t state = 1;
  constexpr budget::Seconds kStretch = 6 * 3600;
  for (budget::TimePoint t = kStart; t < kStart + kWeek; t += kStretch) {
    for (budget::NodeId leaf : leaves) {
      const std::string& path = tree.node(leaf).path;
      const double gpus = 0.05 + (NextRandom(&state) % 100) / 100.0;
      ledger.Charge(path, budget::Ledger::Series::kAllocated, t, t + kStretch, gpus);
      ledger.Charge(path, budget::Ledger::Series::kDemand, t, t + kStretch, 2 * gpus);
    }
  }
  const budget::TimePoint now = kStart + kWeek;

  std::vector<double> usage(tree.size()), demand(tree.size(), 0.0);
  for (size_t i = 0; i < tree.size(); ++i) {
    usage[i] = ledger.WindowUsage(tree.node(static_cast<budget::NodeId>(i)).path,
                                  budget::Ledger::Series::kAllocated, now);
  }
  std::vector<budget::SnapshotJob> jobs(kJobs);
  std::vector<budget::NodeActivity> activity(tree.size());
  for (int i = 0; i < kJobs; ++i) {
    budget::SnapshotJob& j = jobs[i];
    const budget::NodeId leaf = leaves[NextRandom(&state) % leaves.size()];
    j.job_id = static_cast<uint32_t>(i + 1);
    j.state = i < kRunning ? budget::SnapshotJobState::kRunning : budget::SnapshotJobState::kPending;
    j.user = "user" + std::to_string(NextRandom(&state) % 200);
    j.account = tree.node(leaf).account;
    j.node_path = tree.node(leaf).path;
    j.has_node = true;
    j.gpus = 1 + NextRandom(&state) % 8;
    j.contract_known = true;
    j.min_runtime = (NextRandom(&state) % 10 < 8) ? 3600 : 0;
    j.resumable = NextRandom(&state) % 2;
    j.user_priority = NextRandom(&state) % 100;
    j.submit_time = now - NextRandom(&state) % 86400;
    if (j.state == budget::SnapshotJobState::kRunning) {
      j.start_time = now - NextRandom(&state) % 7200;
      if (j.min_runtime > 0) j.protection_end = j.start_time + j.min_runtime;
      activity[leaf].running_gpus += j.gpus;
    } else {
      activity[leaf].pending_gpus += j.gpus;
      demand[leaf] += j.gpus;
    }
  }
  budget::FairShareOrder order;
  s = order.Compute(tree, usage, demand, kCapacityGpus, kWeek);
  if (!s.ok()) return Fail(s);

  char dir[] = "/tmp/report_snapshot_bench.XXXXXX";
  if (!mkdtemp(dir)) {
    std::perror("report_snapshot_bench: mkdtemp");
    return 1;
  }
  const std::string file = std::string(dir) + "/" + budget::kReportSnapshotFileName;

  const std::string standings_file = std::string(dir) + "/" + budget::kStandingsSnapshotFileName;
  std::vector<double> nodes_ms, rank_ms, format_ms, write_ms, cpu_ms, read_ms, standings_read_ms;
  std::string write_buffer, format_buffer, standings_buffer;
  for (int round = -1; round < kRounds; ++round) {
    budget::ReportSnapshot report;
    report.generated_at = now;
    report.window = kWeek;
    report.bucket_width = kBucket;
    report.capacity_gpus = kCapacityGpus;
    report.jobs.clear();
    for (const budget::SnapshotJob& j : jobs) {
      if (j.state == budget::SnapshotJobState::kRunning) report.jobs.push_back(j);
    }
    const double cpu_start = ThreadCpuMs();
    auto start = std::chrono::steady_clock::now();
    s = budget::BuildSnapshotNodes(tree, order, activity, now, &ledger, &report, /*history_max_depth=*/2);
    if (!s.ok()) return Fail(s);
    const double step_nodes_ms = MsSince(start);
    start = std::chrono::steady_clock::now();
    budget::RankSnapshotJobs(tree, order, &report.jobs);
    const double step_rank_ms = MsSince(start);
    start = std::chrono::steady_clock::now();
    s = budget::WriteReportSnapshot(report, file, &write_buffer);
    if (!s.ok()) return Fail(s);
    const double step_write_ms = MsSince(start);
    const double step_cpu_ms = ThreadCpuMs() - cpu_start;
    start = std::chrono::steady_clock::now();
    budget::FormatReportSnapshotInto(report, &format_buffer);
    const double step_format_ms = MsSince(start);
    s = budget::WriteStandingsSnapshot(report, standings_file, &standings_buffer);
    if (!s.ok()) return Fail(s);
    double read_start = ThreadCpuMs();
    budget::ReportSnapshot read;
    s = budget::ReadReportSnapshot(file, &read);
    if (!s.ok()) return Fail(s);
    const double step_read_ms = ThreadCpuMs() - read_start;
    read_start = ThreadCpuMs();
    s = budget::ReadReportSnapshot(standings_file, &read);
    if (!s.ok()) return Fail(s);
    const double step_standings_read_ms = ThreadCpuMs() - read_start;
    if (round < 0) continue;  // the untimed first write
    read_ms.push_back(step_read_ms);
    standings_read_ms.push_back(step_standings_read_ms);
    nodes_ms.push_back(step_nodes_ms);
    rank_ms.push_back(step_rank_ms);
    write_ms.push_back(step_write_ms);
    cpu_ms.push_back(step_cpu_ms);
    format_ms.push_back(step_format_ms);
  }
  const size_t bytes = format_buffer.size();
  unlink(file.c_str());
  unlink(standings_file.c_str());
  rmdir(dir);
  std::fprintf(stderr, "report_snapshot_bench: %zu jobs, %zu tree nodes, %.1f MB of JSON\n", jobs.size(),
               tree.size(), bytes / 1e6);
  std::printf("bench report_snapshot_nodes: %.1f ms\n", Median(nodes_ms));
  std::printf("bench report_snapshot_rank: %.1f ms\n", Median(rank_ms));
  std::printf("bench report_snapshot_format: %.1f ms\n", Median(format_ms));
  std::printf("bench report_snapshot_write: %.1f ms\n", Median(write_ms));
  std::printf("bench report_snapshot_total_cpu: %.1f ms\n", Median(cpu_ms));
  std::printf("bench report_snapshot_bytes: %zu bytes\n", bytes);
  std::printf("bench report_snapshot_read_cpu: %.1f ms\n", Median(read_ms));
  std::printf("bench standings_snapshot_read_cpu: %.1f ms\n", Median(standings_read_ms));
  return 0;
}
