// QuickReserve: see quick_reserve.h.
#include "libbudget/policy/quick_reserve.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace budget {

bool QuickReserve::Holds(int32_t index) const {
  return std::find(nodes.begin(), nodes.end(), index) != nodes.end();
}

QuickReserve ChooseQuickReserve(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running,
                                const HeroPlan& hero, const QuickStartRule& rule, TimePoint now) {
  QuickReserve reserve;
  reserve.max_min_runtime = rule.max_min_runtime;
  const uint32_t reserve_nodes = rule.reserve_nodes;
  if (reserve_nodes == 0 || rule.max_gpus == 0) return reserve;
  // Per node: GPUs of long protections (they close it to the reserve)
  // and of quick-start runs still protected (they keep it in).
  struct Use {
    uint64_t long_protected = 0, quick = 0;
  };
  std::unordered_map<int32_t, Use> use;
  for (const RunningJob& job : running) {
    if (!job.IsProtectedAt(now)) continue;
    const bool quick = job.min_runtime <= rule.max_min_runtime;
    for (const NodeGpus& on : job.nodes) (quick ? use[on.node].quick : use[on.node].long_protected) += on.gpus;
  }
  std::vector<int32_t> spare;  // open nodes with no quick-start run, in Slurm's order
  for (const NodeState& n : nodes) {
    if (!n.usable || n.total_gpus == 0) continue;
    if (hero.active && std::find(hero.nodes.begin(), hero.nodes.end(), n.index) != hero.nodes.end()) continue;
    auto it = use.find(n.index);
    const Use u = it == use.end() ? Use{} : it->second;
    const uint64_t open = u.long_protected >= n.total_gpus ? 0 : n.total_gpus - u.long_protected;
    if (open < std::min(rule.max_gpus, n.total_gpus)) continue;
    if (u.quick > 0)
      reserve.nodes.push_back(n.index);
    else
      spare.push_back(n.index);
  }
  std::sort(spare.begin(), spare.end());
  size_t usable = 0;
  for (const NodeState& n : nodes) usable += n.usable && n.total_gpus > 0;
  const size_t spares = std::min<size_t>(reserve_nodes, usable / kMaxSpareShare);
  for (size_t i = 0; i < spare.size() && i < spares; ++i) reserve.nodes.push_back(spare[i]);
  std::sort(reserve.nodes.begin(), reserve.nodes.end());
  return reserve;
}

std::vector<NodeState> WithoutReserve(std::vector<NodeState> nodes, const QuickReserve& reserve) {
  if (reserve.nodes.empty()) return nodes;
  for (NodeState& n : nodes)
    if (reserve.Holds(n.index)) n.usable = false;
  return nodes;
}

bool MayUseReserve(const QuickReserve& reserve, const StartingJob& job) {
  if (reserve.nodes.empty() || job.min_runtime <= reserve.max_min_runtime) return true;
  return job.time_limit >= 0 && job.time_limit <= reserve.max_min_runtime;
}

uint8_t HoldsOn(const NodeHolds& holds, int32_t index) {
  uint8_t bits = 0;
  if (holds.hero.active &&
      std::find(holds.hero.nodes.begin(), holds.hero.nodes.end(), index) != holds.hero.nodes.end())
    bits |= kHeroHoldBit;
  if (holds.reserve.Holds(index)) bits |= kReserveHoldBit;
  return bits;
}

uint8_t HoldsBarring(const NodeHolds& holds, const StartingJob& job, TimePoint now) {
  uint8_t bits = 0;
  if (holds.hero.active && !MayUseHeldNodes(holds.hero, job, now)) bits |= kHeroHoldBit;
  if (!MayUseReserve(holds.reserve, job)) bits |= kReserveHoldBit;
  return bits;
}

void RemoveBarredNodes(const NodeHolds& holds, const StartingJob& job, TimePoint now, std::vector<NodeState>* view) {
  const uint8_t barred = HoldsBarring(holds, job, now);
  if (barred == 0) return;
  for (NodeState& n : *view)
    if (HoldsOn(holds, n.index) & barred) n.usable = false;
}

}  // namespace budget
