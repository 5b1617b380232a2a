#include "select_topo/topo_view.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "libbudget/policy/job_contract.h"
#include "node_state.h"

namespace topo {

namespace {

constexpr char kGpu[] = "gpu";

bool IsGpu(const gres_state_t* gres) { return gres && gres->gres_name && std::strcmp(gres->gres_name, kGpu) == 0; }

// Available and allocated GPUs of a node; false if it has none.
bool NodeGpus(const node_record_t* node_ptr, uint32_t* total, uint32_t* free) {
  if (!node_ptr->gres_list) return false;
  uint64_t avail = 0, alloc = 0;
  bool found = false;
  ListIterator it = list_iterator_create(node_ptr->gres_list);
  while (gres_state_t* gres = static_cast<gres_state_t*>(list_next(it))) {
    if (!IsGpu(gres) || !gres->gres_data) continue;
    const gres_node_state_t* state = static_cast<const gres_node_state_t*>(gres->gres_data);
    avail += state->gres_cnt_avail;
    alloc += state->gres_cnt_alloc;
    found = true;
  }
  list_iterator_destroy(it);
  if (!found || avail == 0) return false;
  *total = static_cast<uint32_t>(std::min<uint64_t>(avail, UINT32_MAX));
  *free = static_cast<uint32_t>(avail > alloc ? std::min<uint64_t>(avail - alloc, *total) : 0);
  return true;
}

#if SLURM_BUDGET_SLURM_SERIES >= 2311
// The leaf switch (level 0) of topology.conf of every node (by Slurm's node
// index), kNoGroup where none. 23.11+ keeps the switch table inside
// topology/tree: its copy comes through topology_g_get, with each switch's
// nodes as a host list (slurm_compat/select_api.h). Switch numbers are the
// table's indices, as on 22.05. Other topology plugins: no groups.
std::vector<int32_t> LeafSwitchOfNodes() {
  std::vector<int32_t> leaf(std::max(node_record_count, 0), budget::kNoGroup);
  if (!slurm_compat::TopologyPtrCallsResolved() || !node_name2bitmap) return leaf;
  if (topology_get_plugin_id() != TOPOLOGY_PLUGIN_TREE) return leaf;
  dynamic_plugin_data_t* topo = slurm_compat::TopologyPtrGet();
  if (!topo) return leaf;
  const auto* tree = static_cast<const slurm_compat_topoinfo_tree_t*>(topo->data);
  for (uint32_t s = 0; tree && s < tree->record_count; ++s) {
    const topo_info_t& sw = tree->topo_array[s];
    if (sw.level != 0 || !sw.nodes || !*sw.nodes) continue;
    bitstr_t* nodes = nullptr;
    node_name2bitmap(sw.nodes, true, &nodes, nullptr);
    for (int i = 0; nodes && i < static_cast<int>(leaf.size()) && i < bit_size(nodes); ++i) {
      if (bit_test(nodes, i) && leaf[i] == budget::kNoGroup) leaf[i] = static_cast<int32_t>(s);
    }
    FREE_NULL_BITMAP(nodes);
  }
  slurm_compat::TopologyPtrFree(topo);
  return leaf;
}
#else
// The leaf switch (level 0) of topology.conf holding the node, or kNoGroup.
int32_t LeafSwitchOf(int slurm_index) {
  if (!switch_record_table || switch_record_cnt <= 0) return budget::kNoGroup;
  for (int s = 0; s < switch_record_cnt; ++s) {
    const switch_record_t& sw = switch_record_table[s];
    if (sw.level == 0 && sw.node_bitmap && slurm_index < bit_size(sw.node_bitmap) &&
        bit_test(sw.node_bitmap, slurm_index)) {
      return s;
    }
  }
  return budget::kNoGroup;
}
#endif

budget::Seconds LimitSeconds(uint32_t minutes) {
  if (minutes == NO_VAL || minutes == INFINITE) return -1;
  return static_cast<budget::Seconds>(minutes) * 60;
}

}  // namespace

NodeView BuildNodeView() {
  struct Entry {
    uint32_t weight;
    int slurm_index;
    budget::NodeState state;
    std::string name;
  };
  std::vector<Entry> entries;
  node_record_t* node_ptr;
#if SLURM_BUDGET_SLURM_SERIES >= 2311
  const std::vector<int32_t> leaf_switch = LeafSwitchOfNodes();
#endif
  for (int i = 0; (node_ptr = next_node(&i)); ++i) {
    // `scontrol update node Weight=` changes the node's config record, which
    // is what Slurm's own node ordering reads; node_ptr->weight keeps the
    // slurm.conf value.
    uint32_t weight = node_ptr->config_ptr ? node_ptr->config_ptr->weight : node_ptr->weight;
    Entry e{weight, i, budget::NodeState{}, node_ptr->name ? node_ptr->name : ""};
    if (!NodeGpus(node_ptr, &e.state.total_gpus, &e.state.free_gpus)) continue;
    e.state.usable = slurm_compat::NodeTakesJobs(node_ptr);
#if SLURM_BUDGET_SLURM_SERIES >= 2311
    e.state.group = i < static_cast<int>(leaf_switch.size()) ? leaf_switch[i] : budget::kNoGroup;
#else
    e.state.group = LeafSwitchOf(i);
#endif
    entries.push_back(std::move(e));
  }
  // Slurm's preference among equal nodes: lower Weight, then lower index.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.weight, a.slurm_index) < std::tie(b.weight, b.slurm_index);
  });
  NodeView view;
  view.position_of.assign(std::max(node_record_count, 0), -1);
  for (size_t p = 0; p < entries.size(); ++p) {
    entries[p].state.index = static_cast<int32_t>(p);
    view.nodes.push_back(entries[p].state);
    view.slurm_index.push_back(entries[p].slurm_index);
    view.names.push_back(entries[p].name);
    view.position_of[entries[p].slurm_index] = static_cast<int32_t>(p);
  }
  return view;
}

bool JobGpuRequest(const job_record_t* job_ptr, uint32_t node_count, budget::GpuRequest* request) {
  if (!job_ptr->gres_list_req || node_count == 0) return false;
  const gres_job_state_t* gpu = nullptr;
  int gpu_entries = 0;
  ListIterator it = list_iterator_create(job_ptr->gres_list_req);
  while (gres_state_t* gres = static_cast<gres_state_t*>(list_next(it))) {
    if (!IsGpu(gres) || !gres->gres_data) continue;
    gpu = static_cast<const gres_job_state_t*>(gres->gres_data);
    ++gpu_entries;
  }
  list_iterator_destroy(it);
  if (gpu_entries != 1) return false;
  uint64_t per_node = 0;
  if (gpu->gres_per_node) {
    per_node = gpu->gres_per_node;
  } else if (node_count == 1 && gpu->gres_per_job) {
    per_node = gpu->gres_per_job;
  } else if (node_count == 1 && gpu->gres_per_task && job_ptr->details) {
    per_node = gpu->gres_per_task * std::max<uint32_t>(job_ptr->details->num_tasks, 1);
  }
  if (per_node == 0 || per_node > UINT32_MAX || gpu->gres_per_socket) return false;
  request->node_count = node_count;
  request->gpus_per_node = static_cast<uint32_t>(per_node);
  return true;
}

budget::StartingJob StartingJobOf(const job_record_t* job_ptr, budget::Seconds default_min_runtime) {
  budget::StartingJob job;
  job.job_id = job_ptr->job_id;
  budget::JobContract contract;
  job.min_runtime = (job_ptr->admin_comment && budget::ParseContractRecord(job_ptr->admin_comment, &contract))
                        ? contract.min_runtime
                        : default_min_runtime;
  job.time_limit = LimitSeconds(job_ptr->time_limit);
  return job;
}

List SlurmctldJobList() {
  if (!running_in_slurmctld()) return nullptr;
  // slurmctld exports job_list; the clients that also load this plugin do
  // not define it, so it is never referenced at link time.
  static List* job_list_ptr = static_cast<List*>(dlsym(RTLD_DEFAULT, "job_list"));
  return job_list_ptr ? *job_list_ptr : nullptr;
}

List SlurmctldReservations() {
  if (!running_in_slurmctld()) return nullptr;
  // Like job_list: referenced only through the running slurmctld.
  static List* resv_list_ptr = static_cast<List*>(dlsym(RTLD_DEFAULT, "resv_list"));
  return resv_list_ptr ? *resv_list_ptr : nullptr;
}

const job_record_t* FindJob(List jobs, uint32_t job_id) {
  if (!jobs) return nullptr;
  const job_record_t* found = nullptr;
  ListIterator it = list_iterator_create(jobs);
  while (const job_record_t* job_ptr = static_cast<job_record_t*>(list_next(it))) {
    if (job_ptr->job_id == job_id) {
      found = job_ptr;
      break;
    }
  }
  list_iterator_destroy(it);
  return found;
}

std::vector<budget::QueueEntry> QueuedJobs(List jobs, time_t now) {
  std::vector<budget::QueueEntry> queue;
  if (!jobs) return queue;
  ListIterator it = list_iterator_create(jobs);
  while (job_record_t* job_ptr = static_cast<job_record_t*>(list_next(it))) {
    if (!IS_JOB_PENDING(job_ptr) || job_ptr->priority == 0 || !job_ptr->details) continue;
    if (job_ptr->details->begin_time > now) continue;
    // Only jobs waiting for nodes: one held back by a limit, a dependency
    // or a hold would keep held nodes idle without ever starting on them.
    if (job_ptr->state_reason != WAIT_NO_REASON && job_ptr->state_reason != WAIT_PRIORITY &&
        job_ptr->state_reason != WAIT_RESOURCES) {
      continue;
    }
    budget::QueueEntry entry;
    entry.job_id = job_ptr->job_id;
    entry.priority = job_ptr->priority;
    entry.submit_time = static_cast<budget::TimePoint>(job_ptr->details->submit_time);
    entry.waiting_since = std::max(entry.submit_time, static_cast<budget::TimePoint>(job_ptr->details->begin_time));
    entry.account = job_ptr->account ? job_ptr->account : "";
    if (!JobGpuRequest(job_ptr, job_ptr->details->min_nodes, &entry.request)) continue;
    queue.push_back(entry);
  }
  list_iterator_destroy(it);
  return queue;
}

std::vector<budget::RunningJob> RunningJobs(List jobs, const NodeView& view, budget::Seconds default_min_runtime) {
  std::vector<budget::RunningJob> running;
  if (!jobs) return running;
  ListIterator it = list_iterator_create(jobs);
  while (job_record_t* job_ptr = static_cast<job_record_t*>(list_next(it))) {
    if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) || !job_ptr->node_bitmap) continue;
    budget::RunningJob job;
    int64_t bits = bit_size(job_ptr->node_bitmap);
    for (int64_t i = 0; i < bits && i < int64_t(view.position_of.size()); ++i) {
      if (bit_test(job_ptr->node_bitmap, i) && view.position_of[i] >= 0)
        job.nodes.push_back(budget::NodeGpus{view.position_of[i], 0});
    }
    if (job.nodes.empty()) continue;
    budget::StartingJob contract = StartingJobOf(job_ptr, default_min_runtime);
    job.job_id = job_ptr->job_id;
    job.start = static_cast<budget::TimePoint>(job_ptr->start_time);
    job.min_runtime = contract.min_runtime;
    job.time_limit = contract.time_limit;
    job.priority = job_ptr->priority;
    running.push_back(std::move(job));
  }
  list_iterator_destroy(it);
  return running;
}

}  // namespace topo
