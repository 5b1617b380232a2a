// What every fuzz target of fuzz/ shares: a check that aborts (so libFuzzer
// saves the input as a crash) when a property the code documents is broken.
// The sanitizers catch memory errors and undefined behaviour by themselves;
// FUZZ_CHECK is for the properties they cannot see, e.g. that what a writer
// writes its reader reads back.
#ifndef SLURM_BUDGET_FUZZ_FUZZ_CHECK_H_
#define SLURM_BUDGET_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                              \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__,       \
                   __LINE__, (what));                                       \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

#endif  // SLURM_BUDGET_FUZZ_FUZZ_CHECK_H_
