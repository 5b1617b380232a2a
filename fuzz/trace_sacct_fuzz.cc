// Fuzz target: the simulator's sacct trace reader (budget-sim --format sacct);
// see fuzz/trace_fuzz.h.
#include "fuzz/trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzTrace(budget::sim::TraceFormat::kSacct, "history.sacct", data, size);
}
