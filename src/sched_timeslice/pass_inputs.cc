// Pass inputs: see pass_inputs.h.
#include "sched_timeslice/pass_inputs.h"

#include <unordered_map>

namespace timeslice {

budget::TimesliceInputs PassInputsOf(const std::vector<JobFacts>& jobs, const std::vector<NodeFacts>& nodes,
                                     const StandingsView& view, const budget::PackingState* packing,
                                     const budget::QuickStartRule& quick, budget::TimePoint now) {
  budget::TimesliceInputs in;
  std::unordered_map<std::string, int32_t> index_of;
  for (const NodeFacts& n : nodes) {
    budget::NodeState s;
    s.index = n.index;
    s.total_gpus = n.total_gpus;
    s.free_gpus = n.total_gpus;
    s.usable = n.usable;
    in.nodes.push_back(s);
    if (size_t(n.index) >= in.node_names.size()) in.node_names.resize(size_t(n.index) + 1);
    in.node_names[n.index] = n.name;
    index_of[n.name] = n.index;
    if (n.draining) in.draining.push_back(n.index);
  }
  for (const JobFacts& job : jobs) {
    // A job in its notice is leaving: like a completing one, it is not
    // among the running jobs, and the GPUs it still holds are the next
    // job's to plan for.
    if (job.running && job.notice_until == 0) {
      in.running.push_back(RunningJobOf(job, view));
      in.running.back().quick = quick.Applies(ShapeOf(job, view));
    }
    if (!job.pending || !job.waits_for_resources || job.gpus_per_node == 0) continue;
    budget::WaitingJob w;
    w.shape = ShapeOf(job, view);
    w.shape.quick = quick.Applies(w.shape);
    w.user_priority = job.user_priority;
    w.submit_time = job.submit_time;
    w.time_limit = job.time_limit;
    w.eligible = job.eligible;
    w.user = job.user_id;
    in.waiting.push_back(w);
  }
  in.quick_start_user_gpus = quick.max_user_gpus;
  in.standings = view.standings;
  in.paths = view.paths;
  in.scale = view.scale;
  budget::SortWaitingJobs(in.standings, &in.waiting);
  if (packing && packing->hero_active) {
    in.hold.active = true;
    in.hold.job_id = packing->hero_job_id;
    in.hold.planned_start = packing->hero_planned_start;
    in.hold.promised_start = packing->hero_promised_start;
    for (const std::string& name : packing->hero_nodes) {
      auto it = index_of.find(name);
      if (it != index_of.end()) in.hold.nodes.push_back(it->second);
    }
  }
  // The reserve is a function of the running jobs: select/topo finds the
  // same nodes from the same jobs (topo_steer.cc).
  in.reserve = budget::ChooseQuickReserve(in.nodes, in.running, in.hold, quick, now);
  return in;
}

}  // namespace timeslice
