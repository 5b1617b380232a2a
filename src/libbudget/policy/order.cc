#include "libbudget/policy/order.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace budget {

namespace {

// Rounds a non-negative double to 40 significant bits (of 53), so that
// values equal up to a few ulps compare equal. Applied to each value alone,
// so the comparison stays a strict weak order, and monotone: a >= b implies
// Round(a) >= Round(b).
double RoundTo40Bits(double x) {
  if (!(x > 0) || std::isinf(x)) return x > 0 ? x : 0.0;
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  constexpr int kDropped = 52 - 39;  // 39 stored fraction bits + the implicit 1.
  bits = (bits + (uint64_t{1} << (kDropped - 1))) & ~((uint64_t{1} << kDropped) - 1);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// Number of bits needed to write v (0 for 0).
int BitWidth(uint32_t v) {
  int bits = 0;
  while (v != 0) {
    ++bits;
    v >>= 1;
  }
  return bits;
}

std::string FormatNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

Status CheckInputs(const AllocationTree& tree, const std::vector<double>& usage,
                   const std::vector<double>& demand, double capacity_gpus, Seconds window) {
  if (usage.size() != tree.size()) {
    return Status::InvalidArgument("fair-share order: " + std::to_string(usage.size()) +
                                   " usage values for " + std::to_string(tree.size()) +
                                   " tree nodes");
  }
  if (demand.size() != tree.size()) {
    return Status::InvalidArgument("fair-share order: " + std::to_string(demand.size()) +
                                   " demand values for " + std::to_string(tree.size()) +
                                   " tree nodes");
  }
  if (!(capacity_gpus > 0) || !std::isfinite(capacity_gpus)) {
    return Status::InvalidArgument("fair-share order: capacity must be > 0 GPUs, got " +
                                   FormatNumber(capacity_gpus));
  }
  if (window <= 0) {
    return Status::InvalidArgument("fair-share order: window must be > 0 s, got " +
                                   std::to_string(window));
  }
  for (size_t i = 0; i < usage.size(); ++i) {
    if (!(usage[i] >= 0) || !std::isfinite(usage[i])) {
      return Status::InvalidArgument(
          "fair-share order: usage of " + tree.DisplayPath(static_cast<NodeId>(i)) +
          " must be a finite number >= 0, got " + FormatNumber(usage[i]));
    }
    if (!std::isfinite(demand[i])) {
      return Status::InvalidArgument("fair-share order: demand of " +
                                     tree.DisplayPath(static_cast<NodeId>(i)) +
                                     " must be finite, got " + FormatNumber(demand[i]));
    }
  }
  return Status::Ok();
}

}  // namespace

Status FairShareOrder::Compute(const AllocationTree& tree,
                               const std::vector<double>& direct_usage,
                               const std::vector<double>& demand, double capacity_gpus,
                               Seconds window) {
  Status s = CheckInputs(tree, direct_usage, demand, capacity_gpus, window);
  if (!s.ok()) return s;
  const size_t n = tree.size();
  standings_.assign(n, Standing());
  sibling_ratio_.assign(n, 0.0);
  sibling_position_.assign(n, 0);
  subtree_demand_.assign(n, 0);
  sort_key_.assign(n, 0.0);
  ranked_nodes_.clear();
  if (n == 0) return Status::Ok();

  // Subtree sums in one reverse scan: ids are pre-order, parent < child.
  for (size_t i = 0; i < n; ++i) {
    standings_[i].window_usage = direct_usage[i];
    subtree_demand_[i] = demand[i] > 0;
  }
  for (size_t i = n; i-- > 1;) {
    const NodeId p = tree.node(static_cast<NodeId>(i)).parent;
    standings_[p].window_usage += standings_[i].window_usage;
    subtree_demand_[p] |= subtree_demand_[i];
  }
  const double window_gpu_seconds = capacity_gpus * static_cast<double>(window);
  for (size_t i = 0; i < n; ++i) {
    Standing& st = standings_[i];
    st.entitlement = tree.node(static_cast<NodeId>(i)).entitlement;
    st.rank = kNoRank;
    st.usage_ratio = st.window_usage /
                     (std::max(st.entitlement, kMinEntitlementForRatio) * window_gpu_seconds);
  }

  // Every node's children, ranked, in one flat array (pre-order offsets).
  ranked_children_.resize(n - 1);
  children_begin_.resize(n + 1);
  int32_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    children_begin_[i] = offset;
    const std::vector<NodeId>& children = tree.node(static_cast<NodeId>(i)).children;
    std::copy(children.begin(), children.end(), ranked_children_.begin() + offset);
    offset += static_cast<int32_t>(children.size());
  }
  children_begin_[n] = offset;
  for (size_t i = 0; i < n; ++i) RankChildren(tree, static_cast<NodeId>(i));

  ranked_nodes_.reserve(n);
  AssignRanks(tree, 0);
  rank_bits_ = RankBitsFor(ranked_count());
  return Status::Ok();
}

int FairShareOrder::RankBitsFor(uint32_t ranked_count) {
  return std::max(kMinRankBits, BitWidth(ranked_count));
}

void FairShareOrder::RankChildren(const AllocationTree& tree, NodeId parent) {
  NodeId* begin = ranked_children_.data() + children_begin_[parent];
  NodeId* end = ranked_children_.data() + children_begin_[parent + 1];
  if (begin == end) return;
  double siblings_usage = 0;
  for (NodeId* c = begin; c != end; ++c) siblings_usage += standings_[*c].window_usage;
  for (NodeId* c = begin; c != end; ++c) {
    const double share = tree.node(*c).normalized_share;
    const double fraction =
        siblings_usage > 0 ? standings_[*c].window_usage / siblings_usage : 0.0;
    double ratio;
    if (share > 0) {
      ratio = fraction / share;
      sort_key_[*c] = RoundTo40Bits(std::isnan(ratio) ? HUGE_VAL : ratio);
    } else {
      ratio = fraction > 0 ? HUGE_VAL : 0.0;
      sort_key_[*c] = RoundTo40Bits(fraction);
    }
    sibling_ratio_[*c] = ratio;
  }
  std::sort(begin, end, [&](NodeId a, NodeId b) {
    if (subtree_demand_[a] != subtree_demand_[b]) return subtree_demand_[a] > subtree_demand_[b];
    const TreeNode& na = tree.node(a);
    const TreeNode& nb = tree.node(b);
    const bool a_zero = na.normalized_share == 0;
    const bool b_zero = nb.normalized_share == 0;
    if (a_zero != b_zero) return b_zero;
    if (sort_key_[a] != sort_key_[b]) return sort_key_[a] < sort_key_[b];
    if (na.normalized_share != nb.normalized_share) {
      return na.normalized_share > nb.normalized_share;
    }
    return na.name < nb.name;
  });
  uint32_t position = 0;
  for (NodeId* c = begin; c != end; ++c) sibling_position_[*c] = position++;
}

// Post-order over ranked children: a node's own jobs after its descendants'.
// Recursion depth is bounded by AllocationTree::kMaxDepth.
void FairShareOrder::AssignRanks(const AllocationTree& tree, NodeId id) {
  for (int32_t i = children_begin_[id]; i < children_begin_[id + 1]; ++i) {
    AssignRanks(tree, ranked_children_[i]);
  }
  if (tree.HoldsJobs(id)) {
    standings_[id].rank = ranked_count();
    ranked_nodes_.push_back(id);
  }
}

bool JobBefore(const std::vector<Standing>& standings, const PendingJob& a, const PendingJob& b) {
  constexpr uint32_t kNoRank = FairShareOrder::kNoRank;
  auto rank_of = [&standings](NodeId id) {
    return id >= 0 && static_cast<size_t>(id) < standings.size() ? standings[id].rank : kNoRank;
  };
  if (a.allocated != b.allocated) return a.allocated;
  const uint32_t rank_a = rank_of(a.node);
  const uint32_t rank_b = rank_of(b.node);
  if (rank_a != rank_b) return rank_a < rank_b;
  // Equal ranks mean the same node, or two nodes without a rank, where
  // user priority must not order jobs across nodes: it is ignored there.
  if (rank_a != kNoRank && a.user_priority != b.user_priority) {
    return a.user_priority > b.user_priority;
  }
  if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
  return a.job_id < b.job_id;
}

bool FairShareOrder::JobBefore(const PendingJob& a, const PendingJob& b) const {
  return budget::JobBefore(standings_, a, b);
}

// A comparison sort of 100,000 jobs costs ~2M rank lookups; instead the
// jobs are distributed into one bucket per (allocated, rank) in O(n), the
// buckets being in job order already, and only each bucket (a few jobs of
// one node) is sorted by the remaining keys.
void FairShareOrder::SortJobs(std::vector<PendingJob>* jobs) const {
  const size_t per_class = static_cast<size_t>(ranked_count()) + 1;  // + "no rank"
  auto bucket_of = [&](const PendingJob& job) {
    const uint32_t rank = RankOf(job.node);
    const size_t slot = rank == kNoRank ? per_class - 1 : rank;
    return job.allocated ? slot : per_class + slot;
  };
  std::vector<size_t> begin(2 * per_class + 1, 0);
  for (const PendingJob& job : *jobs) ++begin[bucket_of(job) + 1];
  for (size_t b = 1; b < begin.size(); ++b) begin[b] += begin[b - 1];
  std::vector<size_t> next(begin.begin(), begin.end() - 1);
  std::vector<PendingJob> sorted(jobs->size());
  for (const PendingJob& job : *jobs) sorted[next[bucket_of(job)]++] = job;
  auto before = [this](const PendingJob& a, const PendingJob& b) { return JobBefore(a, b); };
  for (size_t b = 0; b + 1 < begin.size(); ++b) {
    if (begin[b + 1] - begin[b] > 1) {
      std::sort(sorted.begin() + begin[b], sorted.begin() + begin[b + 1], before);
    }
  }
  jobs->swap(sorted);
}

uint32_t FairShareOrder::Priority(const PendingJob& job, PriorityFactors* factors) const {
  const uint32_t rank = RankOf(job.node);
  const int user_bits = 31 - rank_bits_;
  const uint32_t rank_field =
      rank == kNoRank ? 0 : ((uint32_t{1} << rank_bits_) - 1) - rank;
  const uint32_t max_user = (uint32_t{1} << user_bits) - 2;
  const uint32_t user_field =
      rank == kNoRank ? 1 : std::min(job.user_priority, max_user) + 1;
  if (factors != nullptr) {
    factors->rank = rank;
    factors->fairshare =
        rank == kNoRank ? 0.0 : 1.0 - static_cast<double>(rank) / ranked_count();
    factors->user_priority = job.user_priority;
    factors->allocated = job.allocated;
  }
  uint32_t priority = (job.allocated ? uint32_t{1} << 31 : 0) | (rank_field << user_bits) | user_field;
  return std::min(priority, kGrantedPriority - 1);
}

bool DecodePriority(uint32_t priority, uint32_t ranked_count, PriorityFactors* out) {
  if (priority == 0 || priority == kGrantedPriority) return false;
  const int rank_bits = FairShareOrder::RankBitsFor(ranked_count);
  const int user_bits = 31 - rank_bits;
  const uint32_t rank_field = (priority >> user_bits) & ((uint32_t{1} << rank_bits) - 1);
  const uint32_t user_field = priority & ((uint32_t{1} << user_bits) - 1);
  out->allocated = (priority >> 31) != 0;
  if (rank_field == 0) {
    out->rank = FairShareOrder::kNoRank;
    out->fairshare = 0.0;
    out->user_priority = 0;
    return user_field == 1;
  }
  const uint32_t rank = ((uint32_t{1} << rank_bits) - 1) - rank_field;
  if (rank >= ranked_count || user_field == 0) return false;
  out->rank = rank;
  out->fairshare = 1.0 - static_cast<double>(rank) / ranked_count;
  out->user_priority = user_field - 1;
  return true;
}

}  // namespace budget
