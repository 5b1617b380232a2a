// The --events-json output: every run of every job, per policy, for tools
// that compare a simulation with what a real controller did
// (scripts/replay.sh, doc/simulator.md "Fidelity"; scripts/replay/compare.py
// reads it):
//
//   {"version":1, "capacity_gpus":32, "nodes":4, "gpus_per_node":8,
//    "policies": {"budget": {"jobs": [
//      {"id":3, "account":"teama", "user":"teama-u0", "gpus":8, "submit":120,
//       "min_runtime":900, "resumable":true,
//       "runs": [{"start":130, "end":1030, "nodes":["n1"],
//                 "ended":"preempted", "preempted_by":7}, ...]}, ...]}}}
//
// What must stay true:
//   - every job of the workload is listed, in id order, runs or not (a job
//     that never started has "runs": []); id, submit, gpus, min_runtime and
//     resumable are the trace's values; times are the simulation's seconds;
//   - a job's runs are in start order; "nodes" are named as
//     scripts/cluster.sh names them (node index 0 is "n1");
//   - "ended" is RunEndName(); "preempted_by" is the trace id of the job a
//     preemption made room for, null for every other ending.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_SIM_EVENTS_JSON_H_
#define SLURM_BUDGET_SIM_EVENTS_JSON_H_

#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/workload.h"

namespace budget {
namespace sim {

// One policy's runs: RunOutput::timeline of a run with record_timeline set.
struct EventsPolicy {
  std::string name;
  const std::vector<Segment>* timeline = nullptr;
};

// REQUIRES: every segment's job indexes `workload.jobs`.
std::string FormatEventsJson(const Workload& workload, uint32_t nodes, uint32_t gpus_per_node,
                             const std::vector<EventsPolicy>& policies);

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_EVENTS_JSON_H_
