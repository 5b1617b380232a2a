#include "libbudget/policy/drain.h"

#include <algorithm>
#include <string>
#include <utility>

#include <boost/container/flat_map.hpp>

namespace budget {

Status PlanDrain(const std::vector<int32_t>& draining_nodes,
                 const std::vector<RunningJob>& running, TimePoint now, DrainPlan* plan) {
  *plan = DrainPlan();
  // Built aside so that an error leaves *plan empty, never half-filled.
  DrainPlan result;
  // NodeState::index -> position in result.nodes.
  boost::container::flat_map<int32_t, size_t> position;
  position.reserve(draining_nodes.size());
  for (int32_t index : draining_nodes) {
    if (index < 0) {
      return Status::InvalidArgument("drain: node " + std::to_string(index) + ": negative index");
    }
    if (!position.emplace(index, result.nodes.size()).second) {
      return Status::InvalidArgument("drain: node " + std::to_string(index) + ": given twice");
    }
    result.nodes.push_back(DrainedNode{index, now});
  }
  for (const RunningJob& job : running) {
    bool on_draining_node = false;
    TimePoint leave_at = std::max(now, job.protection_end());
    for (const NodeGpus& ng : job.nodes) {
      auto it = position.find(ng.node);
      if (it == position.end()) continue;
      on_draining_node = true;
      DrainedNode& node = result.nodes[it->second];
      node.empty_at = std::max(node.empty_at, leave_at);
    }
    if (!on_draining_node) continue;
    result.departures.push_back(
        DrainDeparture{job.job_id, !job.IsProtectedAt(now), leave_at, job.action()});
  }
  *plan = std::move(result);
  return Status::Ok();
}

}  // namespace budget
