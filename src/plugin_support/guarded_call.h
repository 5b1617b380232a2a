// The plugins' entry points (init, fini, and every call Slurm makes into
// them) must let no C++ exception out into Slurm's C code: one escaping
// takes slurmctld down. GuardedCall is the one try/catch they share; the
// plugin says what to log, with its own prefix, through `report`, so that
// this header needs no Slurm header (Slurm's error() may be a macro).
//
// Thread safety: as `body` and `report`.
#ifndef SLURM_BUDGET_PLUGIN_SUPPORT_GUARDED_CALL_H_
#define SLURM_BUDGET_PLUGIN_SUPPORT_GUARDED_CALL_H_

#include <exception>
#include <memory>
#include <string>

namespace plugin_support {

// The message of the exception being handled: its what(), or "unknown
// exception" for one that is not a std::exception.
// REQUIRES: called inside a catch block.
inline std::string CurrentExceptionText() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

// Returns body(); if it throws, calls report(text) with the exception's
// CurrentExceptionText() (a const char*) and returns on_error instead.
// REQUIRES: report does not throw.
template <typename Result, typename Body, typename Report>
Result GuardedCall(Result on_error, Body&& body, Report&& report) {
  try {
    return body();
  } catch (...) {
    const std::string text = CurrentExceptionText();
    report(text.c_str());
    return on_error;
  }
}

// The same for a body that returns nothing.
template <typename Body, typename Report>
void GuardedRun(Body&& body, Report&& report) {
  GuardedCall(
      0,
      [&body] {
        body();
        return 0;
      },
      report);
}

// A plugin's worker thread at fini: Stop() (which joins it), then destroy
// it; nothing when there is none.
template <typename Thread>
void StopAndReset(std::unique_ptr<Thread>* thread) {
  if (*thread) (*thread)->Stop();
  thread->reset();
}

}  // namespace plugin_support

#endif  // SLURM_BUDGET_PLUGIN_SUPPORT_GUARDED_CALL_H_
