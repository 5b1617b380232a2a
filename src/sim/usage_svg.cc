#include "sim/usage_svg.h"

#include <algorithm>
#include <cmath>

#include "sim/svg_common.h"

namespace budget {
namespace sim {

namespace {

constexpr double kLeft = 50, kTop = 30, kWidth = 900, kHeight = 180, kGap = 50;
// Entitlement lines closer than this many pixels are drawn apart, this far.
constexpr double kCoincident = 1.5, kApart = 3;

// "6 h", "1 d".
std::string WindowLabel(Seconds window) {
  if (window % 86400 == 0) return std::to_string(window / 86400) + " d";
  return std::to_string(window / 3600) + " h";
}

// A team's smoothed share of the cluster, (x in [0, 1], share) per hour.
std::vector<std::pair<double, double>> Smoothed(const TeamResult& team, const PolicyResult& r, size_t hours_avg,
                                                double span) {
  std::vector<std::pair<double, double>> line;
  const auto& hours = team.hours;
  double window = 0;
  for (size_t h = 0; h < hours.size(); ++h) {
    window += hours[h].delivered_gpu_seconds;
    if (h >= hours_avg) window -= hours[h - hours_avg].delivered_gpu_seconds;
    double n = double(std::min(h + 1, hours_avg));
    double share = window / n / (3600.0 * double(std::max<uint64_t>(1, r.capacity)));
    double x = double(hours[h].start + 1800 - r.start) / span;
    line.emplace_back(std::min(1.0, std::max(0.0, x)), share);
  }
  return line;
}

// Vertical offsets of the teams' entitlement lines at pixel rows `y`: each
// group of lines within kCoincident of one another is spread kApart apart
// around its place, in team order.
std::vector<double> SpreadCoincident(const std::vector<double>& y) {
  std::vector<double> offset(y.size(), 0);
  for (size_t t = 0; t < y.size(); ++t) {
    size_t rank = 0, group = 0;
    for (size_t u = 0; u < y.size(); ++u) {
      if (std::fabs(y[u] - y[t]) >= kCoincident) continue;
      ++group;
      if (u < t) ++rank;
    }
    offset[t] = (double(rank) - double(group - 1) / 2) * kApart;
  }
  return offset;
}

// The time axis: round ticks of seconds, minutes, hours or days.
void TimeTicks(double span, double y, std::string* out) {
  struct Unit { double seconds; const char* name; };
  const Unit unit = span < 120 ? Unit{1, "s"} : span < 7200 ? Unit{60, "min"}
                  : span < 2 * 86400 ? Unit{3600, "h"} : Unit{86400, "d"};
  const double step = RoundStep(span / unit.seconds, 8);
  for (int k = 0; k * step * unit.seconds <= span * (1 + 1e-9); ++k) {
    double v = k * step;
    std::string label = k == 0 ? "0" : SvgNumber(v) + " " + unit.name;
    *out += "<text x=\"" + SvgNumber(kLeft + kWidth * v * unit.seconds / span) + "\" y=\"" + SvgNumber(y) +
            "\" text-anchor=\"middle\" font-size=\"10\">" + label + "</text>\n";
  }
}

}  // namespace

Seconds UsageAverageWindow(Seconds run) {
  static const Seconds kRound[] = {3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400};
  const double target = double(run) / 30;
  Seconds best = kRound[0];
  for (Seconds w : kRound) {
    if (target > 0 && std::fabs(std::log(double(w) / target)) < std::fabs(std::log(double(best) / target)))
      best = w;
  }
  return best;
}

std::string RenderUsageSvg(const std::vector<PolicyResult>& results, const Workload& w,
                           const AllocationTree& tree, Seconds average_window) {
  std::vector<std::string> colors = TeamColors(w, tree);
  // One time axis and one share axis for all panels.
  Seconds longest = 1;
  for (const PolicyResult& r : results) longest = std::max<Seconds>(longest, r.end - r.start);
  const double span = double(longest);
  const Seconds window = average_window > 0 ? std::max<Seconds>(3600, average_window / 3600 * 3600)
                                            : UsageAverageWindow(longest);
  const size_t hours_avg = size_t(window / 3600);
  std::vector<std::vector<std::vector<std::pair<double, double>>>> lines(results.size());
  double ymax = 0.05;
  for (size_t p = 0; p < results.size(); ++p) {
    for (const TeamResult& t : results[p].teams) {
      ymax = std::max(ymax, t.entitlement * 1.3);
      lines[p].push_back(Smoothed(t, results[p], hours_avg, span));
      for (const auto& point : lines[p].back()) ymax = std::max(ymax, point.second);
    }
  }
  // The top of the axis is the first round tick at or above the data.
  const double step = RoundStep(100 * std::min(1.0, ymax * 1.05), 8) / 100;
  const double top = std::ceil(std::min(1.0, ymax * 1.05) / step - 1e-9) * step;

  double total_h = kTop + results.size() * (kHeight + kGap) + 40;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + SvgNumber(kLeft + kWidth + 160) +
                    "\" height=\"" + SvgNumber(total_h) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                    "<text x=\"" + SvgNumber(kLeft) + "\" y=\"16\" font-size=\"14\">Delivered "
                    "share of the cluster per team (solid, " + WindowLabel(window) +
                    " average) against entitlement (dashed)</text>\n";
  for (size_t p = 0; p < results.size(); ++p) {
    const PolicyResult& r = results[p];
    double y0 = kTop + p * (kHeight + kGap) + 14;
    auto Y = [&](double v) { return y0 + kHeight - kHeight * std::min(v, top) / top; };
    out += "<text x=\"" + SvgNumber(kLeft) + "\" y=\"" + SvgNumber(y0 - 4) +
           "\" font-weight=\"bold\">" + XmlEscape(r.policy) + "</text>\n";
    out += "<rect x=\"" + SvgNumber(kLeft) + "\" y=\"" + SvgNumber(y0) + "\" width=\"" +
           SvgNumber(kWidth) + "\" height=\"" + SvgNumber(kHeight) +
           "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (int k = 0; k * step <= top * (1 + 1e-9); ++k) {
      out += "<text x=\"" + SvgNumber(kLeft - 4) + "\" y=\"" + SvgNumber(Y(k * step) + 4) +
             "\" text-anchor=\"end\" font-size=\"10\">" + SvgNumber(100 * k * step) + "%</text>\n";
    }
    TimeTicks(span, y0 + kHeight + 14, &out);
    std::vector<double> entitlement_y;
    for (const TeamResult& team : r.teams) entitlement_y.push_back(Y(team.entitlement));
    std::vector<double> offset = SpreadCoincident(entitlement_y);
    for (size_t t = 0; t < r.teams.size(); ++t) {
      const TeamResult& team = r.teams[t];
      size_t account = 0;
      while (account < w.accounts.size() && w.accounts[account] != team.account) ++account;
      const std::string& color = account < colors.size() ? colors[account] : "black";
      const std::string y = SvgNumber(entitlement_y[t] + offset[t]);
      out += "<line x1=\"" + SvgNumber(kLeft) + "\" x2=\"" + SvgNumber(kLeft + kWidth) + "\" y1=\"" + y +
             "\" y2=\"" + y + "\" stroke=\"" + color + "\" stroke-dasharray=\"5,4\"/>\n";
      std::string points;
      for (const auto& [x, v] : lines[p][t])
        points += SvgNumber(kLeft + kWidth * x) + "," + SvgNumber(Y(v)) + " ";
      out += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" + color + "\" points=\"" +
             points + "\"/>\n";
      if (p == 0)
        out += "<text x=\"" + SvgNumber(kLeft + kWidth + 10) + "\" y=\"" +
               SvgNumber(y0 + 12 + 14 * double(t)) + "\" fill=\"" + color + "\">" +
               XmlEscape(team.account) + " (" + SvgNumber(100 * team.entitlement) + "%)</text>\n";
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace sim
}  // namespace budget
