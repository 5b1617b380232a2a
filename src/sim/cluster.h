// Cluster: the nodes and GPUs of a simulated cluster, and the one placement
// engine every policy shares.
//
// Placement. With packing on, nodes are chosen by the core's packing rule
// (packing.h: best fit for one-node jobs, whole free nodes from the fewest
// topology groups for multi-node jobs). With packing off, first fit: the
// lowest-index node(s) that fit, whole free nodes for multi-node jobs: the
// baseline the packing rule is measured against. Within a node a job takes
// the lowest-numbered free GPUs (for the per-GPU timeline only; no rule
// depends on which GPUs).
//
// Speed. The core's ChooseNodes is given only the nodes with free GPUs:
// nodes with none can host nothing and add 0 to every group's free count,
// so the choice is the same as over the whole list (cluster_test checks
// it). Fits() answers from a histogram of free GPUs per node in O(G), so
// that a policy can skip jobs that cannot start without calling the core.
//
// Invariants: 0 <= free <= total per node; the histogram counts each usable
// node once under its free count (a drained node not at all); the slot masks
// hold exactly total - free set bits.
//
// Thread safety: none; one Cluster per simulation run.
#ifndef SLURM_BUDGET_SIM_CLUSTER_H_
#define SLURM_BUDGET_SIM_CLUSTER_H_

#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/packing.h"
#include "libbudget/status.h"

namespace budget {
namespace sim {

// The GPUs a running job holds: per node, how many and which.
struct Allocation {
  boost::container::small_vector<NodeGpus, 2> nodes;
  boost::container::small_vector<uint64_t, 2> slots;  // bit i = GPU i of that node
};

// The shape a job of `gpus` GPUs takes on nodes of `gpus_per_node`: one node
// if it fits in one, else the fewest nodes, GPUs spread evenly (rounded up).
struct Shape {
  uint32_t node_count = 1;
  uint32_t gpus_per_node = 1;
};
Shape ShapeFor(uint32_t gpus, uint32_t gpus_per_node);

class Cluster {
 public:
  static constexpr uint32_t kMaxGpusPerNode = 64;

  // REQUIRES: node_count >= 1, 1 <= gpus_per_node <= kMaxGpusPerNode;
  // groups empty or of size node_count (kNoGroup allowed).
  Cluster(uint32_t node_count, uint32_t gpus_per_node, std::vector<int32_t> groups,
          bool packing);

  uint32_t gpus_per_node() const { return gpus_per_node_; }
  uint64_t capacity() const { return uint64_t{gpus_per_node_} * nodes_.size(); }
  uint64_t free_gpus() const { return free_gpus_; }
  const std::vector<NodeState>& nodes() const { return nodes_; }
  bool packing() const { return packing_; }

  // Whether `shape` could start now without preempting anything.
  bool Fits(const Shape& shape) const;
  // Chooses nodes by the placement rule among those in `eligible` (null:
  // every node) and takes the GPUs. False (nothing taken) if the job does
  // not fit.
  bool Place(const Shape& shape, const EligibleNodes& eligible, Allocation* out);
  // Takes the GPUs on the given nodes (a preemption plan's targets).
  // False (nothing taken) if they do not have room.
  bool PlaceOn(const Shape& shape, const std::vector<int32_t>& nodes, Allocation* out);
  void Release(const Allocation& allocation);
  // Takes node `node` out of service (DRAIN: no new job lands on it; its
  // jobs keep their GPUs until they end) or returns it.
  void SetUsable(int32_t node, bool usable);

  // The core's fragmentation figure for the current state.
  double Fragmentation() const;

 private:
  void Take(int32_t node, uint32_t gpus, Allocation* out);
  bool FirstFit(const Shape& shape, const EligibleNodes& eligible, std::vector<int32_t>* chosen) const;

  uint32_t gpus_per_node_;
  bool packing_;
  std::vector<NodeState> nodes_;
  std::vector<uint64_t> used_slots_;
  std::vector<uint32_t> nodes_with_free_;  // [f] = nodes with exactly f free GPUs
  uint64_t free_gpus_ = 0;
  bool has_groups_ = false;
  std::vector<NodeState> scratch_;
};

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_CLUSTER_H_
