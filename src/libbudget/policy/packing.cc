#include "libbudget/policy/packing.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace budget {

namespace {

bool IsWholeFree(const NodeState& n) { return n.usable && n.free_gpus == n.total_gpus; }

// Free GPUs summed over the usable nodes of each group. A node without a
// group is its own group for best fit, so it is keyed by -1 - index (never
// a real group id, which is >= 0).
std::map<int64_t, uint64_t> FreeGpusByGroup(const std::vector<NodeState>& nodes) {
  std::map<int64_t, uint64_t> free;
  for (const NodeState& n : nodes) {
    if (!n.usable) continue;
    int64_t key = n.group == kNoGroup ? -1 - int64_t{n.index} : n.group;
    free[key] += n.free_gpus;
  }
  return free;
}

void ChooseOneNode(const std::vector<NodeState>& nodes, uint32_t gpus, NodeChoice* choice) {
  // Without topology groups the group tie break compares each node's own
  // free GPUs, which the first key already did: (free, index) decides, in
  // one pass without the group sums.
  bool grouped = false;
  const NodeState* best = nullptr;
  for (const NodeState& n : nodes) {
    grouped = grouped || n.group != kNoGroup;
    if (!n.usable || n.free_gpus < gpus) continue;
    if (best == nullptr || n.free_gpus < best->free_gpus ||
        (n.free_gpus == best->free_gpus && n.index < best->index))
      best = &n;
  }
  if (!grouped || best == nullptr) {
    if (best == nullptr) {
      choice->why_not = "no usable node has " + std::to_string(gpus) + " free GPUs";
      return;
    }
    choice->feasible = true;
    choice->nodes.push_back(best->index);
    return;
  }
  std::map<int64_t, uint64_t> group_free = FreeGpusByGroup(nodes);
  best = nullptr;
  std::tuple<uint32_t, uint64_t, int32_t> best_key;
  for (const NodeState& n : nodes) {
    if (!n.usable || n.free_gpus < gpus) continue;
    int64_t group_key = n.group == kNoGroup ? -1 - int64_t{n.index} : n.group;
    std::tuple<uint32_t, uint64_t, int32_t> key{n.free_gpus, group_free[group_key], n.index};
    if (best == nullptr || key < best_key) {
      best = &n;
      best_key = key;
    }
  }
  if (best == nullptr) {
    choice->why_not = "no usable node has " + std::to_string(gpus) + " free GPUs";
    return;
  }
  choice->feasible = true;
  choice->nodes.push_back(best->index);
}

struct GroupFreeNodes {
  int32_t group;
  std::vector<int32_t> indices;  // whole free nodes, ascending
};

void ChooseWholeNodes(const std::vector<NodeState>& nodes, const GpuRequest& request,
                      NodeChoice* choice) {
  std::map<int32_t, std::vector<int32_t>> by_group;
  size_t total_free = 0;
  for (const NodeState& n : nodes) {
    if (!IsWholeFree(n) || n.total_gpus < request.gpus_per_node) continue;
    by_group[n.group].push_back(n.index);
    ++total_free;
  }
  if (total_free < request.node_count) {
    choice->why_not = "needs " + std::to_string(request.node_count) + " whole free nodes of >= " +
                      std::to_string(request.gpus_per_node) + " GPUs, " +
                      std::to_string(total_free) + " available";
    return;
  }
  std::vector<GroupFreeNodes> groups;
  for (auto& entry : by_group) {
    std::sort(entry.second.begin(), entry.second.end());
    groups.push_back({entry.first, std::move(entry.second)});
  }
  // Most whole free nodes first; ties to the group with the lowest index.
  std::sort(groups.begin(), groups.end(), [](const GroupFreeNodes& a, const GroupFreeNodes& b) {
    if (a.indices.size() != b.indices.size()) return a.indices.size() > b.indices.size();
    return a.indices.front() < b.indices.front();
  });
  size_t needed = request.node_count;
  size_t taken_whole = 0;  // groups [0, taken_whole) are taken whole
  while (groups[taken_whole].indices.size() < needed) {
    needed -= groups[taken_whole].indices.size();
    ++taken_whole;
  }
  // The last group: the smallest that covers what is still needed (it
  // strands the fewest whole free nodes); ties to the lowest index.
  size_t last = taken_whole;
  for (size_t g = taken_whole; g < groups.size(); ++g) {
    const auto& candidate = groups[g].indices;
    const auto& current = groups[last].indices;
    if (candidate.size() < needed) continue;
    if (candidate.size() < current.size() ||
        (candidate.size() == current.size() && candidate.front() < current.front())) {
      last = g;
    }
  }
  for (size_t g = 0; g < taken_whole; ++g) {
    choice->nodes.insert(choice->nodes.end(), groups[g].indices.begin(), groups[g].indices.end());
  }
  choice->nodes.insert(choice->nodes.end(), groups[last].indices.begin(),
                       groups[last].indices.begin() + needed);
  std::sort(choice->nodes.begin(), choice->nodes.end());
  choice->feasible = true;
}

Status CheckRequest(const GpuRequest& request) {
  if (request.node_count == 0 || request.gpus_per_node == 0) {
    return Status::InvalidArgument("packing request: node_count " +
                                   std::to_string(request.node_count) + " and gpus_per_node " +
                                   std::to_string(request.gpus_per_node) + " must both be >= 1");
  }
  return Status::Ok();
}

// The choice itself. REQUIRES: valid nodes and request.
void ChooseAmong(const std::vector<NodeState>& nodes, const GpuRequest& request, NodeChoice* choice) {
  if (request.node_count == 1) {
    ChooseOneNode(nodes, request.gpus_per_node, choice);
  } else {
    ChooseWholeNodes(nodes, request, choice);
  }
}

}  // namespace

GpuRequest SpreadGpus(uint64_t total, uint32_t min_nodes, uint32_t largest) {
  uint64_t nodes = std::max<uint32_t>(min_nodes, 1);
  if (largest > 0) nodes = std::max<uint64_t>(nodes, (total + largest - 1) / largest);
  nodes = std::min<uint64_t>(nodes, UINT32_MAX);
  return GpuRequest{uint32_t(nodes), uint32_t(std::min<uint64_t>((total + nodes - 1) / nodes, UINT32_MAX))};
}

NodePositions::NodePositions(const std::vector<NodeState>& nodes) {
  // Slurm's node list is usually indices 0..n-1 in order: each index is its
  // own position, and no table is needed.
  bool identity = true;
  for (size_t i = 0; i < nodes.size() && identity; ++i) identity = nodes[i].index == int32_t(i);
  identity_ = identity;
  if (identity_) {
    size_ = int32_t(nodes.size());
    return;
  }
  int64_t max_index = -1;
  for (const NodeState& n : nodes) max_index = std::max<int64_t>(max_index, n.index);
  dense_ = max_index < int64_t(4 * nodes.size() + 1024);
  if (dense_) table_.assign(size_t(max_index + 1), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].index < 0) continue;
    if (dense_) {
      table_[size_t(nodes[i].index)] = int32_t(i);
    } else {
      sparse_[nodes[i].index] = int32_t(i);
    }
  }
}

int32_t NodePositions::FindInTable(int32_t index) const {
  if (dense_) return size_t(index) < table_.size() ? table_[size_t(index)] : -1;
  auto it = sparse_.find(index);
  return it == sparse_.end() ? -1 : it->second;
}

Status ValidateNodes(const std::vector<NodeState>& nodes) {
  // Indices are usually Slurm's 0..n-1 in order: increasing indices repeat
  // none, with nothing allocated (passes check many choices a second).
  // (An index above the previous one, which starts at -1, is >= 0.)
  bool increasing = true;
  int32_t previous = -1;
  for (const NodeState& n : nodes) {
    if (n.index <= previous || n.free_gpus > n.total_gpus) {
      increasing = false;
      break;
    }
    previous = n.index;
  }
  if (increasing) return Status::Ok();
  // Otherwise a bitmap finds a repeat in O(n); anything sparser is sorted.
  std::vector<int32_t> indices;
  int32_t max_index = 0;
  for (const NodeState& n : nodes) max_index = std::max(max_index, n.index);
  bool dense = size_t(max_index) < 4 * nodes.size() + 64;
  std::vector<bool> seen(dense ? size_t(max_index) + 1 : 0, false);
  if (!dense) indices.reserve(nodes.size());
  for (const NodeState& n : nodes) {
    if (n.index < 0) {
      return Status::InvalidArgument("node " + std::to_string(n.index) + ": negative index");
    }
    if (n.free_gpus > n.total_gpus) {
      return Status::InvalidArgument("node " + std::to_string(n.index) + ": free_gpus " +
                                     std::to_string(n.free_gpus) + " > total_gpus " +
                                     std::to_string(n.total_gpus));
    }
    if (dense) {
      if (seen[n.index]) return Status::InvalidArgument("node " + std::to_string(n.index) + ": index given twice");
      seen[n.index] = true;
    } else {
      indices.push_back(n.index);
    }
  }
  std::sort(indices.begin(), indices.end());
  auto dup = std::adjacent_find(indices.begin(), indices.end());
  if (dup != indices.end()) {
    return Status::InvalidArgument("node " + std::to_string(*dup) + ": index given twice");
  }
  return Status::Ok();
}

Status ChooseNodes(const std::vector<NodeState>& nodes, const GpuRequest& request,
                   NodeChoice* choice) {
  *choice = NodeChoice();
  Status st = CheckRequest(request);
  if (!st.ok()) return st;
  st = ValidateNodes(nodes);
  if (!st.ok()) return st;
  ChooseAmong(nodes, request, choice);
  return Status::Ok();
}

Status ChooseValidatedNodes(const std::vector<NodeState>& nodes, const GpuRequest& request,
                            NodeChoice* choice) {
  *choice = NodeChoice();
  Status st = CheckRequest(request);
  if (!st.ok()) return st;
  ChooseAmong(nodes, request, choice);
  return Status::Ok();
}

double Fragmentation(const std::vector<NodeState>& nodes) {
  uint64_t all_free = 0;
  uint64_t stranded = 0;
  for (const NodeState& n : nodes) {
    if (!n.usable) continue;
    all_free += n.free_gpus;
    if (n.free_gpus < n.total_gpus) stranded += n.free_gpus;
  }
  return all_free == 0 ? 0.0 : double(stranded) / double(all_free);
}

}  // namespace budget
