#include "libbudget/policy/hero_plan.h"

#include <algorithm>
#include <tuple>

#include "libbudget/policy/order.h"

namespace budget {

namespace {

// Earlier in line first: higher priority, then earlier submit, then lower id.
bool AheadInLine(const QueueEntry& a, const QueueEntry& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
  return a.job_id < b.job_id;
}

TimePoint ReleaseTime(const RunningJob& job) {
  TimePoint release = job.protection_end();
  if (job.time_limit >= 0) release = std::min(release, job.start + job.time_limit);
  return release;
}

struct NodeRelease {
  TimePoint release;
  uint32_t top_priority;  // highest priority of the node's jobs, 0 if none
  int32_t index;
};

}  // namespace

bool IsHeroSized(const QueueEntry& job, const HeroRule& rule) {
  return rule.node_gpus > 0 && job.request.gpus_per_node == rule.node_gpus && job.request.node_count > 0 &&
         job.request.node_count >= rule.min_nodes;
}

bool WaitedForHeroWait(const QueueEntry& job, const HeroRule& rule, TimePoint now) {
  return now - job.waiting_since >= rule.wait;
}

bool AccountRanksFirst(const std::vector<QueueEntry>& queue, const QueueEntry& job) {
  for (const QueueEntry& other : queue) {
    if (other.priority == kGrantedPriority || other.account == job.account) continue;
    if (AheadInLine(other, job)) return false;
  }
  return true;
}

HeroCandidate ChooseHero(const std::vector<QueueEntry>& queue, const HeroRule& rule, TimePoint now,
                         uint32_t current) {
  const QueueEntry* hero = nullptr;
  for (const QueueEntry& job : queue) {
    if (!IsHeroSized(job, rule)) continue;
    if (current != 0 && job.job_id == current) return HeroCandidate{job.job_id, job.request, job.waiting_since, job.eligible};
    if (!hero || AheadInLine(job, *hero)) hero = &job;
  }
  if (!hero || !WaitedForHeroWait(*hero, rule, now) || !AccountRanksFirst(queue, *hero)) return HeroCandidate{};
  return HeroCandidate{hero->job_id, hero->request, hero->waiting_since, hero->eligible};
}

Status PlanHero(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running,
                const HeroCandidate& candidate, Seconds hero_wait, TimePoint now, HeroPlan* plan) {
  *plan = HeroPlan{};
  plan->job_id = candidate.job_id;
  Status valid = ValidateNodes(nodes);
  if (!valid.ok()) return valid;
  if (candidate.request.node_count == 0 || candidate.request.gpus_per_node == 0) {
    return Status::InvalidArgument("hero candidate job " + std::to_string(candidate.job_id) +
                                   ": a request of 0 nodes or 0 GPUs per node");
  }
  if (hero_wait < 0) return Status::InvalidArgument("HeroWait: negative (" + std::to_string(hero_wait) + " s)");

  // Per node (in the order of `nodes`) its release.
  std::vector<NodeRelease> release;
  release.reserve(nodes.size());
  for (const NodeState& n : nodes) release.push_back(NodeRelease{now, 0, n.index});
  const NodePositions positions(nodes);
  for (const RunningJob& job : running) {
    for (const NodeGpus& n : job.nodes) {
      int32_t at = positions.Find(n.node);
      if (at < 0) {
        return Status::InvalidArgument("running job " + std::to_string(job.job_id) + ": unknown node index " +
                                       std::to_string(n.node));
      }
      release[size_t(at)].release = std::max(release[size_t(at)].release, ReleaseTime(job));
      release[size_t(at)].top_priority = std::max(release[size_t(at)].top_priority, job.priority);
    }
  }

  Seconds waited = now - candidate.waiting_since;
  if (waited < hero_wait) {
    plan->why_not = "waiting for " + std::to_string(waited) + " s, HeroWait is " + std::to_string(hero_wait) + " s";
    return Status::Ok();
  }
  std::vector<NodeRelease> eligible;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].usable && nodes[i].total_gpus == candidate.request.gpus_per_node &&
        MayRunOn(candidate.eligible, nodes[i].index))
      eligible.push_back(release[i]);
  }
  if (eligible.size() < candidate.request.node_count) {
    plan->why_not = "needs " + std::to_string(candidate.request.node_count) + " whole nodes of " +
                    std::to_string(candidate.request.gpus_per_node) + " GPUs, " + std::to_string(eligible.size()) +
                    " usable it may run on";
    return Status::Ok();
  }
  std::sort(eligible.begin(), eligible.end(), [](const NodeRelease& a, const NodeRelease& b) {
    return std::tie(a.release, a.top_priority, a.index) < std::tie(b.release, b.top_priority, b.index);
  });
  plan->active = true;
  for (uint32_t i = 0; i < candidate.request.node_count; ++i) {
    plan->nodes.push_back(eligible[i].index);
    plan->planned_start = std::max(plan->planned_start, eligible[i].release);
  }
  plan->promised_start = plan->planned_start;
  return Status::Ok();
}

bool MayUseHeldNodes(const HeroPlan& plan, const StartingJob& job, TimePoint now) {
  if (!plan.active || job.job_id == plan.job_id) return true;
  if (ProtectionEnd(now, job.min_runtime) <= plan.planned_start) return true;
  if (job.quick && now <= plan.promised_start) return true;
  return job.time_limit >= 0 && now + job.time_limit <= plan.planned_start;
}

void KeepPromise(const HeroPlan& previous, HeroPlan* plan) {
  if (!plan->active || !previous.active || previous.job_id != plan->job_id) return;
  plan->promised_start = std::min(plan->promised_start, previous.promised_start);
}

}  // namespace budget
