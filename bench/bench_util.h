// Helpers shared by the benchmarks: a deterministic random sequence (the
// same inputs in every run, so runs compare), the calling thread's CPU
// time, and the median of a set of samples.
#ifndef SLURM_BUDGET_BENCH_BENCH_UTIL_H_
#define SLURM_BUDGET_BENCH_BENCH_UTIL_H_

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace bench {

// A 64-bit linear congruential step; returns the high 32 bits.
inline uint32_t NextRandom(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<uint32_t>(*state >> 33);
}

// CPU time of the calling thread, in ms: on a shared 2-core machine the wall
// time of a step can be several times its CPU time.
inline double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// REQUIRES: !values.empty().
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace bench

#endif  // SLURM_BUDGET_BENCH_BENCH_UTIL_H_
