// GPU worth: see gpu_worth.h.
#include "libbudget/policy/gpu_worth.h"

#include "libbudget/config/gpu_count.h"
#include "libbudget/policy/eligibility.h"

namespace budget {

NodeGpuWorth NodeWorth(std::string_view gres, double gpus, const GpuTypeWeights& weights) {
  NodeGpuWorth worth;
  worth.gpus = gpus > 0 ? gpus : 0;
  if (weights.empty() || worth.gpus == 0) {
    worth.weighted_gpus = worth.gpus;
    return worth;
  }
  // The Gres gives the mix of types (eligibility.h GresEntries).
  double listed = 0, listed_worth = 0;
  for (std::string_view entry : GresEntries(gres)) {
    const double count = GpuCountFromGresSpec(entry);
    if (count <= 0) continue;
    listed += count;
    listed_worth += count * weights.WeightOf(GpuTypeOfRequest(entry));
  }
  const double per_gpu = listed > 0 ? listed_worth / listed : 1.0;
  worth.weighted_gpus = worth.gpus * per_gpu;
  return worth;
}

void FleetWorth::AddNode(int32_t index, std::string_view gres, double gpus) {
  const NodeGpuWorth worth = NodeWorth(gres, gpus, *weights_);
  capacity_gpus_ += worth.gpus;
  weighted_capacity_ += worth.weighted_gpus;
  if (weights_->empty() || index < 0) return;
  if (size_t(index) >= weight_per_gpu_.size()) weight_per_gpu_.resize(size_t(index) + 1, 1.0);
  weight_per_gpu_[size_t(index)] = worth.WeightPerGpu();
}

double FleetWorth::MeanWeightPerGpu() const {
  return capacity_gpus_ > 0 ? weighted_capacity_ / capacity_gpus_ : 1.0;
}

double FleetWorth::NodeWeightPerGpu(int32_t index) const {
  if (index < 0 || size_t(index) >= weight_per_gpu_.size()) return 1.0;
  return weight_per_gpu_[size_t(index)];
}

double FleetWorth::RunningJobRate(std::string_view requested_type, double gpus,
                                  const std::vector<int32_t>& nodes) const {
  if (weights_->empty() || gpus <= 0) return gpus;
  if (!requested_type.empty() || nodes.empty()) return PendingJobRate(requested_type, gpus);
  double weight_sum = 0;
  for (int32_t index : nodes) weight_sum += NodeWeightPerGpu(index);
  // gpus / nodes on each node: sum of (gpus / n) x w(node).
  return gpus * weight_sum / static_cast<double>(nodes.size());
}

double FleetWorth::PendingJobRate(std::string_view requested_type, double gpus) const {
  if (weights_->empty() || gpus <= 0) return gpus;
  if (!requested_type.empty()) return gpus * weights_->WeightOf(requested_type);
  return gpus * MeanWeightPerGpu();
}

}  // namespace budget
