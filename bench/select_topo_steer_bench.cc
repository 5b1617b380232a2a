// The core work select/topo adds to one job_test in slurmctld, on a large
// cluster: 1,250 nodes x 8 GPUs (partly used), 10,000 running jobs.
//   bench select_topo_choose: best-fit ChooseNodes for a 2-GPU job
//   bench select_topo_hero_plan: PlanHero for a 16-node whole-node job
//   bench select_topo_summary: SummarizePacking (fragmentation + per node)
// The hero plan runs at most once a second; ChooseNodes once per job tried.
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "libbudget/policy/packing_state.h"

namespace {

constexpr int kNodes = 1250;
constexpr int kRunningJobs = 10000;
constexpr int kGroups = 40;
constexpr budget::TimePoint kNow = 1700000000;

template <typename F>
double MicrosPerCall(int calls, F&& f) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / calls;
}

}  // namespace

int main() {
  std::mt19937 rng(42);
  std::vector<budget::NodeState> nodes(kNodes);
  std::vector<std::string> names(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    nodes[i].index = i;
    nodes[i].free_gpus = rng() % 9;  // 0..8
    nodes[i].group = i % kGroups;
    names[i] = "gpu" + std::to_string(i);
  }
  std::vector<budget::RunningJob> running(kRunningJobs);
  for (int j = 0; j < kRunningJobs; ++j) {
    budget::RunningJob& job = running[j];
    job.job_id = uint32_t(j + 1);
    job.nodes.push_back(budget::NodeGpus{int32_t(rng() % kNodes), uint32_t(1 + rng() % 8)});
    job.start = kNow - budget::Seconds(rng() % 36000);
    job.min_runtime = budget::Seconds(rng() % 4) * 900;
    job.time_limit = 86400;
    job.priority = rng() % 100000;
  }

  budget::NodeChoice choice;
  double choose = MicrosPerCall(2000, [&] {
    choice = budget::NodeChoice{};
    budget::ChooseNodes(nodes, budget::GpuRequest{1, 2}, &choice);
  });
  budget::HeroPlan plan;
  budget::HeroCandidate hero{7, budget::GpuRequest{16, 8}, kNow - 3600};
  double hero_plan = MicrosPerCall(200, [&] { budget::PlanHero(nodes, running, hero, 1800, kNow, &plan); });
  double summary = MicrosPerCall(500, [&] { budget::SummarizePacking(nodes, names, kNow); });
  if (!choice.feasible || !plan.active) {
    std::fprintf(stderr, "select_topo_steer_bench: unexpected result (feasible %d, hero %d)\n", choice.feasible,
                 plan.active);
    return 1;
  }
  std::printf("bench select_topo_choose: %.1f us\n", choose);
  std::printf("bench select_topo_hero_plan: %.1f us\n", hero_plan);
  std::printf("bench select_topo_summary: %.1f us\n", summary);
  return 0;
}
