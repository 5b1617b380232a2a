// Family runs: every policy on every mix of a family (family.h), and each
// outcome as a distribution over the mixes (median, worst decile, worst
// mix), so that a policy is judged on any lab's workload.
//
// Per mix and policy (the run's horizon is the mix's length; jobs still
// waiting then count with their wait so far, run_metrics.h):
//   debug_p90   the largest of the teams' debug p90 waits (a team without
//               debug jobs has none)
//   worst_team  the smallest delivered/owed of the teams owed anything
//               (teams = the tree's leaf accounts; run_metrics.h owed)
//   mean_team   the mean delivered/owed of those teams
//   worst_top_team  the smallest delivered/owed of the root's children
//               owed anything (run_metrics.h top_teams): the teams the
//               cluster is split between, each with all its sub-teams
//   occupancy   busy GPU-seconds over capacity x horizon
//   hero_p90    p90 wait of the mix's hero jobs (mixes with heroes only)
// Worst decile: the nearest-rank 90th percentile of the mixes' values
// where higher is worse (waits), the 10th where lower is worse (ratios,
// occupancy). "budget wins against fairtree+qos" on a mix when its debug
// p90 is no higher and its worst team no lower, and one of the two
// strictly better.
//
// Thread safety: RunFamily runs mixes on `threads` threads; each run has
// its own workload, tree and policy objects, so results do not depend on
// the thread count.
#ifndef SLURM_BUDGET_SIM_FAMILY_RUN_H_
#define SLURM_BUDGET_SIM_FAMILY_RUN_H_

#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "sim/engine.h"
#include "sim/family.h"

namespace budget {
namespace sim {

struct MixPolicyOutcome {
  double debug_p90 = 0;
  std::string debug_p90_team;  // the team whose p90 it is
  double worst_team = 1;
  std::string worst_team_name;
  double mean_team = 1;
  double worst_top_team = 1;
  std::string worst_top_team_name;
  double occupancy = 0;
  double hero_p90 = 0;
  uint64_t heroes = 0;  // hero jobs that started or waited
  PolicyResult result;  // the whole run's figures, teams included
};

struct MixOutcome {
  Mix mix;
  uint64_t jobs = 0;
  std::vector<MixPolicyOutcome> policies;  // as FamilyOptions::policies
};

struct FamilyOptions {
  uint32_t count = 50;
  uint64_t seed = 1;
  std::vector<std::string> policies{"budget", "fairtree", "fairtree+qos", "priority", "fifo"};
  // The base of every run (the mix sets nodes, GPUs per node, the horizon
  // and the classes).
  EngineOptions engine;
  BudgetConfig config;
  uint32_t threads = 1;
};

// The engine options, tree and workload of one mix's runs.
Status PrepareMix(const Mix& mix, const EngineOptions& base, EngineOptions* engine, AllocationTree* tree,
                  Workload* workload);
// The figures of one run of a mix (the list above).
MixPolicyOutcome OutcomeOf(const PolicyResult& result);
Status RunMix(const Mix& mix, const FamilyOptions& options, MixOutcome* out);
Status RunFamily(const FamilySpec& spec, const FamilyOptions& options, std::vector<MixOutcome>* out);

struct Distribution {
  double median = 0, worst_decile = 0, worst = 0;
  uint32_t worst_mix = 0;  // the mix's index k
  uint64_t worst_seed = 0;
  uint32_t mixes = 0;      // mixes with a value
};

struct PolicySummary {
  std::string policy;
  Distribution debug_p90, worst_team, mean_team, worst_top_team, occupancy, hero_p90;
  // Of the mixes, where this policy beats fairtree+qos (above); < 0 when
  // fairtree+qos was not run, or for fairtree+qos itself.
  double wins_vs_fairtree_qos = -1;
};

std::vector<PolicySummary> Summarize(const std::vector<MixOutcome>& outcomes,
                                     const std::vector<std::string>& policies);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_FAMILY_RUN_H_
