// HeroPlan: nodes set aside for a whole-node ("hero") job that has waited
// too long, so that a stream of smaller jobs cannot keep it waiting for
// ever (README "What it does": large jobs must not starve).
//
// Rules:
//   - The hero (ChooseHero): the first job in Slurm's order (the highest
//     priority, then the earlier submit time, then the lower job id) among
//     the waiting hero-sized jobs (at least HeroMinNodes whole nodes: every
//     node they take gives them all its GPUs), if it has waited at least
//     HeroWait (budget.conf) since it last became eligible (its submission
//     or its requeue), and if its account ranks first: every job ahead of
//     it in Slurm's order, granted ones aside (order.h kGrantedPriority,
//     a time-slicing pass's start), is of its own account. So a job
//     becomes the hero only when its team's turn has come by the
//     fair-share order, and the hold and the start below keep the promise
//     made then, as a protection does. (Holding for the first whole-node
//     job whatever its team's standing gave a team whose whole-node jobs
//     outgrew its entitlement 1.37x what it was owed, and its sibling
//     0.25x, doc/simulator.md.) Smaller jobs are served by time slicing; holding
//     nodes for them, and preempting across ranks when they start, cost far
//     more fairness than it buys (doc/simulator.md measures it).
//     Smaller jobs do not count: a stream of them passing the head of the
//     queue neither resets nor delays the hero's clock. Only the first
//     whole-node job can become the hero: one behind it, of a team ranked
//     lower, never jumps it. Once a hero, a job stays the hero until it
//     starts or leaves the queue: with the fair-share order changing every
//     pass, a hero displaced by each new first job would never start.
//   - Its planned nodes are chosen among the usable nodes with exactly that
//     many GPUs that it may run on (eligibility.h: its partition, GPU type,
//     features, reservation): a node it cannot use is never held for it. Each node's release time is when its last running job ends
//     or becomes preemptible, whichever comes first:
//         release(job)  = min(protection end, start + time_limit)
//         release(node) = max(now, release(job) over its running jobs)
//     (a free node releases now; unallocated work, min_runtime 0, releases
//     at once). Nodes are taken in order of (release time ascending, then the
//     highest priority among the node's jobs ascending: the node whose
//     best-served job ranks lowest goes first, then Slurm's node order
//     (lower index first)). The planned start is the latest release time
//     among the planned nodes.
//   - Hold: until the hero starts (or leaves the queue, or another job
//     becomes the hero) no other job may land on a planned node unless it
//     would end (time limit) or become preemptible (min_runtime) by the
//     planned start. So unallocated work (min_runtime 0) may always use
//     them; protected work only if it is short enough. The hero itself may
//     always use them.
//   - Quick starts and the promise (KeepPromise): a quick-start job
//     (contract.h QuickStartRule: a debug job) may also land on a planned
//     node until the PROMISED start, the earliest planned start the hero
//     has had since it became the hero. Its protection is at most
//     QuickStartMinRuntime, and the plan counts it like any other (its
//     node releases at its protection end), so debug jobs do not wait for
//     held nodes that stand idle until the hero's start, and the hero
//     starts at most QuickStartMinRuntime after its promise on their
//     account, however many debug jobs come (doc/simulator.md measures it).
//   - At the planned start every job still on the planned nodes is past its
//     protection: the time-slicing pass (timeslice_plan.h) then preempts
//     them for the hero, whatever the ranks now (rule "hero hold"): the
//     hero's team ranked first when the nodes were promised. So a hero
//     waits at most until its team's turn, HeroWait, plus the longest
//     protection on its nodes.
//   - Not a hero (the plan is inactive, nothing is held): no whole-node job
//     has waited long enough, or fewer eligible nodes than it asks for.
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_
#define SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/policy/contract.h"
#include "libbudget/policy/eligibility.h"
#include "libbudget/policy/packing.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

// A job waiting in the queue, as the hero rule sees it.
struct QueueEntry {
  uint32_t job_id = 0;
  uint32_t priority = 0;    // larger = earlier; Slurm's job priority
  TimePoint submit_time = 0;
  GpuRequest request;       // nodes x GPUs per node
  TimePoint waiting_since = 0;  // when it last became eligible
  std::string account;          // its Slurm account (its team)
  EligibleNodes eligible;       // the nodes it may run on (null: every node)
};

// The hero plan reads of each running job (contract.h RunningJob): its
// nodes (NodeGpus::node, a NodeState::index), start, min_runtime (0 =
// unallocated work), time_limit (< 0: unlimited) and priority.

// The job that may become a hero.
struct HeroCandidate {
  uint32_t job_id = 0;
  GpuRequest request;
  TimePoint waiting_since = 0;
  EligibleNodes eligible;  // null: every node
};

// Who may be a hero (budget.conf HeroWait, HeroMinNodes) on nodes of
// `node_gpus` GPUs.
struct HeroRule {
  Seconds wait = 30 * 60;
  uint32_t min_nodes = 8;
  uint32_t node_gpus = kDefaultGpusPerNode;
};

// Whether `job` asks for at least rule.min_nodes whole nodes (its GPUs per
// node equal rule.node_gpus), and whether it has waited at least rule.wait.
bool IsHeroSized(const QueueEntry& job, const HeroRule& rule);
bool WaitedForHeroWait(const QueueEntry& job, const HeroRule& rule, TimePoint now);

// Whether every job of `queue` ahead of `job` in Slurm's order, granted
// ones aside, is of job's account.
bool AccountRanksFirst(const std::vector<QueueEntry>& queue, const QueueEntry& job);

// The hero of `queue` by the rule above: job_id 0 when none. `current` is
// the hero chosen before (0 if none): it stays the hero while it is in
// `queue`.
HeroCandidate ChooseHero(const std::vector<QueueEntry>& queue, const HeroRule& rule, TimePoint now,
                         uint32_t current);

struct HeroPlan {
  bool active = false;
  uint32_t job_id = 0;
  std::vector<int32_t> nodes;  // NodeState::index, in the planned order
  TimePoint planned_start = 0;
  // The earliest planned start of this hero since it became the hero
  // (KeepPromise; PlanHero sets it to planned_start): quick-start jobs may
  // use the held nodes until then.
  TimePoint promised_start = 0;
  std::string why_not;         // why inactive, one line (empty when active)
};

// Plans nodes for `candidate` (one ChooseHero returned, or any job: the
// wait is checked again) by the rules above. An inactive plan is not an
// error. Errors: invalid nodes (ValidateNodes), a request of 0 nodes or 0
// GPUs, a negative hero_wait, a running job on an unknown node index.
Status PlanHero(const std::vector<NodeState>& nodes, const std::vector<RunningJob>& running,
                const HeroCandidate& candidate, Seconds hero_wait, TimePoint now, HeroPlan* plan);

// A job about to start, as the hold sees it.
struct StartingJob {
  uint32_t job_id = 0;
  Seconds min_runtime = 0;  // 0 = unallocated work
  Seconds time_limit = -1;  // < 0: unlimited
  bool quick = false;       // a quick-start job (contract.h QuickStartRule)
};

// May `job`, starting at `now`, land on the nodes `plan` holds? True when
// the plan is inactive, the job is the hero, the job would end or become
// preemptible by the planned start, or it is a quick-start job and the
// promised start has not passed.
bool MayUseHeldNodes(const HeroPlan& plan, const StartingJob& job, TimePoint now);

// The promise made to a hero stands while it stays the hero: when
// `previous` (the plan in force) is an active plan of the same job,
// plan->promised_start becomes the earlier of its own and previous's. An
// inactive *plan is left as it is.
void KeepPromise(const HeroPlan& previous, HeroPlan* plan);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_HERO_PLAN_H_
