#include "sim/progress.h"

#include <unistd.h>

#include <cstdio>

namespace budget {
namespace sim {

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled && isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressBar::~ProgressBar() { Done(); }

void ProgressBar::Update(double fraction) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && fraction < 1.0) return;
  last_ = now;
  drawn_ = true;
  if (fraction < 0) fraction = 0;
  if (fraction > 1) fraction = 1;
  const int width = 40;
  int filled = int(fraction * width + 0.5);
  std::string bar(size_t(filled), '#');
  bar.resize(width, '.');
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r%-10s [%s] %3.0f%% %.1f s", label_.c_str(), bar.c_str(), 100 * fraction,
               elapsed);
  std::fflush(stderr);
}

void ProgressBar::Done() {
  if (drawn_) {
    std::fprintf(stderr, "\n");
    drawn_ = false;
  }
  enabled_ = false;
}

}  // namespace sim
}  // namespace budget
