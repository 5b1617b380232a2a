// TimeslicePlanner: see timeslice_pass.h.
#include "sched_timeslice/timeslice_pass.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "libbudget/drain.h"
#include "libbudget/order.h"
#include "libbudget/preempt.h"
#include "libbudget/preemption_note.h"
#include "sched_timeslice/commitments.h"
#include "sched_timeslice/iso_time.h"

namespace timeslice {

namespace {

std::string Ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", r);
  return text;
}

const char* Done(budget::PreemptAction action) {
  return action == budget::PreemptAction::kRequeue ? "requeued" : "cancelled";
}

// The waiting allocated GPU job that comes first in the core's job order
// (order.h JobBefore over the snapshot's standings: rank, user priority,
// submit time, job id), i.e. the one Slurm's scheduler tries first: the
// priority priority/budget gives encodes the first keys, and Slurm breaks
// equal priorities by submit time, then job id. Choosing another job (the
// lowest id, say a requeued job whose submit time the requeue reset) would
// free GPUs that Slurm then gives to the job it tries first, and leave the
// chosen one waiting with a grant that is not really under way.
const JobFacts* FirstInJobOrder(const std::vector<JobFacts>& jobs, const StandingsView& view) {
  const JobFacts* first = nullptr;
  budget::PendingJob first_key;
  for (const JobFacts& job : jobs) {
    if (!job.pending || !job.waits_for_resources || job.contract.min_runtime <= 0 || job.gpus_per_node == 0) continue;
    budget::PendingJob key;
    key.job_id = job.job_id;
    key.node = view.AllocationOf(job.account, job.user);
    key.allocated = true;
    key.user_priority = job.user_priority;
    key.submit_time = job.submit_time;
    if (!first || budget::JobBefore(view.standings, key, first_key)) {
      first = &job;
      first_key = key;
    }
  }
  return first;
}

}  // namespace

PassPlan TimeslicePlanner::Plan(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                                const StandingsView& view, budget::TimePoint now) {
  PassPlan plan;
  std::vector<budget::RunningJob> running;
  for (const JobFacts& job : jobs) {
    if (job.running) running.push_back(RunningJobOf(job, view));
  }
  PlanDrains(nodes, running, now, &plan);
  PlanTimeslice(jobs, nodes, running, view, now, &plan);
  return plan;
}

void TimeslicePlanner::PlanDrains(const std::vector<NodeFacts>& nodes,
                                  const std::vector<budget::RunningJob>& running, budget::TimePoint now,
                                  PassPlan* plan) {
  std::vector<int32_t> draining;
  std::unordered_map<int32_t, const NodeFacts*> node_at;
  for (const NodeFacts& node : nodes) {
    node_at[node.index] = &node;
    if (node.draining) draining.push_back(node.index);
  }
  for (auto it = draining_counted_.begin(); it != draining_counted_.end();) {
    it = std::find(draining.begin(), draining.end(), *it) == draining.end() ? draining_counted_.erase(it)
                                                                          : std::next(it);
  }
  for (auto it = promised_.begin(); it != promised_.end();) {
    it = std::find(draining.begin(), draining.end(), it->first) == draining.end() ? promised_.erase(it)
                                                                                 : std::next(it);
  }
  if (draining.empty()) return;
  budget::DrainPlan drain;
  budget::Status st = budget::PlanDrain(draining, running, now, &drain);
  if (!st.ok()) {
    plan->log.push_back("drain plan refused: " + st.message());
    return;
  }
  // Nodes with jobs on them, and which job sits on which draining node.
  std::unordered_map<int32_t, int> jobs_on;
  std::unordered_map<uint32_t, int32_t> first_node_of;
  std::unordered_set<int32_t> is_draining(draining.begin(), draining.end());
  for (const budget::RunningJob& job : running) {
    for (const budget::NodeGpus& n : job.nodes) {
      if (!is_draining.count(n.node)) continue;
      ++jobs_on[n.node];
      first_node_of.emplace(job.job_id, n.node);
    }
  }
  for (const budget::DrainedNode& node : drain.nodes) {
    if (!jobs_on.count(node.node_index)) continue;  // already empty: nothing to automate
    const std::string& name = node_at[node.node_index]->name;
    if (draining_counted_.insert(node.node_index).second) {
      ++plan->new_automated_drains;
      plan->log.push_back("node " + name + " is draining (reason: " + node_at[node.node_index]->reason +
                          "): automated drain of " + std::to_string(jobs_on[node.node_index]) +
                          " job(s) at their contract ends");
    }
    plan->empty_by.push_back(PlannedEmptyBy{node.node_index, node.empty_at});
    auto promised = promised_.find(node.node_index);
    if (promised == promised_.end() || promised->second != node.empty_at) {
      promised_[node.node_index] = node.empty_at;
      plan->log.push_back("node " + name + " will be empty by " + IsoTime(node.empty_at));
    }
  }
  for (const budget::DrainDeparture& d : drain.departures) {
    if (!d.leave_now) continue;
    auto job = std::find_if(running.begin(), running.end(),
                            [&](const budget::RunningJob& r) { return r.job_id == d.job_id; });
    if (job == running.end()) continue;
    const std::string& name = node_at[first_node_of[d.job_id]]->name;
    PlannedPreemption p;
    p.job_id = d.job_id;
    p.start = job->start;
    p.action = d.action;
    p.for_drain = true;
    p.comment = std::string(Done(d.action)) + " at " + IsoTime(now) + ": node " + name +
                " is draining (rule: drain at contract end)";
    p.log = "job " + std::to_string(d.job_id) + " leaves draining node " + name + " (protection over at " +
            IsoTime(job->protection_end()) + "): " + budget::PreemptActionName(d.action) +
            ", rule: drain at contract end";
    plan->preemptions.push_back(std::move(p));
  }
}

void TimeslicePlanner::PlanTimeslice(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                                     const std::vector<budget::RunningJob>& running, const StandingsView& view,
                                     budget::TimePoint now, PassPlan* plan) {
  const JobFacts* top = FirstInJobOrder(jobs, view);
  if (!top) return;
  budget::JobShape shape = ShapeOf(*top, view);
  if (shape.allocation == budget::kNoAllocation) return;  // no budget to rank it

  std::unordered_set<uint32_t> leaving;
  for (const PlannedPreemption& p : plan->preemptions) leaving.insert(p.job_id);
  std::vector<budget::NodeState> states;
  std::unordered_map<int32_t, size_t> state_of;
  for (const NodeFacts& node : nodes) {
    budget::NodeState s;
    s.index = node.index;
    s.total_gpus = node.total_gpus;
    s.free_gpus = node.total_gpus;
    s.usable = node.usable;
    state_of[node.index] = states.size();
    states.push_back(s);
  }
  std::vector<budget::RunningJob> candidates;
  for (const budget::RunningJob& job : running) {
    for (const budget::NodeGpus& n : job.nodes) {
      auto it = state_of.find(n.node);
      if (it == state_of.end()) continue;
      budget::NodeState& s = states[it->second];
      s.free_gpus -= std::min(s.free_gpus, n.gpus);
    }
    // Leaving already, or allocated work the tree cannot rank: not victims.
    if (leaving.count(job.job_id)) continue;
    if (job.allocated() && job.allocation == budget::kNoAllocation) continue;
    candidates.push_back(job);
  }
  // The preemptor's projection counts its team's protected runs and
  // preemptions under way (the core's commitments.h).
  std::vector<budget::Standing> standings = StandingsWithCommitments(jobs, view, now);
  budget::PreemptionPlan choice;
  budget::Status st = budget::ChoosePreemption(shape, candidates, states, standings, view.scale, now, &choice);
  if (!st.ok()) {
    plan->log.push_back("no preemption for job " + std::to_string(top->job_id) + ": " + st.message());
    return;
  }
  if (!choice.feasible || choice.victims.empty()) return;
  plan->log.push_back(budget::DescribePlan(shape, choice));
  for (const budget::Victim& v : choice.victims) {
    auto job = std::find_if(candidates.begin(), candidates.end(),
                            [&](const budget::RunningJob& r) { return r.job_id == v.job_id; });
    if (job == candidates.end()) continue;
    const char* rule = budget::PreemptVerdictName(v.rule);
    PlannedPreemption p;
    p.job_id = v.job_id;
    p.start = job->start;
    p.action = v.action;
    p.comment = budget::FormatPreemptionNote(top->job_id, now, rule);
    const std::string& victim_path = view.PathOf(v.allocation);
    p.log = "job " + std::to_string(top->job_id) + " (" + view.PathOf(shape.allocation) + ", usage ratio " +
            Ratio(view.StandingOf(shape.allocation).usage_ratio) + ", projected " +
            Ratio(v.preemptor_projected_ratio) + ") preempts job " + std::to_string(v.job_id) + " (" +
            (job->allocated() ? victim_path : std::string("unallocated")) + ", usage ratio " +
            Ratio(v.preemptee_ratio) + "): " + budget::PreemptActionName(v.action) + ", rule: " + rule;
    plan->preemptions.push_back(std::move(p));
  }
}

}  // namespace timeslice
