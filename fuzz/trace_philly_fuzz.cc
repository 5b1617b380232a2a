// Fuzz target: the simulator's philly trace reader (budget-sim --trace-format=philly);
// see fuzz/trace_fuzz.h.
#include "fuzz/trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzTrace(budget::sim::TraceFormat::kPhilly, "philly.csv", data, size);
}
