// Fuzz target: the simulator's swf trace reader (budget-sim --trace-format=swf);
// see fuzz/trace_fuzz.h.
#include "fuzz/trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzTrace(budget::sim::TraceFormat::kSwf, "trace.swf", data, size);
}
