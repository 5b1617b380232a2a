#include "sim/engine.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <tuple>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/preempt.h"
#include "libbudget/policy/quick_reserve.h"
#include "libbudget/policy/slurm_model.h"
#include "libbudget/policy/timeslice_plan.h"
#include "sim/waiting_classes.h"
#include "sim/waiting_requests.h"

namespace budget {
namespace sim {

namespace {

constexpr TimePoint kNever = std::numeric_limits<TimePoint>::max();

struct Event {
  // kAnswer: a node back from a drain answers the controller's ping and
  // takes jobs again (SimOptions::node_answer_delay after its kResume).
  // kLeave: a job told to leave (PreemptNotice) gives its GPUs back.
  enum Kind : uint8_t { kEnd = 0, kDrain = 1, kResume = 2, kAnswer = 3, kLeave = 4 };
  TimePoint time;
  uint32_t job;     // kEnd: the job; kDrain/kResume/kAnswer: the node
  uint32_t serial;  // kEnd: the run it ends (stale if the job restarted)
  Kind kind;
  bool operator>(const Event& o) const {
    return std::tie(time, kind, job) > std::tie(o.time, o.kind, o.job);
  }
};

uint64_t GpusOf(const SimJob& j) { return uint64_t{j.shape.node_count} * j.shape.gpus_per_node; }

// A periodic activity that keeps its phase: due at origin + k x period.
struct Tick {
  TimePoint origin = 0;
  Seconds period = 1;
  TimePoint next = 0;
  // The first due time >= now (used when the loop wakes from idleness).
  TimePoint From(TimePoint now) const {
    if (now <= origin) return origin;
    return origin + (now - origin + period - 1) / period * period;
  }
};

class Engine;

// Slurm's queue over the policy's lanes: eligible jobs in priority order.
// First the jobs granted a preemption (they hold the top priority,
// kGrantedPriority, until the next recompute; Slurm ties them by submit
// time, then id), then the lanes.
class LaneQueue : public SlurmQueue {
 public:
  LaneQueue(const Engine& engine, TimePoint now);
  bool Next(SlurmJob* job) override;

 private:
  const Engine& e_;
  TimePoint now_;
  const bool limits_;  // the policy holds jobs over per-user limits
  size_t boosted_ = 0;
  size_t lane_ = 0;
  PendingQueue::Lane::const_iterator it_, end_;
  bool started_ = false;
};

// The time-slicing pass's walk of the queue (libbudget/timeslice_plan.h
// WaitingJobs): the lanes in order, and in each lane its eligible
// allocated jobs in key order, merged from their classes (WaitingClasses);
// a class the pass skips is left out of the merge.
class ClassWalk : public WaitingJobs {
 public:
  ClassWalk(const Engine& engine, TimePoint now);
  void Begin(bool quick) override;
  const WaitingJob* Next() override;
  const WaitingJob* Find(uint32_t job_id) override;
  void Skip(const ShapeClass& c) override;
  void UnskipAll() override { ++generation_; }

 private:
  struct Cursor {
    const WaitingClasses::Class* cls;
    std::set<PendingQueue::Key>::const_iterator it;
  };
  const WaitingJob* Fill(uint32_t job, WaitingJob* out) const;
  // The lane's classes of the walk's group that have jobs.
  void OpenLane(size_t lane);
  // Where the window (kMaxJobsTried servable jobs) ends.
  void FindWindowEnd();

  const Engine& e_;
  TimePoint now_;
  bool quick_ = true;
  size_t lane_ = 0;  // position in the lane order
  bool lane_open_ = false;
  // The window's last job: in group end_quick_, lane position end_lane_,
  // key end_key_; none if the walk is shorter than the window.
  bool window_ends_ = false;
  bool end_quick_ = false;
  size_t end_lane_ = 0;
  PendingQueue::Key end_key_{};
  std::vector<Cursor> cursors_;
  PendingQueue::Key last_{};  // the last job walked in the lane, if walked_
  bool walked_ = false;
  std::vector<uint32_t>& skipped_;  // class id -> generation it was skipped in
  uint32_t& generation_;
  WaitingJob next_, found_;
};

class Engine {
 public:
  Engine(const Workload& w, const AllocationTree& tree, const BudgetConfig& config,
         const EngineOptions& options, Policy* policy, RunOutput* out)
      : w_(w), tree_(tree), config_(config), opt_(options), policy_(policy), out_(out),
        cluster_(options.nodes, options.gpus_per_node, options.groups, options.packing) {}

  Status Run();

 private:
  friend class LaneQueue;
  friend class ClassWalk;
  bool suite() const { return policy_->preemption() == Policy::Preemption::kTimeslice; }
  Placement placement() const { return opt_.packing ? Placement::kBestFit : Placement::kFirstFit; }
  // Most waiting jobs are eligible from their submission: a byte per job
  // says which may not be (a requeue delay), so that queue walks touch
  // only small arrays.
  bool Eligible(uint32_t job, TimePoint now) const {
    if (!maybe_later_[job]) return true;
    if (jobs_[job].eligible_at > now) return false;
    maybe_later_[job] = 0;
    return true;
  }
  bool IsBoosted(uint32_t job) const {
    return !boosted_.empty() && is_boosted_[job];
  }
  void Boost(uint32_t job);
  // A waiting job as Slurm's schedulers see it (kept from its Enqueue).
  SlurmJob AsSlurmJob(uint32_t job) const;
  SlurmJob MakeSlurmJob(uint32_t job) const;
  // Whether periodic passes are due at all: jobs wait, or (the suite) a
  // draining node still runs jobs.
  bool Active() const;

  void Arrive(uint32_t job, TimePoint now);
  void Enqueue(uint32_t job, TimePoint now, TimePoint eligible_at);
  void RefreshHold(TimePoint now);
  // The first eligible hero-sized waiting job in Slurm's order, or -1.
  int64_t FirstHeroSized(const HeroRule& rule, TimePoint now) const;
  bool AccountRanksFirst(uint32_t hero, TimePoint now) const;
  void MainPass(TimePoint now, uint32_t depth);
  void BackfillPass(TimePoint now);
  // Whether a backfill pass now could start a job (false: it certainly
  // starts none).
  bool BackfillCouldStart() const;
  void TimeslicePass(TimePoint now);
  bool SchedulerPreempts(uint32_t job, TimePoint now);
  void StartAll(const SlurmPass& pass, TimePoint now);
  void Start(uint32_t job, TimePoint now, const Allocation& allocation);
  void Stop(uint32_t job, TimePoint now, RunEnd how, uint32_t preempted_by);
  void Notice(uint32_t job, TimePoint now, TimePoint until, RunEnd how, uint32_t by);
  void SetDrain(int32_t node, bool draining, TimePoint now);
  bool NodeAnswered(int32_t node);  // false: drained again meanwhile
  void Advance(TimePoint now);
  void Recompute(TimePoint now);
  void MarkDirty() { backfill_dirty_ = main_dirty_ = true; }
  void RecordDecision(Decision::Kind kind, TimePoint now, uint32_t job, uint32_t by,
                      const Allocation* where);

  const Workload& w_;
  const AllocationTree& tree_;
  const BudgetConfig& config_;
  const EngineOptions& opt_;
  Policy* policy_;
  RunOutput* out_;
  Cluster cluster_;
  std::unique_ptr<RunMetrics> metrics_;
  std::vector<SimJob> jobs_;
  // Per GPU type of the workload (Workload::gpu_types), the nodes of that
  // type (EngineOptions::gpu_types); an empty set when no node has it.
  std::vector<EligibleNodes> type_nodes_;
  std::vector<RunningJob> running_;     // the core's records, nodes filled
  std::vector<uint32_t> running_jobs_;  // parallel: job index
  size_t noticed_ = 0;                  // running jobs in their notice
  std::vector<size_t> open_segment_;    // per job, timeline index
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t unallocated_busy_ = 0;
  uint64_t finished_ = 0, timeouts_ = 0;
  RejectionCounter rejections_;
  TimePoint end_ = 0;
  // The suite's state between passes.
  TimeslicePlanner planner_;
  // The hero hold and the quick-start reserve in force (quick_reserve.h).
  NodeHolds holds_;
  TimePoint hold_refreshed_at_ = -1;
  const QuickStartRule quick_rule_{config_.quick_start_min_runtime, config_.quick_start_gpus,
                                   config_.quick_start_user_gpus, config_.quick_start_reserve_nodes};
  // The position of each lane in the lane order (Slurm's order, for the
  // hero).
  std::vector<uint32_t> lane_rank_;
  std::vector<uint8_t> draining_;  // per node
  uint32_t draining_count_ = 0;
  std::vector<std::string> node_names_, paths_;
  TimesliceInputs timeslice_inputs_;  // kept between passes (TimeslicePass)
  // The waiting allocated jobs by class (the suite only), and the walk's
  // skip marks: a class is skipped while its mark equals the generation.
  WaitingClasses waiting_classes_;
  // The waiting jobs by GPU request, every policy (BackfillCouldStart).
  WaitingRequests waiting_requests_;
  mutable std::vector<uint32_t> class_skipped_;
  // Waiting jobs that were not yet eligible when queued (a requeue delay),
  // until the walk finds them eligible.
  mutable std::vector<uint32_t> not_yet_eligible_;
  mutable uint32_t skip_generation_ = 1;
  // Whether Slurm's scheduler could start something it could not at its
  // last pass: set by ends, arrivals, starts by the main scheduler, jobs
  // becoming eligible again, a new queue order, a node back in service, a
  // released hold. Nothing else can enable a start (time passing only
  // brings reservations and holds closer), so a clean backfill or periodic
  // main pass would decide nothing and is skipped.
  bool backfill_dirty_ = true, main_dirty_ = true;
  std::priority_queue<TimePoint, std::vector<TimePoint>, std::greater<TimePoint>> eligible_at_;
  // Jobs granted a preemption since the last recompute, in Slurm's order
  // among equal priorities (submit time, then id).
  std::vector<uint32_t> boosted_;
  std::vector<uint8_t> is_boosted_;  // per job: in boosted_
  mutable std::vector<uint8_t> maybe_later_;  // per job: eligible_at may be > now
  std::vector<SlurmJob> as_slurm_;             // per waiting job (AsSlurmJob)
};

LaneQueue::LaneQueue(const Engine& engine, TimePoint now)
    : e_(engine), now_(now), limits_(engine.policy_->has_start_limits()) {
  if (limits_) e_.policy_->BeginSchedulerPass();
}

bool LaneQueue::Next(SlurmJob* job) {
  while (boosted_ < e_.boosted_.size()) {
    uint32_t index = e_.boosted_[boosted_++];
    if (e_.jobs_[index].state != JobState::kPending || !e_.Eligible(index, now_)) continue;
    *job = e_.AsSlurmJob(index);
    return true;
  }
  const std::vector<uint32_t>& order = e_.policy_->lane_order();
  const PendingQueue& queue = e_.policy_->queue();
  for (;;) {
    if (!started_ || it_ == end_) {
      if (started_) ++lane_;
      started_ = true;
      while (lane_ < order.size() && queue.lane(order[lane_]).empty()) ++lane_;
      if (lane_ >= order.size()) return false;
      it_ = queue.lane(order[lane_]).begin();
      end_ = queue.lane(order[lane_]).end();
    }
    uint32_t index = PendingQueue::JobOf(*it_++);
    if (!e_.Eligible(index, now_) || e_.IsBoosted(index)) continue;
    if (limits_ && !e_.policy_->MayStart(index)) continue;  // held by a QOS limit: passed over
    *job = e_.AsSlurmJob(index);
    return true;
  }
}

ClassWalk::ClassWalk(const Engine& engine, TimePoint now)
    : e_(engine), now_(now), skipped_(engine.class_skipped_), generation_(engine.skip_generation_) {
  ++generation_;  // nothing skipped yet
  skipped_.resize(e_.waiting_classes_.class_count(), 0);
  FindWindowEnd();
}

void ClassWalk::Begin(bool quick) {
  quick_ = quick;
  lane_ = 0;
  lane_open_ = false;
}

void ClassWalk::OpenLane(size_t lane) {
  cursors_.clear();
  walked_ = false;
  if (lane >= e_.waiting_classes_.lanes()) return;
  for (const WaitingClasses::Class& c : e_.waiting_classes_.lane(lane))
    if (c.quick == quick_ && !c.jobs.empty() && c.servable) cursors_.push_back(Cursor{&c, c.jobs.begin()});
}

void ClassWalk::FindWindowEnd() {
  // Jobs still in their requeue delay are not waiting yet: count them out.
  std::vector<uint32_t>& later = e_.not_yet_eligible_;
  std::sort(later.begin(), later.end());
  later.erase(std::unique(later.begin(), later.end()), later.end());
  struct NotYet {
    size_t lane;
    bool quick;
    PendingQueue::Key key;
  };
  std::vector<NotYet> not_yet;
  for (size_t i = 0; i < later.size();) {
    uint32_t job = later[i];
    const SimJob& j = e_.jobs_[job];
    if (j.state != JobState::kPending || e_.Eligible(job, now_)) {
      later[i] = later.back();
      later.pop_back();
      continue;
    }
    ++i;
    JobShape shape = e_.policy_->PendingShape(job);
    if (IsServable(shape)) not_yet.push_back(NotYet{e_.policy_->LaneOf(job), shape.quick, e_.policy_->KeyOf(job)});
  }
  const std::vector<uint32_t>& order = e_.policy_->lane_order();
  uint64_t left = TimeslicePlanner::kMaxJobsTried;
  for (bool quick : {true, false}) {
    for (size_t pos = 0; pos < order.size(); ++pos) {
      const size_t lane = order[pos];
      if (lane >= e_.waiting_classes_.lanes()) continue;
      const WaitingClasses::Ranked& ranked = e_.waiting_classes_.servable(lane, quick);
      std::vector<PendingQueue::Key> later_here;  // sorted
      for (const NotYet& n : not_yet)
        if (n.lane == lane && n.quick == quick) later_here.push_back(n.key);
      std::sort(later_here.begin(), later_here.end());
      const uint64_t waiting = ranked.size() - later_here.size();
      if (waiting < left) {
        left -= waiting;
        continue;
      }
      // The window ends in this lane, at its left-th waiting job: the
      // smallest position i whose key has left - 1 waiting keys before it.
      size_t i = size_t(left - 1);
      for (;;) {
        PendingQueue::Key key = *ranked.find_by_order(i);
        size_t up_to = size_t(std::upper_bound(later_here.begin(), later_here.end(), key) - later_here.begin());
        bool is_later = up_to > 0 && later_here[up_to - 1] == key;
        if (i - up_to == size_t(left - 1) && !is_later) {
          window_ends_ = true;
          end_quick_ = quick;
          end_lane_ = pos;
          end_key_ = key;
          return;
        }
        i = size_t(left - 1) + up_to;
      }
    }
  }
}

void ClassWalk::Skip(const ShapeClass& c) {
  if (c.allocation < 0) return;
  const WaitingClasses::Class* cls = e_.waiting_classes_.Get(size_t(c.allocation), c);
  if (cls) skipped_[cls->id] = generation_;
}

const WaitingJob* ClassWalk::Fill(uint32_t job, WaitingJob* out) const {
  const SimJob& j = e_.jobs_[job];
  out->shape = e_.policy_->PendingShape(job);
  out->user_priority = e_.w_.jobs[job].priority;
  out->submit_time = j.queue_submit;
  out->time_limit = e_.w_.jobs[job].time_limit;
  out->eligible = j.eligible;
  out->user = e_.w_.jobs[job].user;
  return out;
}

const WaitingJob* ClassWalk::Next() {
  const std::vector<uint32_t>& order = e_.policy_->lane_order();
  // Past the window: its end is in an earlier group, or an earlier lane.
  const bool last_group = window_ends_ && quick_ == end_quick_;
  if (window_ends_ && end_quick_ && !quick_) return nullptr;
  for (;;) {
    if (!lane_open_) {
      if (lane_ >= order.size() || (last_group && lane_ > end_lane_)) return nullptr;
      OpenLane(order[lane_]);
      lane_open_ = true;
    }
    Cursor* best = nullptr;
    for (Cursor& c : cursors_) {
      if (skipped_[c.cls->id] == generation_) continue;
      // A class skipped for a while and back rejoins after the walk's
      // place in the lane.
      if (walked_ && c.it != c.cls->jobs.end() && *c.it <= last_) c.it = c.cls->jobs.upper_bound(last_);
      if (c.it == c.cls->jobs.end()) continue;
      if (!best || *c.it < *best->it) best = &c;
    }
    if (!best) {
      lane_open_ = false;
      ++lane_;
      continue;
    }
    if (last_group && lane_ == end_lane_ && end_key_ < *best->it) return nullptr;
    last_ = *best->it;
    walked_ = true;
    uint32_t job = PendingQueue::JobOf(*best->it++);
    if (!e_.Eligible(job, now_)) continue;
    return Fill(job, &next_);
  }
}

const WaitingJob* ClassWalk::Find(uint32_t job_id) {
  uint32_t job = job_id - 1;  // workload.h: id = index + 1
  if (job >= e_.jobs_.size()) return nullptr;
  const SimJob& j = e_.jobs_[job];
  if (j.state != JobState::kPending || !e_.Eligible(job, now_) || !IsAllocatedWork(j.min_runtime)) return nullptr;
  return Fill(job, &found_);
}

SlurmJob Engine::AsSlurmJob(uint32_t job) const { return as_slurm_[job]; }

SlurmJob Engine::MakeSlurmJob(uint32_t job) const {
  const SimJob& j = jobs_[job];
  SlurmJob s;
  s.job_id = w_.jobs[job].id;  // = job + 1 (workload.h)
  s.request = GpuRequest{j.shape.node_count, j.shape.gpus_per_node};
  s.time_limit = opt_.exact_runtimes ? j.remaining : w_.jobs[job].time_limit;
  s.min_runtime = j.min_runtime;
  s.quick = suite() && policy_->PendingShape(job).quick;
  s.eligible = j.eligible;
  return s;
}

bool Engine::Active() const {
  if (policy_->queue().size() > 0) return true;
  if (!suite() || draining_count_ == 0) return false;
  for (const RunningJob& r : running_)
    for (const NodeGpus& n : r.nodes)
      if (draining_[n.node]) return true;
  return false;
}

Status Engine::Run() {
  if (opt_.nodes == 0 || opt_.gpus_per_node == 0 || opt_.gpus_per_node > Cluster::kMaxGpusPerNode)
    return Status::InvalidArgument("cluster: need >= 1 node and 1..64 GPUs per node");
  Status st = w_.Validate();
  if (!st.ok()) return st;
  for (const NodeDrain& d : opt_.drains) {
    if (d.node < 0 || uint32_t(d.node) >= opt_.nodes)
      return Status::InvalidArgument("drain: node index " + std::to_string(d.node) + " outside the cluster");
  }
  if (!opt_.gpu_types.empty() && opt_.gpu_types.size() != opt_.nodes)
    return Status::InvalidArgument("cluster: " + std::to_string(opt_.gpu_types.size()) + " GPU types for " +
                                   std::to_string(opt_.nodes) + " nodes");
  type_nodes_.clear();
  for (const std::string& type : w_.gpu_types) {
    NodeSet nodes;
    for (uint32_t i = 0; i < opt_.gpu_types.size(); ++i) {
      NodeOffers offers{{opt_.gpu_types[i]}, {opt_.gpu_types[i]}};
      if (NodeMatches(offers, NodeAsks{type, ""})) nodes.Add(int32_t(i));
    }
    type_nodes_.push_back(std::make_shared<const NodeSet>(std::move(nodes)));
  }
  jobs_.assign(w_.jobs.size(), SimJob());
  is_boosted_.assign(w_.jobs.size(), 0);
  maybe_later_.assign(w_.jobs.size(), 0);
  as_slurm_.assign(w_.jobs.size(), SlurmJob());
  if (opt_.record_timeline) open_segment_.assign(w_.jobs.size(), 0);
  draining_.assign(opt_.nodes, 0);
  for (uint32_t i = 0; i < opt_.nodes; ++i) node_names_.push_back("n" + std::to_string(i + 1));
  for (size_t i = 0; i < tree_.size(); ++i) paths_.push_back(tree_.node(NodeId(i)).path);
  SimContext ctx{&w_, &tree_, &config_, &opt_.policy, &jobs_, &cluster_, &opt_.thresholds};
  st = policy_->Init(ctx);
  if (!st.ok()) return st;
  waiting_classes_.Resize(policy_->queue().lane_count());
  waiting_requests_.Resize(policy_->queue().lane_count());

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
    end_ += opt_.requeue_delay;
  }
  end_ = std::max(end_, start);
  metrics_ = std::make_unique<RunMetrics>(w_, tree_, cluster_.capacity(), start, end_, opt_.thresholds);
  for (const NodeDrain& d : opt_.drains) {
    events_.push(Event{d.at, uint32_t(d.node), 0, Event::kDrain});
    if (d.resume_at >= 0) events_.push(Event{d.resume_at, uint32_t(d.node), 0, Event::kResume});
  }

  const SchedulerParams& sp = opt_.scheduler;
  Tick recompute{start, std::max<Seconds>(1, config_.recalc_interval)};
  Tick slice{start, std::max<Seconds>(1, config_.timeslice_interval)};
  Tick sched{start, std::max<Seconds>(1, sp.sched_interval)};
  Tick backfill{start, std::max<Seconds>(1, sp.bf_interval)};
  std::vector<Tick*> ticks = {&recompute, &sched};
  if (!opt_.builtin_scheduler) ticks.push_back(&backfill);
  if (suite()) ticks.push_back(&slice);
  bool was_active = false;  // periodic passes are running

  auto wall_start = std::chrono::steady_clock::now();
  size_t next_arrival = 0;
  TimePoint last_event = start;
  uint64_t steps = 0;
  for (;;) {
    was_active = was_active && Active();
    TimePoint now = kNever;
    if (next_arrival < w_.jobs.size()) now = w_.jobs[next_arrival].submit;
    if (!events_.empty()) now = std::min(now, events_.top().time);
    if (was_active)
      for (Tick* t : ticks) now = std::min(now, t->next);
    if (now == kNever || now > end_) break;
    Advance(now);
    last_event = now;
    bool schedule = false;       // a submission or an end: Slurm runs its scheduler
    bool pass_follows = false;  // an end, a drain, a return, a recompute: a time-slicing pass follows
    while (next_arrival < w_.jobs.size() && w_.jobs[next_arrival].submit == now) {
      Arrive(uint32_t(next_arrival++), now);
      schedule = true;
    }
    while (!events_.empty() && events_.top().time == now) {
      Event e = events_.top();
      events_.pop();
      if (e.kind == Event::kDrain || e.kind == Event::kResume) {
        SetDrain(int32_t(e.job), e.kind == Event::kDrain, now);
        schedule = true;  // `scontrol update` runs the scheduler
        pass_follows = true;
        continue;
      }
      if (e.kind == Event::kAnswer) {  // no scheduler run: backfill or the periodic pass finds it
        if (NodeAnswered(int32_t(e.job))) pass_follows = true;
        continue;
      }
      const SimJob& j = jobs_[e.job];
      if (j.state != JobState::kRunning || j.serial != e.serial) continue;  // stale
      if (e.kind == Event::kLeave) {
        Stop(e.job, now, RunEnd(j.notice_end), j.notice_by);
        schedule = true;
        pass_follows = true;
        continue;
      }
      bool done = j.remaining <= w_.jobs[e.job].time_limit;
      Stop(e.job, now, done ? RunEnd::kFinished : RunEnd::kTimeout, 0);
      schedule = true;
      pass_follows = true;
    }
    if (!was_active && Active()) {  // waking from idleness: ticks keep their phase
      for (Tick* t : ticks) t->next = t->From(now);
      was_active = true;
    }
    while (!eligible_at_.empty() && eligible_at_.top() <= now) {
      eligible_at_.pop();
      MarkDirty();
    }
    bool periodic_main = false, backfill_due = false, slice_due = false;
    if (was_active) {
      if (now >= recompute.next) {
        Recompute(now);
        recompute.next = recompute.From(now + 1);
        pass_follows = true;  // new standings: the time-slicing pass follows them too
      }
      if (suite() && now >= slice.next) {
        slice_due = true;
        slice.next = slice.From(now + 1);
      }
      if (now >= sched.next) {
        periodic_main = true;
        sched.next = sched.From(now + 1);
      }
      if (!opt_.builtin_scheduler && now >= backfill.next) {
        backfill_due = true;
        backfill.next = backfill.From(now + 1);
      }
    }
    // preempt/timeslice passes within 100 ms of a node change or of new
    // standings as well as every TimesliceInterval
    // (sched_timeslice/timeslice_thread.h): before Slurm's schedulers get
    // to the GPUs an end freed.
    if (suite() && was_active && pass_follows) slice_due = true;
    if (slice_due) {
      size_t running_before = running_.size();
      TimeslicePass(now);
      schedule = schedule || running_.size() != running_before;
    }
    // A baseline that preempts in the scheduler may preempt once a
    // protection ends, which no event marks: its periodic pass always runs.
    bool stock_preempts = policy_->preemption() == Policy::Preemption::kScheduler;
    if (schedule || (periodic_main && (main_dirty_ || stock_preempts)))
      MainPass(now, periodic_main ? 0 : sp.default_queue_depth);
    if (backfill_due) {
      RefreshHold(now);  // select/topo refreshes its plan at each of backfill's tests
      if (backfill_dirty_) BackfillPass(now);
    }
    if (opt_.progress && (++steps & 4095) == 0)
      opt_.progress(double(now - start) / double(std::max<TimePoint>(1, end_ - start)));
  }
  TimePoint finish = opt_.until >= 0 ? end_ : std::min(end_, last_event);
  Advance(finish);

  PolicyResult& r = out_->result;
  r.policy = policy_->name();
  r.what_if = opt_.builtin_scheduler ? "builtin" : opt_.exact_runtimes ? "exact-runtimes" : "";
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
  r.rejected = rejections_.total();
  r.rejections = rejections_.reasons();
  r.timeouts = timeouts_;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (opt_.progress) opt_.progress(1.0);
  return Status::Ok();
}

void Engine::Recompute(TimePoint now) {
  std::vector<uint32_t> before = policy_->lane_order();
  policy_->Recompute(now);
  const std::vector<uint32_t>& order = policy_->lane_order();
  lane_rank_.assign(policy_->queue().lane_count(), uint32_t(order.size()));
  for (size_t i = 0; i < order.size(); ++i) lane_rank_[order[i]] = uint32_t(i);
  // priority/budget's pass gives granted jobs their own priority back.
  if (!boosted_.empty()) MarkDirty();
  for (uint32_t job : boosted_) is_boosted_[job] = 0;
  boosted_.clear();
  if (policy_->lane_order() != before) MarkDirty();
  if (opt_.record_decisions) RecordDecision(Decision::Kind::kRecompute, now, 0, 0, nullptr);
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
  j.eligible = t.gpu_type == kAnyGpuType ? nullptr : type_nodes_[size_t(t.gpu_type)];
  std::string why;
  bool admitted = false;
  if (j.shape.node_count > cluster_.nodes().size()) {
    why = "asks for more GPUs than the cluster has (" + std::to_string(cluster_.capacity()) + ")";
  } else if (j.eligible && j.shape.node_count > j.eligible->Count()) {
    why = "asks for more " + w_.gpu_types[size_t(t.gpu_type)] + " GPUs than the cluster has (" +
          std::to_string(j.eligible->Count() * cluster_.gpus_per_node()) + ")";
  } else {
    admitted = policy_->Admit(job, &j.min_runtime, &why);
  }
  if (!admitted) {
    j.state = JobState::kRejected;
    rejections_.Add(why.empty() ? std::string("refused by the ") + policy_->name() + " policy" : why, t.id);
    return;
  }
  Enqueue(job, now, now);
  if (t.min_runtime > 0) metrics_->ChangeDemand(t.account, now, double(GpusOf(j)));
}

void Engine::Enqueue(uint32_t job, TimePoint now, TimePoint eligible_at) {
  SimJob& j = jobs_[job];
  MarkDirty();
  if (eligible_at > now) {
    eligible_at_.push(eligible_at);
    not_yet_eligible_.push_back(job);
  }
  j.state = JobState::kPending;
  j.queue_submit = now;
  j.eligible_at = eligible_at;
  maybe_later_[job] = eligible_at > now ? 1 : 0;
  as_slurm_[job] = MakeSlurmJob(job);
  policy_->Enqueue(job, now);
  waiting_requests_.Add(policy_->LaneOf(job), as_slurm_[job].request, policy_->KeyOf(job), w_.jobs[job].account);
  if (suite()) {
    JobShape shape = policy_->PendingShape(job);
    waiting_classes_.Add(policy_->LaneOf(job), shape, j.eligible, policy_->KeyOf(job));
  }
}

int64_t Engine::FirstHeroSized(const HeroRule& rule, TimePoint now) const {
  auto hero_sized = [&rule](const JobShape& s) {
    QueueEntry entry;
    entry.request = GpuRequest{s.node_count, s.gpus_per_node};
    return IsHeroSized(entry, rule);
  };
  // Granted jobs first, by lane rank and key.
  int64_t hero = -1;
  std::pair<uint32_t, PendingQueue::Key> best;
  for (uint32_t job : boosted_) {
    if (!Eligible(job, now) || !hero_sized(policy_->PendingShape(job))) continue;
    size_t lane = policy_->LaneOf(job);
    auto key = std::make_pair(lane < lane_rank_.size() ? lane_rank_[lane] : UINT32_MAX, policy_->KeyOf(job));
    if (hero < 0 || key < best) {
      hero = job;
      best = key;
    }
  }
  if (hero >= 0) return hero;
  // Then the lanes in order: the first lane with one has the first, the
  // lowest key of its hero-sized classes.
  for (uint32_t lane : policy_->lane_order()) {
    if (lane >= waiting_classes_.lanes()) continue;
    for (const WaitingClasses::Class& c : waiting_classes_.lane(lane)) {
      if (c.jobs.empty() || c.shape.gpus_per_node != cluster_.gpus_per_node() ||
          !hero_sized(JobShape{0, c.shape.allocation, c.shape.min_runtime, c.shape.node_count, c.shape.gpus_per_node}))
        continue;
      for (const PendingQueue::Key& key : c.jobs) {
        uint32_t job = PendingQueue::JobOf(key);
        if (!Eligible(job, now) || IsBoosted(job)) continue;
        if (hero < 0 || key < best.second) {
          hero = job;
          best.second = key;
        }
        break;
      }
    }
    if (hero >= 0) return hero;
  }
  return -1;
}

void Engine::RefreshHold(TimePoint now) {
  if (!suite()) return;
  // select/topo plans once per second (topo_steer.cc RefreshHeroPlan).
  if (hold_refreshed_at_ == now) return;
  hold_refreshed_at_ = now;
  // The hero (libbudget/policy/hero_plan.h): the first waiting whole-node job in
  // Slurm's order (granted jobs first, then the lanes in order, then the
  // key within a lane), once it waited HeroWait, as select/topo finds it
  // with ChooseHero over the controller's queue.
  const HeroRule rule{config_.hero_wait, config_.hero_min_nodes, cluster_.gpus_per_node()};
  int64_t hero = -1;
  // The hero stays the hero while it waits.
  const uint32_t held = holds_.hero.job_id - 1;
  if (holds_.hero.active && jobs_[held].state == JobState::kPending &&
      jobs_[held].shape.gpus_per_node == cluster_.gpus_per_node() && Eligible(held, now)) {
    hero = holds_.hero.job_id - 1;
  }
  if (hero < 0) hero = FirstHeroSized(rule, now);
  HeroPlan plan;
  const bool current = hero >= 0 && holds_.hero.active && uint32_t(hero) == holds_.hero.job_id - 1;
  if (hero >= 0 && !current) {
    const SimJob& j = jobs_[hero];
    QueueEntry entry;
    entry.waiting_since = std::max(j.queue_submit, j.eligible_at);
    if (!WaitedForHeroWait(entry, rule, now) || !AccountRanksFirst(uint32_t(hero), now)) hero = -1;
  }
  // The quick-start reserve first, from the same running jobs (select/topo
  // chooses it so), outside the hold in force; the hero's nodes are then
  // chosen outside the reserve (quick_reserve.h). A node it lets go may
  // take what it refused.
  QuickReserve reserve = ChooseQuickReserve(cluster_.nodes(), running_, holds_.hero, quick_rule_, now);
  for (int32_t index : holds_.reserve.nodes)
    if (!reserve.Holds(index)) {
      MarkDirty();
      break;
    }
  holds_.reserve = std::move(reserve);
  if (hero >= 0) {
    const SimJob& j = jobs_[hero];
    HeroCandidate candidate{w_.jobs[hero].id, GpuRequest{j.shape.node_count, j.shape.gpus_per_node},
                            std::max(j.queue_submit, j.eligible_at), j.eligible};
    if (!PlanHero(WithoutReserve(cluster_.nodes(), holds_.reserve), running_, candidate, config_.hero_wait, now,
                  &plan)
             .ok())
      plan = HeroPlan();
  }
  KeepPromise(holds_.hero, &plan);
  // A hold released, moved to other nodes or to a later start may free
  // what it held.
  if (holds_.hero.active &&
      (!plan.active || plan.nodes != holds_.hero.nodes || plan.planned_start > holds_.hero.planned_start))
    MarkDirty();
  holds_.hero = plan;
}

bool Engine::AccountRanksFirst(uint32_t hero, TimePoint now) const {
  // hero_plan.h AccountRanksFirst over Slurm's order: the lanes in order,
  // granted jobs aside.
  const int32_t account = w_.jobs[hero].account;
  const size_t hero_lane = policy_->LaneOf(hero);
  const PendingQueue& queue = policy_->queue();
  for (uint32_t lane : policy_->lane_order()) {
    // A lane whose every job is of the hero's account has no job of
    // another before the hero: the hero is first if it is in it.
    if (waiting_requests_.only_account(lane) == account) {
      if (lane == hero_lane) return true;
      continue;
    }
    for (const PendingQueue::Key& key : queue.lane(lane)) {
      uint32_t job = PendingQueue::JobOf(key);
      if (job == hero) return true;
      if (IsBoosted(job) || !Eligible(job, now)) continue;
      if (w_.jobs[job].account != account) return false;
    }
  }
  return true;
}

void Engine::StartAll(const SlurmPass& pass, TimePoint now) {
  for (const SlurmStart& s : pass.starts) {
    Allocation a;
    if (cluster_.PlaceOn(jobs_[s.job_id - 1].shape, s.nodes, &a)) Start(s.job_id - 1, now, a);
  }
}

void Engine::MainPass(TimePoint now, uint32_t depth) {
  if (policy_->queue().size() == 0) return;
  RefreshHold(now);  // select/topo refreshes its plan at the pass's first job test
  main_dirty_ = false;
  for (uint32_t attempt = 0;; ++attempt) {
    LaneQueue queue(*this, now);
    SlurmPass pass = RunMainScheduler(opt_.scheduler, depth, cluster_.nodes(), holds_, &queue, now, placement());
    StartAll(pass, now);
    if (!pass.starts.empty()) backfill_dirty_ = true;  // a job that left the queue may have been in its way
    // Stock preemption: the job the pass stopped at may preempt. Its
    // victims leave and it starts at once, and the pass is run again, up to
    // max_preempt_attempts times (Slurm would start it at its next pass,
    // once the victims are gone).
    if (pass.blocked_by == 0 || policy_->preemption() != Policy::Preemption::kScheduler) return;
    if (attempt >= opt_.max_preempt_attempts || !SchedulerPreempts(pass.blocked_by - 1, now)) return;
  }
}

void Engine::BackfillPass(TimePoint now) {
  if (policy_->queue().size() == 0 || cluster_.free_gpus() == 0) return;
  backfill_dirty_ = false;
  if (!BackfillCouldStart()) return;
  LaneQueue queue(*this, now);
  const std::vector<RunningJob>* running = &running_;
  std::vector<RunningJob> exact;
  if (opt_.exact_runtimes) {
    exact = running_;
    for (size_t i = 0; i < exact.size(); ++i) {
      const SimJob& j = jobs_[running_jobs_[i]];
      exact[i].time_limit = j.notice_until >= 0 ? j.notice_until - exact[i].start : j.remaining;
    }
    running = &exact;
  }
  StartAll(RunBackfill(opt_.scheduler, cluster_.nodes(), *running, holds_, &queue, now, placement()), now);
}

// RunBackfill (libbudget/policy/slurm_model.cc) starts only a job that its
// FitsNow test passes on the nodes as they are when the pass begins (the
// first start is the first change), and tests only the first
// bf_max_job_test jobs of Slurm's queue (LaneQueue: granted jobs, then the
// lanes in order, leaving out the jobs in a requeue delay and the granted
// ones). So if no job that a pass would test asks for a request that fits
// now (one node with that many GPUs free, or that many whole free nodes,
// held nodes included: FitsNow's most permissive case), the pass starts
// nothing. A lane job's place among the tested is at least its position in
// the walk of the lanes less every job the walk may leave out; a lane's
// first job of a request has the lowest such position of them.
bool Engine::BackfillCouldStart() const {
  uint32_t most_free = 0, whole_free = 0;
  for (const NodeState& n : cluster_.nodes()) {
    if (!n.usable) continue;
    most_free = std::max(most_free, n.free_gpus);
    if (n.free_gpus == n.total_gpus) ++whole_free;
  }
  auto fits = [most_free, whole_free](const GpuRequest& r) {
    return r.node_count > 1 ? r.node_count <= whole_free : r.gpus_per_node <= most_free;
  };
  for (uint32_t job : boosted_)
    if (fits(as_slurm_[job].request)) return true;
  const uint64_t left_out = boosted_.size() + not_yet_eligible_.size();  // an upper bound
  const uint64_t reach = uint64_t(opt_.scheduler.bf_max_job_test) + left_out;
  uint64_t before = 0;  // jobs of the lanes walked so far
  for (uint32_t lane : policy_->lane_order()) {
    if (before >= reach) return false;
    for (const WaitingRequests::Request& r : waiting_requests_.requests(lane)) {
      if (r.jobs.empty() || !fits(r.request)) continue;
      if (before + waiting_requests_.position(lane, *r.jobs.begin()) < reach) return true;
    }
    before += waiting_requests_.size(lane);
  }
  return false;
}

bool Engine::SchedulerPreempts(uint32_t job, TimePoint now) {
  JobShape shape = policy_->PendingShape(job);
  if (!shape.allocated()) return false;
  std::vector<Standing> standings = policy_->standings();
  policy_->AddCommitments(running_, now, &standings);
  PreemptionPlan plan;
  std::vector<NodeState> nodes = cluster_.nodes();
  KeepEligible(jobs_[job].eligible, &nodes);
  Status st = ChoosePreemption(shape, running_, nodes, standings, policy_->scale(), now, &plan);
  if (!st.ok() || !plan.feasible || plan.victims.empty()) return false;
  for (const Victim& v : plan.victims) Stop(v.job_id - 1, now, RunEnd::kPreempted, shape.job_id);
  Allocation a;
  if (!cluster_.PlaceOn(jobs_[job].shape, plan.target_nodes, &a) &&
      !cluster_.Place(jobs_[job].shape, jobs_[job].eligible, &a))
    return false;
  Start(job, now, a);
  return true;
}

void Engine::TimeslicePass(TimePoint now) {
  // The pass reads the hold select/topo last published (pass_inputs.cc);
  // select/topo refreshes it at the scheduler's next job test (MainPass,
  // BackfillPass), so a grant this pass makes counts in it from then on.
  // The inputs are kept from pass to pass: the names once, the rest
  // refilled in place (no allocation once the vectors have grown).
  TimesliceInputs& in = timeslice_inputs_;
  if (in.node_names.empty()) {
    in.node_names = node_names_;
    in.paths = paths_;
    in.explain = false;
  }
  in.nodes = cluster_.nodes();
  in.draining.clear();
  for (uint32_t n = 0; n < opt_.nodes; ++n)
    if (draining_[n]) in.draining.push_back(int32_t(n));
  // The pass reads the running jobs only while it plans, and nothing the
  // walk below reads is them: they are lent to it, not copied (a copy per
  // pass was a few percent of a run), and taken back before any applies.
  // Jobs in their notice are leaving, as the controller's pass sees them
  // (sched_timeslice/pass_inputs.cc): not among the running jobs.
  if (noticed_ == 0) {
    in.running.swap(running_);
  } else {
    in.running.clear();
    for (size_t i = 0; i < running_.size(); ++i)
      if (jobs_[running_jobs_[i]].notice_until < 0) in.running.push_back(running_[i]);
  }
  in.standings = policy_->standings();
  in.scale = policy_->scale();
  in.quick_start_user_gpus = config_.quick_start_user_gpus;
  in.hold = holds_.hero;
  in.reserve = holds_.reserve;
  // The waiting allocated jobs in the core's order (the lanes).
  TimeslicePlan plan;
  if (opt_.walk_by_class) {
    ClassWalk waiting(*this, now);
    plan = planner_.Plan(in, &waiting, now);
  } else {
    in.waiting.clear();
    for (uint32_t lane : policy_->lane_order()) {
      for (const PendingQueue::Key& key : policy_->queue().lane(lane)) {
        uint32_t job = PendingQueue::JobOf(key);
        const SimJob& j = jobs_[job];
        if (!Eligible(job, now) || !IsAllocatedWork(j.min_runtime)) continue;
        WaitingJob& wj = in.waiting.emplace_back();
        wj.shape = policy_->PendingShape(job);
        wj.user_priority = w_.jobs[job].priority;
        wj.submit_time = j.queue_submit;
        wj.time_limit = w_.jobs[job].time_limit;
        wj.eligible = j.eligible;
        wj.user = w_.jobs[job].user;
      }
    }
    plan = planner_.Plan(in, now);
  }
  if (noticed_ == 0) running_.swap(in.running);
  for (const PlannedPreemption& p : plan.preemptions) {
    uint32_t job = p.job_id - 1;
    if (jobs_[job].state != JobState::kRunning || jobs_[job].run_start != p.start) continue;
    const RunEnd how = p.for_drain ? RunEnd::kDrained : RunEnd::kPreempted;
    if (config_.preempt_notice > 0)
      Notice(job, now, now + config_.preempt_notice, how, p.preemptor);
    else
      Stop(job, now, how, p.preemptor);
  }
  for (uint32_t id : plan.starts) Boost(id - 1);
}

void Engine::Boost(uint32_t job) {
  if (IsBoosted(job) || jobs_[job].state != JobState::kPending) return;
  boosted_.push_back(job);
  is_boosted_[job] = 1;
  std::sort(boosted_.begin(), boosted_.end(), [this](uint32_t a, uint32_t b) {
    return std::make_pair(jobs_[a].queue_submit, a) < std::make_pair(jobs_[b].queue_submit, b);
  });
  MarkDirty();
}

void Engine::SetDrain(int32_t node, bool draining, TimePoint now) {
  if (bool(draining_[node]) == draining) return;
  draining_[node] = draining ? 1 : 0;
  draining_count_ = draining ? draining_count_ + 1 : draining_count_ - 1;
  if (draining) {
    cluster_.SetUsable(node, false);
    return;
  }
  // Out of DRAIN, but not responding until its slurmd answers a ping.
  events_.push(Event{now + std::max<Seconds>(0, opt_.node_answer_delay), uint32_t(node), 0, Event::kAnswer});
}

bool Engine::NodeAnswered(int32_t node) {
  if (draining_[node]) return false;  // drained again before it answered
  MarkDirty();
  cluster_.SetUsable(node, true);
  return true;
}

void Engine::Start(uint32_t job, TimePoint now, const Allocation& allocation) {
  SimJob& j = jobs_[job];
  const TraceJob& t = w_.jobs[job];
  if (suite())
    waiting_classes_.Remove(policy_->LaneOf(job), ShapeClass::Of(policy_->PendingShape(job), j.eligible.get()),
                            policy_->KeyOf(job));
  waiting_requests_.Remove(policy_->LaneOf(job), as_slurm_[job].request, policy_->KeyOf(job), w_.jobs[job].account);
  policy_->Dequeue(job);
  if (holds_.hero.active && holds_.hero.job_id == t.id) holds_.hero = HeroPlan();  // the hero starts: its hold ends
  if (IsBoosted(job)) {
    boosted_.erase(std::find(boosted_.begin(), boosted_.end(), job));
    is_boosted_[job] = 0;
  }
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
  record.time_limit = t.time_limit;
  // Slurm's priority as the hero plan compares it: higher for a better
  // ranked allocation, 0 for work without one.
  const std::vector<Standing>& standings = policy_->standings();
  if (record.allocation >= 0 && size_t(record.allocation) < standings.size() &&
      standings[record.allocation].rank != UINT32_MAX)
    record.priority = UINT32_MAX - standings[record.allocation].rank;
  j.allocated_run = record.allocated();
  j.running_slot = int32_t(running_.size());
  running_.push_back(std::move(record));
  running_jobs_.push_back(job);
  uint64_t gpus = GpusOf(j);
  if (!j.allocated_run) unallocated_busy_ += gpus;
  metrics_->ChangeDelivered(t.account, now, double(gpus), t.min_runtime > 0);
  events_.push(Event{now + std::min(j.remaining, t.time_limit), job, j.serial, Event::kEnd});
  if (opt_.record_timeline) {
    open_segment_[job] = out_->timeline.size();
    // A policy that never preempts never makes a run preemptible.
    TimePoint from = policy_->preempts() ? std::max(now, policy_->PreemptibleFrom(job)) : kNever;
    Segment seg;
    seg.job = job;
    seg.start = seg.end = now;
    seg.preemptible_from = from;
    seg.allocation = allocation;
    out_->timeline.push_back(std::move(seg));
  }
  RecordDecision(Decision::Kind::kStart, now, t.id, 0, &allocation);
}

void Engine::RecordDecision(Decision::Kind kind, TimePoint now, uint32_t job, uint32_t by,
                            const Allocation* where) {
  if (!opt_.record_decisions) return;
  Decision d;
  d.kind = kind;
  d.time = now;
  d.job_id = job;
  d.by_job_id = by;
  if (where)
    for (const NodeGpus& n : where->nodes) d.nodes.push_back(n.node);
  out_->decisions.push_back(std::move(d));
}

// As the controller (sched_timeslice/job_actions.h NoticeRunningJob): the
// job keeps its GPUs until `until`, Slurm's end time is cut to it (the
// hero plan and backfill see them free then), and the pass plans without
// it. Modelled as taking the whole notice: a job that leaves sooner frees
// its GPUs sooner.
void Engine::Notice(uint32_t job, TimePoint now, TimePoint until, RunEnd how, uint32_t by) {
  SimJob& j = jobs_[job];
  if (j.notice_until >= 0) return;
  j.notice_from = now;
  j.notice_until = until;
  j.notice_end = uint8_t(how);
  j.notice_by = by;
  ++noticed_;
  RunningJob& record = running_[size_t(j.running_slot)];
  if (record.time_limit < 0 || record.start + record.time_limit > until) record.time_limit = until - record.start;
  events_.push(Event{until, job, j.serial, Event::kLeave});
}

void Engine::Stop(uint32_t job, TimePoint now, RunEnd how, uint32_t preempted_by) {
  SimJob& j = jobs_[job];
  const TraceJob& t = w_.jobs[job];
  // Its work up to the notice counts (the checkpoint it wrote then).
  const TimePoint worked_until = j.notice_until >= 0 ? j.notice_from : now;
  if (j.notice_until >= 0) {
    j.notice_from = j.notice_until = -1;
    --noticed_;
  }
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
  MarkDirty();
  uint64_t gpus = GpusOf(j);
  if (!j.allocated_run) unallocated_busy_ -= gpus;
  metrics_->ChangeDelivered(t.account, now, -double(gpus), t.min_runtime > 0);
  policy_->OnStop(job, now);
  bool ended_by_others = how == RunEnd::kPreempted || how == RunEnd::kDrained;
  if (opt_.record_timeline) {
    Segment& s = out_->timeline[open_segment_[job]];
    s.end = now;
    s.preempted = ended_by_others;
    s.ended = how;
    s.preempted_by = preempted_by;
  }
  RecordDecision(ended_by_others ? Decision::Kind::kPreempt : Decision::Kind::kFinish, now, t.id, preempted_by,
                 nullptr);
  if (!ended_by_others) {
    j.state = JobState::kDone;
    ++finished_;
    if (how == RunEnd::kTimeout) ++timeouts_;
    if (t.min_runtime > 0) metrics_->ChangeDemand(t.account, now, -double(gpus));
    return;
  }
  metrics_->RecordPreemption();
  ++j.preemptions;
  if (t.resumable) {
    // Requeued: only the remaining work, after Slurm's requeue delay.
    j.remaining = std::max<Seconds>(1, j.remaining - (worked_until - j.run_start));
    Enqueue(job, now, now + opt_.requeue_delay);
  } else {
    // Cancelled by its contract and resubmitted whole at once (sim_job.h).
    j.remaining = t.duration;
    Enqueue(job, now, now);
  }
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

Status RunSimulation(const Workload& workload, const AllocationTree& tree, const BudgetConfig& config,
                     const EngineOptions& options, Policy* policy, RunOutput* out) {
  *out = RunOutput();
  Engine engine(workload, tree, config, options, policy, out);
  return engine.Run();
}

}  // namespace sim
}  // namespace budget
