#include "libbudget/policy/preempt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include <boost/container/flat_map.hpp>

namespace budget {

namespace {

// A job's place in victim order: smaller is preempted first.
using VictimKey = std::tuple<int,       // 0 unallocated work, 1 allocated work
                             int64_t,   // -rank (no allocation: lowest)
                             double,    // -usage ratio
                             int64_t,   // -allocation
                             uint32_t,  // user priority
                             int64_t,   // -start
                             int64_t>;  // -job id

bool HasStanding(int32_t allocation, const std::vector<Standing>& standings) {
  return allocation >= 0 && size_t(allocation) < standings.size();
}

VictimKey KeyOf(const RunningJob& job, const std::vector<Standing>& standings) {
  bool has_standing = HasStanding(job.allocation, standings);
  int tier = job.allocated() && has_standing ? 1 : 0;
  int64_t rank_key = std::numeric_limits<int64_t>::min();
  double ratio_key = 0.0;
  if (has_standing) {
    const Standing& s = standings[size_t(job.allocation)];
    rank_key = -int64_t{s.rank};
    // NaN would break the strict weak order; Standing promises finite values.
    ratio_key = std::isnan(s.usage_ratio) ? 0.0 : -s.usage_ratio;
  }
  return VictimKey{tier,
                   rank_key,
                   ratio_key,
                   -int64_t{job.allocation},
                   job.user_priority,
                   -job.start,
                   -int64_t{job.job_id}};
}

const Standing& StandingOf(int32_t allocation, const std::vector<Standing>& standings) {
  static const Standing kNone;
  return HasStanding(allocation, standings) ? standings[size_t(allocation)] : kNone;
}

// The pairwise rule with P's projected ratio already computed.
PreemptVerdict Judge(const JobShape& preemptor, const Standing& preemptor_standing,
                     double projected, const RunningJob& preemptee,
                     const Standing& preemptee_standing, TimePoint now) {
  if (preemptee.IsProtectedAt(now)) return PreemptVerdict::kRefusedProtected;
  if (!preemptor.allocated()) return PreemptVerdict::kRefusedPreemptorUnallocated;
  if (!preemptee.allocated()) return PreemptVerdict::kAllowedUnallocated;
  if (preemptee.allocation == preemptor.allocation) return PreemptVerdict::kRefusedSameAllocation;
  if (preemptor.quick) return PreemptVerdict::kAllowedQuickStart;
  if (!(preemptor_standing.rank < preemptee_standing.rank)) return PreemptVerdict::kRefusedRanksBehind;
  if (!(projected <= preemptee_standing.usage_ratio)) return PreemptVerdict::kRefusedPingPong;
  return PreemptVerdict::kAllowedOverServed;
}

struct JobOnNode {
  uint32_t job;   // position in `running`
  uint32_t gpus;  // GPUs it holds on this node
};

// Running jobs grouped by node position (CSR: jobs of node p are
// entries[begin[p] .. begin[p + 1])).
struct JobsByNode {
  std::vector<uint32_t> begin;
  std::vector<JobOnNode> entries;
};

JobsByNode IndexJobsByNode(const std::vector<RunningJob>& running, const NodePositions& positions,
                           size_t node_count) {
  JobsByNode index;
  index.begin.assign(node_count + 1, 0);
  for (const RunningJob& job : running) {
    for (const NodeGpus& ng : job.nodes) {
      int32_t p = positions.Find(ng.node);
      if (p >= 0) ++index.begin[size_t(p) + 1];
    }
  }
  for (size_t p = 0; p < node_count; ++p) index.begin[p + 1] += index.begin[p];
  index.entries.resize(index.begin[node_count]);
  std::vector<uint32_t> fill(index.begin.begin(), index.begin.end() - 1);
  for (size_t j = 0; j < running.size(); ++j) {
    for (const NodeGpus& ng : running[j].nodes) {
      int32_t p = positions.Find(ng.node);
      if (p >= 0) index.entries[fill[size_t(p)]++] = JobOnNode{uint32_t(j), ng.gpus};
    }
  }
  return index;
}

// The victims one node would need, and what they cost.
struct NodeVictims {
  int32_t node_index = 0;
  std::vector<uint32_t> jobs;  // positions in `running` (in victim order for a share)
  VictimKey worst{};           // key of the most valuable victim
  uint64_t gpus_preempted = 0;
};

bool Cheaper(const NodeVictims& a, const NodeVictims& b) {
  bool a_free = a.jobs.empty();
  bool b_free = b.jobs.empty();
  if (a_free != b_free) return a_free;
  if (!a_free && a.worst != b.worst) return a.worst < b.worst;
  if (a.jobs.size() != b.jobs.size()) return a.jobs.size() < b.jobs.size();
  if (a.gpus_preempted != b.gpus_preempted) return a.gpus_preempted < b.gpus_preempted;
  return a.node_index < b.node_index;
}

}  // namespace

// What depends only on the running jobs and the node list.
struct PreemptionChooser::Index {
  JobsByNode by_node;
  std::vector<VictimKey> keys;     // per running job
  std::vector<uint64_t> job_gpus;  // per running job, over all its nodes
};

namespace {

// Everything one choice works on.
struct Snapshot {
  const std::vector<RunningJob>& running;
  const std::vector<NodeState>& nodes;
  const JobsByNode& by_node;
  const std::vector<VictimKey>& keys;
  const std::vector<uint64_t>& job_gpus;
  std::vector<PreemptVerdict> verdicts;  // per running job
};

// Eligible jobs on node position p, in victim order.
void EligibleOnNode(const Snapshot& s, size_t p, std::vector<JobOnNode>* out) {
  out->clear();
  for (uint32_t e = s.by_node.begin[p]; e < s.by_node.begin[p + 1]; ++e) {
    const JobOnNode& entry = s.by_node.entries[e];
    if (IsAllowed(s.verdicts[entry.job])) out->push_back(entry);
  }
  std::sort(out->begin(), out->end(), [&s](const JobOnNode& a, const JobOnNode& b) {
    return s.keys[a.job] < s.keys[b.job];
  });
}

// The victims' GPUs and the most valuable victim's key (nv->jobs in any
// order).
void Finish(const Snapshot& s, NodeVictims* nv) {
  nv->gpus_preempted = 0;
  for (uint32_t j : nv->jobs) nv->gpus_preempted += s.job_gpus[j];
  if (nv->jobs.empty()) return;
  nv->worst = s.keys[nv->jobs.front()];
  for (uint32_t j : nv->jobs)
    if (nv->worst < s.keys[j]) nv->worst = s.keys[j];
}

// One-node job on node position p: the minimal victim set, or false.
bool VictimsForShare(const Snapshot& s, size_t p, uint32_t needed, NodeVictims* nv,
                     std::vector<JobOnNode>* scratch) {
  const NodeState& node = s.nodes[p];
  EligibleOnNode(s, p, scratch);
  uint64_t free = node.free_gpus;
  size_t taken = 0;
  while (free < needed && taken < scratch->size()) free += (*scratch)[taken++].gpus;
  if (free < needed) return false;
  // Drop victims that are no longer needed, most valuable first; the last
  // one taken is always needed, so start before it. One pass leaves a
  // minimal set: a victim kept was needed at a total >= the final total.
  // (A dropped victim is marked in the scratch list itself, no job position
  // being kDropped.)
  constexpr uint32_t kDropped = UINT32_MAX;
  for (size_t i = taken; i-- > 0;) {
    if (free - (*scratch)[i].gpus >= needed) {
      free -= (*scratch)[i].gpus;
      (*scratch)[i].job = kDropped;
    }
  }
  nv->node_index = node.index;
  nv->jobs.clear();
  for (size_t i = 0; i < taken; ++i) {
    if ((*scratch)[i].job != kDropped) nv->jobs.push_back((*scratch)[i].job);
  }
  Finish(s, nv);
  return true;
}

// Multi-node job on node position p: every job on it, or false. (All its
// jobs go, so they are taken in index order, unsorted, and the node is
// given up at the first that may not be preempted.)
bool VictimsForWholeNode(const Snapshot& s, size_t p, NodeVictims* nv) {
  const NodeState& node = s.nodes[p];
  const uint32_t begin = s.by_node.begin[p];
  const uint32_t end = s.by_node.begin[p + 1];
  uint64_t free = node.free_gpus;
  for (uint32_t e = begin; e < end; ++e) {
    const JobOnNode& entry = s.by_node.entries[e];
    if (!IsAllowed(s.verdicts[entry.job])) return false;
    free += entry.gpus;
  }
  // GPUs held by work we were not told about cannot be freed.
  if (free < node.total_gpus) return false;
  nv->node_index = node.index;
  nv->jobs.clear();
  for (uint32_t e = begin; e < end; ++e) nv->jobs.push_back(s.by_node.entries[e].job);
  Finish(s, nv);
  return true;
}

// free_gpus <= total_gpus on every node; ValidateNodes' message if not.
Status CheckFreeGpus(const std::vector<NodeState>& nodes) {
  for (const NodeState& n : nodes)
    if (n.free_gpus > n.total_gpus) return ValidateNodes(nodes);
  return Status::Ok();
}

Status CheckPending(const JobShape& pending, const std::vector<Standing>& standings) {
  if (pending.node_count == 0 || pending.gpus_per_node == 0) {
    return Status::InvalidArgument("preempt: pending job " + std::to_string(pending.job_id) +
                                   ": node_count and gpus_per_node must both be >= 1");
  }
  if (pending.allocated() && !HasStanding(pending.allocation, standings)) {
    return Status::InvalidArgument("preempt: pending job " + std::to_string(pending.job_id) +
                                   ": allocation " + std::to_string(pending.allocation) +
                                   " has no standing (have " + std::to_string(standings.size()) +
                                   ")");
  }
  return Status::Ok();
}

Status CheckRunning(const std::vector<RunningJob>& running, const std::vector<NodeState>& nodes,
                    const std::vector<Standing>& standings) {
  for (const RunningJob& job : running) {
    if (job.allocated() && !HasStanding(job.allocation, standings)) {
      return Status::InvalidArgument("preempt: running job " + std::to_string(job.job_id) +
                                     ": allocation " + std::to_string(job.allocation) +
                                     " has no standing (have " +
                                     std::to_string(standings.size()) + ")");
    }
  }
  Status st = ValidateNodes(nodes);
  if (!st.ok()) return Status::InvalidArgument("preempt: " + st.message());
  return Status::Ok();
}

}  // namespace

const char* PreemptVerdictName(PreemptVerdict v) {
  switch (v) {
    case PreemptVerdict::kAllowedUnallocated: return "unallocated";
    case PreemptVerdict::kAllowedOverServed: return "over-served allocation";
    case PreemptVerdict::kRefusedProtected: return "protected";
    case PreemptVerdict::kRefusedPreemptorUnallocated: return "preemptor unallocated";
    case PreemptVerdict::kRefusedSameAllocation: return "same allocation";
    case PreemptVerdict::kRefusedRanksBehind: return "ranks behind";
    case PreemptVerdict::kRefusedPingPong: return "ping-pong";
    case PreemptVerdict::kAllowedQuickStart: return "quick start";
    case PreemptVerdict::kAllowedHeroHold: return "hero hold";
  }
  return "unknown";
}

double ProjectedRatio(const JobShape& preemptor, const Standing& preemptor_standing,
                      const ClusterScale& scale) {
  double entitled = preemptor_standing.entitlement * double(scale.capacity_gpus) *
                    double(scale.window);
  if (!(entitled > 0.0)) return std::numeric_limits<double>::infinity();
  double charged = double(preemptor.total_gpus()) * double(std::max<Seconds>(preemptor.min_runtime, 0));
  return (preemptor_standing.window_usage + charged) / entitled;
}

PreemptVerdict JudgePreemption(const JobShape& preemptor, const Standing& preemptor_standing,
                               const RunningJob& preemptee, const Standing& preemptee_standing,
                               const ClusterScale& scale, TimePoint now) {
  return Judge(preemptor, preemptor_standing, ProjectedRatio(preemptor, preemptor_standing, scale),
               preemptee, preemptee_standing, now);
}

bool VictimOrder::operator()(const RunningJob& a, const RunningJob& b) const {
  return KeyOf(a, standings_) < KeyOf(b, standings_);
}

Status ChoosePreemption(const JobShape& pending, const std::vector<RunningJob>& running,
                        const std::vector<NodeState>& nodes,
                        const std::vector<Standing>& standings, const ClusterScale& scale,
                        TimePoint now, PreemptionPlan* plan) {
  return PreemptionChooser(running, nodes, standings).Choose(pending, nodes, standings, scale, now, plan);
}

PreemptionChooser::PreemptionChooser(const std::vector<RunningJob>& running, const std::vector<NodeState>& nodes,
                                     const std::vector<Standing>& standings)
    : running_(running), valid_(CheckRunning(running, nodes, standings)), node_count_(nodes.size()) {}

const PreemptionChooser::Index& PreemptionChooser::IndexFor(const std::vector<NodeState>& nodes,
                                                            const std::vector<Standing>& standings) const {
  if (index_) return *index_;
  // The nodes and standings of a Choose list the nodes and rank as the
  // construction's (REQUIRES): the index is the one the construction
  // would have made.
  auto index = std::make_shared<Index>();
  index->keys.resize(running_.size());
  index->job_gpus.resize(running_.size());
  for (size_t j = 0; j < running_.size(); ++j) {
    index->keys[j] = KeyOf(running_[j], standings);
    index->job_gpus[j] = running_[j].total_gpus();
  }
  NodePositions positions(nodes);
  index->by_node = IndexJobsByNode(running_, positions, nodes.size());
  index_ = std::move(index);
  return *index_;
}

Status PreemptionChooser::Choose(const JobShape& pending, const std::vector<NodeState>& nodes,
                                 const std::vector<Standing>& standings, const ClusterScale& scale, TimePoint now,
                                 PreemptionPlan* plan) const {
  *plan = PreemptionPlan();
  Status st = CheckPending(pending, standings);
  if (!st.ok()) return st;
  if (!valid_.ok()) return valid_;
  // The node list is the construction's but for free GPUs and usability
  // (REQUIRES): its indices were checked there, its free GPUs are here. A
  // list of another length is checked whole.
  st = nodes.size() == node_count_ ? CheckFreeGpus(nodes) : ValidateNodes(nodes);
  if (!st.ok()) return Status::InvalidArgument("preempt: " + st.message());
  const std::vector<RunningJob>& running = running_;

  // It may fit already: then nothing is preempted, and packing says where
  // (the nodes are checked above).
  NodeChoice fits;
  st = ChooseValidatedNodes(nodes, GpuRequest{pending.node_count, pending.gpus_per_node}, &fits);
  if (!st.ok()) return st;
  if (fits.feasible) {
    plan->feasible = true;
    plan->target_nodes = fits.nodes;
    return Status::Ok();
  }

  const Index& index = IndexFor(nodes, standings);
  Snapshot s{running, nodes, index.by_node, index.keys, index.job_gpus, {}};
  const Standing& pending_standing = StandingOf(pending.allocation, standings);
  double projected = ProjectedRatio(pending, pending_standing, scale);
  s.verdicts.resize(running.size());
  for (size_t j = 0; j < running.size(); ++j) {
    const RunningJob& job = running[j];
    s.verdicts[j] = Judge(pending, pending_standing, projected, job, StandingOf(job.allocation, standings), now);
  }

  bool whole_nodes = pending.node_count > 1;
  std::vector<NodeVictims> candidates;
  std::vector<JobOnNode> scratch;
  NodeVictims nv;
  for (size_t p = 0; p < nodes.size(); ++p) {
    const NodeState& node = nodes[p];
    if (!node.usable || node.total_gpus < pending.gpus_per_node) continue;
    bool ok = whole_nodes ? VictimsForWholeNode(s, p, &nv)
                          : VictimsForShare(s, p, pending.gpus_per_node, &nv, &scratch);
    if (!ok) continue;
    // Moved, not copied: `nv` is refilled at the next node.
    if (whole_nodes) {
      candidates.push_back(std::move(nv));
    } else if (candidates.empty()) {
      candidates.push_back(std::move(nv));
    } else if (Cheaper(nv, candidates[0])) {
      std::swap(nv, candidates[0]);
    }
  }
  if (candidates.size() < pending.node_count) {
    plan->why_not = "no set of preemptable jobs frees " +
                    std::to_string(pending.gpus_per_node) + " GPUs on " +
                    std::to_string(pending.node_count) + " node(s) (" +
                    std::to_string(candidates.size()) + " node(s) could be freed)";
    return Status::Ok();
  }
  if (whole_nodes) {
    std::partial_sort(candidates.begin(), candidates.begin() + pending.node_count,
                      candidates.end(), Cheaper);
    candidates.resize(pending.node_count);
  }

  // Union of the chosen nodes' victims: a job on several chosen nodes is
  // preempted (and listed) once.
  std::vector<uint32_t> chosen;
  for (const NodeVictims& c : candidates) {
    plan->target_nodes.push_back(c.node_index);
    chosen.insert(chosen.end(), c.jobs.begin(), c.jobs.end());
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  std::sort(chosen.begin(), chosen.end(),
            [&s](uint32_t a, uint32_t b) { return s.keys[a] < s.keys[b]; });
  std::sort(plan->target_nodes.begin(), plan->target_nodes.end());
  for (uint32_t j : chosen) {
    const RunningJob& job = running[j];
    Victim v;
    v.job_id = job.job_id;
    v.action = job.action();
    v.rule = s.verdicts[j];
    v.allocation = job.allocation;
    v.preemptee_ratio = StandingOf(job.allocation, standings).usage_ratio;
    v.preemptor_projected_ratio = projected;
    v.gpus = s.job_gpus[j];
    plan->victims.push_back(v);
  }
  plan->feasible = true;
  return Status::Ok();
}

std::string DescribePlan(const JobShape& pending, const PreemptionPlan& plan) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "job %u (alloc %d, %u GPUs x %u node(s)): ", pending.job_id,
                pending.allocation, pending.gpus_per_node, pending.node_count);
  std::string line = buf;
  if (!plan.feasible) return line + "preempt nothing: " + plan.why_not;
  if (plan.victims.empty()) {
    line += "fits without preemption";
  } else {
    line += "preempt";
    for (size_t i = 0; i < plan.victims.size(); ++i) {
      const Victim& v = plan.victims[i];
      std::snprintf(buf, sizeof buf,
                    "%s job %u (alloc %d, %s, rule %s, preemptee ratio %.3f, preemptor "
                    "projected %.3f)",
                    i == 0 ? "" : ",", v.job_id, v.allocation, PreemptActionName(v.action),
                    PreemptVerdictName(v.rule), v.preemptee_ratio, v.preemptor_projected_ratio);
      line += buf;
    }
  }
  line += " on node(s)";
  for (int32_t n : plan.target_nodes) line += " " + std::to_string(n);
  return line;
}

}  // namespace budget
