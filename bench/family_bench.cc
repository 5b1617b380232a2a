// family_bench: every policy on the family of scenarios/family/family.json
// (50 mixes of seed 1 unless FAMILY_COUNT / FAMILY_SEED / FAMILY_THREADS
// say otherwise; src/sim/family.h), budget.conf's defaults. Prints the
// `bench family_*` lines of `budget` (doc/simulator.md, "A family of
// workloads"), the family's wall time, and the table of every policy.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/family_report.h"
#include "sim/family_run.h"

using namespace budget;
using namespace budget::sim;

namespace {

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string spec_file = argc > 1 ? argv[1] : std::string(SRCDIR) + "/../scenarios/family/family.json";
  FamilySpec spec;
  Status st = ParseFamilyFile(spec_file, &spec);
  if (!st.ok()) {
    std::fprintf(stderr, "family_bench: %s\n", st.message().c_str());
    return 1;
  }
  FamilyOptions options;
  options.count = uint32_t(EnvNumber("FAMILY_COUNT", 50));
  options.seed = EnvNumber("FAMILY_SEED", 1);
  options.threads = uint32_t(EnvNumber("FAMILY_THREADS", 2));
  auto start = std::chrono::steady_clock::now();
  std::vector<MixOutcome> outcomes;
  if (!(st = RunFamily(spec, options, &outcomes)).ok()) {
    std::fprintf(stderr, "family_bench: %s\n", st.message().c_str());
    return 1;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<PolicySummary> summaries = Summarize(outcomes, options.policies);
  std::fputs(FormatFamilyBench(summaries[0], options.count).c_str(), stdout);
  std::printf("bench family_wall: %.1f s (%u threads)\n", wall, options.threads);
  std::fputs(FormatFamilyTable(outcomes, summaries, options, spec.days).c_str(), stdout);
  return 0;
}
