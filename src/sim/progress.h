// ProgressBar: a one-line bar on stderr for runs longer than a second; it
// stays silent for short runs and when stderr is not a terminal (logs and
// pipes get no carriage returns). Reads the wall clock (this is a tool, not
// the core).
#ifndef SLURM_BUDGET_SIM_PROGRESS_H_
#define SLURM_BUDGET_SIM_PROGRESS_H_

#include <chrono>
#include <string>

namespace budget {
namespace sim {

class ProgressBar {
 public:
  // enabled = false: never draws.
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();
  // fraction in [0, 1]; draws at most ~10 times a second, only after the
  // first second.
  void Update(double fraction);
  void Done();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_PROGRESS_H_
