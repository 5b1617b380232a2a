// GpuTypeWeights: what an hour of each GPU type is worth, from budget.conf's
// `GpuTypeWeights=h100:1.0,b200:2.0,b300:2.5`. Budgets are charged in
// weighted GPU-hours (policy/gpu_worth.h applies the weights): an hour of a
// GPU of weight 2 costs a team two of its GPU-hours.
//
// Rules (what must stay true):
//   - A type that is not listed, and GPUs of no type (a node's `gpu:8`),
//     weigh 1.0; an empty table weighs every GPU 1.0 (the suite before
//     weights).
//   - Type names match case-insensitively, as Slurm matches GRES types
//     (gres.c compares them with xstrcasecmp); a table keeps them lower-case.
//   - Weights are finite, > 0 and at most kMaxGpuTypeWeight: a weight of 0
//     would make a type free, which is what min-runtime 0 is for.
//
// Thread safety: a plain value.
#ifndef SLURM_BUDGET_LIBBUDGET_GPU_TYPE_WEIGHTS_H_
#define SLURM_BUDGET_LIBBUDGET_GPU_TYPE_WEIGHTS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libbudget/status.h"

namespace budget {

constexpr double kMaxGpuTypeWeight = 1000;

class GpuTypeWeights {
 public:
  // (type, weight), types lower-case and sorted.
  using Entry = std::pair<std::string, double>;

  GpuTypeWeights() = default;

  // Parses a list "type:weight[,type:weight...]" (budget.conf's value).
  // On error *out is untouched and the message names the bad entry.
  static Status Parse(std::string_view text, GpuTypeWeights* out);

  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  // The weight of `type` ("" or unlisted: 1.0).
  double WeightOf(std::string_view type) const;
  // "b200:2,h100:1" (sorted by type, %g), "" when empty: for logs and the
  // report snapshot.
  std::string ToString() const;
  // Sets a weight (tests and readers of the report snapshot).
  // REQUIRES: 0 < weight <= kMaxGpuTypeWeight, type non-empty.
  void Set(std::string_view type, double weight);

  bool operator==(const GpuTypeWeights& o) const { return entries_ == o.entries_; }
  bool operator!=(const GpuTypeWeights& o) const { return !(*this == o); }

 private:
  std::vector<Entry> entries_;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_GPU_TYPE_WEIGHTS_H_
