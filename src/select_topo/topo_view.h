// TopoView: Slurm's node and job records translated into the core's values
// (packing.h, hero_plan.h). Nothing here decides anything: it only reads.
//
// Node positions: the core prefers the lower NodeState::index among equal
// choices, so nodes are numbered in Slurm's own preference order, node
// Weight ascending, then Slurm's node index. `position` below is that
// number; slurm_index maps it back to node_record_table_ptr.
//
// REQUIRES: called in slurmctld with the node read lock (and, for the job
// functions, the job read lock) held, as select_p_* calls are.
#ifndef SLURM_BUDGET_SELECT_TOPO_TOPO_VIEW_H_
#define SLURM_BUDGET_SELECT_TOPO_TOPO_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "select_topo/slurm_headers.h"

namespace topo {

struct NodeView {
  // Nodes with GPUs, by position. usable = up and not drained.
  std::vector<budget::NodeState> nodes;
  std::vector<int> slurm_index;     // position -> node_record_table_ptr index
  std::vector<std::string> names;   // position -> node name
  std::vector<int32_t> position_of; // Slurm node index -> position, -1 if no GPUs
};

// Every node with GPUs: free = available - allocated GPUs of its gres
// state; group = the leaf switch of topology.conf that holds it (kNoGroup
// without topology).
NodeView BuildNodeView();

// The GPUs a job asks for, per node, if the packing rule can steer it:
// --gres=gpu:N / --gpus-per-node=N on any node count, or --gpus=N /
// --gpus-per-task on a single node. False for jobs without GPUs or with
// requests the rule does not model (per socket, several GPU types).
bool JobGpuRequest(const job_record_t* job_ptr, uint32_t node_count, budget::GpuRequest* request);

// The job's contract as the hero rule needs it (job_contract.h record in
// the AdminComment; none: min_runtime = default_min_runtime) and its time
// limit in seconds (< 0: unlimited).
budget::StartingJob StartingJobOf(const job_record_t* job_ptr, budget::Seconds default_min_runtime);

// Slurm's global job list, looked up at run time (only slurmctld defines
// it); nullptr outside slurmctld.
List SlurmctldJobList();
// Slurm's reservation list, the same way (resv_list).
List SlurmctldReservations();
// The record of job `job_id` in `jobs`, or null.
const job_record_t* FindJob(List jobs, uint32_t job_id);

// Pending jobs that wait only for nodes (reason None, Priority or
// Resources: not held, no unmet dependency, no limit reached) and whose
// begin time has passed, with their GPU request (jobs whose request the
// packing cannot model are left out) and the time they last became
// eligible (submission or requeue, and begin time).
std::vector<budget::QueueEntry> QueuedJobs(List jobs, time_t now);

// Running and suspended jobs on GPU nodes, for the hero plan.
std::vector<budget::RunningJob> RunningJobs(List jobs, const NodeView& view, budget::Seconds default_min_runtime);

}  // namespace topo

#endif  // SLURM_BUDGET_SELECT_TOPO_TOPO_VIEW_H_
