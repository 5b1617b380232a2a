// Job snapshot: see job_snapshot.h.
#include "priority_budget/job_snapshot.h"

#include <algorithm>
#include <ctime>

#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/job_notes.h"
#include "priority_budget/slurm_headers.h"

namespace budget_prio {

namespace {

const char* OrEmpty(const char* s) { return s ? s : ""; }

JobPhase PhaseOf(const job_record_t* job) {
  if (IS_JOB_PENDING(job)) return JobPhase::kPending;
  if (IS_JOB_SUSPENDED(job)) return JobPhase::kSuspended;
  if (IS_JOB_RUNNING(job) && !IS_JOB_COMPLETING(job)) return JobPhase::kRunning;
  return JobPhase::kFinished;
}

double NodeGpus(const node_record_t* node) {
  if (!node) return 0;
  double gpus = GpuCountFromTres(OrEmpty(node->tres_fmt_str));
  return gpus > 0 ? gpus : GpuCountFromGresSpec(OrEmpty(node->gres));
}

// libbudget/config/gpu_count.h.
double JobGpus(const job_record_t* job, JobPhase phase) {
  bool pending = phase == JobPhase::kPending;
  budget::JobGpuStrings strings;
  strings.tres = OrEmpty(pending ? job->tres_fmt_req_str : job->tres_fmt_alloc_str);
  strings.per_job = OrEmpty(job->tres_per_job);
  strings.per_node = OrEmpty(job->tres_per_node);
  strings.per_task = OrEmpty(job->tres_per_task);
  strings.nodes = pending ? (job->details ? job->details->min_nodes : 1) : job->node_cnt;
  strings.tasks = job->details && job->details->num_tasks != NO_VAL ? job->details->num_tasks : 1;
  return budget::JobGpuCount(strings);
}

// The GPU type the job asked for, from its GPU request in any of its forms,
// as slurm_compat/eligible_nodes.h reads it ("" untyped).
std::string GpuTypeOf(const job_record_t* job) {
  for (const char* spec : {job->tres_per_node, job->tres_per_job, job->tres_per_socket, job->tres_per_task}) {
    if (!spec) continue;
    std::string type = budget::GpuTypeOfRequest(spec);
    if (!type.empty()) return type;
  }
  return "";
}

// The Slurm indices of the nodes a started job holds: the set span of its
// node bitmap, O(its nodes' span).
std::vector<int32_t> NodesOf(const job_record_t* job) {
  std::vector<int32_t> nodes;
  if (!job->node_bitmap) return nodes;
  const int first = bit_ffs(job->node_bitmap), last = bit_fls(job->node_bitmap);
  if (first < 0) return nodes;
  nodes.reserve(job->node_cnt);
  for (int i = first; i <= last; ++i)
    if (bit_test(job->node_bitmap, i)) nodes.push_back(i);
  return nodes;
}

// job_view_cache.h: what must not change for a cached view to stand. A
// pending job's is its phase alone: slurmctld marks every change of a
// pending job (priority_p_set), and reading the record's pointers would
// touch four more of its cache lines per job per pass.
JobFingerprint FingerprintOf(const job_record_t* job, JobPhase phase) {
  JobFingerprint print;
  print.phase = phase;
  if (phase == JobPhase::kPending) return print;
  print.strings = {reinterpret_cast<uintptr_t>(job->account),
                   reinterpret_cast<uintptr_t>(job->user_name),
                   reinterpret_cast<uintptr_t>(job->tres_fmt_req_str),
                   reinterpret_cast<uintptr_t>(job->tres_fmt_alloc_str),
                   reinterpret_cast<uintptr_t>(job->tres_per_job),
                   reinterpret_cast<uintptr_t>(job->tres_per_node),
                   reinterpret_cast<uintptr_t>(job->tres_per_task),
                   reinterpret_cast<uintptr_t>(job->admin_comment)};
  print.details = reinterpret_cast<uintptr_t>(job->details);
  print.start_time = job->start_time;
  print.node_count = job->node_cnt;
  print.uid = job->user_id;
  return print;
}

// When the job's last run ended. Slurm's end_time, but for a requeued job
// once Slurm has finished requeuing it (batch_requeue_fini() in
// slurmctld/job_mgr.c sets end_time to 0, moments after the requeue): then
// the time in the preemption or drain note preempt/timeslice left in its
// SystemComment (libbudget/policy/job_notes.h: only slurmctld writes it, never a
// user; the note is written in the pass that requeues the job, so it is
// the run's end to the second). A note dated after now is refused (the
// clock was set back). Without one (scontrol requeue, a node failure) 0:
// the tail since the last pass is not charged (usage_charging.h). Read
// when a view is built, which a requeue always causes (the phase is in the
// fingerprint), so the note is parsed once per requeue, not every pass.
budget::TimePoint RunEndOf(const job_record_t* job, JobPhase phase) {
  if (job->end_time != 0 || phase != JobPhase::kPending || job->restart_cnt == 0) return job->end_time;
  budget::TimePoint at = 0;
  if (job->system_comment &&
      budget::DepartureAt(budget::JobNotesOf(job->system_comment), static_cast<budget::TimePoint>(time(nullptr)),
                          &at)) {
    return at;
  }
  return 0;
}

// The fields a view re-reads at every pass (job_view_cache.h).
JobVolatile VolatileOf(const job_record_t* job, JobPhase phase) {
  JobVolatile fields;
  fields.phase = phase;
  fields.held = phase == JobPhase::kPending && job->priority == 0;
  fields.fixed_priority = job->direct_set_prio != 0;
  fields.priority = job->priority;
  // Not read into a pending job's view (ApplyVolatile), nor from its
  // record: start_time is on a cache line of the record no other field a
  // pass reads is on (end_time shares direct_set_prio's).
  if (phase != JobPhase::kPending) fields.start_time = job->start_time;
  fields.end_time = job->end_time;
  return fields;
}

}  // namespace

JobView ViewOfJob(const void* job_record) {
  const job_record_t* job = static_cast<const job_record_t*>(job_record);
  JobView view;
  JobPhase phase = PhaseOf(job);
  view.job_id = job->job_id;
  view.account = OrEmpty(job->account);
  view.user = OrEmpty(job->user_name);
  view.uid = job->user_id;
  view.gpus = JobGpus(job, phase);
  view.start_time = job->start_time;
  if (job->details) {
    view.submit_time = job->details->submit_time;
    view.nice = static_cast<int32_t>(static_cast<int64_t>(job->details->nice) - NICE_OFFSET);
  }
  view.has_contract = budget::ParseContractRecord(OrEmpty(job->admin_comment), &view.contract);
  view.placement = PlacementOf(GpuTypeOf(job), phase != JobPhase::kPending ? NodesOf(job) : std::vector<int32_t>());
  ApplyVolatile(VolatileOf(job, phase), &view);
  view.end_time = RunEndOf(job, phase);  // a new view reads it whatever the phase
  return view;
}

namespace {

struct SnapshotWalk {
  const std::unordered_set<uint32_t>* jobs_with_cursor;
  budget::TimePoint last_pass;
  JobViewCache* cache;
};

// list_for_each's callback: one lock of the list for the whole walk, not
// one per list_next().
int SnapshotOne(void* record, void* arg) {
  const job_record_t* job = static_cast<const job_record_t*>(record);
  SnapshotWalk* walk = static_cast<SnapshotWalk*>(arg);
  if (IS_JOB_REVOKED(job)) return 0;
  JobPhase phase = PhaseOf(job);
  if (phase == JobPhase::kFinished && walk->jobs_with_cursor->count(job->job_id) == 0 &&
      job->end_time <= walk->last_pass) {
    return 0;  // nothing left to charge
  }
  JobFingerprint print = FingerprintOf(job, phase);
  if (!walk->cache->Reuse(job->job_id, print, VolatileOf(job, phase))) walk->cache->Store(ViewOfJob(job), print);
  return 0;
}

}  // namespace

void SnapshotJobs(const std::unordered_set<uint32_t>& jobs_with_cursor, budget::TimePoint last_pass,
                  const std::vector<uint32_t>& changed, bool full, JobViewCache* cache, budget::FleetWorth* fleet) {
  cache->BeginPass(changed, full);
  if (job_list) {
    SnapshotWalk walk{&jobs_with_cursor, last_pass, cache};
    list_for_each(job_list, SnapshotOne, &walk);
  }
  cache->EndPass();
  for (int i = 0; i < node_record_count; ++i) {
    const node_record_t* node = node_record_table_ptr[i];
    if (node) fleet->AddNode(i, OrEmpty(node->gres), NodeGpus(node));
  }
}

int ApplyPriorities(const std::vector<std::pair<uint32_t, uint32_t>>& priorities) {
  int changed = 0;
  for (const auto& [job_id, priority] : priorities) {
    job_record_t* job = find_job_record(job_id);
    if (!job || !IS_JOB_PENDING(job) || job->priority == 0 || job->direct_set_prio || priority == 0) continue;
    if (job->priority == priority) continue;
    job->priority = priority;
    ++changed;
  }
  if (changed) last_job_update = time(nullptr);
  return changed;
}

}  // namespace budget_prio
