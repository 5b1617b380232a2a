// Whether slurmctld places new jobs on a node: the one reading of a node's
// state that select/topo (its node view) and preempt/timeslice (its pass's
// snapshot) share, so that the time-slicing pass never counts GPUs the
// schedulers cannot use. A node `scontrol update state=resume` returns from
// a drain is NO_RESPOND until its slurmd answers the controller's next ping
// (src/slurmctld/node_mgr.c, _require_node_reg; the ping goes out from the
// background loop, within about a second): until then it takes no job.
// Include after slurmctld's headers (node_record_t, IS_NODE_*).
#ifndef SLURM_BUDGET_SLURM_COMPAT_NODE_STATE_H_
#define SLURM_BUDGET_SLURM_COMPAT_NODE_STATE_H_

namespace slurm_compat {

inline bool NodeTakesJobs(const node_record_t* node) {
  return !(IS_NODE_DOWN(node) || IS_NODE_DRAIN(node) || IS_NODE_FAIL(node) || IS_NODE_NO_RESPOND(node) ||
           IS_NODE_FUTURE(node) || IS_NODE_POWERED_DOWN(node));
}

}  // namespace slurm_compat

#endif  // SLURM_BUDGET_SLURM_COMPAT_NODE_STATE_H_
