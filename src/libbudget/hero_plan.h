// HeroPlan: nodes set aside for a whole-node ("hero") job that has waited
// at the head of the queue for too long, so that a stream of small jobs
// cannot keep it waiting for ever (DESIGN.md, "Packing"; issue 6 item 2).
//
// Rules:
//   - First in line: among the pending jobs that may start now, the one with
//     the highest priority; ties to the earlier submit time, then the lower
//     job id. Its waiting clock starts when it becomes first in line and
//     restarts whenever another job takes the head.
//   - A first-in-line job becomes a hero once it has been first in line for
//     HeroWait (budget.conf) AND it asks for whole nodes: every node it takes
//     must give it all its GPUs (gpus_per_node == the node's total GPUs).
//   - Its planned nodes are chosen among the usable nodes with exactly that
//     many GPUs. Each node's release time is when its last running job ends
//     or becomes preemptible, whichever comes first:
//         release(job)  = min(start + min_runtime, start + time_limit)
//         release(node) = max(now, release(job) over its running jobs)
//     (a free node releases now; unallocated work, min_runtime 0, releases
//     at once). Nodes are taken in order of (release time ascending, then the
//     highest priority among the node's jobs ascending: the node whose
//     best-served job ranks lowest goes first, then Slurm's node order
//     (lower index first)). The planned start is the latest release time
//     among the planned nodes.
//   - Hold: until the hero starts (or stops being first in line, or leaves
//     the queue) no other job may land on a planned node unless it would end
//     (time limit) or become preemptible (min_runtime) by the planned start.
//     So unallocated work (min_runtime 0) may always use them; protected work
//     only if it is short enough. The hero itself may always use them.
//   - Not a hero (the plan is inactive, nothing is held): no head, head not
//     waiting long enough, head not of whole nodes, or fewer eligible nodes
//     than it asks for.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_
#define SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/contract.h"
#include "libbudget/packing.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

// A job waiting in the queue, as the head-of-line rule sees it.
struct QueueEntry {
  uint32_t job_id = 0;
  uint32_t priority = 0;    // larger = earlier; Slurm's job priority
  TimePoint submit_time = 0;
};

// Who is first in line, and since when.
struct HeadOfLine {
  uint32_t job_id = 0;      // 0: the queue is empty
  TimePoint since = 0;      // when it became first in line
};

// The head of `queue` by the rule above, its clock carried over from
// `previous` when the same job is still first (else it starts at `now`).
HeadOfLine UpdateHeadOfLine(const HeadOfLine& previous, const std::vector<QueueEntry>& queue,
                            TimePoint now);

// The hero plan reads of each running job (contract.h RunningJob): its
// nodes (NodeGpus::node, a NodeState::index), start, min_runtime (0 =
// unallocated work), time_limit (< 0: unlimited) and priority.

// The job that may become a hero.
struct HeroCandidate {
  uint32_t job_id = 0;
  GpuRequest request;
  TimePoint first_in_line_since = 0;
};

struct HeroPlan {
  bool active = false;
  uint32_t job_id = 0;
  std::vector<int32_t> nodes;  // NodeState::index, in the planned order
  TimePoint planned_start = 0;
  std::string why_not;         // why inactive, one line (empty when active)
};

// Plans nodes for `candidate` by the rules above. An inactive plan is not an
// error. Errors: invalid nodes (ValidateNodes), a request of 0 nodes or 0
// GPUs, a negative hero_wait, a running job on an unknown node index.
Status PlanHero(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running,
                const HeroCandidate& candidate, Seconds hero_wait, TimePoint now, HeroPlan* plan);

// A job about to start, as the hold sees it.
struct StartingJob {
  uint32_t job_id = 0;
  Seconds min_runtime = 0;  // 0 = unallocated work
  Seconds time_limit = -1;  // < 0: unlimited
};

// May `job`, starting at `now`, land on the nodes `plan` holds? True when
// the plan is inactive, the job is the hero, or the job would end or become
// preemptible by the planned start.
bool MayUseHeldNodes(const HeroPlan& plan, const StartingJob& job, TimePoint now);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_
