// sprio factors: see sprio_factors.h.
#include "priority_budget/sprio_factors.h"

#include <string>
#include <vector>

#include "priority_budget/job_snapshot.h"
#include "priority_budget/slurm_headers.h"
#include "priority_budget/slurmctld_locks.h"
#include "slurm_compat/priority_factors.h"

namespace budget_prio {

namespace {

constexpr double kDefaultFairshareScale = 1000;

bool InList(List list, uint32_t value) {
  if (!list) return true;
  bool found = false;
  ListIterator it = list_iterator_create(list);
  while (uint32_t* item = static_cast<uint32_t*>(list_next(it))) {
    if (*item == value) {
      found = true;
      break;
    }
  }
  list_iterator_destroy(it);
  return found;
}

// Partition names of a request ("gpu,debug"); empty: no filter.
[[maybe_unused]] std::vector<std::string> SplitPartitions(const char* partitions) {
  std::vector<std::string> names;
  if (!partitions) return names;
  std::string all(partitions);
  size_t start = 0;
  while (start <= all.size()) {
    size_t comma = all.find(',', start);
    if (comma == std::string::npos) comma = all.size();
    if (comma > start) names.push_back(all.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

bool PartitionWanted(const std::vector<std::string>& wanted, const char* name) {
  if (wanted.empty()) return true;
  for (const std::string& w : wanted) {
    if (name && w == name) return true;
  }
  return false;
}

bool MayView(const job_record_t* job, uid_t uid) {
  if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS)) return true;
  return job->user_id == uid || validate_operator(uid);
}

priority_factors_object_t* FactorsOf(const job_record_t* job, const char* partition, const OrderView* view) {
  auto* obj = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  slurm_compat::SetFactorsJob(obj, job);
  obj->user_id = job->user_id;
#if SLURM_BUDGET_SLURM_SERIES >= 2311
  // 23.11+: the list's destructor (slurm_destroy_priority_factors_object)
  // frees account, partition and qos, so each is a copy. A direct priority
  // makes sprio print 0 in every factor column, so only an operator's
  // --priority is sent as one; for the others sprio's PRIORITY is the sum of
  // the factor columns (doc/admin-guide.md, "sprio on each version").
  obj->partition = xstrdup(partition);
  obj->account = xstrdup(job->account);
  obj->prio_factors = static_cast<priority_factors_t*>(xmalloc(sizeof(priority_factors_t)));
  priority_factors_t* out = obj->prio_factors;
  out->priority_site = NICE_OFFSET;  // sprio shows SITE - NICE_OFFSET: 0
  if (job->direct_set_prio || !view) obj->direct_prio = job->priority;
#else
  // Not copied, as in priority/multifactor: the list is packed right away
  // and partition records outlive it.
  obj->partition = const_cast<char*>(partition);
  obj->direct_prio = job->priority;
  priority_factors_object_t* out = obj;
#endif
  out->nice = job->details ? job->details->nice : NICE_OFFSET;
  if (view && !job->direct_set_prio) {
    budget::PriorityFactors factors;
    PriorityUnder(*view, ViewOfJob(job), &factors);
    double fs_scale = slurm_conf.priority_weight_fs ? slurm_conf.priority_weight_fs : kDefaultFairshareScale;
    double qos_scale = slurm_conf.priority_weight_qos ? slurm_conf.priority_weight_qos : 1;
    out->priority_fs = factors.fairshare * fs_scale;
    out->priority_qos = factors.allocated ? qos_scale : 0;
    out->priority_assoc = factors.user_priority;
  }
  return obj;
}

}  // namespace

void* BuildPriorityFactorsList(const void* request, uid_t uid, const OrderView* view) {
#if SLURM_BUDGET_SLURM_SERIES >= 2311
  // 23.11+ sends no filter: sprio filters by job, user and partition itself.
  (void)request;
  List job_ids = nullptr, uids = nullptr;
  std::vector<std::string> partitions;
#else
  const auto* req = static_cast<const priority_factors_request_msg_t*>(request);
  List job_ids = req ? req->job_id_list : nullptr, uids = req ? req->uid_list : nullptr;
  std::vector<std::string> partitions = SplitPartitions(req ? req->partitions : nullptr);
#endif
  List out = list_create(slurm_destroy_priority_factors_object);
#if SLURM_BUDGET_SLURM_SERIES < 2311
  budget_lock_jobs_read();  // 23.11+ calls with the job, node and part read locks held
#endif
  if (job_list) {
    ListIterator it = list_iterator_create(job_list);
    while (job_record_t* job = static_cast<job_record_t*>(list_next(it))) {
      if (!IS_JOB_PENDING(job) || IS_JOB_REVOKED(job) || job->priority == 0) continue;
      if (!InList(job_ids, job->job_id) || !InList(uids, job->user_id)) continue;
      if (!MayView(job, uid)) continue;
      if (job->part_ptr_list) {
        ListIterator parts = list_iterator_create(job->part_ptr_list);
        while (part_record_t* part = static_cast<part_record_t*>(list_next(parts))) {
          if (PartitionWanted(partitions, part->name)) list_append(out, FactorsOf(job, part->name, view));
        }
        list_iterator_destroy(parts);
      } else if (job->part_ptr && PartitionWanted(partitions, job->part_ptr->name)) {
        list_append(out, FactorsOf(job, job->part_ptr->name, view));
      }
    }
    list_iterator_destroy(it);
  }
#if SLURM_BUDGET_SLURM_SERIES < 2311
  budget_unlock_jobs_read();
#endif
  if (list_count(out) == 0) FREE_NULL_LIST(out);
  return out;
}

}  // namespace budget_prio
