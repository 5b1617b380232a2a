// Scenario generator: constructed workloads for questions the historical
// traces cannot answer (a stream of debug jobs among multi-node training,
// hero jobs), seeded so that the same spec always gives the same jobs.
//
// Spec (JSON):
//   { "seed": 7, "start": 0, "days": 2,
//     "teams": [
//       { "account": "llm", "users": 4,
//         "streams": [
//           { "name": "training", "per_hour": 1.5,
//             "gpus": [16, 32, 64], "gpus_weights": [2, 2, 1],
//             "duration": { "dist": "lognormal", "median": 14400, "sigma": 0.8,
//                           "min": 600, "max": 172800 },
//             "min_runtime": 7200, "resumable": true, "priority": 1,
//             "unallocated_share": 0.1, "time_limit_factor": 1.5 } ] } ] }
// Arrivals of each stream are a Poisson process of rate per_hour over
// [start, start + days), or over its own window within it ("from_hour",
// "hours": a team idle, then submitting a burst); gpus is drawn from the list (uniformly, or by
// gpus_weights); duration from one of
//   fixed {value} | uniform {min,max} | exponential {mean[,min,max]} |
//   lognormal {median, sigma[,min,max]}          (seconds)
// A drawn job is unallocated work (min_runtime 0) with probability
// unallocated_share, otherwise it takes the stream's min_runtime. The user
// is drawn uniformly among "<account>-u<k>", k < users (default 1).
// A job's time limit is DeriveTimeLimit(duration, f) (workload.h), f the
// stream's time_limit_factor (a number >= 1), else the run's factor
// (--time-limit-factor); it draws nothing, so it leaves every draw as is.
// Every stream draws from its own generator seeded from (seed, team index,
// stream index), so adding a stream leaves the others' jobs unchanged.
//
// Thread safety: plain values.
#ifndef SLURM_BUDGET_SIM_GENERATOR_H_
#define SLURM_BUDGET_SIM_GENERATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/status.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

struct DurationDist {
  enum class Kind { kFixed, kUniform, kExponential, kLognormal };
  Kind kind = Kind::kFixed;
  double a = 3600;  // fixed value | uniform min | exponential mean | lognormal median
  double b = 0;     // uniform max | lognormal sigma
  double min = 1;   // clamp (not for fixed/uniform)
  double max = 1e9;
};

struct StreamSpec {
  std::string name;
  double per_hour = 1;
  std::vector<uint32_t> gpus = {1};
  std::vector<double> gpus_weights;  // empty: uniform
  DurationDist duration;
  Seconds min_runtime = 0;
  bool resumable = true;
  uint32_t priority = 0;
  double unallocated_share = 0;
  std::string gpu_type;  // the GPU type its jobs ask for; "" any
  // Unset: the factor GenerateWorkload is given.
  std::optional<double> time_limit_factor;
  // The stream submits only from start + from_hour hours, for `hours`
  // hours (unset: to the end of the scenario): a burst.
  double from_hour = 0;
  std::optional<double> hours;
};

struct TeamSpec {
  std::string account;
  uint32_t users = 1;
  std::vector<StreamSpec> streams;
};

struct ScenarioSpec {
  uint64_t seed = 1;
  TimePoint start = 0;
  double days = 1;
  std::vector<TeamSpec> teams;
};

// Parses a spec; errors name the JSON path ("spec.json: $.teams[0].streams[1].
// per_hour: must be a number >= 0").
Status ParseScenarioSpec(std::string_view json, const std::string& source, ScenarioSpec* out);
Status ParseScenarioFile(const std::string& file, ScenarioSpec* out);
// The spec as JSON that ParseScenarioSpec reads back to the same spec.
std::string FormatScenarioSpec(const ScenarioSpec& spec);

// Draws the workload (sorted and numbered). `time_limit_factor` (finite,
// >= 1) is that of the streams that set none: the run's --time-limit-factor.
// InvalidArgument if the spec is unusable (no teams, an empty gpus list,
// weights not matching, a factor below 1).
Status GenerateWorkload(const ScenarioSpec& spec, Workload* out,
                        double time_limit_factor = kDefaultTimeLimitFactor);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_GENERATOR_H_
