#include "sim/usage_svg.h"

#include <algorithm>

#include "sim/report_table.h"
#include "sim/svg_common.h"

namespace budget {
namespace sim {

std::string RenderUsageSvg(const std::vector<PolicyResult>& results, const Workload& w,
                           const AllocationTree& tree, int smooth_hours) {
  const double left = 50, top = 30, width = 900, height = 180, gap = 50;
  std::vector<std::string> colors = TeamColors(w, tree);
  double total_h = top + results.size() * (height + gap) + 40;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    SvgNumber(left + width + 160) + "\" height=\"" + SvgNumber(total_h) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                    "<text x=\"" + SvgNumber(left) + "\" y=\"16\" font-size=\"14\">Delivered "
                    "share of the cluster per team (solid, " + std::to_string(smooth_hours) +
                    " h average) against entitlement (dashed)</text>\n";
  for (size_t p = 0; p < results.size(); ++p) {
    const PolicyResult& r = results[p];
    double y0 = top + p * (height + gap) + 14;
    double ymax = 0.05;
    for (const TeamResult& t : r.teams) ymax = std::max(ymax, t.entitlement * 1.3);
    double span = double(std::max<TimePoint>(1, r.end - r.start));
    // First pass: the largest smoothed value, so the axis fits.
    std::vector<std::vector<std::pair<double, double>>> lines(r.teams.size());
    for (size_t t = 0; t < r.teams.size(); ++t) {
      const auto& hours = r.teams[t].hours;
      double window = 0;
      for (size_t h = 0; h < hours.size(); ++h) {
        window += hours[h].delivered_gpu_seconds;
        if (h >= size_t(smooth_hours)) window -= hours[h - smooth_hours].delivered_gpu_seconds;
        double n = double(std::min(h + 1, size_t(smooth_hours)));
        double share = window / n / (3600.0 * double(std::max<uint64_t>(1, r.capacity)));
        double x = double(hours[h].start + 1800 - r.start) / span;
        lines[t].emplace_back(std::min(1.0, std::max(0.0, x)), share);
        ymax = std::max(ymax, share);
      }
    }
    ymax = std::min(1.0, ymax * 1.05);
    auto Y = [&](double v) { return y0 + height - height * std::min(v, ymax) / ymax; };
    out += "<text x=\"" + SvgNumber(left) + "\" y=\"" + SvgNumber(y0 - 4) +
           "\" font-weight=\"bold\">" + XmlEscape(r.policy) + "</text>\n";
    out += "<rect x=\"" + SvgNumber(left) + "\" y=\"" + SvgNumber(y0) + "\" width=\"" +
           SvgNumber(width) + "\" height=\"" + SvgNumber(height) +
           "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (int k = 0; k <= 4; ++k) {
      double v = ymax * k / 4;
      out += "<text x=\"" + SvgNumber(left - 4) + "\" y=\"" + SvgNumber(Y(v) + 4) +
             "\" text-anchor=\"end\" font-size=\"10\">" + SvgNumber(100 * v) + "%</text>\n";
      out += "<text x=\"" + SvgNumber(left + width * k / 4) + "\" y=\"" +
             SvgNumber(y0 + height + 14) + "\" text-anchor=\"middle\" font-size=\"10\">" +
             XmlEscape(HumanSeconds(span * k / 4)) + "</text>\n";
    }
    for (size_t t = 0; t < r.teams.size(); ++t) {
      const TeamResult& team = r.teams[t];
      size_t account = 0;
      while (account < w.accounts.size() && w.accounts[account] != team.account) ++account;
      const std::string& color = account < colors.size() ? colors[account] : "black";
      out += "<line x1=\"" + SvgNumber(left) + "\" x2=\"" + SvgNumber(left + width) +
             "\" y1=\"" + SvgNumber(Y(team.entitlement)) + "\" y2=\"" +
             SvgNumber(Y(team.entitlement)) + "\" stroke=\"" + color +
             "\" stroke-dasharray=\"5,4\"/>\n";
      std::string points;
      for (const auto& [x, v] : lines[t])
        points += SvgNumber(left + width * x) + "," + SvgNumber(Y(v)) + " ";
      out += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" + color + "\" points=\"" +
             points + "\"/>\n";
      if (p == 0)
        out += "<text x=\"" + SvgNumber(left + width + 10) + "\" y=\"" +
               SvgNumber(y0 + 12 + 14 * double(t)) + "\" fill=\"" + color + "\">" +
               XmlEscape(team.account) + "</text>\n";
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace sim
}  // namespace budget
