// Job facts: see job_facts.h. The only file that reads job and node records.
#include "sched_timeslice/job_facts.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "libbudget/config/gpu_count.h"
#include "libbudget/policy/job_notes.h"
#include "sched_timeslice/slurm_headers.h"
#include "eligible_nodes.h"
#include "node_state.h"

namespace timeslice {

namespace {

std::string OrEmpty(const char* s) { return s ? s : ""; }

uint32_t Whole(double gpus) { return gpus >= 0 && gpus < 4e9 ? uint32_t(std::lround(gpus)) : 0; }

uint32_t NodeGpus(const node_record_t* node) {
  double gpus = budget::GpuCountFromTres(OrEmpty(node->tres_fmt_str));
  return Whole(gpus > 0 ? gpus : budget::GpuCountFromGresSpec(OrEmpty(node->gres)));
}

uint32_t TotalGpusOf(const job_record_t* job, bool pending, uint32_t nodes) {
  std::string tres = OrEmpty(pending ? job->tres_fmt_req_str : job->tres_fmt_alloc_str);
  std::string per_job = OrEmpty(job->tres_per_job), per_node = OrEmpty(job->tres_per_node);
  std::string per_task = OrEmpty(job->tres_per_task);
  budget::JobGpuStrings strings;
  strings.tres = tres;
  strings.per_job = per_job;
  strings.per_node = per_node;
  strings.per_task = per_task;
  strings.nodes = std::max<uint32_t>(nodes, 1);
  strings.tasks = job->details && job->details->num_tasks != NO_VAL ? job->details->num_tasks : 1;
  return Whole(budget::JobGpuCount(strings));
}

budget::Seconds TimeLimitOf(const job_record_t* job) {
  if (job->time_limit == NO_VAL || job->time_limit == INFINITE) return -1;
  return budget::Seconds{job->time_limit} * 60;
}

bool WaitsForResources(const job_record_t* job, time_t now) {
  if (!IS_JOB_PENDING(job) || job->priority == 0) return false;
  if (job->details && job->details->begin_time > now) return false;
  return job->state_reason == WAIT_RESOURCES || job->state_reason == WAIT_PRIORITY ||
         job->state_reason == WAIT_NO_REASON;
}

}  // namespace

budget::JobContract ContractOf(const void* job_record, budget::Seconds default_min_runtime) {
  const job_record_t* job = static_cast<const job_record_t*>(job_record);
  budget::JobContract contract;
  if (!job->admin_comment || !budget::ParseContractRecord(job->admin_comment, &contract)) {
    contract = budget::JobContract{};
    contract.min_runtime = default_min_runtime;
    contract.resumable = job->details && job->details->requeue;
  }
  return contract;
}

JobFacts FactsOfJob(const void* job_record, budget::Seconds default_min_runtime, time_t now) {
  const job_record_t* job = static_cast<const job_record_t*>(job_record);
  JobFacts facts;
  facts.job_id = job->job_id;
  facts.account = OrEmpty(job->account);
  facts.user = OrEmpty(job->user_name);
  facts.user_id = job->user_id;
  facts.contract = ContractOf(job, default_min_runtime);
  facts.pending = IS_JOB_PENDING(job);
  facts.running = IS_JOB_RUNNING(job) && !IS_JOB_COMPLETING(job);
  facts.waits_for_resources = WaitsForResources(job, now);
  facts.start = job->start_time;
  // Slurm's own preemption never runs under the suite (preempt/timeslice
  // says so), so a running job's preempt_time is the suite's notice.
  if (facts.running && job->preempt_time) facts.notice_until = job->end_time;
  facts.time_limit = TimeLimitOf(job);
  if (job->details) {
    facts.submit_time = job->details->submit_time;
    // nice is stored offset by NICE_OFFSET; a lower nice is more important.
    int64_t nice = static_cast<int64_t>(job->details->nice) - NICE_OFFSET;
    facts.user_priority = static_cast<uint32_t>(std::clamp<int64_t>(NICE_OFFSET - nice, 0, 2 * NICE_OFFSET));
  }
  if (facts.running && job->node_bitmap) {
    // Only the bits between the first and the last set one are read.
    const int first = bit_ffs(job->node_bitmap), last = std::min<int>(bit_fls(job->node_bitmap), node_record_count - 1);
    for (int i = std::max(first, 0); first >= 0 && i <= last; ++i) {
      if (bit_test(job->node_bitmap, i)) facts.nodes.push_back(i);
    }
    facts.node_count = std::max<uint32_t>(facts.nodes.size(), 1);
  } else if (job->details) {
    facts.node_count = std::max<uint32_t>(job->details->min_nodes, 1);
  }
  uint32_t per_node = Whole(budget::GpuCountFromGresSpec(OrEmpty(job->tres_per_node)));
  facts.per_node_request = per_node > 0;
  facts.gpus_per_node = per_node > 0 ? per_node : TotalGpusOf(job, facts.pending, facts.node_count) / facts.node_count;
  return facts;
}

bool LeftInItsNotice(const void* job_record) {
  const job_record_t* job = static_cast<const job_record_t*>(job_record);
  if (!job->preempt_time || !job->batch_flag || !job->system_comment) return false;
  const uint32_t base = job->job_state & JOB_STATE_BASE;
  if (base != JOB_COMPLETE && base != JOB_FAILED) return false;
  return budget::JobNotesOf(job->system_comment).notice_until != 0;
}

void SnapshotCluster(budget::Seconds default_min_runtime, std::vector<JobFacts>* jobs,
                     std::vector<NodeFacts>* nodes) {
  const size_t first_node = nodes->size();
  for (int i = 0; i < node_record_count; ++i) {
    const node_record_t* node = node_record_table_ptr[i];
    if (!node) continue;
    NodeFacts facts;
    facts.index = i;
    facts.name = OrEmpty(node->name);
    facts.total_gpus = NodeGpus(node);
    facts.draining = IS_NODE_DRAIN(node);
    facts.usable = slurm_compat::NodeTakesJobs(node);
    facts.reason = OrEmpty(node->reason);
    nodes->push_back(std::move(facts));
  }
  if (!job_list) return;
  const time_t now = time(nullptr);
  slurm_compat::EligibleNodesReader eligibility(now, resv_list);
  // The largest node of each set the jobs ask for, for GPUs asked per job.
  std::map<const budget::NodeSet*, uint32_t> largest;
  auto largest_of = [&](const budget::EligibleNodes& eligible) {
    auto found = largest.find(eligible.get());
    if (found != largest.end()) return found->second;
    uint32_t gpus = 0;
    for (size_t n = first_node; n < nodes->size(); ++n)
      if (budget::MayRunOn(eligible, (*nodes)[n].index)) gpus = std::max(gpus, (*nodes)[n].total_gpus);
    return largest[eligible.get()] = gpus;
  };
  jobs->reserve(jobs->size() + list_count(job_list));
  ListIterator it = list_iterator_create(job_list);
  while (job_record_t* job = static_cast<job_record_t*>(list_next(it))) {
    if (LeftInItsNotice(job)) {
      JobFacts facts;
      facts.job_id = job->job_id;
      facts.contract = ContractOf(job, default_min_runtime);
      facts.left_in_notice = true;
      jobs->push_back(std::move(facts));
      continue;
    }
    if (!IS_JOB_PENDING(job) && !(IS_JOB_RUNNING(job) && !IS_JOB_COMPLETING(job))) continue;
    JobFacts facts = FactsOfJob(job, default_min_runtime, now);
    if (facts.pending && facts.waits_for_resources && facts.gpus_per_node > 0) {
      facts.eligible = eligibility.Of(job);
      uint32_t most = largest_of(facts.eligible);
      if (!facts.per_node_request && facts.gpus_per_node > most && most > 0) {
        budget::GpuRequest spread =
            budget::SpreadGpus(uint64_t{facts.gpus_per_node} * facts.node_count, facts.node_count, most);
        facts.node_count = spread.node_count;
        facts.gpus_per_node = spread.gpus_per_node;
      }
    }
    jobs->push_back(std::move(facts));
  }
  list_iterator_destroy(it);
}

}  // namespace timeslice
