// TimeslicePlanner: see timeslice_plan.h.
#include "libbudget/policy/timeslice_plan.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "libbudget/policy/commitments.h"
#include "libbudget/policy/drain.h"
#include "libbudget/policy/order.h"
#include "libbudget/policy/preemption_note.h"

namespace budget {

namespace {

std::string Ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", r);
  return text;
}

const std::string& NameOf(const TimesliceInputs& in, int32_t index, std::string* scratch) {
  if (index >= 0 && size_t(index) < in.node_names.size() && !in.node_names[index].empty())
    return in.node_names[index];
  *scratch = std::to_string(index);
  return *scratch;
}

std::string PathOf(const TimesliceInputs& in, int32_t allocation) {
  if (allocation >= 0 && size_t(allocation) < in.paths.size() && !in.paths[allocation].empty())
    return in.paths[allocation];
  return allocation == kNoAllocation ? "unallocated" : "allocation " + std::to_string(allocation);
}

const Standing& StandingOf(const std::vector<Standing>& standings, int32_t allocation) {
  static const Standing kNone;
  return allocation >= 0 && size_t(allocation) < standings.size() ? standings[allocation] : kNone;
}

PendingJob OrderKey(const WaitingJob& w) {
  PendingJob key;
  key.job_id = w.shape.job_id;
  key.node = w.shape.allocation;
  key.allocated = w.shape.allocated();
  key.user_priority = w.user_priority;
  key.submit_time = w.submit_time;
  return key;
}

// GPUs of unprotected running jobs that a job of each rank could take:
// unallocated (or unrankable) ones for anyone, allocated ones of ranks
// behind it (rules 1, 2, 3 and 5 of preempt.h; a necessary condition).
//
// Also the unprotected jobs in groups on which the pairwise rule's verdict
// for any one preemptor is the same (preempt.cc Judge reads of an
// unprotected preemptee only whether it is allocated work, its allocation
// and that allocation's standing): all unallocated work, and allocated work
// by allocation. EnoughAllowed asks the rule once per group instead of once
// per running job.
struct PreemptableGpus {
  struct Group {
    size_t example = 0;  // a member: a position in the candidates
    uint64_t gpus = 0;   // of all its members
  };
  std::vector<uint64_t> behind;  // [r] = GPUs of allocations of rank >= r (suffix sums)
  uint64_t unallocated = 0;
  uint64_t all = 0;  // every unprotected job's (what a quick-start job may take)
  std::vector<Group> groups;
  std::vector<int32_t> group_of;  // [allocation] -> group, -1 if none yet

  void Count(const std::vector<RunningJob>& candidates, const std::vector<Standing>& standings, TimePoint now) {
    uint32_t ranks = 0;
    for (const Standing& s : standings)
      if (s.rank != UINT32_MAX) ranks = std::max(ranks, s.rank + 1);
    behind.assign(size_t(ranks) + 1, 0);
    unallocated = all = 0;
    groups.clear();
    group_of.assign(standings.size(), -1);
    int32_t unallocated_group = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const RunningJob& r = candidates[i];
      if (r.IsProtectedAt(now)) continue;
      all += r.total_gpus();
      AddToGroup(candidates, i, &unallocated_group);
      const Standing& s = StandingOf(standings, r.allocation);
      bool ranked = r.allocation >= 0 && size_t(r.allocation) < standings.size() && s.rank < ranks;
      if (!r.allocated() || !ranked) {
        unallocated += r.total_gpus();
      } else {
        behind[s.rank] += r.total_gpus();
      }
    }
    for (size_t k = behind.size() - 1; k-- > 0;) behind[k] += behind[k + 1];
  }

  void AddToGroup(const std::vector<RunningJob>& candidates, size_t i, int32_t* unallocated_group) {
    const RunningJob& r = candidates[i];
    int32_t* slot = nullptr;
    if (!r.allocated()) {
      slot = unallocated_group;
    } else if (r.allocation >= 0 && size_t(r.allocation) < group_of.size()) {
      slot = &group_of[size_t(r.allocation)];
    } else {
      // An allocation the standings do not cover (rare): its own group.
      for (size_t g = 0; g < groups.size() && !slot; ++g) {
        const RunningJob& e = candidates[groups[g].example];
        if (e.allocated() && e.allocation == r.allocation) {
          groups[g].gpus += r.total_gpus();
          return;
        }
      }
      groups.push_back(Group{i, r.total_gpus()});
      return;
    }
    if (*slot < 0) {
      *slot = int32_t(groups.size());
      groups.push_back(Group{i, 0});
    }
    groups[size_t(*slot)].gpus += r.total_gpus();
  }

  uint64_t For(const JobShape& job, const std::vector<Standing>& standings) const {
    if (job.quick) return all;
    const int32_t allocation = job.allocation;
    uint64_t n = unallocated;
    const Standing& s = StandingOf(standings, allocation);
    if (allocation >= 0 && size_t(allocation) < standings.size() && size_t(s.rank) + 1 < behind.size())
      n += behind[s.rank + 1];
    return n;
  }
};

// Free GPUs plus those of the running jobs the pairwise rule lets `shape`
// preempt cover it (a necessary condition of a choice, in O(groups)).
// REQUIRES: `preemptable` counted over `candidates` as they are.
bool EnoughAllowed(const JobShape& shape, const PreemptableGpus& preemptable,
                   const std::vector<RunningJob>& candidates, const std::vector<Standing>& standings,
                   const ClusterScale& scale, uint64_t free_total, TimePoint now) {
  uint64_t available = free_total;
  const Standing& mine = StandingOf(standings, shape.allocation);
  for (const PreemptableGpus::Group& g : preemptable.groups) {
    if (available >= shape.total_gpus()) return true;
    const RunningJob& r = candidates[g.example];
    if (MayPreempt(shape, mine, r, StandingOf(standings, r.allocation), scale, now)) available += g.gpus;
  }
  return available >= shape.total_gpus();
}

// The node of `index` in `nodes` (positions made from them), or null.
NodeState* NodeAt(std::vector<NodeState>* nodes, const NodePositions& positions, int32_t index) {
  int32_t at = positions.Find(index);
  return at < 0 ? nullptr : &(*nodes)[size_t(at)];
}

void Take(std::vector<NodeState>* nodes, const std::vector<int32_t>& targets, uint32_t gpus) {
  for (NodeState& n : *nodes) {
    if (std::find(targets.begin(), targets.end(), n.index) == targets.end()) continue;
    n.free_gpus -= std::min(n.free_gpus, gpus);
  }
}

// Take for a choice's targets: distinct indices of nodes the choice
// validated (no index twice), so each is found by its position instead of
// a scan of every node.
void TakeChosen(std::vector<NodeState>* nodes, const NodePositions& positions, const std::vector<int32_t>& targets,
                uint32_t gpus) {
  for (int32_t index : targets) {
    NodeState* n = NodeAt(nodes, positions, index);
    if (n) n->free_gpus -= std::min(n->free_gpus, gpus);
  }
}

// The walk's next job: the quick-start group, then the others.
const WaitingJob* NextOfWalk(WaitingJobs* waiting, bool* quick_group) {
  for (;;) {
    if (const WaitingJob* w = waiting->Next()) return w;
    if (!*quick_group) return nullptr;
    *quick_group = false;
    waiting->Begin(false);
  }
}

}  // namespace

void SortWaitingJobs(const std::vector<Standing>& standings, std::vector<WaitingJob>* waiting) {
  std::sort(waiting->begin(), waiting->end(), [&standings](const WaitingJob& a, const WaitingJob& b) {
    return JobBefore(standings, OrderKey(a), OrderKey(b));
  });
}

const WaitingJob* WaitingVector::Next() {
  while (next_ < jobs_.size()) {
    const WaitingJob& w = jobs_[next_++];
    if (w.shape.quick != quick_ || !IsServable(w.shape)) continue;
    if (servable_ >= TimeslicePlanner::kMaxJobsTried) return nullptr;
    ++servable_;
    return &w;
  }
  return nullptr;
}

std::map<uint32_t, TimePoint> TimeslicePlanner::grants() const {
  std::map<uint32_t, TimePoint> out;
  for (const auto& [id, g] : grants_) out[id] = g.at;
  return out;
}

TimeslicePlan TimeslicePlanner::Plan(const TimesliceInputs& in, TimePoint now) {
  WaitingVector waiting(in.waiting);
  return Plan(in, &waiting, now);
}

TimeslicePlan TimeslicePlanner::Plan(const TimesliceInputs& in, WaitingJobs* waiting, TimePoint now) {
  TimeslicePlan plan;
  PlanDrains(in, now, &plan);
  PlanSlices(in, waiting, now, &plan);
  return plan;
}

void TimeslicePlanner::PlanDrains(const TimesliceInputs& in, TimePoint now, TimeslicePlan* plan) {
  const std::vector<int32_t>& draining = in.draining;
  auto is_draining = [&draining](int32_t n) { return std::find(draining.begin(), draining.end(), n) != draining.end(); };
  for (auto it = draining_counted_.begin(); it != draining_counted_.end();)
    it = is_draining(*it) ? std::next(it) : draining_counted_.erase(it);
  for (auto it = promised_.begin(); it != promised_.end();)
    it = is_draining(it->first) ? std::next(it) : promised_.erase(it);
  if (draining.empty()) return;
  DrainPlan drain;
  Status st = PlanDrain(draining, in.running, now, &drain);
  if (!st.ok()) {
    plan->log.push_back("drain plan refused: " + st.message());
    return;
  }
  // How many jobs sit on each draining node, and the first such node of each.
  std::unordered_map<int32_t, int> jobs_on;
  std::unordered_map<uint32_t, int32_t> first_node_of;
  for (const RunningJob& job : in.running) {
    for (const NodeGpus& n : job.nodes) {
      if (!is_draining(n.node)) continue;
      ++jobs_on[n.node];
      first_node_of.emplace(job.job_id, n.node);
    }
  }
  std::string scratch;
  for (const DrainedNode& node : drain.nodes) {
    if (!jobs_on.count(node.node_index)) continue;  // already empty: nothing to automate
    std::string name = NameOf(in, node.node_index, &scratch);
    if (draining_counted_.insert(node.node_index).second) {
      ++plan->new_automated_drains;
      plan->log.push_back("node " + name + " is draining: automated drain of " +
                          std::to_string(jobs_on[node.node_index]) + " job(s) at their contract ends");
    }
    plan->empty_by.push_back(PlannedEmptyBy{node.node_index, node.empty_at});
    auto promised = promised_.find(node.node_index);
    if (promised == promised_.end() || promised->second != node.empty_at) {
      promised_[node.node_index] = node.empty_at;
      plan->log.push_back("node " + name + " will be empty by " + FormatLocalTime(node.empty_at));
    }
  }
  for (const DrainDeparture& d : drain.departures) {
    if (!d.leave_now) continue;
    auto job = std::find_if(in.running.begin(), in.running.end(),
                            [&](const RunningJob& r) { return r.job_id == d.job_id; });
    if (job == in.running.end()) continue;
    std::string name = NameOf(in, first_node_of[d.job_id], &scratch);
    PlannedPreemption p;
    p.job_id = d.job_id;
    p.start = job->start;
    p.action = d.action;
    p.for_drain = true;
    p.note = FormatDrainNote(d.action, now, name);
    p.log = "job " + std::to_string(d.job_id) + " leaves draining node " + name + " (protection over at " +
            FormatLocalTime(job->protection_end()) + "): " + PreemptActionName(d.action) +
            ", rule: drain at contract end";
    plan->preemptions.push_back(std::move(p));
  }
}

void TimeslicePlanner::PlanSlices(const TimesliceInputs& in, WaitingJobs* waiting, TimePoint now,
                                  TimeslicePlan* plan) {
  const NodeHolds holds(in.hold, in.reserve);
  // Forget grants whose preemptor runs now (its protected run counts
  // instead) or that are too old to be on their way.
  // (Erasing from an unordered_map keeps the others' order, which the
  // commitments below are summed in: the order of the erasures is free.)
  if (!grants_.empty()) {
    for (const RunningJob& r : in.running) grants_.erase(r.job_id);
    for (auto it = grants_.begin(); it != grants_.end();) {
      bool stale = now - it->second.at > kGrantTtl || it->second.at > now;
      it = stale ? grants_.erase(it) : std::next(it);
    }
  }
  std::vector<uint32_t> leaving;
  for (const PlannedPreemption& p : plan->preemptions) leaving.push_back(p.job_id);
  std::sort(leaving.begin(), leaving.end());

  // Free GPUs per node from the running jobs; jobs leaving already still
  // hold theirs until they end.
  std::vector<NodeState> nodes = in.nodes;
  NodePositions position(nodes);
  for (NodeState& n : nodes) n.free_gpus = n.total_gpus;
  // The candidates are copied into the planner's buffer over the previous
  // pass's: an element assigned over another keeps its node list's
  // storage, so a pass allocates nothing for them once the buffer has grown.
  std::vector<RunningJob>& candidates = candidates_;
  size_t kept = 0;
  for (const RunningJob& job : in.running) {
    for (const NodeGpus& n : job.nodes) {
      NodeState* s = NodeAt(&nodes, position, n.node);
      if (s) s->free_gpus -= std::min(s->free_gpus, n.gpus);
    }
    // Leaving already, or allocated work the tree cannot rank: not victims.
    if (std::binary_search(leaving.begin(), leaving.end(), job.job_id)) continue;
    if (job.allocated() && job.allocation == kNoAllocation) continue;
    if (kept < candidates.size()) {
      candidates[kept] = job;
    } else {
      candidates.push_back(job);
    }
    ++kept;
  }
  candidates.erase(candidates.begin() + std::ptrdiff_t(kept), candidates.end());
  // The preemptors' projections count their teams' protected runs and
  // the grants under way (commitments.h).
  std::vector<Standing> standings = in.standings;
  std::vector<GrantedPreemptor> granted;
  for (const auto& [id, g] : grants_) granted.push_back(GrantedPreemptor{id, g.allocation, g.gpus, g.min_runtime, g.at});
  AddCommitments(candidates, granted, now, &standings);
  std::unordered_set<uint32_t> counted;  // grants already in `standings`
  for (const auto& entry : grants_) counted.insert(entry.first);
  PreemptableGpus preemptable;
  preemptable.Count(candidates, standings, now);
  uint64_t free_total = 0;
  for (const NodeState& n : nodes)
    if (n.usable) free_total += n.free_gpus;

  // Classes that found nothing since a preemption last changed the cluster.
  std::vector<ShapeClass> failed;
  auto fail = [&failed, waiting](const ShapeClass& c) {
    failed.push_back(c);
    waiting->Skip(c);
  };
  uint32_t choices = 0;
  // A hero whose planned start has come gets its held nodes: every job
  // still on them is past its protection (hero_plan.h).
  if (in.hold.active && now >= in.hold.planned_start) {
    const WaitingJob* hero = waiting->Find(in.hold.job_id);
    if (hero && hero->shape.node_count <= in.hold.nodes.size()) {
      auto held = [&](int32_t n) { return std::find(in.hold.nodes.begin(), in.hold.nodes.end(), n) != in.hold.nodes.end(); };
      std::vector<size_t> victims;
      bool all_unprotected = true;
      for (size_t i = 0; i < candidates.size(); ++i) {
        bool on_held = false;
        for (const NodeGpus& n : candidates[i].nodes) on_held = on_held || held(n.node);
        if (!on_held) continue;
        if (candidates[i].IsProtectedAt(now)) all_unprotected = false;
        victims.push_back(i);
      }
      // Work the pass cannot preempt (a job leaving already, unrankable
      // allocated work) on a held node: wait for it.
      for (const RunningJob& job : in.running) {
        if (std::find_if(candidates.begin(), candidates.end(), [&](const RunningJob& c) { return c.job_id == job.job_id; }) !=
            candidates.end())
          continue;
        for (const NodeGpus& n : job.nodes) all_unprotected = all_unprotected && !held(n.node);
      }
      if (all_unprotected) {
        const JobShape& shape = hero->shape;
        for (size_t i : victims) {
          const RunningJob& job = candidates[i];
          PlannedPreemption p;
          p.job_id = job.job_id;
          p.start = job.start;
          p.action = job.action();
          p.preemptor = shape.job_id;
          p.rule = PreemptVerdict::kAllowedHeroHold;
          if (in.explain) {
            p.note = FormatPreemptionNote(shape.job_id, now, PreemptVerdictName(p.rule));
            p.log = "job " + std::to_string(shape.job_id) + " (" + PathOf(in, shape.allocation) +
                    ", hero, planned start reached) preempts job " + std::to_string(job.job_id) + " (" +
                    (job.allocated() ? PathOf(in, job.allocation) : std::string("unallocated")) +
                    ") on its held nodes: " + PreemptActionName(p.action) + ", rule: hero hold";
          }
          plan->preemptions.push_back(std::move(p));
          for (const NodeGpus& n : job.nodes) {
            NodeState* s = NodeAt(&nodes, position, n.node);
            if (!s) continue;
            s->free_gpus = std::min(s->total_gpus, s->free_gpus + n.gpus);
            if (s->usable) free_total += n.gpus;
          }
        }
        for (size_t k = victims.size(); k-- > 0;) candidates.erase(candidates.begin() + std::ptrdiff_t(victims[k]));
        if (!victims.empty()) ++plan->jobs_served;
        std::vector<int32_t> targets(in.hold.nodes.begin(), in.hold.nodes.begin() + shape.node_count);
        plan->starts.push_back(shape.job_id);
        grants_[shape.job_id] = Grant{shape.allocation, shape.total_gpus(), shape.min_runtime, now, hero->user, false};
        if (counted.insert(shape.job_id).second && size_t(shape.allocation) < standings.size())
          standings[shape.allocation].window_usage += double(shape.total_gpus()) * double(shape.min_runtime);
        Take(&nodes, targets, shape.gpus_per_node);
        free_total -= std::min<uint64_t>(free_total, shape.total_gpus());
        preemptable.Count(candidates, standings, now);
      }
    }
  }
  // Each user's GPUs in quick-start runs still protected: running, or
  // granted and on their way (a grant is forgotten once its job runs).
  std::unordered_map<int64_t, uint64_t> quick_user_gpus;
  if (in.quick_start_user_gpus > 0) {
    for (const RunningJob& r : in.running)
      if (r.quick && r.user >= 0 && r.IsProtectedAt(now)) quick_user_gpus[r.user] += r.total_gpus();
    for (const auto& entry : grants_)
      if (entry.second.quick && entry.second.user >= 0) quick_user_gpus[entry.second.user] += entry.second.gpus;
  }
  // The preemption choices over the candidates as they stand (rebuilt
  // when a preemption removes some).
  std::unique_ptr<PreemptionChooser> chooser;
  // Quick-start jobs first (rule 3b of preempt.h), each group in the
  // given (core) order.
  bool quick_group = true;
  waiting->Begin(quick_group);
  while (const WaitingJob* next = NextOfWalk(waiting, &quick_group)) {
    const WaitingJob& w = *next;
    const JobShape& shape = w.shape;
    if (std::find(plan->starts.begin(), plan->starts.end(), shape.job_id) != plan->starts.end()) continue;
    if (!IsServable(shape)) continue;
    const ShapeClass key = ShapeClass::Of(w);
    if (std::find(failed.begin(), failed.end(), key) != failed.end()) continue;
    // A quick-start job past its user's bound waits (not a class failure:
    // the bound is the user's, not the shape's). Its own grant, if an
    // earlier pass made one, is not counted against it.
    auto own_grant = grants_.find(shape.job_id);
    const bool had_grant = own_grant != grants_.end();
    if (shape.quick && in.quick_start_user_gpus > 0 && w.user >= 0) {
      auto used = quick_user_gpus.find(w.user);
      uint64_t gpus = used == quick_user_gpus.end() ? 0 : used->second;
      if (had_grant && own_grant->second.quick) gpus -= std::min(gpus, own_grant->second.gpus);
      if (gpus + shape.total_gpus() > in.quick_start_user_gpus) continue;
    }
    ++plan->jobs_tried;
    if (free_total + preemptable.For(shape, standings) < shape.total_gpus() ||
        !EnoughAllowed(shape, preemptable, candidates, standings, in.scale, free_total, now)) {
      fail(key);
      continue;
    }
    if (choices++ >= kMaxChoices) break;
    // Only nodes the job may run on are targets, and held nodes are none
    // for a job that may not use them. (A copy of the nodes only when some
    // are taken out.)
    const std::vector<NodeState>* targets = &nodes;
    std::vector<NodeState> restricted;
    const StartingJob starting{shape.job_id, shape.min_runtime, w.time_limit, shape.quick};
    const bool held_from_it = HoldsBarring(holds, starting, now) != 0;
    if (w.eligible || held_from_it) {
      restricted = nodes;
      KeepEligible(w.eligible, &restricted);
      RemoveBarredNodes(holds, starting, now, &restricted);
      targets = &restricted;
    }
    PreemptionPlan choice;
    if (!chooser) chooser = std::make_unique<PreemptionChooser>(candidates, nodes, standings);
    Status st = chooser->Choose(shape, *targets, standings, in.scale, now, &choice);
    if (!st.ok()) {
      plan->log.push_back("no preemption for job " + std::to_string(shape.job_id) + ": " + st.message());
      continue;
    }
    if (!choice.feasible) {
      fail(key);
      continue;
    }
    if (!choice.victims.empty()) {
      failed.clear();
      waiting->UnskipAll();
      chooser.reset();  // the candidates change
      ++plan->jobs_served;
      if (in.explain) plan->log.push_back(DescribePlan(shape, choice));
      for (const Victim& v : choice.victims) {
        auto job = std::find_if(candidates.begin(), candidates.end(),
                                [&](const RunningJob& r) { return r.job_id == v.job_id; });
        if (job == candidates.end()) continue;
        const char* rule = PreemptVerdictName(v.rule);
        PlannedPreemption p;
        p.job_id = v.job_id;
        p.start = job->start;
        p.action = v.action;
        p.preemptor = shape.job_id;
        p.rule = v.rule;
        if (in.explain) p.note = FormatPreemptionNote(shape.job_id, now, rule);
        if (in.explain) p.log = "job " + std::to_string(shape.job_id) + " (" + PathOf(in, shape.allocation) + ", usage ratio " +
                Ratio(StandingOf(in.standings, shape.allocation).usage_ratio) + ", projected " +
                Ratio(v.preemptor_projected_ratio) + ") preempts job " + std::to_string(v.job_id) + " (" +
                (job->allocated() ? PathOf(in, v.allocation) : std::string("unallocated")) + ", usage ratio " +
                Ratio(v.preemptee_ratio) + "): " + PreemptActionName(v.action) + ", rule: " + rule;
        plan->preemptions.push_back(std::move(p));
        // The victim's GPUs go free (to this job, below) and it is no
        // longer a candidate.
        for (const NodeGpus& n : job->nodes) {
          NodeState* s = NodeAt(&nodes, position, n.node);
          if (!s) continue;
          s->free_gpus = std::min(s->total_gpus, s->free_gpus + n.gpus);
          if (s->usable) free_total += n.gpus;
        }
        candidates.erase(job);
      }
    }
    // It starts on its targets (now, or once its victims are gone): their
    // GPUs are no longer free for the jobs behind it, and its team is
    // committed its protected run.
    plan->starts.push_back(shape.job_id);
    if (!had_grant || !choice.victims.empty())
      grants_[shape.job_id] = Grant{shape.allocation, shape.total_gpus(), shape.min_runtime, now, w.user, shape.quick};
    if (shape.quick && w.user >= 0 && !had_grant) quick_user_gpus[w.user] += shape.total_gpus();
    if (counted.insert(shape.job_id).second && size_t(shape.allocation) < standings.size())
      standings[shape.allocation].window_usage += double(shape.total_gpus()) * double(shape.min_runtime);
    // The counts read the candidates and the ranks, not the window usage
    // just raised: only victims gone change them.
    if (!choice.victims.empty()) preemptable.Count(candidates, standings, now);
    TakeChosen(&nodes, position, choice.target_nodes, shape.gpus_per_node);
    free_total -= std::min<uint64_t>(free_total, shape.total_gpus());
  }
}

const char* PreemptionRuleName(const PlannedPreemption& p) {
  return p.for_drain ? "drain at contract end" : PreemptVerdictName(p.rule);
}

}  // namespace budget
