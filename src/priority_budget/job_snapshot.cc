// Job snapshot: see job_snapshot.h.
#include "priority_budget/job_snapshot.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>

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

// libbudget/gpu_count.h.
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

}  // namespace

JobView ViewOfJob(const void* job_record) {
  const job_record_t* job = static_cast<const job_record_t*>(job_record);
  JobView view;
  view.job_id = job->job_id;
  view.account = OrEmpty(job->account);
  view.user = OrEmpty(job->user_name);
  view.uid = job->user_id;
  view.phase = PhaseOf(job);
  view.held = view.phase == JobPhase::kPending && job->priority == 0;
  view.fixed_priority = job->direct_set_prio != 0;
  view.gpus = JobGpus(job, view.phase);
  view.start_time = job->start_time;
  view.end_time = job->end_time;
  if (job->details) {
    view.submit_time = job->details->submit_time;
    view.nice = static_cast<int64_t>(job->details->nice) - NICE_OFFSET;
  }
  view.has_contract = budget::ParseContractRecord(OrEmpty(job->admin_comment), &view.contract);
  view.priority = job->priority;
  return view;
}

void SnapshotJobs(const std::unordered_set<uint32_t>& jobs_with_cursor, budget::TimePoint last_pass,
                  JobSnapshot* snapshot) {
  snapshot->capacity_gpus = 0;
  if (job_list) {
    snapshot->jobs.reserve(snapshot->jobs.size() + list_count(job_list));
    ListIterator it = list_iterator_create(job_list);
    while (job_record_t* job = static_cast<job_record_t*>(list_next(it))) {
      if (IS_JOB_REVOKED(job)) continue;
      if (PhaseOf(job) == JobPhase::kFinished && jobs_with_cursor.count(job->job_id) == 0 &&
          job->end_time <= last_pass) {
        continue;  // nothing left to charge
      }
      snapshot->jobs.push_back(ViewOfJob(job));
    }
    list_iterator_destroy(it);
  }
  for (int i = 0; i < node_record_count; ++i) snapshot->capacity_gpus += NodeGpus(node_record_table_ptr[i]);
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

const std::string& UserNames::NameOf(uid_t uid) {
  auto known = cache_.find(uid);
  if (known != cache_.end()) return known->second;
  std::string name;
  struct passwd pw;
  struct passwd* result = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &result) == 0 && result) name = result->pw_name;
  return cache_.emplace(uid, std::move(name)).first->second;
}

void UserNames::Resolve(std::vector<JobView>* jobs) {
  for (JobView& job : *jobs) {
    if (job.user.empty()) job.user = NameOf(job.uid);
  }
}

}  // namespace budget_prio
