// Eligibility: the nodes a job may run on. A job may use only some nodes of
// a mixed fleet: those of its partition(s), of the GPU type it asks for
// (`--gres=gpu:b200:8`, `--gpus=b200:16`), with the features of its
// constraint (`-C`), inside its reservation and outside everyone else's,
// and not on the nodes it excludes. Every decision of the scheduling loop
// (a preemption, a quick start, a hero hold) reads that set: GPUs freed on
// a node the waiting job cannot use help nobody (timeslice_plan.h).
//
// The set (NodeSet) holds NodeState::index values. An EligibleNodes that is
// null means every node: the common case of a one-type cluster costs
// nothing. Callers intern equal sets (one shared NodeSet per distinct set
// in a pass), so that jobs of one shape and one set form one class
// (timeslice_plan.h ShapeClass compares the pointers).
//
// What a node offers and what a job asks, in Slurm's own words, and the
// match between them (NodeOffers / NodeMatches), live here so that the
// controller's adapter (which takes partitions, reservations and the
// exclude list from Slurm's bitmaps) and the simulator (which reads them
// from its cluster spec and trace) decide alike:
//   - GPU type: a request of type T fits a node that has GPUs of type T; an
//     untyped request fits any node with GPUs;
//   - constraint: Slurm's feature expression over the node's features:
//     names joined by `&` (and, also `,`) and `|` (or), with parentheses;
//     `&` binds tighter than `|`. Forms Slurm accepts that this does not
//     evaluate (counts `b200*2`, brackets `[a|b]`, XOR `^`) make the
//     constraint unknown: every node passes it, and Slurm's own scheduler
//     still enforces it (the pass may then preempt for nothing, as before
//     eligibility, never refuse a job Slurm would start).
//
// Thread safety: plain values; a NodeSet is immutable once shared.
#ifndef SLURM_BUDGET_LIBBUDGET_ELIGIBILITY_H_
#define SLURM_BUDGET_LIBBUDGET_ELIGIBILITY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libbudget/policy/packing.h"

namespace budget {

// A set of node indices (NodeState::index >= 0), as a bitmap.
class NodeSet {
 public:
  NodeSet() = default;
  void Add(int32_t index);
  bool Contains(int32_t index) const {
    if (index < 0) return false;
    size_t word = size_t(index) / 64;
    return word < words_.size() && (words_[word] >> (size_t(index) % 64) & 1u);
  }
  size_t Count() const;
  bool operator==(const NodeSet& o) const;
  // The words, for callers that intern sets by content.
  const std::vector<uint64_t>& words() const { return words_; }

 private:
  void Trim();
  std::vector<uint64_t> words_;  // no trailing zero word
};

// Null: every node.
using EligibleNodes = std::shared_ptr<const NodeSet>;

// One shared NodeSet per distinct set: the sets of a pass's jobs, interned
// so that equal sets are one pointer (ShapeClass compares pointers).
// Thread safety: one thread per interner.
class NodeSetInterner {
 public:
  EligibleNodes Intern(NodeSet set);

 private:
  std::unordered_map<uint64_t, std::vector<EligibleNodes>> by_hash_;
};

inline bool MayRunOn(const EligibleNodes& eligible, int32_t index) {
  return !eligible || eligible->Contains(index);
}

// Marks the nodes outside `eligible` unusable (nothing when it is null).
void KeepEligible(const EligibleNodes& eligible, std::vector<NodeState>* nodes);

// What a node offers a job's request.
struct NodeOffers {
  std::vector<std::string> gpu_types;  // e.g. {"b200"}; empty: untyped GPUs only
  std::vector<std::string> features;   // its available features
};

// What a job asks of each node, besides partition, reservation and lists.
struct NodeAsks {
  std::string gpu_type;    // "" any
  std::string constraint;  // Slurm's feature expression, "" none
};

// Whether a node offering `offers` can host a job asking `asks`.
bool NodeMatches(const NodeOffers& offers, const NodeAsks& asks);

// The feature expression's verdict on a node's features: 1 matches, 0 does
// not, -1 the expression is of a form this does not evaluate (see above).
int EvaluateConstraint(std::string_view constraint, const std::vector<std::string>& features);

// The GPU type of a request ("gres:gpu:b200:8", "gres/gpu:b200=8",
// "gpu:b200"): "b200"; "" when untyped.
// Several typed entries ("gpu:a100:1,gpu:v100:1"): the first one's.
std::string GpuTypeOfRequest(std::string_view spec);

// The GPU types of a node's Gres ("gpu:b200:8(S:0-1)", "gpu:b200:4,gpu:h100:4").
std::vector<std::string> GpuTypesOfNode(std::string_view gres);

// The entries of a node's Gres: split at the commas outside a socket
// binding's parentheses ("gpu:b200:4(S:0-1),gpu:h100:4(S:2-3)": two).
std::vector<std::string_view> GresEntries(std::string_view gres);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_ELIGIBILITY_H_
