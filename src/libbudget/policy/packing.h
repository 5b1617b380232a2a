// Packing: which nodes a job should take, so that whole nodes stay free for
// whole-node jobs, and how fragmented the free GPUs are.
//
// Rules (doc/admin-guide.md, "Packing: which nodes a GPU job gets"):
//   - A job of ONE node (any GPU count up to the node's size) goes to the
//     usable node with the FEWEST free GPUs that still fits it (best fit).
//     Ties: toward the fuller topology group (fewer free GPUs summed over
//     the group's usable nodes), then the lowest index (Slurm's weight
//     order). A node without a group is a group of its own for this rule.
//   - A job of SEVERAL nodes takes WHOLE free nodes (free == total, and
//     total >= gpus_per_node), from the fewest topology groups:
//       * if one group holds enough whole free nodes, the one holding the
//         fewest (best fit at group level: it strands the fewest whole free
//         nodes), ties to the group with the lowest node index;
//       * otherwise the groups with the most whole free nodes are taken
//         whole, largest first, and the last group is the smallest one that
//         covers the remainder (fewest groups, fewest nodes stranded in the
//         group that is split; greedy, not an exhaustive search).
//     Nodes without a group (group == kNoGroup) form ONE group together: a
//     cluster without topology information is a single flat fabric.
//     Within a group, the lowest indices first.
//   - Nodes that are not usable (down, drained) are never chosen.
//
// Fragmentation = free GPUs on partially free usable nodes / all free GPUs
// on usable nodes: the share of free GPUs that cannot host a whole-node job
// (0 when nothing is free).
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_PACKING_H_
#define SLURM_BUDGET_LIBBUDGET_PACKING_H_

#include <cstdint>
#include <string>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "libbudget/status.h"

namespace budget {

constexpr int32_t kNoGroup = -1;
constexpr uint32_t kDefaultGpusPerNode = 8;

struct NodeState {
  // Slurm's node index: unique, >= 0; lower is preferred among equals.
  int32_t index = 0;
  uint32_t total_gpus = kDefaultGpusPerNode;
  // REQUIRES: free_gpus <= total_gpus.
  uint32_t free_gpus = kDefaultGpusPerNode;
  // Topology switch (topology.conf), or kNoGroup.
  int32_t group = kNoGroup;
  // False for nodes that are down or drained.
  bool usable = true;
};

struct GpuRequest {
  // REQUIRES: node_count >= 1, gpus_per_node >= 1.
  uint32_t node_count = 1;
  uint32_t gpus_per_node = 0;
};

struct NodeChoice {
  bool feasible = false;
  // NodeState::index of each chosen node, ascending (empty if infeasible).
  std::vector<int32_t> nodes;
  // Why infeasible (one line for a log), empty when feasible.
  std::string why_not;
};

// How Slurm spreads GPUs asked for the whole job (`--gpus=b200:16`, no
// count per node): over at least `min_nodes` nodes and as many as it takes
// at `largest` GPUs a node (the largest node the job may use): ceil(total /
// largest) nodes, each ceil(total / nodes) GPUs. 16 GPUs on 8-GPU nodes:
// 2 x 8; 12 on 8-GPU nodes: 2 x 6; 4 on 1 node: 1 x 4. A request that fits
// one node, or a `largest` of 0, keeps min_nodes.
GpuRequest SpreadGpus(uint64_t total, uint32_t min_nodes, uint32_t largest);

// Chooses nodes for `request` by the rules above. Infeasible is not an
// error: *choice says so and why. Errors: a request of 0 nodes or 0 GPUs,
// free_gpus > total_gpus, a negative or repeated index.
Status ChooseNodes(const std::vector<NodeState>& nodes, const GpuRequest& request,
                   NodeChoice* choice);

// ChooseNodes over a node list its caller has validated already: the same
// choice and the same request errors, without checking the nodes again
// (a pass chooses many times over one list it checked once).
// REQUIRES: ValidateNodes(nodes).ok().
Status ChooseValidatedNodes(const std::vector<NodeState>& nodes, const GpuRequest& request,
                            NodeChoice* choice);

// Free GPUs on partially free usable nodes / all free GPUs on usable nodes,
// in [0, 1]; 0 when no GPU is free.
double Fragmentation(const std::vector<NodeState>& nodes);

// Checks the invariants of a node list (index >= 0 and unique, free <=
// total); the message names the offending node. Used by every module that
// takes nodes.
Status ValidateNodes(const std::vector<NodeState>& nodes);

// Maps NodeState::index to the node's position in `nodes`: nothing when
// each index is its position (Slurm's node numbers in order, the usual
// case), a dense table when indices are compact, a flat map otherwise. A
// repeated index maps to its last position.
class NodePositions {
 public:
  explicit NodePositions(const std::vector<NodeState>& nodes);
  // -1 if the index is not in the list. Inline: passes look up every
  // running job's nodes.
  int32_t Find(int32_t index) const {
    if (index < 0) return -1;
    if (identity_) return index < size_ ? index : -1;
    return FindInTable(index);
  }

 private:
  int32_t FindInTable(int32_t index) const;

  bool identity_ = false;
  int32_t size_ = 0;  // when identity_
  bool dense_ = true;
  std::vector<int32_t> table_;
  boost::container::flat_map<int32_t, int32_t> sparse_;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PACKING_H_
