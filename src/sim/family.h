// Family of workloads: the ranges a lab's mix may fall in, and the seeded
// draw of one mix from them, so that a policy is judged on many labs'
// workloads (median, worst decile, worst mix) instead of one tuned scenario
// (doc/simulator.md, "A family of workloads").
//
// Spec (JSON; every key optional, the defaults below; a range is [min, max]):
//   { "days": 7,                      length of each mix, and the run's horizon
//     "nodes": [16, 128],             8-GPU nodes (gpus_per_node)
//     "gpus_per_node": 8,
//     "teams": [3, 12],               teams, each with 1..sub_teams[1] sub-teams
//     "sub_teams": [1, 3],            (the tree's leaves, one account each)
//     "entitlement": [0.01, 0.5],     each team's share of the cluster, skewed
//     "demand": [1.5, 4],             submitted work over capacity x days
//     "debug_gpus": [1, 2, 4, 8],     sizes of the debug streams
//     "debug_per_hour": [1, 6],       a team's debug jobs per hour
//     "interactive_probability": 0.5, a team has interactive sessions
//     "interactive_min_runtime": [3600, 28800],  protected up to MaxMinRuntime
//     "training_gpus": [8, 64],       training sizes: powers of 2 in the range
//     "training_min_runtime": [1800, 28800],
//     "hero_probability": 0.5,        a mix has a hero stream (one team's)
//     "hero_share": [0.25, 0.5],      a hero's GPUs over the cluster's
//     "free_share": [0, 0.6],         free work (min-runtime 0), of a team's training
//     "burst_probability": 0.25,      a team is idle, then submits a week's work
//     "burst_hours": [4, 12] }        within this many hours
// Each team's share of the submitted work is its entitlement times a
// lognormal factor (sigma 0.8), so some teams ask for more than their share
// (over-served under any fair policy) and some for less; every team has a
// debug stream, over-served and under-served alike.
//
// Mix k of a family run with seed S is drawn from its own generator, seeded
// by MixSeed(S, k); the mix's scenario (generator.h) and tree are values
// that `--dump-mix` writes, so that any mix can be replayed alone.
//
// Thread safety: plain values and functions.
#ifndef SLURM_BUDGET_SIM_FAMILY_H_
#define SLURM_BUDGET_SIM_FAMILY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/status.h"
#include "sim/generator.h"
#include "sim/run_metrics.h"

namespace budget {
namespace sim {

struct Range {
  double min = 0, max = 0;
};

struct FamilySpec {
  double days = 7;
  Range nodes{16, 128};
  uint32_t gpus_per_node = 8;
  Range teams{3, 12};
  Range sub_teams{1, 3};
  Range entitlement{0.01, 0.5};
  Range demand{1.5, 4};
  std::vector<uint32_t> debug_gpus{1, 2, 4, 8};
  Range debug_per_hour{1, 6};
  double interactive_probability = 0.5;
  Range interactive_min_runtime{3600, 28800};
  Range training_gpus{8, 64};
  Range training_min_runtime{1800, 28800};
  double hero_probability = 0.5;
  Range hero_share{0.25, 0.5};
  Range free_share{0, 0.6};
  double burst_probability = 0.25;
  Range burst_hours{4, 12};
};

// Errors name the JSON path ("family.json: $.nodes: must be [min, max]
// with 1 <= min <= max").
Status ParseFamilySpec(std::string_view json, const std::string& source, FamilySpec* out);
Status ParseFamilyFile(const std::string& file, FamilySpec* out);

// One lab's mix: its cluster, tree and scenario.
struct Mix {
  uint32_t index = 0;  // k
  uint64_t seed = 0;   // MixSeed(family seed, k): the scenario's seed
  uint32_t nodes = 0, gpus_per_node = 8;
  std::string tree_json;
  ScenarioSpec scenario;
  // The run's classes: debug as the defaults; hero = the mix's hero size
  // (no hero stream: no job is a hero).
  ClassThresholds thresholds;
  double demand = 0;         // drawn: submitted work over capacity x days
  uint32_t hero_gpus = 0;    // 0: none
  std::vector<std::string> bursting;  // accounts whose training is a burst
};

uint64_t MixSeed(uint64_t family_seed, uint32_t k);

// Draws mix k of the family run with seed `family_seed`.
Mix DrawMix(const FamilySpec& spec, uint64_t family_seed, uint32_t k);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FAMILY_H_
