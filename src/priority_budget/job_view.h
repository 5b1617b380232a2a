// JobView: what priority/budget needs to know about one Slurm job, copied out
// of slurmctld's job record under the job read lock so that every decision
// is taken on a snapshot, outside slurmctld's locks.
//
// The struct itself is Slurm-free (the pass, the charging and their tests use
// it); the functions that fill it from slurmctld (job_view.cc) are the only
// code here that reads job records.
//
// User priority. Slurm users order their own jobs with `--nice` (`sbatch
// --nice=100`, `scontrol update job=X nice=100`): a higher nice is a lower
// priority, users may only raise their nice, operators may also lower it.
// Within one leaf of the tree the job's user priority is
//     kNeutralUserPriority - nice, clamped to [0, kMaxUserPriority],
// so nice 0 = 10000, nice 100 = 9900, nice -100 (operator) = 10100. The core
// orders by it only among jobs of the same tree node (order.h): a nice never
// moves a job past another team's. `--priority` (operators only) sets a
// fixed priority that the plugin leaves alone (direct_set_prio).
//
// GPUs. A job's GPU count follows libbudget/config/gpu_count.h (its TRES, else its
// GPU request); the cluster's capacity is the nodes' `gres/gpu` TRES, else
// their Gres=. Both are then weighted by GPU type (budget.conf
// GpuTypeWeights, libbudget/policy/gpu_worth.h): the view keeps the job's
// requested type and its nodes, the snapshot each node's Gres.
//
// Thread safety: plain values. Snapshot functions REQUIRE the job read lock
// (they are called by the recalc thread through slurmctld_locks.h).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "libbudget/config/gpu_count.h"
#include "libbudget/policy/job_contract.h"
#include "libbudget/standing.h"
#include "libbudget/state/tree.h"

namespace budget_prio {

enum class JobPhase : uint8_t { kPending, kRunning, kSuspended, kFinished };

// What a job's GPUs are worth depends on (libbudget/policy/gpu_worth.h):
// the GPU type it asked for ("" untyped) and, once it runs, the Slurm
// indices of its nodes (kept through its end and a requeue,
// job_view_cache.cc Store). Immutable once shared; held by pointer so that
// a view stays three cache lines (192 bytes).
struct JobPlacement {
  std::string gpu_type;
  std::vector<int32_t> nodes;
};

// Layout. The recalc thread sweeps its 20,000 views four times a pass
// (charge, demand, priority, and the snapshot's per-pass fields); what
// those sweeps read is the first 64 bytes, and a view starts on a cache
// line, so each sweep touches one line per job (1.3 MB at 20,000 jobs)
// rather than the three a view spans (its strings come after).
struct alignas(64) JobView {
  // --- read by every sweep: keep within the first 64 bytes ---
  uint32_t job_id = 0;
  uint32_t priority = 0;      // the job's priority when it was copied
  // The tree node the job is charged to, when node_resolved (the recalc
  // thread resolves it once per view and tree, job_view_cache.h); readers
  // go through NodeOf() (priority_pass.h), which looks it up otherwise.
  budget::NodeId node = budget::kNoNode;
  int32_t nice = 0;           // without Slurm's NICE_OFFSET (a uint32 around it)
  JobPhase phase = JobPhase::kPending;
  // Pending with priority 0 (user or admin hold), or a priority an operator
  // set (`--priority`, direct_set_prio): the plugin never changes either.
  bool held = false;
  bool fixed_priority = false;
  bool node_resolved = false;
  // The contract record of the job's AdminComment (job_contract.h), parsed
  // once when the job is copied; has_contract false: no record.
  bool has_contract = false;
  double gpus = 0;            // allocated (running) or requested (pending)
  budget::TimePoint submit_time = 0;
  budget::TimePoint start_time = 0;
  budget::JobContract contract;
  // --- the rest ---
  budget::TimePoint end_time = 0;   // finished (and requeued) jobs
  uid_t uid = 0;
  std::string account;        // "" when the job has none
  std::string user;           // "" until resolved from uid
  // What its GPUs are worth (JobPlacement); null for an untyped job that
  // has not run, the common pending job.
  std::shared_ptr<const JobPlacement> placement;

  const std::string& gpu_type() const;
  const std::vector<int32_t>& nodes() const;
};

// Null when both are empty.
std::shared_ptr<const JobPlacement> PlacementOf(std::string gpu_type, std::vector<int32_t> nodes);

constexpr uint32_t kNeutralUserPriority = 10000;
constexpr uint32_t kMaxUserPriority = 65534;

// kNeutralUserPriority - nice, clamped to [0, kMaxUserPriority].
uint32_t UserPriorityFromNice(int64_t nice);

// The GPU counts of Slurm's strings (libbudget/config/gpu_count.h), under the
// names this adapter's code and tests use.
using budget::GpuCountFromGresSpec;
using budget::GpuCountFromTres;

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_H_
