#include "select_topo/topo_steer.h"

#include <algorithm>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/order.h"
#include "libbudget/policy/packing.h"
#include "libbudget/policy/packing_state.h"
#include "libbudget/policy/quick_reserve.h"
#include "select_topo/topo_view.h"
#include "eligible_nodes.h"

namespace topo {

namespace {

// Everything select/topo remembers between calls. Guarded by g_mutex.
struct SteeringState {
  budget::Seconds hero_wait = 30 * 60;
  uint32_t hero_min_nodes = 8;
  budget::Seconds default_min_runtime = 0;
  std::string state_file;
  budget::HeroPlan plan;
  std::vector<int> held;          // Slurm node indices the plan holds
  std::vector<std::string> held_names;
  budget::TimePoint hero_waiting_since = 0;  // the hero's, published (packing_state.h)
  budget::QuickStartRule quick;   // budget.conf QuickStart*
  budget::QuickReserve reserve;   // its nodes as Slurm node indices
  std::vector<std::string> reserve_names;
  time_t plan_time = 0;           // the plan is refreshed at most once a second,
  std::vector<uint32_t> granted_seen;  // ... or when a job granted since is tested (sorted ids)
  bool published = false;
  budget::PackingState last;      // as last published
  std::string last_plan_error;
};

std::mutex g_mutex;
SteeringState g_state;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

bool SameNodes(const budget::PackingState& a, const budget::PackingState& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const budget::PublishedNode& x = a.nodes[i];
    const budget::PublishedNode& y = b.nodes[i];
    if (x.name != y.name || x.free_gpus != y.free_gpus || x.total_gpus != y.total_gpus || x.usable != y.usable) {
      return false;
    }
  }
  return true;
}

bool SameHolds(const budget::PackingState& a, const budget::PackingState& b) {
  return a.hero_active == b.hero_active && a.hero_job_id == b.hero_job_id &&
         a.hero_planned_start == b.hero_planned_start && a.hero_waiting_since == b.hero_waiting_since &&
         a.hero_promised_start == b.hero_promised_start &&
         a.hero_nodes == b.hero_nodes && a.reserve_nodes == b.reserve_nodes;
}

// REQUIRES: g_mutex held.
void PublishLocked(const NodeView& view, time_t now) {
  budget::PackingState state = budget::SummarizePacking(view.nodes, view.names, now);
  state.hero_active = g_state.plan.active;
  if (state.hero_active) {
    state.hero_job_id = g_state.plan.job_id;
    state.hero_planned_start = g_state.plan.planned_start;
    state.hero_waiting_since = g_state.hero_waiting_since;
    state.hero_promised_start = g_state.plan.promised_start;
    state.hero_nodes = g_state.held_names;
  }
  state.reserve_nodes = g_state.reserve_names;
  if (g_state.published && SameNodes(state, g_state.last) && SameHolds(state, g_state.last)) return;
  if (!g_state.published || state.free_gpus != g_state.last.free_gpus ||
      state.stranded_gpus != g_state.last.stranded_gpus) {
    info("select/topo: %s", budget::FragmentationLine(state).c_str());
  }
  g_state.last = state;
  g_state.published = true;
  if (g_state.state_file.empty()) return;
  budget::Status st = budget::SavePackingState(g_state.state_file, state);
  if (!st.ok()) error("select/topo: state file not written: %s", st.message().c_str());
}

// The nodes job `job_id` of `jobs` may run on, as view positions; null:
// every node. REQUIRES: the job, node and partition read locks
// (select_p_job_test's).
budget::EligibleNodes EligiblePositions(const NodeView& view, List jobs, uint32_t job_id, time_t now) {
  const job_record_t* job = FindJob(jobs, job_id);
  if (!job) return nullptr;
  slurm_compat::EligibleNodesReader reader(now, SlurmctldReservations());
  budget::EligibleNodes by_index = reader.Of(job);
  if (!by_index) return nullptr;
  budget::NodeSet positions;
  for (size_t p = 0; p < view.slurm_index.size(); ++p)
    if (by_index->Contains(view.slurm_index[p])) positions.Add(int32_t(p));
  return std::make_shared<const budget::NodeSet>(std::move(positions));
}

// Recomputes the quick-start reserve (libbudget/policy/quick_reserve.h)
// from the running jobs outside the hero hold in force, as
// preempt/timeslice's pass does from its snapshot; returns it as view
// positions. *changed is set when its nodes changed. REQUIRES: g_mutex held.
budget::QuickReserve RefreshReserve(const NodeView& view, const std::vector<budget::RunningJob>& running, time_t now,
                                    bool* changed) {
  budget::QuickReserve reserve = budget::ChooseQuickReserve(view.nodes, running, g_state.plan, g_state.quick, now);
  budget::QuickReserve by_index = reserve;
  std::vector<std::string> names;
  for (int32_t& position : by_index.nodes) {
    names.push_back(view.names[position]);
    position = view.slurm_index[position];
  }
  *changed = by_index.nodes != g_state.reserve.nodes;
  if (*changed) debug("select/topo: quick-start reserve: %s", names.empty() ? "none" : JoinNames(names).c_str());
  g_state.reserve = std::move(by_index);
  g_state.reserve_names = std::move(names);
  return reserve;
}

// Recomputes the hero (the first whole-node job that has waited HeroWait,
// libbudget/policy/hero_plan.h) and the nodes held for it, once a second
// unless `force`. REQUIRES: g_mutex held.
void RefreshHeroPlan(const NodeView& view, time_t now, bool force) {
  if (g_state.plan_time == now && !force) return;
  g_state.plan_time = now;
  List jobs = SlurmctldJobList();
  std::vector<budget::QueueEntry> queue = QueuedJobs(jobs, now);
  g_state.granted_seen.clear();
  for (const budget::QueueEntry& entry : queue)
    if (entry.priority == budget::kGrantedPriority) g_state.granted_seen.push_back(entry.job_id);
  std::sort(g_state.granted_seen.begin(), g_state.granted_seen.end());
  uint32_t node_gpus = 0;
  for (const budget::NodeState& n : view.nodes) node_gpus = std::max(node_gpus, n.total_gpus);
  budget::HeroRule rule{g_state.hero_wait, g_state.hero_min_nodes, node_gpus};
  budget::HeroCandidate candidate = budget::ChooseHero(queue, rule, now, g_state.plan.active ? g_state.plan.job_id : 0);

  budget::HeroPlan plan;
  std::vector<budget::RunningJob> running;
  if (candidate.job_id != 0 || g_state.quick.reserve_nodes > 0)
    running = RunningJobs(jobs, view, g_state.default_min_runtime);
  // The reserve first; the hero's nodes are chosen outside it.
  bool reserve_changed = false;
  const budget::QuickReserve reserve = RefreshReserve(view, running, now, &reserve_changed);
  if (candidate.job_id != 0) {
    // Only nodes the hero may run on are held (its type, partition,
    // features, reservation).
    candidate.eligible = EligiblePositions(view, jobs, candidate.job_id, now);
    budget::Status st = budget::PlanHero(budget::WithoutReserve(view.nodes, reserve), running, candidate,
                                         g_state.hero_wait, now, &plan);
    if (!st.ok() && st.message() != g_state.last_plan_error) {
      error("select/topo: no hero plan for JobId=%u: %s", candidate.job_id, st.message().c_str());
      g_state.last_plan_error = st.message();
    }
    if (!st.ok()) plan = budget::HeroPlan{};
  }
  budget::KeepPromise(g_state.plan, &plan);

  std::vector<int> held;
  std::vector<std::string> held_names;
  if (plan.active) {
    for (int32_t position : plan.nodes) {
      held.push_back(view.slurm_index[position]);
      held_names.push_back(view.names[position]);
    }
  }
  // The planned start moves as running jobs end; that is published, not
  // logged. A new hero, or other nodes held, is logged.
  bool changed = plan.active != g_state.plan.active || plan.job_id != g_state.plan.job_id ||
                 plan.planned_start != g_state.plan.planned_start ||
                 plan.promised_start != g_state.plan.promised_start || held != g_state.held || reserve_changed;
  std::vector<int> held_set = held, previous_set = g_state.held;
  std::sort(held_set.begin(), held_set.end());
  std::sort(previous_set.begin(), previous_set.end());
  bool news = plan.active != g_state.plan.active || plan.job_id != g_state.plan.job_id || held_set != previous_set;
  if (news && plan.active) {
    info("select/topo: JobId=%u has waited %ld s for whole nodes (HeroWait %ld s): nodes %s held for it, planned "
         "start in %ld s",
         plan.job_id, long(now - candidate.waiting_since), long(g_state.hero_wait), JoinNames(held_names).c_str(),
         long(plan.planned_start - now));
  } else if (news && g_state.plan.active) {
    info("select/topo: hold for JobId=%u released", g_state.plan.job_id);
  }
  g_state.plan = plan;
  g_state.hero_waiting_since = plan.active ? candidate.waiting_since : 0;
  g_state.held = held;
  g_state.held_names = held_names;
  if (changed) PublishLocked(view, now);
}

// The job's candidate nodes minus the nodes held for a hero it may not
// use and, for a long protection, the quick-start reserve. `min_nodes`:
// the job test's, for its GPU request (is it a quick start?). Caller frees.
// REQUIRES: g_mutex held.
bitstr_t* WithoutHeldNodes(const job_record_t* job_ptr, const bitstr_t* bitmap, uint32_t min_nodes, time_t now) {
  bitstr_t* result = bit_copy(const_cast<bitstr_t*>(bitmap));
  if (!g_state.plan.active && g_state.reserve.nodes.empty()) return result;
  budget::StartingJob job = StartingJobOf(job_ptr, g_state.default_min_runtime);
  budget::GpuRequest request;
  if (JobGpuRequest(job_ptr, min_nodes, &request))
    job.quick = g_state.quick.Applies(
        budget::JobShape{job.job_id, budget::kNoAllocation, job.min_runtime, request.node_count, request.gpus_per_node});
  if (g_state.plan.active && !budget::MayUseHeldNodes(g_state.plan, job, now)) {
    for (int index : g_state.held)
      if (index < bit_size(result)) bit_clear(result, index);
  }
  if (!budget::MayUseReserve(g_state.reserve, job)) {
    for (int index : g_state.reserve.nodes)
      if (index < bit_size(result)) bit_clear(result, index);
  }
  return result;
}

// The core's choices, tried one after the other with cons_tres (no
// preemption). True, with *bitmap set to the allocation, if one fits.
bool TryPackedChoices(JobTestFn job_test, job_record_t* job_ptr, bitstr_t* bitmap, const bitstr_t* allowed,
                      const NodeView& view, const budget::GpuRequest& request, uint32_t min_nodes,
                      uint32_t max_nodes, uint32_t req_nodes, uint16_t mode, int* calls,
                      SELECT_EXCLUSIONS_PARAMS) {
  std::vector<budget::NodeState> nodes = view.nodes;
  for (budget::NodeState& n : nodes) {
    n.usable = n.usable && bit_test(const_cast<bitstr_t*>(allowed), view.slurm_index[n.index]);
  }
  for (int attempt = 0; attempt < kMaxPackingTries; ++attempt) {
    budget::NodeChoice choice;
    budget::Status st = budget::ChooseNodes(nodes, request, &choice);
    if (!st.ok()) {
      error("select/topo: packing refused JobId=%u: %s", job_ptr->job_id, st.message().c_str());
      return false;
    }
    if (!choice.feasible) return false;
    bitstr_t* trial = bit_alloc(bit_size(bitmap));
    for (int32_t position : choice.nodes) bit_set(trial, view.slurm_index[position]);
    ++*calls;
    int rc = job_test(job_ptr, trial, min_nodes, max_nodes, req_nodes, mode, nullptr, nullptr, SELECT_EXCLUSIONS_ARGS);
    if (rc == SLURM_SUCCESS) {
      bit_copybits(bitmap, trial);
      FREE_NULL_BITMAP(trial);
      debug("select/topo: JobId=%u packed onto %s (try %d)", job_ptr->job_id, view.names[choice.nodes[0]].c_str(),
            attempt + 1);
      return true;
    }
    FREE_NULL_BITMAP(trial);
    for (int32_t position : choice.nodes) nodes[position].usable = false;
  }
  return false;
}

}  // namespace

void ConfigureSteering(const budget::BudgetConfig& config, const std::string& state_dir) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_state.hero_wait = config.hero_wait;
  g_state.hero_min_nodes = config.hero_min_nodes;
  g_state.default_min_runtime = config.default_min_runtime;
  g_state.quick = budget::QuickStartRule{config.quick_start_min_runtime, config.quick_start_gpus,
                                         config.quick_start_user_gpus, config.quick_start_reserve_nodes};
  g_state.state_file = state_dir.empty() ? "" : state_dir + "/" + budget::kPackingStateFile;
}

int SteerJobTest(JobTestFn job_test, job_record_t* job_ptr, bitstr_t* bitmap, uint32_t min_nodes,
                 uint32_t max_nodes, uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
                 List* preemptee_job_list, int* cons_tres_calls, SELECT_EXCLUSIONS_PARAMS) {
  uint16_t base_mode = mode & SELECT_MODE_BASE;
  *cons_tres_calls = 1;
  if (base_mode != SELECT_MODE_RUN_NOW && base_mode != SELECT_MODE_WILL_RUN) {
    return job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates, preemptee_job_list,
                    SELECT_EXCLUSIONS_ARGS);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  time_t now = time(nullptr);
  budget::GpuRequest request;
  bool steerable = base_mode == SELECT_MODE_RUN_NOW && job_ptr->details && !job_ptr->details->req_node_bitmap &&
                   JobGpuRequest(job_ptr, min_nodes, &request);
  // A job the time-slicing pass granted a preemption since the plan was
  // made: the grant can make the hero (hero_plan.h sets granted jobs aside
  // in AccountRanksFirst), whose hold may bar this job, so the plan is made
  // again before it is placed, whatever ran earlier in this second. Without
  // this, whether the hold or the granted job got the GPUs depended on
  // whether any job test came between the second's start and the pass.
  // budget-sim makes the plan at the start of each main pass, after the
  // time-slicing pass (src/sim/engine.cc MainPass): the same order.
  const bool newly_granted =
      job_ptr->priority == budget::kGrantedPriority &&
      !std::binary_search(g_state.granted_seen.begin(), g_state.granted_seen.end(), job_ptr->job_id);
  // Backfill's will-run tests (thousands a cycle) need only the held
  // nodes: the view is built for them only when the hero plan is due.
  NodeView view;
  if (steerable || newly_granted || g_state.plan_time != now) view = BuildNodeView();
  RefreshHeroPlan(view, now, newly_granted);
  if (newly_granted && !std::binary_search(g_state.granted_seen.begin(), g_state.granted_seen.end(), job_ptr->job_id))
    g_state.granted_seen.insert(
        std::upper_bound(g_state.granted_seen.begin(), g_state.granted_seen.end(), job_ptr->job_id), job_ptr->job_id);
  bitstr_t* allowed = WithoutHeldNodes(job_ptr, bitmap, min_nodes, now);

  *cons_tres_calls = 0;
  if (steerable && TryPackedChoices(job_test, job_ptr, bitmap, allowed, view, request, min_nodes, max_nodes,
                                    req_nodes, mode, cons_tres_calls, SELECT_EXCLUSIONS_ARGS)) {
    FREE_NULL_BITMAP(allowed);
    return SLURM_SUCCESS;
  }
  ++*cons_tres_calls;
  int rc = job_test(job_ptr, allowed, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates,
                    preemptee_job_list, SELECT_EXCLUSIONS_ARGS);
  bit_copybits(bitmap, allowed);
  FREE_NULL_BITMAP(allowed);
  return rc;
}

void PublishPackingState() {
  std::lock_guard<std::mutex> lock(g_mutex);
  PublishLocked(BuildNodeView(), time(nullptr));
}

}  // namespace topo
