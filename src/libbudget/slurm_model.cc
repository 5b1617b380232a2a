// SlurmModel: see slurm_model.h.
#include "libbudget/slurm_model.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace budget {

namespace {

// The job's view of the nodes: held nodes it may not use are unusable.
std::vector<NodeState> NodesFor(const std::vector<NodeState>& nodes, const HeroPlan& hold, const SlurmJob& job,
                                TimePoint now) {
  std::vector<NodeState> view = nodes;
  if (!hold.active || MayUseHeldNodes(hold, StartingJob{job.job_id, job.min_runtime, job.time_limit}, now))
    return view;
  for (NodeState& n : view)
    if (std::find(hold.nodes.begin(), hold.nodes.end(), n.index) != hold.nodes.end()) n.usable = false;
  return view;
}

bool AnyFree(const std::vector<NodeState>& nodes) {
  for (const NodeState& n : nodes)
    if (n.usable && n.free_gpus > 0) return true;
  return false;
}

void TakeGpus(std::vector<NodeState>* nodes, const std::vector<int32_t>& chosen, uint32_t gpus) {
  for (NodeState& n : *nodes)
    if (std::find(chosen.begin(), chosen.end(), n.index) != chosen.end()) n.free_gpus -= std::min(n.free_gpus, gpus);
}

TimePoint EndOf(TimePoint start, Seconds limit) { return limit < 0 ? kNeverEnds : start + limit; }

// Backfill's picture of the future, per node: when running jobs free
// their GPUs (by time limit) and which windows earlier jobs of the pass
// reserved (whole nodes).
class NodeSpace {
 public:
  NodeSpace(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running, Seconds resolution)
      : resolution_(std::max<Seconds>(resolution, 1)), nodes_(nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i) position_[nodes[i].index] = i;
    for (const RunningJob& job : running) AddRun(job.nodes, EndOf(job.start, job.time_limit));
  }

  // A job started now by this pass: its GPUs come back at its limit.
  void AddRun(const boost::container::small_vector<NodeGpus, 2>& on, TimePoint end) {
    if (end == kNeverEnds) return;
    for (const NodeGpus& n : on) {
      auto it = position_.find(n.node);
      if (it == position_.end()) continue;
      auto& ends = nodes_[it->second].ends;
      ends.insert(std::upper_bound(ends.begin(), ends.end(), std::make_pair(end, n.gpus)), {end, n.gpus});
    }
  }

  void Reserve(const std::vector<int32_t>& on, TimePoint start, Seconds limit) {
    TimePoint begin = start / resolution_ * resolution_;
    TimePoint end = limit < 0 ? kNeverEnds : (start + limit) / resolution_ * resolution_;
    end = std::max(end, begin + resolution_);
    for (int32_t index : on) {
      auto& reserved = nodes_[position_.at(index)].reserved;
      reserved.insert(std::upper_bound(reserved.begin(), reserved.end(), std::make_pair(begin, end)), {begin, end});
    }
  }

  // Whether a job running [t, t + limit] would overlap a reservation on
  // node position p (Slurm: a record overlaps when it ends after the start
  // and begins no later than the end).
  bool Conflicts(size_t p, TimePoint t, Seconds limit) const {
    TimePoint end = EndOf(t, limit);
    for (const auto& [begin, stop] : nodes_[p].reserved) {
      if (begin > end) break;
      if (stop > t) return true;
    }
    return false;
  }

  // Free GPUs of node position p at time t >= now, `free_now` now.
  uint32_t FreeAt(size_t p, uint32_t free_now, TimePoint t) const {
    uint64_t free = free_now;
    for (const auto& [end, gpus] : nodes_[p].ends) {
      if (end > t) break;
      free += gpus;
    }
    return uint32_t(free);
  }

  // The earliest t >= now at which node position p has `gpus` GPUs free
  // (running jobs only); kNeverEnds if never.
  TimePoint FreeFrom(size_t p, uint32_t free_now, uint32_t gpus, TimePoint now) const {
    if (free_now >= gpus) return now;
    uint64_t free = free_now;
    for (const auto& [end, g] : nodes_[p].ends) {
      free += g;
      if (free >= gpus) return std::max(end, now);
    }
    return kNeverEnds;
  }

  // The earliest t >= from at which node position p has no reservation in
  // the way of [t, t + limit].
  TimePoint Unreserved(size_t p, TimePoint from, Seconds limit) const {
    TimePoint t = from;
    for (const auto& [begin, stop] : nodes_[p].reserved) {
      if (t == kNeverEnds || begin > EndOf(t, limit)) break;
      if (stop > t) t = stop;
    }
    return t;
  }

  // The reservation ends on node position p (candidate starts).
  void ReservationEnds(size_t p, std::vector<TimePoint>* out) const {
    for (const auto& r : nodes_[p].reserved)
      if (r.second != kNeverEnds) out->push_back(r.second);
  }

 private:
  struct Node {
    std::vector<std::pair<TimePoint, uint32_t>> ends;         // sorted
    std::vector<std::pair<TimePoint, TimePoint>> reserved;    // [begin, end), sorted
  };
  Seconds resolution_;
  std::vector<Node> nodes_;
  std::unordered_map<int32_t, size_t> position_;
};

// The earliest start of `job` and its nodes, by time limits; false if it
// can never start (or not before `horizon`).
bool PlanStart(const NodeSpace& space, const std::vector<NodeState>& view, const SlurmJob& job, TimePoint now,
               TimePoint horizon, TimePoint* start, std::vector<int32_t>* chosen) {
  const GpuRequest& r = job.request;
  bool whole = r.node_count > 1;
  // Per node: the earliest start it allows on its own.
  std::vector<TimePoint> from(view.size(), kNeverEnds);
  for (size_t p = 0; p < view.size(); ++p) {
    const NodeState& n = view[p];
    if (!n.usable || n.total_gpus < r.gpus_per_node) continue;
    TimePoint t = space.FreeFrom(p, n.free_gpus, whole ? n.total_gpus : r.gpus_per_node, now);
    if (t != kNeverEnds) t = space.Unreserved(p, t, job.time_limit);
    from[p] = t;
  }
  // Candidate starts: each node's own earliest start, and reservation ends
  // (a node with a reservation ahead may fit again after it).
  std::vector<TimePoint> candidates;
  for (size_t p = 0; p < view.size(); ++p) {
    if (from[p] == kNeverEnds) continue;
    candidates.push_back(from[p]);
    space.ReservationEnds(p, &candidates);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (TimePoint t : candidates) {
    if (t > horizon) break;
    std::vector<NodeState> at_t;
    for (size_t p = 0; p < view.size(); ++p) {
      if (from[p] > t || space.Conflicts(p, t, job.time_limit)) continue;
      NodeState n = view[p];
      n.free_gpus = std::min(n.total_gpus, space.FreeAt(p, n.free_gpus, t));
      at_t.push_back(n);
    }
    if (at_t.size() < r.node_count) continue;
    NodeChoice choice;
    if (!ChooseNodes(at_t, r, &choice).ok() || !choice.feasible) continue;
    *start = t;
    *chosen = choice.nodes;
    return true;
  }
  return false;
}

}  // namespace

SlurmPass RunMainScheduler(const SchedulerParams& params, uint32_t depth, std::vector<NodeState> nodes,
                           const HeroPlan& hold, SlurmQueue* queue, TimePoint now) {
  SlurmPass pass;
  SlurmJob job;
  while (queue->Next(&job)) {
    if (depth > 0 && pass.tested >= depth) break;
    if (params.sched_max_job_start > 0 && pass.starts.size() >= params.sched_max_job_start) break;
    ++pass.tested;
    NodeChoice choice;
    Status st = ChooseNodes(NodesFor(nodes, hold, job, now), job.request, &choice);
    if (!st.ok() || !choice.feasible) {
      pass.blocked_by = job.job_id;  // fail_by_part: nothing behind it starts
      break;
    }
    TakeGpus(&nodes, choice.nodes, job.request.gpus_per_node);
    pass.starts.push_back(SlurmStart{job.job_id, choice.nodes});
  }
  return pass;
}

SlurmPass RunBackfill(const SchedulerParams& params, std::vector<NodeState> nodes,
                      const std::vector<RunningJob>& running, const HeroPlan& hold, SlurmQueue* queue,
                      TimePoint now) {
  SlurmPass pass;
  NodeSpace space(nodes, running, params.bf_resolution);
  const TimePoint horizon = now + params.bf_window;
  // Jobs that could not start now and are not planned yet: planned only
  // when a later job might start now (their reservations are in its way);
  // in queue order, each plan seeing the reservations before it.
  std::vector<SlurmJob> unplanned;
  auto plan_waiting = [&]() {
    for (const SlurmJob& blocked : unplanned) {
      TimePoint start = 0;
      std::vector<int32_t> chosen;
      if (!PlanStart(space, NodesFor(nodes, hold, blocked, now), blocked, now, horizon, &start, &chosen)) continue;
      space.Reserve(chosen, start, blocked.time_limit);
      pass.reservations.push_back(SlurmReservation{blocked.job_id, start, chosen});
    }
    unplanned.clear();
  };
  SlurmJob job;
  while (queue->Next(&job)) {
    if (pass.tested >= params.bf_max_job_test) break;
    if (params.bf_max_job_start > 0 && pass.starts.size() >= params.bf_max_job_start) break;
    if (!AnyFree(nodes)) break;  // nothing more can start now
    ++pass.tested;
    std::vector<NodeState> view = NodesFor(nodes, hold, job, now);
    NodeChoice fits;
    if (!ChooseNodes(view, job.request, &fits).ok() || !fits.feasible) {
      unplanned.push_back(job);
      continue;
    }
    plan_waiting();
    // It starts now only on nodes no earlier job reserved during its limit.
    for (size_t p = 0; p < view.size(); ++p)
      if (view[p].usable && space.Conflicts(p, now, job.time_limit)) view[p].usable = false;
    NodeChoice choice;
    if (!ChooseNodes(view, job.request, &choice).ok() || !choice.feasible) {
      unplanned.push_back(job);
      continue;
    }
    TakeGpus(&nodes, choice.nodes, job.request.gpus_per_node);
    boost::container::small_vector<NodeGpus, 2> on;
    for (int32_t n : choice.nodes) on.push_back(NodeGpus{n, job.request.gpus_per_node});
    space.AddRun(on, EndOf(now, job.time_limit));
    pass.starts.push_back(SlurmStart{job.job_id, choice.nodes});
  }
  // The jobs still unplanned change no start (slurm_model.h).
  return pass;
}

}  // namespace budget
