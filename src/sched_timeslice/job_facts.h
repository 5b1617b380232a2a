// Job facts: the only code of the timeslice plugins that reads slurmctld's
// job and node records. It copies what the contract rules need into plain
// values, so that every decision runs on copies, outside slurmctld's locks,
// through the core library (contract.h, preempt.h, drain.h).
//
// GPUs: the core's one rule (libbudget/config/gpu_count.h), as priority/budget
// and sbudget count them: a job's from its TRES, else its request; a node's
// from its TRES, else its Gres. A multi-node job holds the same number of
// GPUs on each node (Slurm's per-node request). A pending job that asked
// GPUs for the whole job (`--gpus=b200:16`, no -N) is spread over as many
// of the largest nodes it may use as it takes (packing.h SpreadGpus).
//
// Contract. From the record job_submit/contract leaves in the AdminComment
// (job_contract.h). A job without one (submitted before the filter was
// loaded) gets DefaultMinRuntime and is resumable iff Slurm may requeue it.
//
// The record types stay out of this header so that Slurm-free files can
// include it.
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_JOB_FACTS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_JOB_FACTS_H_

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/job_contract.h"
#include "libbudget/policy/packing.h"
#include "sched_timeslice/standings_cache.h"

namespace timeslice {

struct JobFacts {
  uint32_t job_id = 0;
  std::string account;
  std::string user;
  int64_t user_id = -1;  // the uid
  budget::JobContract contract;
  bool running = false;   // running and not completing
  bool pending = false;
  // Pending and waiting only for resources or priority (not held, no
  // dependency, no begin time in the future).
  bool waits_for_resources = false;
  budget::TimePoint start = 0;
  // Running and told to leave (PreemptNotice, job_actions.h
  // NoticeRunningJob): the end of its notice; 0 otherwise. Such a job is
  // leaving, as a completing one is: the pass counts its GPUs free.
  budget::TimePoint notice_until = 0;
  // A batch job the suite told to leave that ended by itself in its notice
  // (COMPLETED or FAILED: it left at its signal, as told), neither running
  // nor pending. If resumable, the pass requeues it (job_actions.h
  // RequeueLeftJob): it left because it was told to.
  bool left_in_notice = false;
  // Slurm's submit time; a requeue resets it to the requeue time, and
  // Slurm's scheduler breaks equal priorities by it (then by job id).
  budget::TimePoint submit_time = 0;
  uint32_t user_priority = 0;
  budget::Seconds time_limit = -1;  // Slurm's time limit; < 0: unlimited
  uint32_t node_count = 1;     // pending: requested; running: held
  uint32_t gpus_per_node = 0;
  // Pending: GPUs were asked per node (--gres, --gpus-per-node); otherwise
  // for the whole job, and SnapshotCluster spreads them (packing.h SpreadGpus).
  bool per_node_request = true;
  std::vector<int32_t> nodes;  // running: node indices held
  // Pending: the nodes it may run on (slurm_compat/eligible_nodes.h; null:
  // every node).
  budget::EligibleNodes eligible;
};

struct NodeFacts {
  int32_t index = 0;
  std::string name;
  uint32_t total_gpus = 0;
  bool draining = false;  // DRAIN flag (DRAINING or DRAINED)
  bool usable = true;     // takes new jobs (slurm_compat/node_state.h): not down, drained, failing or unanswered
  std::string reason;
};

// REQUIRES: the job read lock. `job_record` is a job_record_t*. `now`:
// for a begin time still to come.
JobFacts FactsOfJob(const void* job_record, budget::Seconds default_min_runtime, time_t now);
// The job's contract alone (what FactsOfJob puts in .contract), for callers
// that need nothing else. REQUIRES: the job read lock.
budget::JobContract ContractOf(const void* job_record, budget::Seconds default_min_runtime);

// Whether `job_record` (a job_record_t*) is a batch job told to leave by
// the suite (its note has a notice) that then ended by itself: COMPLETED
// or FAILED, completing or done; not one a user cancelled, nor one the
// suite or Slurm ended (PREEMPTED). REQUIRES: the job read lock.
bool LeftInItsNotice(const void* job_record);

// Every running and pending job, every job that left in its notice
// (LeftInItsNotice; only job_id, contract and left_in_notice set), and
// every node; each pending job with the
// nodes it may run on. REQUIRES: job, node and partition read locks.
void SnapshotCluster(budget::Seconds default_min_runtime, std::vector<JobFacts>* jobs,
                     std::vector<NodeFacts>* nodes);

// The rule inputs: allocation from the view; an allocated job whose account
// the tree does not bind has allocation kNoAllocation.
budget::RunningJob RunningJobOf(const JobFacts& job, const StandingsView& view);
budget::JobShape ShapeOf(const JobFacts& job, const StandingsView& view);

}  // namespace timeslice

#endif  // SLURM_BUDGET_SCHED_TIMESLICE_JOB_FACTS_H_
