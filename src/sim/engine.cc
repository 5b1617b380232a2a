#include "sim/engine.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <tuple>

#include "libbudget/preempt.h"

namespace budget {
namespace sim {

namespace {

constexpr TimePoint kNever = std::numeric_limits<TimePoint>::max();

struct Event {
  enum Kind : uint8_t { kFinish = 0, kProtectionEnd = 1 };
  TimePoint time;
  uint32_t job;
  uint32_t serial;
  Kind kind;
  bool operator>(const Event& o) const {
    return std::tie(time, kind, job) > std::tie(o.time, o.kind, o.job);
  }
};

uint64_t GpusOf(const SimJob& j) { return uint64_t{j.shape.node_count} * j.shape.gpus_per_node; }

class Engine {
 public:
  Engine(const Workload& w, const AllocationTree& tree, const BudgetConfig& config,
         const EngineOptions& options, Policy* policy, RunOutput* out)
      : w_(w), tree_(tree), config_(config), opt_(options), policy_(policy), out_(out),
        cluster_(options.nodes, options.gpus_per_node, options.groups, options.packing) {}

  Status Run();

 private:
  void Arrive(uint32_t job, TimePoint now);
  void Pass(TimePoint now, bool may_preempt);
  bool TryPreempt(uint32_t job, TimePoint now);
  void CountPreemptable(TimePoint now);
  void Start(uint32_t job, TimePoint now, const Allocation& allocation);
  // Ends the current run; `preempted_by` != 0 for a preemption.
  void Stop(uint32_t job, TimePoint now, uint32_t preempted_by);
  void Reserve(const SimJob& blocked, TimePoint now, TimePoint* shadow, int64_t* extra);
  void Advance(TimePoint now);
  void Recompute(TimePoint now);

  const Workload& w_;
  const AllocationTree& tree_;
  const BudgetConfig& config_;
  const EngineOptions& opt_;
  Policy* policy_;
  RunOutput* out_;
  Cluster cluster_;
  std::unique_ptr<RunMetrics> metrics_;
  std::vector<SimJob> jobs_;
  std::vector<RunningJob> running_;       // the core's records
  std::vector<uint32_t> running_jobs_;    // parallel: job index
  std::vector<size_t> open_segment_;      // per job, timeline index
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t unallocated_busy_ = 0;
  std::vector<Standing> preempt_standings_;    // with commitments, see CountPreemptable
  std::vector<uint64_t> unprotected_by_rank_;  // suffix sums, see CountPreemptable
  uint64_t unprotected_unallocated_ = 0;
  uint64_t finished_ = 0, rejected_ = 0;
  TimePoint end_ = 0;
};

Status Engine::Run() {
  if (opt_.nodes == 0 || opt_.gpus_per_node == 0 || opt_.gpus_per_node > Cluster::kMaxGpusPerNode)
    return Status::InvalidArgument("cluster: need >= 1 node and 1..64 GPUs per node");
  Status st = w_.Validate();
  if (!st.ok()) return st;
  jobs_.assign(w_.jobs.size(), SimJob());
  if (opt_.record_timeline) open_segment_.assign(w_.jobs.size(), 0);
  SimContext ctx{&w_, &tree_, &config_, &opt_.policy, &jobs_, &cluster_};
  st = policy_->Init(ctx);
  if (!st.ok()) return st;

  TimePoint start = w_.jobs.empty() ? 0 : w_.jobs.front().submit;
  end_ = opt_.until;
  if (end_ < 0) {
    double work = 0;
    Seconds longest = 0;
    for (const TraceJob& j : w_.jobs) {
      work += double(j.gpus) * double(j.duration);
      longest = std::max(longest, j.duration);
    }
    TimePoint last = w_.jobs.empty() ? 0 : w_.jobs.back().submit;
    end_ = last + TimePoint(work / double(cluster_.capacity())) + 4 * longest + 1;
  }
  end_ = std::max(end_, start);
  metrics_ = std::make_unique<RunMetrics>(w_, tree_, cluster_.capacity(), start, end_,
                                          opt_.thresholds);

  auto wall_start = std::chrono::steady_clock::now();
  size_t next_arrival = 0;
  TimePoint next_tick = start;
  TimePoint last_event = start;
  uint64_t steps = 0;
  const Seconds recalc = std::max<Seconds>(1, config_.recalc_interval);
  for (;;) {
    TimePoint now = kNever;
    if (next_arrival < w_.jobs.size()) now = w_.jobs[next_arrival].submit;
    if (!events_.empty()) now = std::min(now, events_.top().time);
    if (policy_->queue().size() > 0 && now != kNever) now = std::min(now, std::max(next_tick, last_event));
    if (now == kNever) {
      // Nothing will happen any more; a job that still waits can never start.
      if (policy_->queue().size() > 0 && running_.empty()) {
        Recompute(last_event);
        Pass(last_event, true);
        if (!running_.empty()) continue;
      }
      break;
    }
    if (now > end_) break;
    Advance(now);
    last_event = now;
    bool may_preempt = false;
    while (next_arrival < w_.jobs.size() && w_.jobs[next_arrival].submit == now)
      Arrive(uint32_t(next_arrival++), now);
    while (!events_.empty() && events_.top().time == now) {
      Event e = events_.top();
      events_.pop();
      const SimJob& j = jobs_[e.job];
      if (j.state != JobState::kRunning || j.serial != e.serial) continue;  // stale
      if (e.kind == Event::kFinish) {
        Stop(e.job, now, 0);
      } else {
        may_preempt = true;
      }
    }
    if (policy_->queue().size() > 0 && now >= next_tick) {
      Recompute(now);
      may_preempt = true;
      next_tick = now + recalc;
    }
    Pass(now, may_preempt);
    if (opt_.progress && (++steps & 4095) == 0)
      opt_.progress(double(now - start) / double(std::max<TimePoint>(1, end_ - start)));
  }
  TimePoint finish = opt_.until >= 0 ? end_ : std::min(end_, last_event);
  Advance(finish);

  PolicyResult& r = out_->result;
  r.policy = policy_->name();
  if (opt_.until < 0) metrics_->ShrinkEnd(finish);
  // Jobs still waiting: their wait so far, a lower bound.
  for (size_t i = 0; i < jobs_.size(); ++i) {
    if (jobs_[i].state == JobState::kPending && jobs_[i].first_start < 0)
      metrics_->RecordWait(uint32_t(i), finish - w_.jobs[i].submit);
    if (jobs_[i].state == JobState::kPending) ++r.still_waiting;
    if (jobs_[i].state == JobState::kRunning) ++r.still_running;
  }
  if (opt_.record_timeline) {
    for (uint32_t job : running_jobs_) out_->timeline[open_segment_[job]].end = finish;
  }
  metrics_->Finish(&r);
  r.jobs = w_.jobs.size();
  r.finished = finished_;
  r.rejected = rejected_;
  r.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (opt_.progress) opt_.progress(1.0);
  return Status::Ok();
}

void Engine::Recompute(TimePoint now) {
  policy_->Recompute(now);
  if (opt_.record_decisions) {
    Decision d;
    d.kind = Decision::Kind::kRecompute;
    d.time = now;
    out_->decisions.push_back(d);
  }
}

void Engine::Advance(TimePoint now) {
  metrics_->AdvanceTo(now, cluster_.capacity() - cluster_.free_gpus(), unallocated_busy_,
                      cluster_.Fragmentation());
}

void Engine::Arrive(uint32_t job, TimePoint now) {
  const TraceJob& t = w_.jobs[job];
  SimJob& j = jobs_[job];
  j.node = tree_.NodeFor(w_.accounts[t.account], w_.UserName(t.user));
  j.shape = ShapeFor(t.gpus, cluster_.gpus_per_node());
  j.remaining = t.duration;
  j.min_runtime = t.min_runtime;
  std::string why;
  if (j.shape.node_count > cluster_.nodes().size() ||
      !policy_->Admit(job, &j.min_runtime, &why)) {
    j.state = JobState::kRejected;
    ++rejected_;
    return;
  }
  j.state = JobState::kPending;
  policy_->Enqueue(job, now);
  metrics_->ChangeDemand(t.account, now, double(GpusOf(j)));
}

void Engine::Pass(TimePoint now, bool may_preempt) {
  if (policy_->queue().size() == 0) return;
  const bool preempting = may_preempt && policy_->preempts();
  bool blocked = false, reserved = false;
  uint32_t blocked_job = 0;
  TimePoint shadow = 0;
  int64_t extra = 0;
  uint32_t after_block = 0, attempts = 0;
  bool counted = false;  // CountPreemptable is current
  // Shapes whose preemption failed in this pass: (allocation, nodes, GPUs
  // per node, min-runtime) is all the core's choice depends on for a job.
  std::vector<std::tuple<int32_t, uint32_t, uint32_t, Seconds>> failed;
  const PendingQueue& queue = policy_->queue();
  for (uint32_t lane : policy_->lane_order()) {
    const PendingQueue::Lane& jobs = queue.lane(lane);
    for (auto it = jobs.begin(); it != jobs.end();) {
      uint32_t job = PendingQueue::JobOf(*it);
      ++it;  // the job may leave the lane below
      bool can_preempt = preempting && attempts < opt_.max_preempt_attempts;
      if (cluster_.free_gpus() == 0 && !can_preempt) return;
      if (blocked && ++after_block > opt_.backfill_window) return;
      SimJob& j = jobs_[job];
      uint64_t gpus = GpusOf(j);
      if (cluster_.Fits(j.shape)) {
        if (blocked && !reserved) {
          Reserve(jobs_[blocked_job], now, &shadow, &extra);
          reserved = true;
        }
        bool ends_before = now + j.remaining <= shadow;
        if (blocked && !ends_before && int64_t(gpus) > extra) continue;
        Allocation a;
        if (cluster_.Place(j.shape, &a)) {
          if (blocked && !ends_before) extra -= int64_t(gpus);
          Start(job, now, a);
          continue;
        }
      } else if (can_preempt) {
        JobShape shape = policy_->PendingShape(job);
        auto key = std::make_tuple(shape.allocation, shape.node_count, shape.gpus_per_node,
                                   shape.min_runtime);
        if (std::find(failed.begin(), failed.end(), key) == failed.end()) {
          if (!counted) {
            CountPreemptable(now);
            counted = true;
          }
          ++attempts;
          if (TryPreempt(job, now)) {
            failed.clear();
            counted = false;
            continue;
          }
          failed.push_back(key);
        }
      }
      if (!blocked) {
        blocked = true;
        blocked_job = job;
      }
    }
  }
}

void Engine::Reserve(const SimJob& blocked, TimePoint now, TimePoint* shadow, int64_t* extra) {
  std::vector<std::pair<TimePoint, uint64_t>> ends;
  ends.reserve(running_jobs_.size());
  for (uint32_t job : running_jobs_) {
    const SimJob& r = jobs_[job];
    ends.emplace_back(r.run_start + r.remaining, GpusOf(r));
  }
  std::sort(ends.begin(), ends.end());
  int64_t need = int64_t(GpusOf(blocked));
  int64_t free = int64_t(cluster_.free_gpus());
  *shadow = now;
  for (const auto& [end, gpus] : ends) {
    if (free >= need) break;
    free += int64_t(gpus);
    *shadow = end;
  }
  *extra = free - need;
  if (free < need) {  // never: the job fits an empty cluster (admission)
    *shadow = kNever;
    *extra = 0;
  }
}

void Engine::CountPreemptable(TimePoint now) {
  // GPUs of unprotected running jobs: unallocated ones, and allocated ones
  // by their allocation's rank, as suffix sums over ranks.
  preempt_standings_ = policy_->standings();
  policy_->AddCommitments(running_, now, &preempt_standings_);
  const std::vector<Standing>& standings = preempt_standings_;
  uint32_t ranks = 0;
  for (const Standing& s : standings) if (s.rank != UINT32_MAX) ranks = std::max(ranks, s.rank + 1);
  unprotected_by_rank_.assign(size_t(ranks) + 1, 0);
  unprotected_unallocated_ = 0;
  for (const RunningJob& r : running_) {
    if (r.IsProtectedAt(now)) continue;
    bool known = r.allocation >= 0 && size_t(r.allocation) < standings.size() &&
                 standings[r.allocation].rank < ranks;
    if (!r.allocated() || !known) {
      unprotected_unallocated_ += r.total_gpus();
    } else {
      unprotected_by_rank_[standings[r.allocation].rank] += r.total_gpus();
    }
  }
  for (size_t k = unprotected_by_rank_.size() - 1; k-- > 0;)
    unprotected_by_rank_[k] += unprotected_by_rank_[k + 1];
}

bool Engine::TryPreempt(uint32_t job, TimePoint now) {
  JobShape shape = policy_->PendingShape(job);
  if (!shape.allocated()) return false;  // rule 2: unallocated work preempts nothing
  const std::vector<Standing>& standings = preempt_standings_;
  ClusterScale scale = policy_->scale();
  // A necessary condition (rules 1, 3 and 5 of preempt.h): free GPUs plus
  // those of unprotected jobs that are unallocated or rank behind this job's
  // allocation must cover it. The core decides the rest.
  uint64_t available = cluster_.free_gpus() + unprotected_unallocated_;
  if (shape.allocation >= 0 && size_t(shape.allocation) < standings.size() &&
      size_t(standings[shape.allocation].rank) + 1 < unprotected_by_rank_.size())
    available += unprotected_by_rank_[standings[shape.allocation].rank + 1];
  if (available < shape.total_gpus()) return false;
  // Then the exact pairwise rule (all six rules, O(running)): far cheaper
  // than a set choice that would find too few victims.
  auto standing_of = [&standings](int32_t a) {
    return a >= 0 && size_t(a) < standings.size() ? standings[a] : Standing();
  };
  Standing mine = standing_of(shape.allocation);
  available = cluster_.free_gpus();
  for (const RunningJob& r : running_) {
    if (available >= shape.total_gpus()) break;
    if (!r.IsProtectedAt(now) && MayPreempt(shape, mine, r, standing_of(r.allocation), scale, now))
      available += r.total_gpus();
  }
  if (available < shape.total_gpus()) return false;
  PreemptionPlan plan;
  Status st = ChoosePreemption(shape, running_, cluster_.nodes(), standings, scale, now, &plan);
  if (!st.ok() || !plan.feasible || plan.victims.empty()) return false;
  for (const Victim& v : plan.victims) Stop(v.job_id - 1, now, shape.job_id);
  Allocation a;
  if (!cluster_.PlaceOn(jobs_[job].shape, plan.target_nodes, &a) &&
      !cluster_.Place(jobs_[job].shape, &a))
    return false;  // cannot happen: the plan freed the targets
  Start(job, now, a);
  return true;
}

void Engine::Start(uint32_t job, TimePoint now, const Allocation& allocation) {
  SimJob& j = jobs_[job];
  const TraceJob& t = w_.jobs[job];
  policy_->Dequeue(job);
  j.state = JobState::kRunning;
  j.run_start = now;
  ++j.serial;
  j.allocation = allocation;
  if (j.first_start < 0) {
    j.first_start = now;
    metrics_->RecordWait(job, now - t.submit);
  }
  policy_->OnStart(job, now);
  RunningJob record = policy_->RunningRecord(job);
  record.nodes = allocation.nodes;
  j.allocated_run = record.allocated();
  j.running_slot = int32_t(running_.size());
  running_.push_back(std::move(record));
  running_jobs_.push_back(job);
  uint64_t gpus = GpusOf(j);
  if (!j.allocated_run) unallocated_busy_ += gpus;
  metrics_->ChangeDelivered(t.account, now, double(gpus));
  events_.push(Event{now + j.remaining, job, j.serial, Event::kFinish});
  TimePoint preemptible = policy_->PreemptibleFrom(job);
  if (policy_->preempts() && preemptible > now && preemptible < now + j.remaining &&
      preemptible <= end_)
    events_.push(Event{preemptible, job, j.serial, Event::kProtectionEnd});
  if (opt_.record_timeline) {
    open_segment_[job] = out_->timeline.size();
    // A policy that never preempts never makes a run preemptible.
    TimePoint from = policy_->preempts() ? std::max(now, preemptible) : kNever;
    Segment seg;
    seg.job = job;
    seg.start = seg.end = now;
    seg.preemptible_from = from;
    seg.allocation = allocation;
    out_->timeline.push_back(std::move(seg));
  }
  if (opt_.record_decisions) {
    Decision d;
    d.kind = Decision::Kind::kStart;
    d.time = now;
    d.job_id = t.id;
    for (const NodeGpus& n : allocation.nodes) d.nodes.push_back(n.node);
    out_->decisions.push_back(std::move(d));
  }
}

void Engine::Stop(uint32_t job, TimePoint now, uint32_t preempted_by) {
  SimJob& j = jobs_[job];
  const TraceJob& t = w_.jobs[job];
  // Swap-remove from the running list, keeping the slots right.
  size_t slot = size_t(j.running_slot), last = running_.size() - 1;
  if (slot != last) {
    running_[slot] = std::move(running_[last]);
    running_jobs_[slot] = running_jobs_[last];
    jobs_[running_jobs_[slot]].running_slot = int32_t(slot);
  }
  running_.pop_back();
  running_jobs_.pop_back();
  j.running_slot = -1;
  cluster_.Release(j.allocation);
  uint64_t gpus = GpusOf(j);
  if (!j.allocated_run) unallocated_busy_ -= gpus;
  metrics_->ChangeDelivered(t.account, now, -double(gpus));
  policy_->OnStop(job, now);
  if (opt_.record_timeline) {
    Segment& s = out_->timeline[open_segment_[job]];
    s.end = now;
    s.preempted = preempted_by != 0;
    s.ended = preempted_by != 0 ? RunEnd::kPreempted : RunEnd::kFinished;
    s.preempted_by = preempted_by;
  }
  if (opt_.record_decisions) {
    Decision d;
    d.kind = preempted_by ? Decision::Kind::kPreempt : Decision::Kind::kFinish;
    d.time = now;
    d.job_id = t.id;
    d.by_job_id = preempted_by;
    out_->decisions.push_back(std::move(d));
  }
  if (preempted_by == 0) {
    j.state = JobState::kDone;
    ++finished_;
    metrics_->ChangeDemand(t.account, now, -double(gpus));
    return;
  }
  metrics_->RecordPreemption();
  ++j.preemptions;
  // Resumable: only the remaining work; otherwise cancelled and resubmitted
  // whole (sim_job.h).
  j.remaining = t.resumable ? std::max<Seconds>(1, j.remaining - (now - j.run_start)) : t.duration;
  j.state = JobState::kPending;
  policy_->Enqueue(job, now);
}

}  // namespace

const char* RunEndName(RunEnd end) {
  switch (end) {
    case RunEnd::kRunning: return "running";
    case RunEnd::kFinished: return "finished";
    case RunEnd::kPreempted: return "preempted";
    case RunEnd::kTimeout: return "timeout";
    case RunEnd::kDrained: return "drained";
  }
  return "running";
}

Status RunSimulation(const Workload& workload, const AllocationTree& tree,
                     const BudgetConfig& config, const EngineOptions& options, Policy* policy,
                     RunOutput* out) {
  *out = RunOutput();
  Engine engine(workload, tree, config, options, policy, out);
  return engine.Run();
}

}  // namespace sim
}  // namespace budget
