// GPU worth: usage in weighted GPU-hours. An hour of a GPU is worth its
// type's weight (config/gpu_type_weights.h) in GPU-hours of a budget, and
// every figure the fair share compares is in that one unit: a running
// job's charge, the demand of pending jobs, the cluster's capacity (so
// entitlement and owed too).
//
// Rules (what must stay true):
//   - A node's GPUs are worth sum over its Gres entries of GPUs x the
//     weight of the entry's type ("gpu:b200:4,gpu:h100:4" at b200:2 is
//     4 x 2 + 4 x 1 = 12); untyped entries weigh 1.0. Its weight per GPU is
//     that worth over its GPU count (1.5 here; 1.0 for a node without GPUs).
//     The node's GPU count is the caller's (the TRES, else the Gres, as
//     config/gpu_count.h counts), and it is valued at that weight per GPU.
//   - Capacity: the sum of the worth of the nodes added (AddNode).
//   - A running job is charged, per second, the sum over its nodes of its
//     GPUs there x a weight: its type's when it asked for a type (a typed
//     request on a node of several types runs on GPUs of that type), else
//     the weight per GPU of the node it runs on. Its GPUs are spread evenly
//     over its nodes (Slurm's per-node request; sched_timeslice/job_facts.h
//     counts them alike).
//   - A pending job demands its GPUs x its type's weight when typed; an
//     untyped one x the fleet's mean weight per GPU (capacity's worth over
//     its GPU count): where it will run is not known yet.
//   - A job whose nodes are unknown (none given) is charged as pending.
//   - Without weights (an empty table) every GPU is worth 1.0: every rate
//     is the job's GPU count and nothing per node is kept.
//
// Cost. AddNode parses one node's Gres (only when weights are set); a
// running job's rate is O(its nodes), a pending one's O(1) after the
// type's look-up.
//
// Thread safety: plain values; const methods may run concurrently.
#ifndef SLURM_BUDGET_LIBBUDGET_GPU_WORTH_H_
#define SLURM_BUDGET_LIBBUDGET_GPU_WORTH_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "libbudget/config/gpu_type_weights.h"

namespace budget {

// What one node's GPUs are worth.
struct NodeGpuWorth {
  double gpus = 0;           // its GPU count
  double weighted_gpus = 0;  // their worth
  double WeightPerGpu() const { return gpus > 0 ? weighted_gpus / gpus : 1.0; }
};

// The worth of a node whose Gres is `gres` ("gpu:b200:8(S:0-1)") and which
// holds `gpus` GPUs (by the caller's count; see the rules above).
NodeGpuWorth NodeWorth(std::string_view gres, double gpus, const GpuTypeWeights& weights);

class FleetWorth {
 public:
  // REQUIRES: `weights` outlives this object.
  explicit FleetWorth(const GpuTypeWeights* weights) : weights_(weights) {}

  // Adds the node of Slurm index `index` (>= 0), with its Gres and GPUs.
  void AddNode(int32_t index, std::string_view gres, double gpus);

  // Capacity: GPUs, and their worth (equal without weights).
  double capacity_gpus() const { return capacity_gpus_; }
  double weighted_capacity() const { return weighted_capacity_; }
  // weighted_capacity over capacity_gpus; 1.0 without GPUs.
  double MeanWeightPerGpu() const;
  // The weight per GPU of node `index` (1.0 for a node not added).
  double NodeWeightPerGpu(int32_t index) const;

  // Weighted GPUs a running job of `gpus` GPUs of request type
  // `requested_type` ("" untyped) on `nodes` (Slurm node indices) is charged
  // per second.
  double RunningJobRate(std::string_view requested_type, double gpus, const std::vector<int32_t>& nodes) const;
  // Weighted GPUs a pending job of `gpus` GPUs demands per second.
  double PendingJobRate(std::string_view requested_type, double gpus) const;

  const GpuTypeWeights& weights() const { return *weights_; }

 private:
  const GpuTypeWeights* weights_;
  double capacity_gpus_ = 0;
  double weighted_capacity_ = 0;
  std::vector<double> weight_per_gpu_;  // by node index; only with weights
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_GPU_WORTH_H_
