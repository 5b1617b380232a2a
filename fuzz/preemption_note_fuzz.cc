// Fuzz target: the notes the suite writes in a job's Comment, read by
// ParsePreemptionNote and ParseDrainNote (priority/budget, sched/timeslice,
// sbudget explain).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libbudget/preemption_note.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view comment(reinterpret_cast<const char*>(data), size);
  budget::PreemptionNote note;
  (void)budget::ParsePreemptionNote(comment, &note);
  budget::DrainNote drain;
  (void)budget::ParseDrainNote(comment, &drain);
  return 0;
}
