// Node lists for the core's unit tests: nodes 0..n-1 of 8 GPUs (NodeState's
// default), with the free GPUs given.
#ifndef SLURM_BUDGET_LIBBUDGET_TEST_NODES_H_
#define SLURM_BUDGET_LIBBUDGET_TEST_NODES_H_

#include <cstdint>
#include <vector>

#include "libbudget/policy/packing.h"

namespace budget {
namespace testing {

inline std::vector<NodeState> Nodes(const std::vector<uint32_t>& free) {
  std::vector<NodeState> nodes;
  for (size_t i = 0; i < free.size(); ++i) {
    NodeState n;
    n.index = int32_t(i);
    n.free_gpus = free[i];
    nodes.push_back(n);
  }
  return nodes;
}

}  // namespace testing
}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TEST_NODES_H_
