// preempt/timeslice (`PreemptType=preempt/timeslice`): the contract rule
// where Slurm's own scheduler asks "may X preempt Y?". A thin adapter:
// translate the two job records (job_facts.h), ask the core
// (preempt.h JudgePreemption), answer.
//
//   preempt_p_preemptable(preemptee, preemptor)   the pairwise rule (note
//       the argument order: src/slurmctld/preempt.c passes the candidate
//       first); a job inside its min-runtime is never preemptable;
//       unallocated work is preemptable by any allocated job; allocated work
//       only by an allocation ranked ahead, under the no-ping-pong rule.
//       With SchedulerType=sched/timeslice, allocated-vs-allocated
//       preemption is left to its thread, which counts the preemptions and
//       protected runs already under way for the preemptor's team
//       (commitments.h): Slurm judges each waiting job of a team against the
//       same standings, so every one passes and the whole cluster changed
//       hands at each protection end (observed); and this entry runs inside
//       Slurm's walk of job_list, so it cannot walk job_list itself to count
//       them (the list lock is not reentrant: slurmctld aborts).
//   preempt_p_get_data
//       ENABLED     PreemptMode is not OFF
//       MODE        REQUEUE if the job is resumable, CANCEL otherwise
//       PRIO        victim_key.h: candidates sorted as the core's VictimOrder
//       GRACE_TIME  0. Slurm asks it only of a job it is about to preempt,
//                   right after judging the candidates for the preemptor, so
//                   this is where the preemption is logged (preemptor,
//                   preemptee, both ratios, rule), marked on the job's
//                   Comment and counted (state_counts.h).
//   preempt_p_job_preempt_check(preemptor, preemptee)   orders Slurm's
//       pending queue: allocated work before unallocated work (the core's
//       order); everything else is left to the priorities priority/budget
//       computes.
//
// Standings come from priority/budget's report snapshot (standings_cache.h).
// Every entry catches everything: slurmctld must never go down because of
// us; on an internal error the answer is "not preemptable".
//
// Locks: every entry runs inside slurmctld's scheduler with the job write
// lock held (the caller's); it takes only this file's mutex, nested inside.
#include <cinttypes>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "libbudget/config.h"
#include "libbudget/preempt.h"
#include "libbudget/preemption_note.h"
#include "sched_timeslice/job_actions.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/slurm_headers.h"
#include "sched_timeslice/standings_cache.h"
#include "sched_timeslice/state_counts.h"
#include "sched_timeslice/victim_key.h"

extern "C" {
#include "src/common/run_in_daemon.h"
extern const char plugin_name[] = "Preempt timeslice (minimum-runtime contracts over budget standings) plugin";
extern const char plugin_type[] = "preempt/timeslice";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

using budget::TimePoint;

// The last allowed judgement of a candidate, kept until Slurm preempts it.
struct Judgement {
  uint32_t preemptor = 0;
  budget::PreemptVerdict verdict = budget::PreemptVerdict::kAllowedUnallocated;
  double preemptee_ratio = 0;
  double preemptor_ratio = 0;
  std::string preemptee_path, preemptor_path;
  TimePoint at = 0;
};
// Older judgements are not trusted to name the preemptor.
constexpr budget::Seconds kJudgementTtl = 30;

struct PluginState {
  budget::Seconds default_min_runtime = 0;
  std::string state_dir;
  std::unique_ptr<timeslice::StandingsCache> standings;
  // SchedulerType=sched/timeslice: its thread does the time slicing
  // between allocations (see the header comment).
  bool thread_slices = false;
  std::mutex mu;  // guards judgements
  std::unordered_map<uint32_t, Judgement> judgements;
};

PluginState* g_state = nullptr;

void Log(const std::string& line) {
  if (running_in_slurmctld()) info("preempt/timeslice: %s", line.c_str());
}

std::shared_ptr<const timeslice::StandingsView> View(TimePoint now) {
  if (!g_state || !g_state->standings) return timeslice::MakeDegradedView();
  return g_state->standings->View(now);
}

bool Preemptable(job_record_t* preemptee, job_record_t* preemptor) {
  if (!preemptee || !preemptor || !g_state) return false;
  TimePoint now = time(nullptr);
  auto view = View(now);
  timeslice::JobFacts ee = timeslice::FactsOfJob(preemptee, g_state->default_min_runtime);
  timeslice::JobFacts er = timeslice::FactsOfJob(preemptor, g_state->default_min_runtime);
  if (!ee.running) return false;
  budget::RunningJob victim = timeslice::RunningJobOf(ee, *view);
  budget::JobShape shape = timeslice::ShapeOf(er, *view);
  // Allocated work whose account the tree does not bind has no budget to
  // rank it: it preempts nothing.
  if (shape.allocated() && shape.allocation == budget::kNoAllocation) return false;
  const budget::Standing& er_standing = view->StandingOf(shape.allocation);
  const budget::Standing& ee_standing = view->StandingOf(victim.allocation);
  budget::PreemptVerdict verdict =
      budget::JudgePreemption(shape, er_standing, victim, ee_standing, view->scale, now);
  debug("preempt/timeslice: may job %u preempt job %u? %s", er.job_id, ee.job_id,
        budget::PreemptVerdictName(verdict));
  if (!budget::IsAllowed(verdict)) return false;
  if (verdict == budget::PreemptVerdict::kAllowedOverServed && g_state->thread_slices) {
    debug("preempt/timeslice: job %u vs job %u left to sched/timeslice's time slicing", er.job_id, ee.job_id);
    return false;
  }
  Judgement j;
  j.preemptor = er.job_id;
  j.verdict = verdict;
  j.preemptee_ratio = victim.allocated() ? ee_standing.usage_ratio : 0.0;
  j.preemptor_ratio = er_standing.usage_ratio;
  j.preemptee_path = view->PathOf(victim.allocation);
  j.preemptor_path = view->PathOf(shape.allocation);
  j.at = now;
  std::lock_guard<std::mutex> lock(g_state->mu);
  g_state->judgements[ee.job_id] = std::move(j);
  return true;
}

// Slurm is about to preempt `job`: explain it, mark it, count it.
void RecordPreemption(job_record_t* job) {
  if (!g_state || !job) return;
  TimePoint now = time(nullptr);
  Judgement j;
  {
    std::lock_guard<std::mutex> lock(g_state->mu);
    auto it = g_state->judgements.find(job->job_id);
    if (it == g_state->judgements.end() || now - it->second.at > kJudgementTtl) return;
    j = it->second;
    g_state->judgements.erase(it);
    // Drop judgements that Slurm did not act on.
    for (auto old = g_state->judgements.begin(); old != g_state->judgements.end();) {
      old = now - old->second.at > kJudgementTtl ? g_state->judgements.erase(old) : std::next(old);
    }
  }
  timeslice::JobFacts facts = timeslice::FactsOfJob(job, g_state->default_min_runtime);
  const char* action = budget::PreemptActionName(budget::ActionWhenPreempted(facts.contract.resumable));
  const char* rule = budget::PreemptVerdictName(j.verdict);
  timeslice::SetJobComment(job, budget::FormatPreemptionNote(j.preemptor, now, rule));
  timeslice::TimesliceCounts counts;
  budget::Status st = timeslice::AddToCounts(g_state->state_dir + "/" + timeslice::kStateFileName, 1, 0, now, &counts);
  Log("job " + std::to_string(j.preemptor) + " (" + j.preemptor_path + ", usage ratio " +
      std::to_string(j.preemptor_ratio) + ") preempts job " + std::to_string(job->job_id) + " (" +
      (j.preemptee_path.empty() ? std::string("unallocated") : j.preemptee_path) + ", usage ratio " +
      std::to_string(j.preemptee_ratio) + "): " + action + ", rule: " + rule + "; preemptions so far " +
      (st.ok() ? std::to_string(counts.preemptions) : "unknown (" + st.message() + ")"));
}

int GetData(job_record_t* job, slurm_preempt_data_type_t type, void* data) {
  switch (type) {
    case PREEMPT_DATA_ENABLED:
      *static_cast<bool*>(data) = slurm_conf.preempt_mode != PREEMPT_MODE_OFF;
      return SLURM_SUCCESS;
    case PREEMPT_DATA_MODE: {
      // REQUEUE for a job we cannot read: Slurm falls back to a kill if the
      // requeue is refused, so nothing is lost by asking for the gentler one.
      uint16_t mode = PREEMPT_MODE_REQUEUE;
      if (job && g_state) {
        timeslice::JobFacts facts = timeslice::FactsOfJob(job, g_state->default_min_runtime);
        mode = facts.contract.resumable ? PREEMPT_MODE_REQUEUE : PREEMPT_MODE_CANCEL;
      }
      *static_cast<uint16_t*>(data) = mode;
      return SLURM_SUCCESS;
    }
    case PREEMPT_DATA_PRIO: {
      uint32_t key = 0;
      if (job && g_state) {
        TimePoint now = time(nullptr);
        auto view = View(now);
        timeslice::JobFacts facts = timeslice::FactsOfJob(job, g_state->default_min_runtime);
        key = timeslice::VictimKey(timeslice::RunningJobOf(facts, *view), view->standings, now);
      }
      *static_cast<uint32_t*>(data) = key;
      return SLURM_SUCCESS;
    }
    case PREEMPT_DATA_GRACE_TIME:
      *static_cast<uint32_t*>(data) = 0;
      RecordPreemption(job);
      return SLURM_SUCCESS;
    default:
      error("preempt/timeslice: unknown preempt data type %d", static_cast<int>(type));
      return SLURM_ERROR;
  }
}

bool IsAllocatedWork(const job_record_t* job) {
  timeslice::JobFacts facts = timeslice::FactsOfJob(job, g_state ? g_state->default_min_runtime : 0);
  return facts.contract.min_runtime > 0;
}

}  // namespace

extern "C" {

int init(void) {
  try {
    auto state = std::make_unique<PluginState>();
    const char* conf = slurm_conf.slurm_conf ? slurm_conf.slurm_conf : "/etc/slurm/slurm.conf";
    budget::BudgetConfig config;
    bool missing = false;
    budget::Status st = budget::LoadBudgetConfig(budget::BudgetConfigPathBeside(conf), &config, &missing);
    if (!st.ok()) {
      error("preempt/timeslice: %s", st.message().c_str());
      return SLURM_ERROR;
    }
    state->default_min_runtime = config.default_min_runtime;
    state->state_dir = slurm_conf.state_save_location ? slurm_conf.state_save_location : ".";
    state->standings = std::make_unique<timeslice::StandingsCache>(state->state_dir, Log);
    state->thread_slices = slurm_conf.schedtype && std::string(slurm_conf.schedtype) == "sched/timeslice";
    g_state = state.release();
    Log("loaded; standings from " + g_state->state_dir +
        (g_state->thread_slices ? "; allocated-vs-allocated preemption left to sched/timeslice's thread" : ""));
    return SLURM_SUCCESS;
  } catch (const std::exception& e) {
    error("preempt/timeslice: init: %s", e.what());
  } catch (...) {
    error("preempt/timeslice: init: unknown exception");
  }
  return SLURM_ERROR;
}

void fini(void) {
  try {
    delete g_state;
  } catch (...) {
  }
  g_state = nullptr;
}

bool preempt_p_job_preempt_check(job_queue_rec_t* preemptor, job_queue_rec_t* preemptee) {
  try {
    if (!preemptor || !preemptee || !preemptor->job_ptr || !preemptee->job_ptr) return false;
    return IsAllocatedWork(preemptor->job_ptr) && !IsAllocatedWork(preemptee->job_ptr);
  } catch (...) {
    return false;
  }
}

bool preempt_p_preemptable(job_record_t* preemptee, job_record_t* preemptor) {
  try {
    return Preemptable(preemptee, preemptor);
  } catch (const std::exception& e) {
    error("preempt/timeslice: preemptable: %s", e.what());
  } catch (...) {
    error("preempt/timeslice: preemptable: unknown exception");
  }
  return false;
}

int preempt_p_get_data(job_record_t* job, slurm_preempt_data_type_t type, void* data) {
  try {
    if (!data) return SLURM_ERROR;
    return GetData(job, type, data);
  } catch (const std::exception& e) {
    error("preempt/timeslice: get_data: %s", e.what());
  } catch (...) {
    error("preempt/timeslice: get_data: unknown exception");
  }
  return SLURM_ERROR;
}

}  // extern "C"
