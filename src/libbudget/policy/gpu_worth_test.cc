// Tests of GPU worth (gpu_worth.h): weighted charging of typed and untyped
// jobs on typed nodes, demand, and capacity. Weights throughout:
// GpuTypeWeights=h100:1.0,b200:2.0,b300:2.5 (a100 unlisted: 1.0).
#include "libbudget/testing/test_support.h"

#include <cmath>
#include <string>
#include <vector>

#include "libbudget/policy/gpu_worth.h"

using budget::FleetWorth;
using budget::GpuTypeWeights;

namespace {

GpuTypeWeights Weights() {
  GpuTypeWeights w;
  assert_true(GpuTypeWeights::Parse("h100:1.0,b200:2.0,b300:2.5", &w).ok());
  return w;
}

void assert_close(double actual, double expected, const char* what) {
  if (std::fabs(actual - expected) > 1e-9) fail_msg("%s: %g, expected %g", what, actual, expected);
}

struct NodeCase {
  const char* gres;
  double gpus;
  double weighted;  // by hand
  double per_gpu;
};

void test_a_nodes_worth(void**) {
  const GpuTypeWeights w = Weights();
  const NodeCase cases[] = {
      {"gpu:b200:8", 8, 16, 2.0},                      // 8 x 2
      {"gpu:h100:8(S:0-1)", 8, 8, 1.0},                // 8 x 1; the binding is no count
      {"gpu:b300:8(S:0,1)", 8, 20, 2.5},               // 8 x 2.5; a comma inside the binding
      {"gpu:b200:4,gpu:h100:4", 8, 12, 1.5},           // 4 x 2 + 4 x 1; 12 / 8
      {"gpu:b200:4(S:0),gpu:b300:4(S:1)", 8, 18, 2.25},  // 4 x 2 + 4 x 2.5
      {"gpu:a100:8", 8, 8, 1.0},                       // unlisted type: 1.0
      {"gpu:8", 8, 8, 1.0},                            // untyped GPUs: 1.0
      {"gpu:b200:8,nic:2", 8, 16, 2.0},                // other GRES do not count
      {"", 0, 0, 1.0},                                 // no GPUs
      // The caller's count wins (the TRES said 4 of the 8 configured):
      // 4 GPUs at the Gres's 2.0 each.
      {"gpu:b200:8", 4, 8, 2.0},
  };
  for (const NodeCase& c : cases) {
    budget::NodeGpuWorth worth = budget::NodeWorth(c.gres, c.gpus, w);
    assert_close(worth.gpus, c.gpus, c.gres);
    assert_close(worth.weighted_gpus, c.weighted, c.gres);
    assert_close(worth.WeightPerGpu(), c.per_gpu, c.gres);
  }
}

// The fleet of scripts/cluster.sh's GPU_TYPES="b200 b200 h100 h100", plus
// a node of both kinds: index 0-1 b200 x 8, 2-3 h100 x 8, 4 b200 x 4 + h100 x 4.
FleetWorth MixedFleet(const GpuTypeWeights* w) {
  FleetWorth fleet(w);
  fleet.AddNode(0, "gpu:b200:8", 8);
  fleet.AddNode(1, "gpu:b200:8", 8);
  fleet.AddNode(2, "gpu:h100:8", 8);
  fleet.AddNode(3, "gpu:h100:8", 8);
  fleet.AddNode(4, "gpu:b200:4,gpu:h100:4", 8);
  return fleet;
}

void test_capacity_is_in_weighted_gpus(void**) {
  const GpuTypeWeights w = Weights();
  FleetWorth fleet = MixedFleet(&w);
  // 2 x 16 + 2 x 8 + 12 = 60 weighted GPUs of 40 GPUs; mean 60 / 40 = 1.5.
  assert_close(fleet.capacity_gpus(), 40, "GPUs");
  assert_close(fleet.weighted_capacity(), 60, "weighted capacity");
  assert_close(fleet.MeanWeightPerGpu(), 1.5, "mean weight");
}

struct RunningCase {
  const char* what;
  const char* requested_type;
  double gpus;
  std::vector<int32_t> nodes;
  double rate;  // weighted GPUs per second, by hand
};

void test_running_jobs_are_charged_by_the_gpus_they_hold(void**) {
  const GpuTypeWeights w = Weights();
  FleetWorth fleet = MixedFleet(&w);
  const RunningCase cases[] = {
      {"untyped, 4 GPUs on a b200 node: 4 x 2", "", 4, {0}, 8},
      {"untyped, 4 GPUs on an h100 node: 4 x 1", "", 4, {2}, 4},
      {"typed b200, 8 GPUs on a b200 node: 8 x 2", "b200", 8, {1}, 16},
      {"untyped, 16 GPUs on a b200 and an h100 node: 8 x 2 + 8 x 1", "", 16, {0, 3}, 24},
      {"untyped, 8 GPUs on the mixed node: 8 x (12 / 8)", "", 8, {4}, 12},
      {"typed h100, 4 GPUs on the mixed node: its type's 4 x 1", "h100", 4, {4}, 4},
      {"typed b200, 4 GPUs on the mixed node: its type's 4 x 2", "b200", 4, {4}, 8},
      {"typed B200 (Slurm's case-insensitive types): 4 x 2", "B200", 4, {4}, 8},
      {"typed a100 (unlisted): 2 x 1", "a100", 2, {0}, 2},
      {"untyped, nodes unknown: as pending, 2 x the mean 1.5", "", 2, {}, 3},
      {"untyped, on a node not in the fleet: 1.0 per GPU", "", 2, {9}, 2},
      {"no GPUs", "", 0, {0}, 0},
  };
  for (const RunningCase& c : cases) assert_close(fleet.RunningJobRate(c.requested_type, c.gpus, c.nodes), c.rate, c.what);
}

void test_pending_jobs_demand_by_type_or_the_fleets_mean(void**) {
  const GpuTypeWeights w = Weights();
  FleetWorth fleet = MixedFleet(&w);
  // b200: 8 x 2; h100: 8 x 1; untyped: 8 x the mean 1.5; b300 (no node has
  // one): 8 x 2.5, its weight still.
  assert_close(fleet.PendingJobRate("b200", 8), 16, "b200");
  assert_close(fleet.PendingJobRate("h100", 8), 8, "h100");
  assert_close(fleet.PendingJobRate("", 8), 12, "untyped");
  assert_close(fleet.PendingJobRate("b300", 8), 20, "b300");
}

// Without weights, everything is the GPU count: the suite before weights.
void test_without_weights_every_gpu_is_worth_one(void**) {
  const GpuTypeWeights none;
  FleetWorth fleet = MixedFleet(&none);
  assert_close(fleet.capacity_gpus(), 40, "GPUs");
  assert_close(fleet.weighted_capacity(), 40, "weighted capacity");
  assert_close(fleet.RunningJobRate("", 4, {0}), 4, "untyped on b200");
  assert_close(fleet.RunningJobRate("b200", 8, {1}), 8, "typed b200");
  assert_close(fleet.PendingJobRate("", 8), 8, "pending");
  assert_close(fleet.PendingJobRate("b200", 8), 8, "pending b200");
}

// A fleet with no GPU at all still has a mean weight (1.0), never 0/0.
void test_an_empty_fleet(void**) {
  const GpuTypeWeights w = Weights();
  FleetWorth fleet(&w);
  assert_close(fleet.MeanWeightPerGpu(), 1.0, "mean");
  assert_close(fleet.PendingJobRate("", 2), 2, "untyped");
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_nodes_worth),
      cmocka_unit_test(test_capacity_is_in_weighted_gpus),
      cmocka_unit_test(test_running_jobs_are_charged_by_the_gpus_they_hold),
      cmocka_unit_test(test_pending_jobs_demand_by_type_or_the_fleets_mean),
      cmocka_unit_test(test_without_weights_every_gpu_is_worth_one),
      cmocka_unit_test(test_an_empty_fleet),
  };
  return cmocka_run_group_tests_name("gpu_worth", tests, nullptr, nullptr);
}
