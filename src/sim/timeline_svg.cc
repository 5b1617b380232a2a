#include "sim/timeline_svg.h"

#include <algorithm>
#include <cstdio>

#include "sim/report_table.h"
#include "sim/svg_common.h"

namespace budget {
namespace sim {

namespace {

constexpr double kPanelWidth = 560, kLeft = 40, kTop = 46, kGap = 30, kLegendHeight = 60;

struct Frame {
  double x0, y0, width, height;
  double row_height;
  TimePoint from, to;
  double X(TimePoint t) const {
    return x0 + width * double(std::min(std::max(t, from), to) - from) / double(to - from);
  }
};

// Calls f(first_row, row_count) for each run of consecutive GPUs of a
// segment (rows numbered node * gpus_per_node + gpu).
template <typename F>
void ForEachRowRun(const Segment& s, uint32_t gpus_per_node, F f) {
  for (size_t k = 0; k < s.allocation.nodes.size(); ++k) {
    uint64_t mask = s.allocation.slots[k];
    uint32_t base = uint32_t(s.allocation.nodes[k].node) * gpus_per_node;
    uint32_t g = 0;
    while (g < 64 && mask >> g) {
      if (!((mask >> g) & 1)) { ++g; continue; }
      uint32_t first = g;
      while (g < 64 && ((mask >> g) & 1)) ++g;
      f(base + first, g - first);
    }
  }
}

void DrawDetail(const std::vector<Segment>& runs, const Workload& w,
                const std::vector<std::string>& colors, const Frame& fr, uint32_t gpn,
                std::string* out) {
  std::string hatch, red;
  for (const Segment& s : runs) {
    TimePoint end = s.end;
    if (end <= fr.from || s.start >= fr.to) continue;
    double x0 = fr.X(s.start), x1 = fr.X(end);
    double xp = fr.X(std::max(s.start, s.preemptible_from));
    const std::string& color = colors[w.jobs[s.job].account];
    ForEachRowRun(s, gpn, [&](uint32_t row, uint32_t count) {
      double y = fr.y0 + row * fr.row_height, h = count * fr.row_height;
      *out += "<rect x=\"" + SvgNumber(x0) + "\" y=\"" + SvgNumber(y) + "\" width=\"" +
              SvgNumber(std::max(0.5, x1 - x0)) + "\" height=\"" + SvgNumber(h) +
              "\" fill=\"" + color + "\"><title>job " + std::to_string(w.jobs[s.job].id) +
              " " + XmlEscape(w.accounts[w.jobs[s.job].account]) + "</title></rect>\n";
      if (s.preemptible_from < end && xp < x1)
        hatch += "<rect x=\"" + SvgNumber(xp) + "\" y=\"" + SvgNumber(y) + "\" width=\"" +
                 SvgNumber(x1 - xp) + "\" height=\"" + SvgNumber(h) + "\"/>\n";
      if (s.preempted && end <= fr.to)
        red += "<line x1=\"" + SvgNumber(x1) + "\" y1=\"" + SvgNumber(y) + "\" x2=\"" +
               SvgNumber(x1) + "\" y2=\"" + SvgNumber(y + h) + "\"/>\n";
    });
  }
  *out += "<g fill=\"url(#hatch)\">\n" + hatch + "</g>\n";
  *out += "<g stroke=\"red\" stroke-width=\"2\">\n" + red + "</g>\n";
}

void DrawSummary(const std::vector<Segment>& runs, const Workload& w,
                 const std::vector<std::string>& colors, const Frame& fr, uint32_t gpn,
                 size_t gpus, const TimelineOptions& o, std::string* out) {
  // At least a node per row: a GPU's own row changes team too often to read.
  size_t per_row = std::max<size_t>(gpn, (gpus + o.summary_rows - 1) / o.summary_rows);
  size_t rows = (gpus + per_row - 1) / per_row, cols = o.summary_columns;
  size_t teams = w.accounts.size();
  double slice = double(fr.to - fr.from) / double(cols);
  std::vector<float> use(rows * cols * teams, 0), preemptible(rows * cols, 0);
  std::vector<uint8_t> preempted(rows * cols, 0);
  for (const Segment& s : runs) {
    if (s.end <= fr.from || s.start >= fr.to) continue;
    size_t team = size_t(w.jobs[s.job].account);
    ForEachRowRun(s, gpn, [&](uint32_t first, uint32_t count) {
      for (uint32_t g = first; g < first + count; ++g) {
        size_t r = g / per_row;
        double a = double(std::max(s.start, fr.from) - fr.from);
        double b = double(std::min(s.end, fr.to) - fr.from);
        double p = double(std::min(std::max(s.preemptible_from, s.start), s.end) - fr.from);
        for (size_t c = size_t(a / slice); c < cols && double(c) * slice < b; ++c) {
          double lo = std::max(a, double(c) * slice), hi = std::min(b, double(c + 1) * slice);
          if (hi <= lo) continue;
          use[(r * cols + c) * teams + team] += float(hi - lo);
          double plo = std::max(lo, p);
          if (hi > plo) preemptible[r * cols + c] += float(hi - plo);
        }
        if (s.preempted && s.end < fr.to) {
          size_t c = std::min(cols - 1, size_t(double(s.end - fr.from) / slice));
          preempted[r * cols + c] = 1;
        }
      }
    });
  }
  // Cells are drawn as horizontal runs of equal colour, opacity (in quarters)
  // and hatching, which keeps a month of 1,024 GPUs to a few hundred KB.
  double cw = fr.width / double(cols), rh = fr.height / double(rows);
  std::string hatch, red;
  struct Look {
    int team = -1;     // -1: idle
    int opacity = 0;   // tenths
    bool hatched = false;
    bool operator==(const Look& o) const {
      return team == o.team && opacity == o.opacity && hatched == o.hatched;
    }
  };
  for (size_t r = 0; r < rows; ++r) {
    double y = fr.y0 + r * rh;
    size_t run_start = 0;
    Look run;
    for (size_t c = 0; c <= cols; ++c) {
      Look look;
      if (c < cols) {
        const float* u = &use[(r * cols + c) * teams];
        size_t best = 0;
        double total = 0;
        for (size_t t = 0; t < teams; ++t) {
          total += u[t];
          if (u[t] > u[best]) best = t;
        }
        if (total > 0) {
          double busy = std::min(1.0, total / (slice * double(per_row)));
          look.team = int(best);
          look.opacity = std::max(1, int(busy * 4 + 0.5)) * 25 / 10;  // quarters, in tenths
          look.hatched = preemptible[r * cols + c] * 2 > total;
        }
        if (preempted[r * cols + c])  // one path for all marks: small files
          red += "M" + SvgNumber(fr.x0 + (c + 1) * cw - 0.6) + "," + SvgNumber(y) + "v" +
                 SvgNumber(rh);
      }
      if (c > 0 && (c == cols || !(look == run))) {
        double x = fr.x0 + run_start * cw, width = (c - run_start) * cw;
        if (run.team >= 0) {
          *out += "<rect x=\"" + SvgNumber(x) + "\" y=\"" + SvgNumber(y) + "\" width=\"" +
                  SvgNumber(width + 0.3) + "\" height=\"" + SvgNumber(rh + 0.3) + "\" fill=\"" +
                  colors[run.team] + "\" fill-opacity=\"" + SvgNumber(run.opacity / 10.0) +
                  "\"/>\n";
          if (run.hatched)
            hatch += "M" + SvgNumber(x) + "," + SvgNumber(y) + "h" + SvgNumber(width) + "v" +
                     SvgNumber(rh) + "h" + SvgNumber(-width) + "z";
        }
        run_start = c;
      }
      if (c == 0 || !(look == run)) run = look;
    }
  }
  *out += "<path fill=\"url(#hatch)\" d=\"" + hatch + "\"/>\n";
  *out += "<path stroke=\"red\" stroke-width=\"1.2\" d=\"" + red + "\"/>\n";
}

}  // namespace

std::string RenderTimelineSvg(const std::vector<TimelinePanel>& panels, const Workload& w,
                              const AllocationTree& tree, const TimelineOptions& o) {
  size_t gpus = size_t(o.nodes) * o.gpus_per_node;
  size_t max_runs = 0;
  for (const TimelinePanel& p : panels) {
    size_t n = 0;
    for (const Segment& s : *p.runs) n += s.end > o.from && s.start < o.to;
    max_runs = std::max(max_runs, n);
  }
  bool detail = gpus <= o.max_detail_rows && max_runs <= o.max_detail_runs &&
                o.to - o.from <= o.max_detail_span;
  double row_height = detail ? std::max(2.0, std::min(10.0, 640.0 / double(gpus))) : 0;
  double height = detail ? row_height * double(gpus) : 640;
  double total_w = kLeft + panels.size() * (kPanelWidth + kGap);
  double total_h = kTop + height + 30 + kLegendHeight;
  std::vector<std::string> colors = TeamColors(w, tree);
  std::string out =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + SvgNumber(total_w) +
      "\" height=\"" + SvgNumber(total_h) + "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
      "stroke=\"white\" stroke-width=\"2\" stroke-opacity=\"0.7\"/></pattern></defs>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string mode = detail ? "a row per GPU"
                            : "summarised: a row per " +
                                  std::to_string(std::max<size_t>(o.gpus_per_node, (gpus + o.summary_rows - 1) / o.summary_rows)) +
                                  " GPUs, a column per " +
                                  HumanSeconds(double(o.to - o.from) / double(o.summary_columns));
  out += "<text x=\"" + SvgNumber(kLeft) + "\" y=\"16\" font-size=\"14\">GPU timeline, " +
         std::to_string(gpus) + " GPUs over " + HumanSeconds(double(o.to - o.from)) + " (" +
         XmlEscape(mode) + "; hatched: preemptible; red: preempted)</text>\n";
  for (size_t i = 0; i < panels.size(); ++i) {
    Frame fr{kLeft + i * (kPanelWidth + kGap), kTop, kPanelWidth, height, row_height, o.from, o.to};
    out += "<text x=\"" + SvgNumber(fr.x0) + "\" y=\"" + SvgNumber(kTop - 8) +
           "\" font-weight=\"bold\">" + XmlEscape(panels[i].policy) + "</text>\n";
    out += "<rect x=\"" + SvgNumber(fr.x0) + "\" y=\"" + SvgNumber(fr.y0) + "\" width=\"" +
           SvgNumber(fr.width) + "\" height=\"" + SvgNumber(height) +
           "\" fill=\"#f4f4f4\" stroke=\"#999\"/>\n";
    if (detail) {
      DrawDetail(*panels[i].runs, w, colors, fr, o.gpus_per_node, &out);
    } else {
      DrawSummary(*panels[i].runs, w, colors, fr, o.gpus_per_node, gpus, o, &out);
    }
    for (int k = 0; k <= 4; ++k) {
      TimePoint t = o.from + (o.to - o.from) * k / 4;
      out += "<text x=\"" + SvgNumber(fr.X(t)) + "\" y=\"" + SvgNumber(kTop + height + 14) +
             "\" text-anchor=\"middle\" font-size=\"10\">" +
             XmlEscape(HumanSeconds(double(t - o.origin))) + "</text>\n";
    }
  }
  double ly = kTop + height + 34;
  double lx = kLeft;
  for (size_t a = 0; a < w.accounts.size(); ++a) {
    if (lx > total_w - 120) {
      lx = kLeft;
      ly += 16;
    }
    out += "<rect x=\"" + SvgNumber(lx) + "\" y=\"" + SvgNumber(ly - 10) +
           "\" width=\"12\" height=\"12\" fill=\"" + colors[a] + "\"/><text x=\"" +
           SvgNumber(lx + 16) + "\" y=\"" + SvgNumber(ly) + "\">" + XmlEscape(w.accounts[a]) +
           "</text>\n";
    lx += 24 + 7.0 * double(w.accounts[a].size());
  }
  out += "</svg>\n";
  return out;
}

}  // namespace sim
}  // namespace budget
