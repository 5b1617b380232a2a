// Ledger benchmark at the size of the priority pass: 10,000 paths with a
// full 7-day window of 5-minute buckets (all three series charged), plus
// 100,000 job cursors.
//
// Prints:
//   bench ledger_window_query: <ns> ns      one WindowUsage, time advancing
//                                           (thread CPU time, so that other
//                                           work on the machine does not
//                                           inflate it)
//   bench ledger_rss_10k_paths: <MB> MB     peak RSS of the whole process
//   bench ledger_save_10k_paths: <ms> ms    SaveLedger (fsync included)
//   bench ledger_load_10k_paths: <ms> ms    LoadLedger
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/ledger_file.h"

namespace {

using budget::Ledger;
using Series = budget::Ledger::Series;
using Clock = std::chrono::steady_clock;

constexpr int kPaths = 10000;
constexpr uint32_t kJobs = 100000;
constexpr budget::TimePoint kWeek = 7 * 86400;

// Peak resident set size of this process, in MB (VmHWM).
double PeakRssMb() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  double mb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) mb = std::atof(line + 6) / 1024.0;
  }
  std::fclose(f);
  return mb;
}

double ThreadCpuNanos() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

int main() {
  Ledger ledger(Ledger::Options{});
  std::vector<std::string> paths;
  paths.reserve(kPaths);
  for (int i = 0; i < kPaths; ++i) {
    paths.push_back("program" + std::to_string(i / 100) + "/project" + std::to_string(i));
  }
  // A week of usage on every path, in every series, then passes every 30 s
  // for the last hour so buckets hold varied values.
  for (int i = 0; i < kPaths; ++i) {
    const double gpus = 1 + i % 16;
    ledger.Charge(paths[i], Series::kAllocated, 0, kWeek, gpus);
    ledger.Charge(paths[i], Series::kUnallocated, 0, kWeek, gpus / 4);
    ledger.Charge(paths[i], Series::kDemand, 0, kWeek, gpus * 2);
  }
  for (uint32_t job = 0; job < kJobs; ++job) ledger.SetChargedUntil(job, kWeek);

  // Queries as the priority pass makes them: every path, at a `now` that
  // advances by one 30-second recalc interval per round, so buckets expire
  // as they would in production.
  constexpr int kRounds = 200;
  double checksum = 0;
  const double query_start = ThreadCpuNanos();
  for (int round = 0; round < kRounds; ++round) {
    const budget::TimePoint now = kWeek + 30 * round;
    for (const std::string& path : paths) {
      checksum += ledger.WindowUsage(path, Series::kAllocated, now);
    }
  }
  const double query_ns = (ThreadCpuNanos() - query_start) / (double(kRounds) * kPaths);

  const double rss = PeakRssMb();

  char dir[] = "/tmp/ledger_bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    std::perror("ledger_bench: mkdtemp");
    return 1;
  }
  const std::string file = std::string(dir) + "/ledger";
  const Clock::time_point save_start = Clock::now();
  budget::Status s = budget::SaveLedger(ledger, file);
  const double save_ms = MillisSince(save_start);
  if (!s.ok()) {
    std::fprintf(stderr, "ledger_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  Ledger loaded(Ledger::Options{});
  const Clock::time_point load_start = Clock::now();
  s = budget::LoadLedger(file, &loaded);
  const double load_ms = MillisSince(load_start);
  std::remove(file.c_str());
  ::rmdir(dir);
  if (!s.ok() || loaded.path_count() != static_cast<size_t>(kPaths)) {
    std::fprintf(stderr, "ledger_bench: reload failed: %s\n", s.ToString().c_str());
    return 1;
  }

  std::printf("bench ledger_window_query: %.1f ns\n", query_ns);
  std::printf("bench ledger_rss_10k_paths: %.1f MB\n", rss);
  std::printf("bench ledger_save_10k_paths: %.1f ms\n", save_ms);
  std::printf("bench ledger_load_10k_paths: %.1f ms\n", load_ms);
  // Keeps the queries from being optimised away; not a figure.
  if (checksum < 0) std::printf("%f\n", checksum);
  return 0;
}
