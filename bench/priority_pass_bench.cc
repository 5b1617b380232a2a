// bench priority_pass: one full recompute of the fair-share order and of the
// priorities of 100,000 pending jobs over a 10,000-leaf tree, with a 7-day
// window of 5-minute buckets of allocated usage behind every leaf.
//
// Setup (not timed): a tree of 10 programs x 10 projects x 100 leaves
// (10,111 nodes, every leaf an account) with uneven shares; a Ledger
// (7 days, 5-min buckets) charged with a week of usage for every leaf (one
// varying charge per leaf and 6-hour stretch, spread over all 2016
// buckets); 100,000 pending jobs on random leaves, 70% allocated, user
// priorities 0..99.
//
// One pass (timed), as the priority plugin does it every interval:
//   1. read each node's direct window usage from the ledger, 5 min later
//      than the previous pass (so the ledger expires one bucket per path);
//   2. demand per node from the pending jobs;
//   3. FairShareOrder::Compute (subtree sums, sibling ranking, ranks);
//   4. the 32-bit priority of every job, and the full job order (sort).
// Prints the median wall time of kPasses passes and the process's peak RSS
// (which includes the ledger's ~80 MB of buckets). The median CPU time of
// the pass goes to stderr: on a 2-core machine shared with parallel builds
// the wall time can be several times the CPU time.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/state/tree.h"

namespace {

using bench::Median;
using bench::NextRandom;
using bench::ThreadCpuMs;

constexpr int kPrograms = 10;
constexpr int kProjects = 10;
constexpr int kLeaves = 100;
constexpr int kJobs = 100000;
constexpr int kPasses = 21;
constexpr double kCapacityGpus = 8000;
constexpr budget::Seconds kWeek = 7 * 86400;
constexpr budget::Seconds kBucket = 300;
constexpr budget::TimePoint kStart = 1700000000 / kBucket * kBucket;

std::string TreeJson() {
  std::string json = R"({"name":"cluster","owners":["director"],"children":[)";
  for (int p = 0; p < kPrograms; ++p) {
    json += (p ? "," : "") + std::string(R"({"name":"p)") + std::to_string(p) +
            R"(","share":)" + std::to_string(p + 1) + R"(,"children":[)";
    for (int j = 0; j < kProjects; ++j) {
      json += (j ? "," : "") + std::string(R"({"name":"j)") + std::to_string(j) +
              R"(","share":)" + std::to_string(10 + j) + R"(,"children":[)";
      for (int l = 0; l < kLeaves; ++l) {
        const std::string account =
            "a" + std::to_string(p) + "_" + std::to_string(j) + "_" + std::to_string(l);
        json += (l ? "," : "") + std::string(R"({"name":"l)") + std::to_string(l) +
                R"(","share":)" + std::to_string(1 + l % 7) + R"(,"account":")" + account +
                "\"}";
      }
      json += "]}";
    }
    json += "]}";
  }
  return json + "]}";
}

double PeakRssMb() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux.
}

}  // namespace

int main() {
  budget::AllocationTree tree;
  budget::Status s = budget::AllocationTree::Parse(TreeJson(), "bench", &tree, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "priority_pass: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<budget::NodeId> leaves;
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree.node(static_cast<budget::NodeId>(i)).children.empty()) {
      leaves.push_back(static_cast<budget::NodeId>(i));
    }
  }

  budget::Ledger::Options options;
  options.window = kWeek;
  options.bucket_width = kBucket;
  budget::Ledger ledger(options);
  uint64_t state = 1;
  constexpr budget::Seconds kStretch = 6 * 3600;
  for (budget::TimePoint t = kStart; t < kStart + kWeek; t += kStretch) {
    for (budget::NodeId leaf : leaves) {
      const double gpus = 0.05 + (NextRandom(&state) % 100) / 100.0;
      ledger.Charge(tree.node(leaf).path, budget::Ledger::Series::kAllocated, t, t + kStretch,
                    gpus);
    }
  }
  budget::TimePoint now = kStart + kWeek;

  std::vector<budget::PendingJob> jobs(kJobs);
  for (int i = 0; i < kJobs; ++i) {
    budget::PendingJob& job = jobs[i];
    job.job_id = static_cast<uint32_t>(i + 1);
    job.node = leaves[NextRandom(&state) % leaves.size()];
    job.allocated = NextRandom(&state) % 10 < 7;
    job.user_priority = NextRandom(&state) % 100;
    job.submit_time = now - NextRandom(&state) % 86400;
  }

  budget::FairShareOrder order;
  std::vector<double> usage(tree.size());
  std::vector<double> demand(tree.size());
  std::vector<uint32_t> priorities(jobs.size());
  std::vector<budget::PendingJob> queue;
  std::vector<double> pass_ms, pass_cpu_ms;
  uint64_t checksum = 0;  // Keeps the optimizer from dropping the work.
  for (int pass = 0; pass < kPasses; ++pass) {
    queue = jobs;  // Unsorted again, as a fresh queue would be.
    now += kBucket;
    const auto begin = std::chrono::steady_clock::now();
    const double cpu_begin = ThreadCpuMs();
    for (size_t i = 0; i < tree.size(); ++i) {
      usage[i] = ledger.WindowUsage(tree.node(static_cast<budget::NodeId>(i)).path,
                                    budget::Ledger::Series::kAllocated, now);
    }
    std::fill(demand.begin(), demand.end(), 0.0);
    for (const budget::PendingJob& job : queue) demand[job.node] += 1;
    s = order.Compute(tree, usage, demand, kCapacityGpus, kWeek);
    if (!s.ok()) {
      std::fprintf(stderr, "priority_pass: %s\n", s.message().c_str());
      return 1;
    }
    for (size_t i = 0; i < queue.size(); ++i) priorities[i] = order.Priority(queue[i]);
    order.SortJobs(&queue);
    const auto end = std::chrono::steady_clock::now();
    pass_cpu_ms.push_back(ThreadCpuMs() - cpu_begin);
    pass_ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    checksum += priorities[pass] + queue.front().job_id;
  }
  if (checksum == 0) std::fprintf(stderr, "priority_pass: unexpected checksum\n");
  std::fprintf(stderr, "priority_pass: median CPU time %.1f ms per pass\n", Median(pass_cpu_ms));
  std::printf("bench priority_pass: %.1f ms\n", Median(pass_ms));
  std::printf("bench priority_pass_rss: %.0f MB\n", PeakRssMb());
  return 0;
}
