#include "sim/svg_common.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace budget {
namespace sim {

std::vector<std::string> TeamColors(const Workload& workload, const AllocationTree& tree) {
  // Program of each account: its ancestor at depth 1 (itself if at depth 1).
  std::vector<std::string> program(workload.accounts.size());
  std::map<std::string, std::vector<size_t>> members;
  for (size_t a = 0; a < workload.accounts.size(); ++a) {
    NodeId n = tree.NodeFor(workload.accounts[a], "");
    while (n != kNoNode && tree.node(n).depth > 1) n = tree.node(n).parent;
    program[a] = n == kNoNode ? std::string("(none)") : tree.node(n).name;
    members[program[a]].push_back(a);
  }
  std::vector<std::string> colors(workload.accounts.size());
  static const int kHues[] = {210, 25, 130, 280, 50, 340, 175, 95, 250, 0};
  size_t p = 0;
  for (const auto& [name, accounts] : members) {
    int hue = kHues[p % 10] + int(p / 10) * 17;
    for (size_t k = 0; k < accounts.size(); ++k) {
      double light = accounts.size() == 1 ? 50.0 : 32.0 + 40.0 * double(k) / double(accounts.size() - 1);
      char buf[48];
      std::snprintf(buf, sizeof buf, "hsl(%d,65%%,%.0f%%)", hue % 360, light);
      colors[accounts[k]] = buf;
    }
    ++p;
  }
  return colors;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

double RoundStep(double max, int max_intervals) {
  double step = std::pow(10.0, std::floor(std::log10(max / max_intervals)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      // A hair of tolerance: 0.3 / 0.1 is 2.9999999999999996 intervals.
      if (std::ceil(max / (m * step) - 1e-9) <= max_intervals) return m * step;
    }
    step *= 10;
  }
}

std::string SvgNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace sim
}  // namespace budget
