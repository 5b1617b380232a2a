// SlurmModel: see slurm_model.h.
#include "libbudget/policy/slurm_model.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <boost/container/small_vector.hpp>

namespace budget {

namespace {

// The job's view of the nodes: held nodes it may not use are unusable.
std::vector<NodeState> NodesFor(const std::vector<NodeState>& nodes, const NodeHolds& holds, const SlurmJob& job,
                                TimePoint now) {
  std::vector<NodeState> view = nodes;
  KeepEligible(job.eligible, &view);
  RemoveBarredNodes(holds, StartingJob{job.job_id, job.min_runtime, job.time_limit, job.quick}, now, &view);
  return view;
}

void TakeGpus(std::vector<NodeState>* nodes, const std::vector<int32_t>& chosen, uint32_t gpus) {
  for (NodeState& n : *nodes)
    if (std::find(chosen.begin(), chosen.end(), n.index) != chosen.end()) n.free_gpus -= std::min(n.free_gpus, gpus);
}

TimePoint EndOf(TimePoint start, Seconds limit) { return limit < 0 ? kNeverEnds : start + limit; }

// A necessary condition of a feasible ChooseWith on `nodes` or on any view
// of them with fewer usable nodes (NodesFor): one usable node with the GPUs
// free, or node_count usable whole free nodes of at least that many GPUs
// (both placements ask exactly that of a node). O(nodes), no copy.
bool MayFitNow(const std::vector<NodeState>& nodes, const GpuRequest& r) {
  uint32_t whole = 0;
  for (const NodeState& n : nodes) {
    if (!n.usable) continue;
    if (r.node_count <= 1 && n.free_gpus >= r.gpus_per_node) return true;
    if (r.node_count > 1 && n.free_gpus == n.total_gpus && n.total_gpus >= r.gpus_per_node && ++whole >= r.node_count)
      return true;
  }
  return false;
}

// The holds (quick_reserve.h NodeHolds bits) `job` may not use.
uint8_t Barred(const NodeHolds& holds, const SlurmJob& job, TimePoint now) {
  return HoldsBarring(holds, StartingJob{job.job_id, job.min_runtime, job.time_limit, job.quick}, now);
}

// One backfill pass's picture of the cluster now and in the future, per
// node: the GPUs free now, when running jobs free theirs (by time limit),
// and which windows earlier jobs of the pass reserved (whole nodes).
// Everything a job's test reads is kept so that a test costs O(nodes) at
// most: free-GPU counts for the "fits now" test, and per GPU count the
// time each node first has that many free (the running jobs' ends change
// only when the pass starts a job on the node).
class Backfill {
 public:
  Backfill(const SchedulerParams& params, std::vector<NodeState> nodes, const std::vector<RunningJob>& running,
           const NodeHolds& holds, TimePoint now, Placement placement)
      : placement_(placement), resolution_(std::max<Seconds>(params.bf_resolution, 1)), now_(now),
        nodes_(std::move(nodes)),
        ends_(nodes_.size()), reserved_(nodes_.size()), held_(nodes_.size(), 0), version_(nodes_.size(), 1) {
    int32_t max_index = 0;
    for (const NodeState& n : nodes_) max_index = std::max(max_index, n.index);
    position_.assign(size_t(max_index) + 1, -1);
    for (size_t p = 0; p < nodes_.size(); ++p) {
      position_[nodes_[p].index] = int32_t(p);
      max_gpus_ = std::max(max_gpus_, nodes_[p].total_gpus);
    }
    for (size_t p = 0; p < nodes_.size(); ++p) held_[p] = HoldsOn(holds, nodes_[p].index);
    for (auto& count : count_) count.assign(max_gpus_ + 1, 0);
    for (uint32_t& whole : whole_) whole = 0;
    for (size_t p = 0; p < nodes_.size(); ++p) {
      Count(p, +1);
      if (nodes_[p].usable) free_ += nodes_[p].free_gpus;
    }
    for (const RunningJob& job : running) AddRun(job.nodes, EndOf(job.start, job.time_limit));
  }

  uint64_t free_gpus() const { return free_; }
  const std::vector<NodeState>& nodes() const { return nodes_; }

  // Whether `job` fits in the GPUs free now, reservations aside: O(GPUs).
  bool FitsNow(const SlurmJob& job, uint8_t barred) const {
    const GpuRequest& r = job.request;
    if (r.gpus_per_node > max_gpus_) return false;
    if (r.node_count > 1) return whole_[barred] >= r.node_count;
    const std::vector<uint32_t>& count = count_[barred];
    for (uint32_t f = r.gpus_per_node; f <= max_gpus_; ++f)
      if (count[f] > 0) return true;
    return false;
  }

  // The job's nodes now, on nodes no earlier job reserved within its time
  // limit; false if none.
  bool ChooseNow(const SlurmJob& job, uint8_t barred, std::vector<int32_t>* chosen) const {
    std::vector<NodeState> view = nodes_;
    KeepEligible(job.eligible, &view);
    for (size_t p = 0; p < view.size(); ++p)
      if ((held_[p] & barred) || Conflicts(p, now_, job.time_limit)) view[p].usable = false;
    NodeChoice choice;
    if (!ChooseWith(placement_, view, job.request, &choice).ok() || !choice.feasible) return false;
    *chosen = std::move(choice.nodes);
    return true;
  }

  void StartNow(const SlurmJob& job, const std::vector<int32_t>& chosen) {
    boost::container::small_vector<NodeGpus, 2> on;
    for (int32_t index : chosen) {
      size_t p = size_t(position_[index]);
      Count(p, -1);
      nodes_[p].free_gpus -= std::min(nodes_[p].free_gpus, job.request.gpus_per_node);
      free_ -= job.request.gpus_per_node;
      Count(p, +1);
      on.push_back(NodeGpus{index, job.request.gpus_per_node});
    }
    AddRun(on, EndOf(now_, job.time_limit));
  }

  // The earliest start of `job` by time limits and its nodes; false if it
  // can never start, or not before `horizon`.
  bool Plan(const SlurmJob& job, uint8_t barred, TimePoint horizon, TimePoint* start,
            std::vector<int32_t>* chosen) {
    const GpuRequest& r = job.request;
    if (r.gpus_per_node > max_gpus_) return false;
    return r.node_count > 1 ? PlanWhole(job, barred, horizon, start, chosen)
                            : PlanOne(job, barred, horizon, start, chosen);
  }

  void Reserve(const std::vector<int32_t>& on, TimePoint start, Seconds limit) {
    TimePoint begin = start / resolution_ * resolution_;
    TimePoint end = limit < 0 ? kNeverEnds : (start + limit) / resolution_ * resolution_;
    end = std::max(end, begin + resolution_);
    for (int32_t index : on) {
      auto& reserved = reserved_[size_t(position_[index])];
      reserved.insert(std::upper_bound(reserved.begin(), reserved.end(), std::make_pair(begin, end)), {begin, end});
    }
  }

 private:
  void Count(size_t p, int delta) {
    const NodeState& n = nodes_[p];
    if (!n.usable) return;
    // Per set of barred holds, the nodes a job barred from them may use.
    for (uint8_t barred = 0; barred < kHoldSets; ++barred) {
      if (held_[p] & barred) continue;
      count_[barred][n.free_gpus] += delta;
      if (n.free_gpus == n.total_gpus) whole_[barred] += delta;
    }
  }

  void AddRun(const boost::container::small_vector<NodeGpus, 2>& on, TimePoint end) {
    if (end == kNeverEnds) return;
    for (const NodeGpus& n : on) {
      if (n.node < 0 || size_t(n.node) >= position_.size() || position_[n.node] < 0) continue;
      size_t p = size_t(position_[n.node]);
      auto& ends = ends_[p];
      ends.insert(std::upper_bound(ends.begin(), ends.end(), std::make_pair(end, n.gpus)), {end, n.gpus});
      ++version_[p];
    }
  }

  // Whether a job running [t, t + limit] would overlap a reservation on
  // node position p (Slurm: a record overlaps when it ends after the start
  // and begins no later than the end).
  bool Conflicts(size_t p, TimePoint t, Seconds limit) const {
    TimePoint end = EndOf(t, limit);
    for (const auto& [begin, stop] : reserved_[p]) {
      if (begin > end) break;
      if (stop > t) return true;
    }
    return false;
  }

  uint32_t FreeAt(size_t p, TimePoint t) const {
    uint64_t free = nodes_[p].free_gpus;
    for (const auto& [end, gpus] : ends_[p]) {
      if (end > t) break;
      free += gpus;
    }
    return uint32_t(std::min<uint64_t>(free, nodes_[p].total_gpus));
  }

  // The earliest t >= now at which node position p has `gpus` free
  // (running jobs only; kNeverEnds if never), cached per GPU count.
  TimePoint FreeFrom(size_t p, uint32_t gpus) {
    Cached& c = cache_[gpus][p];
    if (c.version == version_[p]) return c.at;
    uint64_t free = nodes_[p].free_gpus;
    TimePoint at = free >= gpus ? now_ : kNeverEnds;
    for (size_t i = 0; at == kNeverEnds && i < ends_[p].size(); ++i) {
      free += ends_[p][i].second;
      if (free >= gpus) at = std::max(ends_[p][i].first, now_);
    }
    c = Cached{version_[p], at};
    return at;
  }

  // The earliest t >= from at which node position p has no reservation in
  // the way of [t, t + limit].
  TimePoint Unreserved(size_t p, TimePoint from, Seconds limit) const {
    TimePoint t = from;
    for (const auto& [begin, stop] : reserved_[p]) {
      if (t == kNeverEnds || begin > EndOf(t, limit)) break;
      if (stop > t) t = stop;
    }
    return t;
  }

  bool Usable(size_t p, const SlurmJob& job, uint8_t barred) const {
    return nodes_[p].usable && !(held_[p] & barred) && nodes_[p].total_gpus >= job.request.gpus_per_node &&
           MayRunOn(job.eligible, nodes_[p].index);
  }

  void EnsureCache(uint32_t gpus) {
    if (cache_.size() <= gpus) cache_.resize(gpus + 1);
    if (cache_[gpus].empty()) cache_[gpus].assign(nodes_.size(), Cached{0, 0});
  }

  bool PlanOne(const SlurmJob& job, uint8_t barred, TimePoint horizon, TimePoint* start,
               std::vector<int32_t>* chosen) {
    const uint32_t g = job.request.gpus_per_node;
    EnsureCache(g);
    TimePoint best = kNeverEnds;
    ties_.clear();
    for (size_t p = 0; p < nodes_.size(); ++p) {
      if (!Usable(p, job, barred)) continue;
      TimePoint t = FreeFrom(p, g);
      if (t > best) continue;
      if (!reserved_[p].empty()) t = Unreserved(p, t, job.time_limit);
      if (t > best) continue;
      if (t < best) ties_.clear();
      best = t;
      ties_.push_back(p);
    }
    if (best == kNeverEnds || best > horizon) return false;
    // Ties at the same start: the packing's choice on the GPUs free then.
    std::vector<NodeState> at_t;
    for (size_t p : ties_) {
      NodeState n = nodes_[p];
      n.free_gpus = FreeAt(p, best);
      at_t.push_back(n);
    }
    NodeChoice choice;
    if (!ChooseWith(placement_, at_t, job.request, &choice).ok() || !choice.feasible) return false;
    *start = best;
    *chosen = std::move(choice.nodes);
    return true;
  }

  bool PlanWhole(const SlurmJob& job, uint8_t barred, TimePoint horizon, TimePoint* start,
                 std::vector<int32_t>* chosen) {
    const GpuRequest& r = job.request;
    // Each node allows the start times [its first whole-free time, oo)
    // minus, per reservation [b, e) on it, [b - limit, e) (the job would
    // overlap it). A sweep over these intervals finds the first time at
    // which node_count nodes allow a start.
    sweep_.clear();
    open_.clear();  // (position, [from, to)) in position order
    for (size_t p = 0; p < nodes_.size(); ++p) {
      if (!Usable(p, job, barred)) continue;
      EnsureCache(nodes_[p].total_gpus);
      TimePoint from = FreeFrom(p, nodes_[p].total_gpus);
      if (from == kNeverEnds) continue;
      TimePoint cur = from;
      for (const auto& [b, e] : reserved_[p]) {
        if (e <= cur) continue;
        TimePoint closes = job.time_limit < 0 ? std::numeric_limits<TimePoint>::min() : b - job.time_limit;
        if (closes > cur) {
          open_.push_back({p, {cur, closes}});
          sweep_.push_back({cur, +1});
          sweep_.push_back({closes, -1});
        }
        cur = std::max(cur, e);
        if (cur == kNeverEnds) break;
      }
      if (cur != kNeverEnds) {
        open_.push_back({p, {cur, kNeverEnds}});
        sweep_.push_back({cur, +1});
      }
    }
    // Ends before starts at the same time: an interval is [open, close).
    std::sort(sweep_.begin(), sweep_.end());
    int64_t count = 0;
    TimePoint t = kNeverEnds;
    for (size_t i = 0; i < sweep_.size(); ++i) {
      count += sweep_[i].second;
      bool last_at_time = i + 1 == sweep_.size() || sweep_[i + 1].first != sweep_[i].first;
      if (last_at_time && count >= int64_t(r.node_count)) {
        t = sweep_[i].first;
        break;
      }
    }
    if (t == kNeverEnds || t > horizon) return false;
    std::vector<NodeState> at_t;
    for (const auto& [p, interval] : open_) {
      if (interval.first <= t && t < interval.second) {
        NodeState n = nodes_[p];
        n.free_gpus = FreeAt(p, t);
        at_t.push_back(n);
      }
    }
    NodeChoice choice;
    if (!ChooseWith(placement_, at_t, r, &choice).ok() || !choice.feasible) return false;
    *start = std::max(t, now_);
    *chosen = std::move(choice.nodes);
    return true;
  }

  struct Cached {
    uint64_t version;
    TimePoint at;
  };
  Placement placement_;
  Seconds resolution_;
  TimePoint now_;
  std::vector<NodeState> nodes_;
  // Per position, sorted; a node holds a few runs and reservations, so
  // they live inline (a pass builds them afresh).
  std::vector<boost::container::small_vector<std::pair<TimePoint, uint32_t>, 8>> ends_;
  std::vector<boost::container::small_vector<std::pair<TimePoint, TimePoint>, 4>> reserved_;  // [begin, end)
  static constexpr uint8_t kHoldSets = 4;  // subsets of {hero hold, reserve}
  std::vector<uint8_t> held_;             // per position: HoldsOn bits
  std::vector<uint64_t> version_;  // bumped when a node's ends change
  std::vector<std::vector<Cached>> cache_;  // [gpus][position]
  std::vector<int32_t> position_;
  // Per set of barred holds: usable nodes outside them by free GPUs, and
  // the whole free ones.
  std::vector<uint32_t> count_[kHoldSets];
  uint32_t whole_[kHoldSets] = {};
  uint32_t max_gpus_ = 0;
  uint64_t free_ = 0;
  std::vector<size_t> ties_;
  std::vector<std::pair<TimePoint, int>> sweep_;
  std::vector<std::pair<size_t, std::pair<TimePoint, TimePoint>>> open_;
};

// Placement::kFirstFit: the lowest-index nodes that fit.
Status ChooseFirstFit(const std::vector<NodeState>& nodes, const GpuRequest& request, NodeChoice* choice) {
  *choice = NodeChoice();
  if (request.node_count == 0 || request.gpus_per_node == 0)
    return Status::InvalidArgument("first fit: a request of 0 nodes or 0 GPUs");
  std::vector<const NodeState*> sorted;
  for (const NodeState& n : nodes) sorted.push_back(&n);
  std::sort(sorted.begin(), sorted.end(), [](const NodeState* a, const NodeState* b) { return a->index < b->index; });
  for (const NodeState* n : sorted) {
    if (!n->usable || n->total_gpus < request.gpus_per_node) continue;
    bool fits = request.node_count > 1 ? n->free_gpus == n->total_gpus : n->free_gpus >= request.gpus_per_node;
    if (!fits) continue;
    choice->nodes.push_back(n->index);
    if (choice->nodes.size() == request.node_count) {
      choice->feasible = true;
      return Status::Ok();
    }
  }
  choice->nodes.clear();
  choice->why_not = "no first fit";
  return Status::Ok();
}

// ChooseWith over nodes validated already (best fit checks them otherwise).
Status ChooseWithValidated(Placement placement, const std::vector<NodeState>& nodes, const GpuRequest& request,
                           NodeChoice* choice) {
  if (placement == Placement::kBestFit) return ChooseValidatedNodes(nodes, request, choice);
  return ChooseFirstFit(nodes, request, choice);
}

}  // namespace

Status ChooseWith(Placement placement, const std::vector<NodeState>& nodes, const GpuRequest& request,
                  NodeChoice* choice) {
  if (placement == Placement::kBestFit) return ChooseNodes(nodes, request, choice);
  return ChooseFirstFit(nodes, request, choice);
}

SlurmPass RunMainScheduler(const SchedulerParams& params, uint32_t depth, std::vector<NodeState> nodes,
                           const NodeHolds& holds, SlurmQueue* queue, TimePoint now, Placement placement) {
  SlurmPass pass;
  // The nodes are checked once, at the first choice (most passes make
  // none): the views the pass chooses on (NodesFor, TakeGpus) keep their
  // indices and never free more GPUs than a node has. Invalid nodes are
  // left to every choice to refuse.
  bool nodes_checked = false, nodes_valid = false;
  SlurmJob job;
  while (queue->Next(&job)) {
    if (depth > 0 && pass.tested >= depth) break;
    if (params.sched_max_job_start > 0 && pass.starts.size() >= params.sched_max_job_start) break;
    ++pass.tested;
    NodeChoice choice;
    // Most passes stop at their first job, which fits nowhere: known
    // without a copy of the nodes or a choice.
    if (!MayFitNow(nodes, job.request)) {
      pass.blocked_by = job.job_id;
      break;
    }
    if (!nodes_checked) {
      nodes_valid = ValidateNodes(nodes).ok();
      nodes_checked = true;
    }
    std::vector<NodeState> view = NodesFor(nodes, holds, job, now);
    Status st = nodes_valid ? ChooseWithValidated(placement, view, job.request, &choice)
                            : ChooseWith(placement, view, job.request, &choice);
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
                      const std::vector<RunningJob>& running, const NodeHolds& holds, SlurmQueue* queue,
                      TimePoint now, Placement placement) {
  SlurmPass pass;
  Backfill space(params, std::move(nodes), running, holds, now, placement);
  const TimePoint horizon = now + params.bf_window;
  // Jobs that could not start now and are not planned yet: planned only
  // when a later job might start now (their reservations are in its way);
  // in queue order, each plan seeing the reservations before it.
  std::vector<SlurmJob> unplanned;
  unplanned.reserve(std::min<size_t>(params.bf_max_job_test, 1024));
  auto plan_waiting = [&]() {
    for (const SlurmJob& blocked : unplanned) {
      TimePoint start = 0;
      std::vector<int32_t> chosen;
      if (!space.Plan(blocked, Barred(holds, blocked, now), horizon, &start, &chosen)) continue;
      space.Reserve(chosen, start, blocked.time_limit);
      pass.reservations.push_back(SlurmReservation{blocked.job_id, start, std::move(chosen)});
    }
    unplanned.clear();
  };
  SlurmJob job;
  while (queue->Next(&job)) {
    if (pass.tested >= params.bf_max_job_test) break;
    if (params.bf_max_job_start > 0 && pass.starts.size() >= params.bf_max_job_start) break;
    if (space.free_gpus() == 0) break;  // nothing more can start now
    ++pass.tested;
    const uint8_t barred = Barred(holds, job, now);
    if (!space.FitsNow(job, barred)) {
      unplanned.push_back(job);
      continue;
    }
    plan_waiting();
    std::vector<int32_t> chosen;
    if (!space.ChooseNow(job, barred, &chosen)) {
      unplanned.push_back(job);
      continue;
    }
    space.StartNow(job, chosen);
    pass.starts.push_back(SlurmStart{job.job_id, std::move(chosen)});
  }
  // The jobs still unplanned change no start (slurm_model.h).
  return pass;
}

}  // namespace budget
