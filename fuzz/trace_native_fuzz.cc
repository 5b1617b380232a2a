// Fuzz target: the simulator's native trace reader (budget-sim --trace-format=native);
// see fuzz/trace_fuzz.h.
#include "fuzz/trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzTrace(budget::sim::TraceFormat::kNative, "trace.csv", data, size);
}
