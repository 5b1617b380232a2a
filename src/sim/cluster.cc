#include "sim/cluster.h"

#include <algorithm>

namespace budget {
namespace sim {

Shape ShapeFor(uint32_t gpus, uint32_t gpus_per_node) {
  Shape s;
  if (gpus <= gpus_per_node) {
    s.gpus_per_node = std::max<uint32_t>(1, gpus);
    return s;
  }
  s.node_count = (gpus + gpus_per_node - 1) / gpus_per_node;
  s.gpus_per_node = (gpus + s.node_count - 1) / s.node_count;
  return s;
}

Cluster::Cluster(uint32_t node_count, uint32_t gpus_per_node, std::vector<int32_t> groups,
                 bool packing)
    : gpus_per_node_(gpus_per_node), packing_(packing) {
  nodes_.resize(node_count);
  for (uint32_t i = 0; i < node_count; ++i) {
    nodes_[i].index = static_cast<int32_t>(i);
    nodes_[i].total_gpus = gpus_per_node;
    nodes_[i].free_gpus = gpus_per_node;
    if (i < groups.size()) {
      nodes_[i].group = groups[i];
      has_groups_ = has_groups_ || groups[i] != kNoGroup;
    }
  }
  used_slots_.assign(node_count, 0);
  nodes_with_free_.assign(gpus_per_node + 1, 0);
  nodes_with_free_[gpus_per_node] = node_count;
  free_gpus_ = capacity();
}

bool Cluster::Fits(const Shape& shape) const {
  if (shape.gpus_per_node > gpus_per_node_) return false;
  if (shape.node_count > 1) return nodes_with_free_[gpus_per_node_] >= shape.node_count;
  for (uint32_t f = shape.gpus_per_node; f <= gpus_per_node_; ++f)
    if (nodes_with_free_[f] > 0) return true;
  return false;
}

bool Cluster::FirstFit(const Shape& shape, const EligibleNodes& eligible, std::vector<int32_t>* chosen) const {
  uint32_t need = shape.node_count > 1 ? gpus_per_node_ : shape.gpus_per_node;
  for (const NodeState& n : nodes_) {
    if (!n.usable || n.free_gpus < need || !MayRunOn(eligible, n.index)) continue;
    chosen->push_back(n.index);
    if (chosen->size() == shape.node_count) return true;
  }
  return false;
}

bool Cluster::Place(const Shape& shape, const EligibleNodes& eligible, Allocation* out) {
  *out = Allocation();
  if (!Fits(shape)) return false;
  std::vector<int32_t> chosen;
  if (packing_) {
    scratch_.clear();
    for (const NodeState& n : nodes_)
      if (n.usable && n.free_gpus > 0 && MayRunOn(eligible, n.index)) scratch_.push_back(n);
    NodeChoice choice;
    Status st = ChooseNodes(scratch_, GpuRequest{shape.node_count, shape.gpus_per_node}, &choice);
    if (!st.ok() || !choice.feasible) return false;
    chosen = std::move(choice.nodes);
  } else if (!FirstFit(shape, eligible, &chosen)) {
    return false;
  }
  return PlaceOn(shape, chosen, out);
}

bool Cluster::PlaceOn(const Shape& shape, const std::vector<int32_t>& nodes, Allocation* out) {
  *out = Allocation();
  if (nodes.size() != shape.node_count) return false;
  for (int32_t i : nodes) {
    if (i < 0 || size_t(i) >= nodes_.size() || !nodes_[i].usable || nodes_[i].free_gpus < shape.gpus_per_node)
      return false;
  }
  for (int32_t i : nodes) Take(i, shape.gpus_per_node, out);
  return true;
}

void Cluster::Take(int32_t node, uint32_t gpus, Allocation* out) {
  NodeState& n = nodes_[node];
  uint64_t mask = 0;
  uint64_t used = used_slots_[node];
  for (uint32_t g = 0; g < gpus_per_node_ && __builtin_popcountll(mask) < int(gpus); ++g) {
    uint64_t bit = uint64_t{1} << g;
    if (!(used & bit)) mask |= bit;
  }
  used_slots_[node] = used | mask;
  if (n.usable) --nodes_with_free_[n.free_gpus];
  n.free_gpus -= gpus;
  if (n.usable) ++nodes_with_free_[n.free_gpus];
  free_gpus_ -= gpus;
  out->nodes.push_back(NodeGpus{node, gpus});
  out->slots.push_back(mask);
}

void Cluster::Release(const Allocation& a) {
  for (size_t k = 0; k < a.nodes.size(); ++k) {
    NodeState& n = nodes_[a.nodes[k].node];
    used_slots_[n.index] &= ~a.slots[k];
    if (n.usable) --nodes_with_free_[n.free_gpus];
    n.free_gpus += a.nodes[k].gpus;
    if (n.usable) ++nodes_with_free_[n.free_gpus];
    free_gpus_ += a.nodes[k].gpus;
  }
}

void Cluster::SetUsable(int32_t node, bool usable) {
  NodeState& n = nodes_[node];
  if (n.usable == usable) return;
  if (n.usable) --nodes_with_free_[n.free_gpus];
  n.usable = usable;
  if (n.usable) ++nodes_with_free_[n.free_gpus];
}

double Cluster::Fragmentation() const {
  return budget::Fragmentation(nodes_);
}

}  // namespace sim
}  // namespace budget
