// The C API over contract, preemption, drain and packing: conversions from
// plain C structs, and a catch-all at every entry so that no exception
// reaches the C caller (a plugin inside slurmctld).
#include "libbudget/placement_c.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "libbudget/contract.h"
#include "libbudget/drain.h"
#include "libbudget/packing.h"
#include "libbudget/preempt.h"

using budget::Status;

struct budget_preemption_plan_t {
  budget::JobShape pending;
  budget::PreemptionPlan plan;
};

struct budget_drain_plan_t {
  budget::DrainPlan plan;
};

namespace {

void SaveError(char** errptr, const std::string& message) {
  if (errptr == nullptr) return;
  std::free(*errptr);
  *errptr = strdup(message.c_str());
}

// Runs `body`; any exception becomes an error message instead of crossing
// into C. Returns false if it threw.
template <typename Body>
bool Guarded(const char* where, char** errptr, Body body) {
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    SaveError(errptr, std::string(where) + ": internal error: " + e.what());
  } catch (...) {
    SaveError(errptr, std::string(where) + ": internal error");
  }
  return false;
}

budget::Standing ToStanding(const budget_standing_t& s) {
  return budget::Standing{s.rank, s.usage_ratio, s.entitlement, s.window_usage};
}

std::vector<budget::Standing> ToStandings(const budget_standing_t* standings, size_t n) {
  std::vector<budget::Standing> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(ToStanding(standings[i]));
  return out;
}

budget::JobShape ToShape(const budget_job_shape_t& s) {
  budget::JobShape out;
  out.job_id = s.job_id;
  out.allocation = s.allocation;
  out.min_runtime = s.min_runtime;
  out.node_count = s.node_count;
  out.gpus_per_node = s.gpus_per_node;
  return out;
}

Status ToRunningJob(const budget_running_job_t& j, budget::RunningJob* out) {
  if (j.node_count > 0 && j.nodes == nullptr) {
    return Status::InvalidArgument("running job " + std::to_string(j.job_id) + ": " +
                                   std::to_string(j.node_count) + " nodes but nodes is NULL");
  }
  out->job_id = j.job_id;
  out->allocation = j.allocation;
  out->start = j.start;
  out->min_runtime = j.min_runtime;
  out->resumable = j.resumable != 0;
  out->user_priority = j.user_priority;
  out->nodes.clear();
  for (size_t i = 0; i < j.node_count; ++i) out->nodes.push_back({j.nodes[i].node, j.nodes[i].gpus});
  return Status::Ok();
}

Status ToRunningJobs(const budget_running_job_t* jobs, size_t n,
                     std::vector<budget::RunningJob>* out) {
  if (n > 0 && jobs == nullptr) return Status::InvalidArgument("running jobs: NULL array");
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    Status st = ToRunningJob(jobs[i], &(*out)[i]);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

std::vector<budget::NodeState> ToNodes(const budget_node_t* nodes, size_t n) {
  std::vector<budget::NodeState> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i].index = nodes[i].index;
    out[i].total_gpus = nodes[i].total_gpus;
    out[i].free_gpus = nodes[i].free_gpus;
    out[i].group = nodes[i].group;
    out[i].usable = nodes[i].usable != 0;
  }
  return out;
}

budget_action_t ToCAction(budget::PreemptAction a) {
  return a == budget::PreemptAction::kRequeue ? BUDGET_REQUEUE : BUDGET_CANCEL;
}

budget::PreemptVerdict FromCVerdict(budget_verdict_t v) {
  return static_cast<budget::PreemptVerdict>(static_cast<int>(v));
}

// The C and C++ verdicts must stay numerically aligned.
static_assert(int(budget::PreemptVerdict::kAllowedUnallocated) == BUDGET_ALLOWED_UNALLOCATED &&
                  int(budget::PreemptVerdict::kAllowedOverServed) == BUDGET_ALLOWED_OVER_SERVED &&
                  int(budget::PreemptVerdict::kRefusedProtected) == BUDGET_REFUSED_PROTECTED &&
                  int(budget::PreemptVerdict::kRefusedPreemptorUnallocated) ==
                      BUDGET_REFUSED_PREEMPTOR_UNALLOCATED &&
                  int(budget::PreemptVerdict::kRefusedSameAllocation) ==
                      BUDGET_REFUSED_SAME_ALLOCATION &&
                  int(budget::PreemptVerdict::kRefusedRanksBehind) == BUDGET_REFUSED_RANKS_BEHIND &&
                  int(budget::PreemptVerdict::kRefusedPingPong) == BUDGET_REFUSED_PING_PONG,
              "C and C++ verdicts differ");

}  // namespace

extern "C" {

int64_t budget_protection_end(int64_t start, int64_t min_runtime) {
  return budget::ProtectionEnd(start, min_runtime);
}

unsigned char budget_is_protected(int64_t start, int64_t min_runtime, int64_t now) {
  return budget::IsProtected(start, min_runtime, now) ? 1 : 0;
}

budget_action_t budget_action_when_preempted(unsigned char resumable) {
  return ToCAction(budget::ActionWhenPreempted(resumable != 0));
}

const char* budget_action_name(budget_action_t action) {
  return action == BUDGET_REQUEUE ? "requeue" : "cancel";
}

const char* budget_verdict_name(budget_verdict_t verdict) {
  int v = static_cast<int>(verdict);
  if (v < BUDGET_ALLOWED_UNALLOCATED || v > BUDGET_REFUSED_PING_PONG) return "unknown";
  return budget::PreemptVerdictName(FromCVerdict(verdict));
}

unsigned char budget_may_preempt(const budget_job_shape_t* preemptor,
                                 const budget_standing_t* preemptor_standing,
                                 const budget_running_job_t* preemptee,
                                 const budget_standing_t* preemptee_standing,
                                 const budget_cluster_scale_t* scale, int64_t now,
                                 budget_verdict_t* verdict, char** errptr) {
  unsigned char allowed = 0;
  Guarded("budget_may_preempt", errptr, [&] {
    if (!preemptor || !preemptor_standing || !preemptee || !preemptee_standing || !scale) {
      SaveError(errptr, "budget_may_preempt: NULL argument");
      return;
    }
    budget::RunningJob victim;
    Status st = ToRunningJob(*preemptee, &victim);
    if (!st.ok()) {
      SaveError(errptr, "budget_may_preempt: " + st.message());
      return;
    }
    budget::PreemptVerdict v = budget::JudgePreemption(
        ToShape(*preemptor), ToStanding(*preemptor_standing), victim,
        ToStanding(*preemptee_standing), budget::ClusterScale{scale->capacity_gpus, scale->window},
        now);
    if (verdict != nullptr) *verdict = static_cast<budget_verdict_t>(static_cast<int>(v));
    allowed = budget::IsAllowed(v) ? 1 : 0;
  });
  return allowed;
}

void budget_victim_order(const budget_running_job_t* jobs, size_t n,
                         const budget_standing_t* standings, size_t nstandings, size_t* order,
                         char** errptr) {
  Guarded("budget_victim_order", errptr, [&] {
    if (n > 0 && order == nullptr) {
      SaveError(errptr, "budget_victim_order: NULL order array");
      return;
    }
    if (nstandings > 0 && standings == nullptr) {
      SaveError(errptr, "budget_victim_order: NULL standings array");
      return;
    }
    std::vector<budget::RunningJob> running;
    Status st = ToRunningJobs(jobs, n, &running);
    if (!st.ok()) {
      SaveError(errptr, "budget_victim_order: " + st.message());
      return;
    }
    std::vector<budget::Standing> s = ToStandings(standings, nstandings);
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    budget::VictimOrder before(s);
    std::sort(idx.begin(), idx.end(),
              [&](size_t a, size_t b) { return before(running[a], running[b]); });
    std::copy(idx.begin(), idx.end(), order);
  });
}

budget_preemption_plan_t* budget_choose_preemption(
    const budget_job_shape_t* pending, const budget_running_job_t* running, size_t nrunning,
    const budget_node_t* nodes, size_t nnodes, const budget_standing_t* standings,
    size_t nstandings, const budget_cluster_scale_t* scale, int64_t now, char** errptr) {
  budget_preemption_plan_t* result = nullptr;
  Guarded("budget_choose_preemption", errptr, [&] {
    if (!pending || !scale || (nnodes > 0 && !nodes) || (nstandings > 0 && !standings)) {
      SaveError(errptr, "budget_choose_preemption: NULL argument");
      return;
    }
    std::vector<budget::RunningJob> jobs;
    Status st = ToRunningJobs(running, nrunning, &jobs);
    auto handle = std::make_unique<budget_preemption_plan_t>();
    handle->pending = ToShape(*pending);
    if (st.ok()) {
      st = budget::ChoosePreemption(handle->pending, jobs, ToNodes(nodes, nnodes),
                                    ToStandings(standings, nstandings),
                                    budget::ClusterScale{scale->capacity_gpus, scale->window},
                                    now, &handle->plan);
    }
    if (!st.ok()) {
      SaveError(errptr, "budget_choose_preemption: " + st.message());
      return;
    }
    result = handle.release();
  });
  return result;
}

void budget_preemption_plan_destroy(budget_preemption_plan_t* plan) { delete plan; }

unsigned char budget_preemption_plan_feasible(const budget_preemption_plan_t* plan) {
  return plan != nullptr && plan->plan.feasible ? 1 : 0;
}

size_t budget_preemption_plan_victim_count(const budget_preemption_plan_t* plan) {
  return plan == nullptr ? 0 : plan->plan.victims.size();
}

budget_victim_t budget_preemption_plan_victim(const budget_preemption_plan_t* plan, size_t i) {
  budget_victim_t out;
  std::memset(&out, 0, sizeof out);
  if (plan == nullptr || i >= plan->plan.victims.size()) return out;
  const budget::Victim& v = plan->plan.victims[i];
  out.job_id = v.job_id;
  out.action = ToCAction(v.action);
  out.rule = static_cast<budget_verdict_t>(static_cast<int>(v.rule));
  out.allocation = v.allocation;
  out.preemptee_ratio = v.preemptee_ratio;
  out.preemptor_projected_ratio = v.preemptor_projected_ratio;
  out.gpus = v.gpus;
  return out;
}

size_t budget_preemption_plan_target_count(const budget_preemption_plan_t* plan) {
  return plan == nullptr ? 0 : plan->plan.target_nodes.size();
}

int32_t budget_preemption_plan_target(const budget_preemption_plan_t* plan, size_t i) {
  if (plan == nullptr || i >= plan->plan.target_nodes.size()) return -1;
  return plan->plan.target_nodes[i];
}

char* budget_preemption_plan_describe(const budget_preemption_plan_t* plan) {
  char* line = nullptr;
  if (plan == nullptr) return strdup("no plan");
  bool ok = Guarded("budget_preemption_plan_describe", nullptr, [&] {
    line = strdup(budget::DescribePlan(plan->pending, plan->plan).c_str());
  });
  return ok ? line : strdup("budget_preemption_plan_describe: internal error");
}

budget_drain_plan_t* budget_plan_drain(const int32_t* draining_nodes, size_t ndraining,
                                       const budget_running_job_t* running, size_t nrunning,
                                       int64_t now, char** errptr) {
  budget_drain_plan_t* result = nullptr;
  Guarded("budget_plan_drain", errptr, [&] {
    if (ndraining > 0 && draining_nodes == nullptr) {
      SaveError(errptr, "budget_plan_drain: NULL draining_nodes array");
      return;
    }
    std::vector<budget::RunningJob> jobs;
    Status st = ToRunningJobs(running, nrunning, &jobs);
    auto handle = std::make_unique<budget_drain_plan_t>();
    if (st.ok()) {
      std::vector<int32_t> draining(draining_nodes, draining_nodes + ndraining);
      st = budget::PlanDrain(draining, jobs, now, &handle->plan);
    }
    if (!st.ok()) {
      SaveError(errptr, "budget_plan_drain: " + st.message());
      return;
    }
    result = handle.release();
  });
  return result;
}

void budget_drain_plan_destroy(budget_drain_plan_t* plan) { delete plan; }

size_t budget_drain_plan_departure_count(const budget_drain_plan_t* plan) {
  return plan == nullptr ? 0 : plan->plan.departures.size();
}

budget_departure_t budget_drain_plan_departure(const budget_drain_plan_t* plan, size_t i) {
  budget_departure_t out;
  std::memset(&out, 0, sizeof out);
  if (plan == nullptr || i >= plan->plan.departures.size()) return out;
  const budget::DrainDeparture& d = plan->plan.departures[i];
  out.job_id = d.job_id;
  out.leave_now = d.leave_now ? 1 : 0;
  out.leave_at = d.leave_at;
  out.action = ToCAction(d.action);
  return out;
}

size_t budget_drain_plan_node_count(const budget_drain_plan_t* plan) {
  return plan == nullptr ? 0 : plan->plan.nodes.size();
}

budget_drained_node_t budget_drain_plan_node(const budget_drain_plan_t* plan, size_t i) {
  budget_drained_node_t out;
  std::memset(&out, 0, sizeof out);
  if (plan == nullptr || i >= plan->plan.nodes.size()) return out;
  out.node_index = plan->plan.nodes[i].node_index;
  out.empty_at = plan->plan.nodes[i].empty_at;
  return out;
}

unsigned char budget_choose_nodes(const budget_node_t* nodes, size_t nnodes, uint32_t node_count,
                                  uint32_t gpus_per_node, int32_t* chosen, char** errptr) {
  unsigned char feasible = 0;
  Guarded("budget_choose_nodes", errptr, [&] {
    if ((nnodes > 0 && nodes == nullptr) || (node_count > 0 && chosen == nullptr)) {
      SaveError(errptr, "budget_choose_nodes: NULL argument");
      return;
    }
    budget::NodeChoice choice;
    Status st = budget::ChooseNodes(ToNodes(nodes, nnodes),
                                    budget::GpuRequest{node_count, gpus_per_node}, &choice);
    if (!st.ok()) {
      SaveError(errptr, "budget_choose_nodes: " + st.message());
      return;
    }
    if (!choice.feasible) return;
    std::copy(choice.nodes.begin(), choice.nodes.end(), chosen);
    feasible = 1;
  });
  return feasible;
}

double budget_fragmentation(const budget_node_t* nodes, size_t nnodes) {
  if (nodes == nullptr) return 0.0;
  double result = 0.0;
  Guarded("budget_fragmentation", nullptr,
          [&] { result = budget::Fragmentation(ToNodes(nodes, nnodes)); });
  return result;
}

}  // extern "C"
