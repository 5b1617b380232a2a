// sbudget history (history_chart.h).
#include "sbudget/history_chart.h"

#include <algorithm>
#include <cstdio>

#include "libbudget/time_string.h"
#include "sbudget/report_table.h"

namespace sbudget {

using budget::SnapshotHistory;

namespace {

constexpr double kSecondsPerHour = 3600.0;
// Layout of the SVG, in pixels.
constexpr double kWidth = 900, kLeft = 70, kRight = 20, kTop = 40;
constexpr double kPanelHeight = 110, kPanelGap = 40, kBottom = 40;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Fixed(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Coord(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Duration(budget::Seconds s) {
  return s % 3600 == 0 ? std::to_string(s / 3600) + " h" : budget::FormatDuration(s);
}

std::string Label(const SnapshotHistory& h, const std::string& root_name) {
  return h.path.empty() ? root_name : h.path;
}

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

std::vector<SnapshotHistory> SelectHistory(const budget::ReportSnapshot& s,
                                           const std::vector<std::string>& paths,
                                           budget::TimePoint since) {
  std::vector<SnapshotHistory> out;
  for (const SnapshotHistory& h : s.history) {
    bool wanted;
    if (paths.empty()) {
      const budget::SnapshotNode* node = s.FindNode(h.path);
      wanted = node == nullptr || node->depth <= 1;
    } else {
      wanted = std::find(paths.begin(), paths.end(), h.path) != paths.end();
    }
    if (!wanted) continue;
    SnapshotHistory kept = h;
    kept.delivered.clear();
    kept.owed.clear();
    bool started = false;
    for (size_t k = 0; k < h.delivered.size(); ++k) {
      budget::TimePoint slot = h.start + static_cast<budget::TimePoint>(k) * h.width;
      if (slot < since) continue;
      if (!started) kept.start = slot;
      started = true;
      kept.delivered.push_back(h.delivered[k]);
      kept.owed.push_back(h.owed[k]);
    }
    out.push_back(std::move(kept));
  }
  return out;
}

std::string FormatHistoryCsv(const std::vector<SnapshotHistory>& series,
                             const std::string& root_name) {
  std::string out = "path,slot_start,slot_seconds,delivered_gpu_hours,owed_gpu_hours\n";
  for (const SnapshotHistory& h : series) {
    for (size_t k = 0; k < h.delivered.size(); ++k) {
      out += Label(h, root_name) + "," +
             std::to_string(h.start + static_cast<budget::TimePoint>(k) * h.width) + "," +
             std::to_string(h.width) + "," + Num(h.delivered[k] / kSecondsPerHour) + "," +
             Num(h.owed[k] / kSecondsPerHour) + "\n";
    }
  }
  return out;
}

std::string FormatHistorySvg(const std::vector<SnapshotHistory>& series,
                             const std::string& root_name) {
  const double plot_width = kWidth - kLeft - kRight;
  const double height = kTop + series.size() * (kPanelHeight + kPanelGap) + kBottom;
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Coord(kWidth) +
                    "\" height=\"" + Coord(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                    "<text x=\"" + Coord(kLeft) + "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
                    "Delivered (area) against owed (dashed) GPU time</text>\n"
                    "<text x=\"" + Coord(kWidth - kRight) + "\" y=\"22\" text-anchor=\"end\" fill=\"#555\">"
                    "GPU-hours per slot of " + (series.empty() ? std::string("1 h") : Duration(series[0].width)) +
                    "</text>\n";
  if (series.empty()) {
    svg += "<text x=\"" + Coord(kLeft) + "\" y=\"" + Coord(kTop + 20) +
           "\">no history in the snapshot for this selection</text>\n";
  }
  for (size_t p = 0; p < series.size(); ++p) {
    const SnapshotHistory& h = series[p];
    const double top = kTop + p * (kPanelHeight + kPanelGap) + 20;
    const double bottom = top + kPanelHeight;
    const size_t n = h.delivered.size();
    double max_value = 0;
    for (size_t k = 0; k < n; ++k) max_value = std::max({max_value, h.delivered[k], h.owed[k]});
    const double scale = max_value > 0 ? kPanelHeight / (max_value / kSecondsPerHour) : 0;
    auto x = [&](size_t k) { return kLeft + (n > 0 ? plot_width * k / n : 0); };
    auto y = [&](double gpu_seconds) { return bottom - scale * gpu_seconds / kSecondsPerHour; };
    double owed = Sum(h.owed), delivered = Sum(h.delivered);
    std::string ratio = owed > 0 ? Fixed("%.0f%%", 100 * delivered / owed) : std::string("nothing owed");
    svg += "<g>\n<text x=\"" + Coord(kLeft) + "\" y=\"" + Coord(top - 6) + "\" font-weight=\"bold\">" +
           Escape(Label(h, root_name)) + "</text><text x=\"" + Coord(kWidth - kRight) + "\" y=\"" +
           Coord(top - 6) + "\" text-anchor=\"end\">delivered " + FormatGpuHours(delivered) +
           " of " + FormatGpuHours(owed) + " GPU-h owed (" + ratio + ")</text>\n";
    svg += "<rect x=\"" + Coord(kLeft) + "\" y=\"" + Coord(top) + "\" width=\"" + Coord(plot_width) +
           "\" height=\"" + Coord(kPanelHeight) + "\" fill=\"#f7f7f7\" stroke=\"#ccc\"/>\n";
    svg += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(top + 10) + "\" text-anchor=\"end\">" +
           Fixed("%.3g", max_value / kSecondsPerHour) + "</text><text x=\"" + Coord(kLeft - 6) + "\" y=\"" +
           Coord(bottom) + "\" text-anchor=\"end\">0</text>\n";
    if (n > 0) {
      // Delivered: a step area, one step per slot.
      std::string area = "M" + Coord(x(0)) + "," + Coord(bottom);
      std::string line;
      for (size_t k = 0; k < n; ++k) {
        area += " L" + Coord(x(k)) + "," + Coord(y(h.delivered[k])) + " L" + Coord(x(k + 1)) + "," +
                Coord(y(h.delivered[k]));
        line += (k == 0 ? "M" : " L") + Coord(x(k)) + "," + Coord(y(h.owed[k])) + " L" +
                Coord(x(k + 1)) + "," + Coord(y(h.owed[k]));
      }
      area += " L" + Coord(x(n)) + "," + Coord(bottom) + " Z";
      svg += "<path d=\"" + area + "\" fill=\"#4c8bd6\" fill-opacity=\"0.6\" stroke=\"#2b64a8\"/>\n";
      svg += "<path d=\"" + line + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" "
             "stroke-dasharray=\"6,4\"/>\n";
      svg += "<text x=\"" + Coord(kLeft) + "\" y=\"" + Coord(bottom + 14) + "\">" +
             FormatTimestamp(h.start) + "</text><text x=\"" + Coord(kWidth - kRight) + "\" y=\"" +
             Coord(bottom + 14) + "\" text-anchor=\"end\">" +
             FormatTimestamp(h.start + static_cast<budget::TimePoint>(n) * h.width) + "</text>\n";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace sbudget
