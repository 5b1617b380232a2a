#include "sim/report_table.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace budget {
namespace sim {

std::string HumanSeconds(double s) {
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  } else if (s < 86400 * 2) {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  }
  return buf;
}

namespace {

std::string Fixed(double v, const char* fmt) {
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A label longer than the label column gets a line of its own, so that the
// cells stay in their columns.
void Row(std::string* out, const std::string& label, const std::vector<std::string>& cells,
         size_t label_width, size_t cell_width) {
  std::string line = label;
  if (label.size() > label_width) {
    *out += label + "\n";
    line.clear();
  }
  line.resize(label_width, ' ');
  for (const std::string& c : cells) {
    std::string cell = c;
    if (cell.size() < cell_width) cell.insert(0, cell_width - cell.size(), ' ');
    line += "  " + cell;
  }
  *out += line + "\n";
}

// "e.g. job 4", "e.g. jobs 1, 2, 5, ...": the first ids the run kept.
std::string Examples(const RejectionReason& r) {
  std::string s = r.first_job_ids.size() == 1 ? "e.g. job " : "e.g. jobs ";
  for (size_t i = 0; i < r.first_job_ids.size(); ++i)
    s += (i == 0 ? "" : ", ") + std::to_string(r.first_job_ids[i]);
  return r.jobs > r.first_job_ids.size() ? s + ", ..." : s;
}

}  // namespace

std::string FormatTable(const std::vector<PolicyResult>& results) {
  std::string out;
  const size_t lw = 26, cw = 12;
  auto row = [&](const std::string& label, const std::function<std::string(const PolicyResult&)>& f) {
    std::vector<std::string> cells;
    for (const PolicyResult& r : results) cells.push_back(f(r));
    Row(&out, label, cells, lw, cw);
  };
  for (const PolicyResult& r : results) {
    if (r.what_if.empty()) continue;
    out += "WHAT-IF " + r.what_if + ": " +
           (r.what_if == "builtin" ? std::string("no backfill (SchedulerType=sched/builtin)")
                                   : std::string("backfill knows every run's true length")) +
           "; not the loop production runs\n";
    break;
  }
  row("policy", [](const PolicyResult& r) { return r.policy; });
  row("occupancy", [](const PolicyResult& r) { return Fixed(100 * r.occupancy, "%.1f%%"); });
  row("unallocated share", [](const PolicyResult& r) { return Fixed(100 * r.unallocated_share, "%.1f%%"); });
  row("preemptions", [](const PolicyResult& r) { return std::to_string(r.preemptions); });
  row("stranded, of free GPUs", [](const PolicyResult& r) { return Fixed(100 * r.fragmentation, "%.1f%%"); });
  row("stranded, of all GPUs", [](const PolicyResult& r) { return Fixed(100 * r.stranded_of_all, "%.1f%%"); });
  struct W { const char* name; WaitStats PolicyResult::*field; };
  for (W w : {W{"all", &PolicyResult::wait_all}, W{"debug", &PolicyResult::wait_debug},
              W{"hero", &PolicyResult::wait_hero}}) {
    std::string base = std::string("wait ") + w.name;
    row(base + " p50", [&](const PolicyResult& r) { return HumanSeconds((r.*w.field).p50); });
    row(base + " p90", [&](const PolicyResult& r) { return HumanSeconds((r.*w.field).p90); });
    row(base + " p99", [&](const PolicyResult& r) { return HumanSeconds((r.*w.field).p99); });
  }
  row("jobs finished", [](const PolicyResult& r) { return std::to_string(r.finished); });
  row("jobs waiting at end", [](const PolicyResult& r) { return std::to_string(r.still_waiting); });
  row("jobs rejected", [](const PolicyResult& r) { return std::to_string(r.rejected); });
  row("wall seconds", [](const PolicyResult& r) { return Fixed(r.wall_seconds, "%.2f"); });
  if (results.empty()) return out;
  // The reasons of every policy, in the order they came up, each with the
  // job ids of the first policy that gave it.
  std::vector<const RejectionReason*> reasons;
  for (const PolicyResult& r : results) {
    for (const RejectionReason& reason : r.rejections) {
      bool seen = false;
      for (const RejectionReason* s : reasons) seen = seen || s->reason == reason.reason;
      if (!seen) reasons.push_back(&reason);
    }
  }
  if (!reasons.empty()) out += "\nrejected jobs per reason\n";
  for (size_t i = 0; i < reasons.size() && i < kMaxReasonRows; ++i) {
    out += reasons[i]->reason + "\n";
    row("  " + Examples(*reasons[i]), [&](const PolicyResult& r) {
      for (const RejectionReason& reason : r.rejections)
        if (reason.reason == reasons[i]->reason) return std::to_string(reason.jobs);
      return std::string("0");
    });
  }
  if (reasons.size() > kMaxReasonRows)
    out += "... and " + std::to_string(reasons.size() - kMaxReasonRows) + " more reasons (all in --json)\n";
  out += "\ndelivered / owed GPU-hours per team (entitlement)\n";
  for (size_t t = 0; t < results[0].teams.size(); ++t) {
    const TeamResult& team0 = results[0].teams[t];
    std::string label = team0.account + Fixed(100 * team0.entitlement, " (%.0f%%)");
    row(label, [t](const PolicyResult& r) {
      const TeamResult& team = r.teams[t];
      return Fixed(team.delivered_gpu_hours, "%.0f") + "/" + Fixed(team.owed_gpu_hours, "%.0f");
    });
    row("  delivered over owed", [t](const PolicyResult& r) {
      return Fixed(r.teams[t].delivered_over_owed, "%.2f");
    });
    bool debug = false;
    for (const PolicyResult& r : results) debug = debug || r.teams[t].debug_wait.count > 0;
    if (debug) {
      row("  debug wait p90", [t](const PolicyResult& r) { return HumanSeconds(r.teams[t].debug_wait.p90); });
    }
    bool free_work = false;
    for (const PolicyResult& r : results) free_work = free_work || r.teams[t].free_gpu_hours > 0;
    if (free_work) {
      row("  free work, GPU-hours", [t](const PolicyResult& r) {
        return Fixed(r.teams[t].free_gpu_hours, "%.0f");
      });
    }
  }
  return out;
}

}  // namespace sim
}  // namespace budget
