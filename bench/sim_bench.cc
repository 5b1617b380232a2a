// Speed of the simulator: a month of a 1,024-GPU cluster
// with 100,000 jobs under the budget policy, generated in-process by the
// seeded generator; then 10x the jobs over 10x the days on the same cluster
// (the same load, so the ratio shows how the cost per job grows: 10 is
// linear).
//
// Workload (per hour, shared evenly by 10 teams of unequal shares; ~2.5x
// the cluster's capacity in demand):
//   debug   80/h  1 GPU,    15 min, min-runtime 15 min
//   small   50/h  8 GPUs,   lognormal median 2 h,  min-runtime 1 h
//   medium   8/h  16|32 GPUs, lognormal median 4 h, min-runtime 2 h
//   large  0.6/h  64 GPUs,  lognormal median 8 h,  min-runtime 4 h
//   hero  0.05/h  128 GPUs, 12 h,                  min-runtime 4 h
// => ~139 jobs/h, ~100,000 jobs in 30 days.
#include <sys/resource.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/state/tree.h"
#include "sim/engine.h"
#include "sim/events_json.h"
#include "sim/generator.h"
#include "sim/output_file.h"
#include "sim/policy.h"

using namespace budget;
using namespace budget::sim;

namespace {

constexpr int kTeams = 10;

StreamSpec Stream(const char* name, double per_hour, std::vector<uint32_t> gpus,
                  DurationDist::Kind kind, double a, double b, Seconds min_runtime,
                  uint32_t priority) {
  StreamSpec s;
  s.name = name;
  s.per_hour = per_hour / kTeams;
  s.gpus = std::move(gpus);
  s.duration.kind = kind;
  s.duration.a = a;
  s.duration.b = b;
  s.duration.min = 600;
  s.duration.max = 3 * 86400;
  s.min_runtime = min_runtime;
  s.priority = priority;
  s.resumable = true;
  return s;
}

ScenarioSpec BenchSpec(double days) {
  using K = DurationDist::Kind;
  ScenarioSpec spec;
  spec.seed = 42;
  spec.days = days;
  for (int t = 0; t < kTeams; ++t) {
    TeamSpec team;
    team.account = "team" + std::to_string(t);
    team.users = 5;
    team.streams.push_back(Stream("debug", 80, {1}, K::kFixed, 900, 0, 900, 10));
    team.streams.push_back(Stream("small", 50, {8}, K::kLognormal, 7200, 0.8, 3600, 1));
    team.streams.push_back(Stream("medium", 8, {16, 32}, K::kLognormal, 14400, 0.8, 7200, 1));
    team.streams.push_back(Stream("large", 0.6, {64}, K::kLognormal, 28800, 0.5, 14400, 1));
    team.streams.push_back(Stream("hero", 0.05, {128}, K::kFixed, 43200, 0, 14400, 1));
    spec.teams.push_back(std::move(team));
  }
  return spec;
}

std::string BenchTree() {
  // Three programs of unequal size; teams of unequal shares within each.
  std::string s = "{\"name\":\"cluster\",\"children\":[";
  const char* programs[] = {"llm", "robotics", "science"};
  const int program_share[] = {50, 30, 20};
  int team = 0;
  for (int p = 0; p < 3; ++p) {
    if (p) s += ",";
    s += std::string("{\"name\":\"") + programs[p] + "\",\"share\":" +
         std::to_string(program_share[p]) + ",\"children\":[";
    int count = p == 0 ? 4 : 3;
    for (int k = 0; k < count; ++k, ++team) {
      if (k) s += ",";
      s += "{\"name\":\"team" + std::to_string(team) + "\",\"share\":" + std::to_string(k + 1) +
           ",\"account\":\"team" + std::to_string(team) + "\"}";
    }
    s += "]}";
  }
  return s + "]}";
}

double CpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Wall seconds of one run (the benchmark's figure); *cpu gets the CPU
// seconds, which do not depend on what else the machine runs.
double RunSeconds(const Workload& w, const AllocationTree& tree, double days, bool record,
                  RunOutput* out, double* cpu) {
  BudgetConfig config;
  EngineOptions options;
  options.nodes = 128;
  options.gpus_per_node = 8;
  options.until = TimePoint(days * 86400);
  options.record_timeline = record;
  std::unique_ptr<Policy> policy = MakePolicy("budget");
  auto start = std::chrono::steady_clock::now();
  double cpu_start = CpuSeconds();
  Status st = RunSimulation(w, tree, config, options, policy.get(), out);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *cpu = CpuSeconds() - cpu_start;
  if (!st.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n", st.message().c_str());
    return -1;
  }
  return s;
}

double PeakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

}  // namespace

// --month-only: the month alone. --events-json FILE: the month alone, and
// its every run written as budget-sim --events-json writes it, to check
// that a speed change leaves every decision as it was (cmp two files); the
// recording costs time, so that run's figures are not the benchmark's.
int main(int argc, char** argv) {
  bool month_only = false;
  std::string events_file;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--month-only") {
      month_only = true;
    } else if (arg == "--events-json" && i + 1 < argc) {
      events_file = argv[++i];
      month_only = true;
    } else {
      std::fprintf(stderr, "usage: sim_bench [--month-only] [--events-json FILE]\n");
      return 2;
    }
  }
  AllocationTree tree;
  Status st = AllocationTree::Parse(BenchTree(), "bench tree", &tree, nullptr);
  if (!st.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n", st.message().c_str());
    return 1;
  }
  Workload month;
  auto g0 = std::chrono::steady_clock::now();
  st = GenerateWorkload(BenchSpec(30), &month);
  double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  if (!st.ok()) return 1;
  RunOutput out;
  double one_cpu = 0, ten_cpu = 0;
  double one = RunSeconds(month, tree, 30, !events_file.empty(), &out, &one_cpu);
  if (one < 0) return 1;
  if (!events_file.empty()) {
    st = WriteTextFile(events_file,
                         FormatEventsJson(month, 128, 8, {EventsPolicy{"budget", &out.timeline}}));
    if (!st.ok()) {
      std::fprintf(stderr, "sim_bench: %s\n", st.message().c_str());
      return 1;
    }
  }
  std::printf("bench sim_30d_1024gpu_100k: %.2f s\n", one);
  std::printf("bench sim_30d_1024gpu_100k_cpu: %.2f s\n", one_cpu);
  std::printf("bench sim_30d_jobs: %zu jobs\n", month.jobs.size());
  std::printf("bench sim_30d_occupancy: %.1f %%\n", 100 * out.result.occupancy);
  std::printf("bench sim_generate_100k: %.2f s\n", gen);
  std::printf("bench sim_30d_rss: %.0f MB\n", PeakRssMb());
  std::fflush(stdout);
  if (month_only) return 0;

  Workload long_run;
  st = GenerateWorkload(BenchSpec(300), &long_run);
  if (!st.ok()) return 1;
  double ten = RunSeconds(long_run, tree, 300, false, &out, &ten_cpu);
  if (ten < 0) return 1;
  std::printf("bench sim_300d_1024gpu_1m: %.2f s\n", ten);
  std::printf("bench sim_300d_1024gpu_1m_cpu: %.2f s\n", ten_cpu);
  std::printf("bench sim_scaling_10x: %.2f\n", ten / one);
  std::printf("bench sim_scaling_10x_cpu: %.2f\n", ten_cpu / one_cpu);
  std::printf("bench sim_peak_rss: %.0f MB\n", PeakRssMb());
  return 0;
}
