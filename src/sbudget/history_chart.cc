// sbudget history (history_chart.h).
#include "sbudget/history_chart.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "libbudget/config/time_string.h"
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

budget::Seconds SlotSeconds(const SnapshotHistory& h, size_t k, budget::TimePoint generated_at) {
  const budget::TimePoint start = h.start + static_cast<budget::TimePoint>(k) * h.width;
  if (k + 1 == h.delivered.size() && start + h.width > generated_at) {
    return std::max<budget::Seconds>(1, std::min<budget::Seconds>(h.width, generated_at - start));
  }
  return h.width;
}

std::string FormatHistoryCsv(const std::vector<SnapshotHistory>& series, const std::string& root_name,
                             budget::TimePoint generated_at) {
  std::string out =
      "path,slot_start,slot_seconds,delivered_gpu_hours,owed_gpu_hours,delivered_gpus,owed_gpus\n";
  for (const SnapshotHistory& h : series) {
    for (size_t k = 0; k < h.delivered.size(); ++k) {
      const double covered = static_cast<double>(SlotSeconds(h, k, generated_at));
      out += Label(h, root_name) + "," +
             std::to_string(h.start + static_cast<budget::TimePoint>(k) * h.width) + "," +
             std::to_string(static_cast<long long>(covered)) + "," + Num(h.delivered[k] / kSecondsPerHour) + "," +
             Num(h.owed[k] / kSecondsPerHour) + "," + Num(h.delivered[k] / covered) + "," +
             Num(h.owed[k] / covered) + "\n";
    }
  }
  return out;
}

std::vector<budget::TimePoint> RoundTimeTicks(budget::TimePoint first, budget::TimePoint last, size_t max_ticks) {
  static const budget::Seconds kSteps[] = {300,   600,   900,   1800,  3600,   7200,   10800,
                                           21600, 43200, 86400, 172800, 604800};
  std::vector<budget::TimePoint> ticks;
  if (last <= first || max_ticks == 0) return ticks;
  budget::Seconds step = kSteps[sizeof kSteps / sizeof kSteps[0] - 1];
  for (budget::Seconds s : kSteps) {
    if ((last - first) / s + 1 <= static_cast<budget::Seconds>(max_ticks)) {
      step = s;
      break;
    }
  }
  // Round in local time: the zone's offset at `first` (a change of offset
  // within the span moves later ticks by its size, which is rare and
  // harmless on an axis).
  time_t t = static_cast<time_t>(first);
  struct tm tm;
  long offset = localtime_r(&t, &tm) != nullptr ? tm.tm_gmtoff : 0;
  budget::TimePoint local = first + offset;
  budget::TimePoint tick = (local / step) * step - offset;
  if (tick < first) tick += step;
  for (; tick <= last; tick += step) ticks.push_back(tick);
  return ticks;
}

std::string FormatHistorySvg(const std::vector<SnapshotHistory>& series, const std::string& root_name,
                             budget::TimePoint generated_at, double capacity_gpus) {
  const double plot_width = kWidth - kLeft - kRight;
  const double height = kTop + series.size() * (kPanelHeight + kPanelGap) + kBottom;
  // One scale for every panel: the largest average (delivered or owed) of
  // any slot, or the capacity if nothing was used.
  double max_gpus = 0;
  budget::TimePoint first = 0, end = 0;
  for (const SnapshotHistory& h : series) {
    for (size_t k = 0; k < h.delivered.size(); ++k) {
      const double covered = static_cast<double>(SlotSeconds(h, k, generated_at));
      max_gpus = std::max({max_gpus, h.delivered[k] / covered, h.owed[k] / covered});
    }
    if (!h.delivered.empty()) {
      const budget::TimePoint h_end =
          h.start + static_cast<budget::TimePoint>(h.delivered.size() - 1) * h.width +
          SlotSeconds(h, h.delivered.size() - 1, generated_at);
      if (first == end) {
        first = h.start;
        end = h_end;
      }
      first = std::min(first, h.start);
      end = std::max(end, h_end);
    }
  }
  if (max_gpus <= 0) max_gpus = capacity_gpus > 0 ? capacity_gpus : 1;
  const double scale = kPanelHeight / max_gpus;
  const double span = end > first ? static_cast<double>(end - first) : 1;
  auto x = [&](budget::TimePoint t) { return kLeft + plot_width * static_cast<double>(t - first) / span; };
  const std::vector<budget::TimePoint> ticks = RoundTimeTicks(first, end, 8);
  // A tick label: the time of day, or the date at local midnight (or for
  // ticks a day or more apart).
  auto tick_label = [&](budget::TimePoint t) {
    time_t tt = static_cast<time_t>(t);
    struct tm tm;
    if (localtime_r(&tt, &tm) == nullptr) return std::to_string(t);
    const bool days = ticks.size() >= 2 && ticks[1] - ticks[0] >= 86400;
    char buf[32];
    std::strftime(buf, sizeof buf, days || (tm.tm_hour == 0 && tm.tm_min == 0) ? "%m-%d" : "%H:%M", &tm);
    return std::string(buf);
  };
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Coord(kWidth) +
                    "\" height=\"" + Coord(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                    "<text x=\"" + Coord(kLeft) + "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
                    "Delivered (area) against owed (dashed) GPUs</text>\n"
                    "<text x=\"" + Coord(kWidth - kRight) + "\" y=\"22\" text-anchor=\"end\" fill=\"#555\">"
                    "average GPUs per slot of " + (series.empty() ? std::string("1 h") : Duration(series[0].width)) +
                    (capacity_gpus > 0 ? ", of " + Fixed("%g", capacity_gpus) + " in the cluster" : std::string()) +
                    "; one scale for all</text>\n";
  if (series.empty()) {
    svg += "<text x=\"" + Coord(kLeft) + "\" y=\"" + Coord(kTop + 20) +
           "\">no history in the snapshot for this selection</text>\n";
  }
  for (size_t p = 0; p < series.size(); ++p) {
    const SnapshotHistory& h = series[p];
    const double top = kTop + p * (kPanelHeight + kPanelGap) + 20;
    const double bottom = top + kPanelHeight;
    const size_t n = h.delivered.size();
    auto y = [&](double gpus) { return bottom - scale * gpus; };
    double owed = Sum(h.owed), delivered = Sum(h.delivered);
    std::string ratio = owed > 0 ? Fixed("%.0f%%", 100 * delivered / owed) : std::string("nothing owed");
    const int decimals = GpuHoursDecimals({delivered, owed});
    svg += "<g>\n<text x=\"" + Coord(kLeft) + "\" y=\"" + Coord(top - 6) + "\" font-weight=\"bold\">" +
           Escape(Label(h, root_name)) + "</text><text x=\"" + Coord(kWidth - kRight) + "\" y=\"" +
           Coord(top - 6) + "\" text-anchor=\"end\">delivered " + FormatGpuHours(delivered, decimals) +
           " of " + FormatGpuHours(owed, decimals) + " GPU-h owed (" + ratio + ")</text>\n";
    svg += "<rect x=\"" + Coord(kLeft) + "\" y=\"" + Coord(top) + "\" width=\"" + Coord(plot_width) +
           "\" height=\"" + Coord(kPanelHeight) + "\" fill=\"#f7f7f7\" stroke=\"#ccc\"/>\n";
    svg += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(top + 10) + "\" text-anchor=\"end\">" +
           Fixed("%.3g", max_gpus) + "</text><text x=\"" + Coord(kLeft - 6) + "\" y=\"" +
           Coord(bottom) + "\" text-anchor=\"end\">0</text>\n";
    for (budget::TimePoint t : ticks) {
      svg += "<line x1=\"" + Coord(x(t)) + "\" y1=\"" + Coord(bottom) + "\" x2=\"" + Coord(x(t)) + "\" y2=\"" +
             Coord(bottom + 4) + "\" stroke=\"#888\"/><text x=\"" + Coord(x(t)) + "\" y=\"" + Coord(bottom + 16) +
             "\" text-anchor=\"middle\">" + tick_label(t) + "</text>\n";
    }
    if (n > 0) {
      // Delivered: a step area, one step per slot, each as wide as it covers.
      auto slot_x = [&](size_t k) { return x(h.start + static_cast<budget::TimePoint>(k) * h.width); };
      auto slot_end = [&](size_t k) {
        return x(h.start + static_cast<budget::TimePoint>(k) * h.width + SlotSeconds(h, k, generated_at));
      };
      std::string area = "M" + Coord(slot_x(0)) + "," + Coord(bottom);
      std::string line;
      for (size_t k = 0; k < n; ++k) {
        const double covered = static_cast<double>(SlotSeconds(h, k, generated_at));
        const double d = h.delivered[k] / covered, o = h.owed[k] / covered;
        area += " L" + Coord(slot_x(k)) + "," + Coord(y(d)) + " L" + Coord(slot_end(k)) + "," + Coord(y(d));
        line += (k == 0 ? "M" : " L") + Coord(slot_x(k)) + "," + Coord(y(o)) + " L" + Coord(slot_end(k)) + "," +
                Coord(y(o));
      }
      area += " L" + Coord(slot_end(n - 1)) + "," + Coord(bottom) + " Z";
      svg += "<path d=\"" + area + "\" fill=\"#4c8bd6\" fill-opacity=\"0.6\" stroke=\"#2b64a8\"/>\n";
      svg += "<path d=\"" + line + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" "
             "stroke-dasharray=\"6,4\"/>\n";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace sbudget
