// Rng: SplitMix64, a small, fully specified generator, so that a seed gives
// the same draws on every platform and standard library (the scenario
// generator, generator.h, and the family of mixes, family.h).
//
// Thread safety: one object per thread.
#ifndef SLURM_BUDGET_SIM_RNG_H_
#define SLURM_BUDGET_SIM_RNG_H_

#include <cmath>
#include <cstdint>

namespace budget {
namespace sim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1).
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) / 9007199254740992.0; }
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_RNG_H_
