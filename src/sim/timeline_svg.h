// The per-GPU timeline (doc/simulator.md; the Ai2 article's picture): one panel per
// policy, side by side; a row per GPU, a bar per run coloured by team (one
// hue family per program), hatched while the run is preemptible, a red edge
// where a run was preempted.
//
// Scale. Drawn in detail while the panel has at most max_detail_rows GPUs,
// max_detail_runs runs and max_detail_span seconds in the window (64 GPUs x
// 1 day is well inside).
// Beyond that it is SUMMARISED: rows stand for groups of GPUs and columns
// for slices of time; a cell takes the colour of the team that used most
// of it, its opacity is how busy it was, it is hatched when most of its
// busy time was preemptible, and it carries a red tick when a run was
// preempted in it. The picture says which mode it is in.
#ifndef SLURM_BUDGET_SIM_TIMELINE_SVG_H_
#define SLURM_BUDGET_SIM_TIMELINE_SVG_H_

#include <string>
#include <vector>

#include "libbudget/state/tree.h"
#include "sim/engine.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

struct TimelinePanel {
  std::string policy;
  const std::vector<Segment>* runs = nullptr;
};

struct TimelineOptions {
  TimePoint from = 0, to = 0;  // REQUIRES: from < to
  TimePoint origin = 0;        // time labels count from here (the run's start)
  uint32_t nodes = 1, gpus_per_node = 8;
  size_t max_detail_rows = 256;
  size_t max_detail_runs = 20000;
  Seconds max_detail_span = 2 * 86400;  // bars of a longer window are too thin to read
  size_t summary_rows = 64, summary_columns = 180;
};

std::string RenderTimelineSvg(const std::vector<TimelinePanel>& panels, const Workload& workload,
                              const AllocationTree& tree, const TimelineOptions& options);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_TIMELINE_SVG_H_
