// sbudget explain (explain.h).
#include "sbudget/explain.h"

#include "libbudget/policy/preemption_note.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <json-c/json.h>

#include "libbudget/policy/job_contract.h"
#include "libbudget/policy/job_notes.h"
#include "libbudget/config/log_safe.h"
#include "libbudget/policy/order.h"
#include "libbudget/config/time_string.h"
#include "libbudget/report/start_estimate.h"
#include "sbudget/report_table.h"

namespace sbudget {

using budget::FairShareOrder;
using budget::ReportSnapshot;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::TimePoint;

namespace {

// A pending job's start time this far ahead is Slurm's placeholder, not an
// estimate (ExplainPendingJob says why); backfill plans within bf_window,
// at most 30 days (bf_window's maximum, 43200 minutes).
constexpr budget::Seconds kNoEstimateAfter = 300 * 86400;

std::string Fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string RankText(uint32_t rank) {
  return rank == FairShareOrder::kNoRank ? std::string("none") : std::to_string(rank);
}

std::string NodeText(const SnapshotJob& j) {
  return j.has_node ? (j.node_path.empty() ? std::string("(root)") : j.node_path)
                    : std::string("no allocation");
}

// "in 4:00" / "4:00 ago", relative to now.
std::string Relative(TimePoint t, TimePoint now) {
  if (t >= now) return "in " + budget::FormatDuration(t - now);
  return budget::FormatDuration(now - t) + " ago";
}

void Line(std::string* out, const char* label, const std::string& text) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "  %-12s", label);
  *out += buf + text + "\n";
}

void ExplainContract(const SlurmJob* slurm, const SnapshotJob* job, std::string* out) {
  budget::JobContract contract;
  bool known = slurm != nullptr && budget::ParseContractRecord(slurm->admin_comment, &contract);
  if (!known && job != nullptr && job->contract_known) {
    contract.min_runtime = job->min_runtime;
    contract.resumable = job->resumable;
    contract.declared = true;
    known = true;
  }
  if (!known) {
    Line(out, "contract", "none recorded (job_submit/contract not active when it was submitted?)");
    return;
  }
  std::string text = contract.min_runtime > 0
                         ? "min-runtime " + budget::FormatDuration(contract.min_runtime) +
                               " (allocated work, charged to its budget)"
                         : std::string("min-runtime 0 (unallocated work: free, preemptible at any time)");
  if (!contract.declared) text += ", the default";
  text += contract.resumable ? "; resumable: requeued if preempted"
                             : "; not resumable: cancelled if preempted";
  Line(out, "contract", text);
}

void ExplainAllocation(const ReportSnapshot& s, const SnapshotJob& job, std::string* out) {
  if (!job.has_node) {
    Line(out, "allocation", "none: account '" + budget::LogSafe(job.account) +
                                "' maps to no node of the tree (runs as unallocated work, if at all)");
    return;
  }
  const budget::SnapshotNode* node = s.FindNode(job.node_path);
  uint32_t ranked = 0;
  for (const budget::SnapshotNode& n : s.nodes) ranked += n.has_rank() ? 1 : 0;
  std::string text = NodeText(job);
  if (node == nullptr) {
    Line(out, "allocation", text + " (not in the snapshot's tree)");
    return;
  }
  // The rank counts every node that holds jobs, other users' included
  // (sbudget -a shows them); Standing is what ranked it among its siblings.
  text += ": rank " + RankText(node->rank) + " of " + std::to_string(ranked) +
          " ranked nodes (0 is served first; sbudget -a lists them all); standing " + StandingText(*node) +
          " among its siblings; entitled to " + Fixed("%.2f%%", 100 * node->entitlement);
  Line(out, "allocation", text);
  const int decimals = GpuHoursDecimals({node->delivered, node->owed});
  Line(out, "", "delivered " + FormatGpuHours(node->delivered, decimals) + " of " +
                    FormatGpuHours(node->owed, decimals) + (s.gpu_type_weights.empty() ? "" : " weighted") +
                    " GPU-h owed over the window (" +
                    Fixed("%.0f%%", 100 * node->DeliveredOverOwed()) + ")");
}

void ExplainPriority(const SnapshotJob& job, std::string* out) {
  std::string text = std::to_string(job.priority) + " = ";
  text += job.allocated ? "allocated work (first)" : "unallocated work (after all allocated)";
  text += ", fair-share " + Fixed("%.3f", job.fairshare) + " (rank " + RankText(job.rank) +
          "), user priority " + std::to_string(job.user_priority) + " (orders jobs of its own allocation only)";
  Line(out, "priority", text);
}

// Why `ahead` is placed before `job`: the job order's words when both
// priorities are priority/budget's, else the bare numbers.
std::string WhyQueuedAhead(const QueuedJob& ahead, const QueuedJob& job) {
  if (ahead.decoded && job.decoded) return WhyAhead(ahead.job, job.job);
  if (ahead.job.priority != job.job.priority) {
    return "higher Slurm priority (" + std::to_string(ahead.job.priority) + " > " +
           std::to_string(job.job.priority) + "; " +
           (ahead.decoded ? "this job's" : "its") + " priority was not set by priority/budget)";
  }
  if (ahead.job.submit_time != job.job.submit_time) return "same priority, submitted earlier";
  return "same priority and submit time, lower job id";
}

void ExplainQueue(const std::vector<QueuedJob>& queue, const QueuedJob& job, std::string* out) {
  const size_t position = job.job.queue_position;
  Line(out, "queue", "position " + std::to_string(position + 1) + " of " +
                         std::to_string(queue.size()) + " pending jobs" +
                         (position == 0 ? std::string(": next to start when GPUs free up")
                                        : "; ahead of it:"));
  for (size_t i = 0; i < position && i < kMaxJobsAheadListed; ++i) {
    const QueuedJob& a = queue[i];
    const std::string where = a.decoded ? NodeText(a.job) : "account " + budget::LogSafe(a.job.account);
    Line(out, "", "  job " + std::to_string(a.job.job_id) + " (" + where + ", " +
                      std::to_string(a.job.gpus) + " GPUs): " + WhyQueuedAhead(a, job));
  }
  if (position > kMaxJobsAheadListed) {
    Line(out, "", "  ... and " + std::to_string(position - kMaxJobsAheadListed) + " more");
  }
}

// When time slicing can start the pending job `self` (start_estimate.h):
// the suite's own estimate beside Slurm's, which plans by time limits.
void ExplainTimeslicedStart(const ReportSnapshot& snapshot, const std::vector<QueuedJob>& queue,
                            const QueuedJob& self, TimePoint now, std::string* out, JobFacts* facts) {
  if (!self.job.allocated || self.job.rank == FairShareOrder::kNoRank) return;
  std::vector<SnapshotJob> ahead, running;
  for (const QueuedJob& q : queue)
    if (q.job.queue_position < self.job.queue_position) ahead.push_back(q.job);
  for (const SnapshotJob& j : snapshot.jobs)
    if (j.state == SnapshotJobState::kRunning) running.push_back(j);
  const budget::StartEstimate e =
      budget::EstimateStart(self.job, ahead, running, snapshot.capacity_gpus, now, snapshot.preempt_notice);
  const std::string needed = std::to_string(e.gpus_needed) + " GPUs (its own" +
                             (e.gpus_needed > self.job.gpus ? " and the allocated jobs ahead of it)" : ")");
  if (!e.known) {
    Line(out, "slicing", "time slicing cannot start it before work of allocations ranked ahead of it ends: " +
                             needed + " needed, " + std::to_string(e.gpus_releasable) +
                             " free or held by work ranked behind it");
    return;
  }
  facts->timeslice_start = e.at;
  const std::string when = e.at <= now ? std::string("at its next pass")
                                       : "from " + FormatTimestamp(e.at) + " (" + Relative(e.at, now) +
                                             "), when work ranked behind it ends its protection" +
                                             (snapshot.preempt_notice > 0
                                                  ? " and its notice (PreemptNotice=" +
                                                        std::to_string(snapshot.preempt_notice) + " s)"
                                                  : std::string());
  Line(out, "slicing", "time slicing can start it " + when + ": " + needed +
                           ", counted over the cluster, not per node; if no allocation ahead of it submits "
                           "more, and no hero hold or quick-start reserve takes them");
}

// A job Slurm says is pending: its place is its priority. `queue` is
// Slurm's pending jobs as PlacePendingJobs placed them (null: not listed).
void ExplainPendingJob(const SlurmJob& slurm, const std::vector<QueuedJob>* queue,
                       const ReportSnapshot* snapshot, TimePoint now, std::string* out, JobFacts* facts) {
  if (slurm.estimated_start > 0 && slurm.estimated_start - now >= kNoEstimateAfter) {
    // Not an estimate: Slurm plans a run without a time limit to end a year
    // after its start (job_end_time_reset in slurmctld), so a job that
    // waits behind one, or that no scheduler has planned since a requeue,
    // shows a start about a year away. squeue --start prints it as a date.
    Line(out, "start", "Slurm has no estimate (its start time, " + Relative(slurm.estimated_start, now) +
                           ", is a placeholder, not a plan)");
  } else if (slurm.estimated_start > 0) {
    // Slurm's own estimate (the backfill scheduler's), as squeue --start.
    Line(out, "start", "Slurm expects it to start at " + FormatTimestamp(slurm.estimated_start) + " (" +
                           Relative(slurm.estimated_start, now) + "), if nothing better placed arrives");
    facts->estimated_start = slurm.estimated_start;
  }
  if (snapshot == nullptr) {
    Line(out, "budget", "no budget snapshot to explain its place");
    return;
  }
  facts->priority = slurm.priority;
  if (slurm.priority == 0) {
    Line(out, "queue", "held (priority 0): not considered until released (scontrol release " +
                           std::to_string(slurm.job_id) + ")");
    return;
  }
  const QueuedJob* self = nullptr;
  if (queue != nullptr) {
    auto it = std::find_if(queue->begin(), queue->end(),
                           [&](const QueuedJob& q) { return q.job.job_id == slurm.job_id; });
    if (it != queue->end()) self = &*it;
  }
  const bool left_queue = queue != nullptr && self == nullptr;  // between the two requests
  std::vector<QueuedJob> alone;
  if (self == nullptr) {
    alone = PlacePendingJobs({slurm}, *snapshot);
    self = &alone[0];
  }
  if (!self->decoded) {
    Line(out, "priority", std::to_string(slurm.priority) +
                              ": not a priority priority/budget gives this job under the snapshot's ranks (set by "
                              "an operator with scontrol update, or the ranks changed since the snapshot: try "
                              "again after the next pass); its place follows that number");
  } else {
    ExplainAllocation(*snapshot, self->job, out);
    ExplainPriority(self->job, out);
    facts->decoded = true;
    facts->has_node = self->job.has_node;
    facts->node_path = self->job.node_path;
    facts->tree_rank = self->job.rank;
    facts->allocated = self->job.allocated;
  }
  if (queue == nullptr) {
    Line(out, "queue", "Slurm did not list the pending jobs: its position is unknown");
  } else if (left_queue) {
    Line(out, "queue", "no longer pending when Slurm listed the queue (started or cancelled since)");
  } else {
    ExplainQueue(*queue, *self, out);
    facts->queue_position = self->job.queue_position;
    facts->queue_length = queue->size();
    if (self->decoded) ExplainTimeslicedStart(*snapshot, *queue, *self, now, out, facts);
  }
}

void ExplainProtection(const SnapshotJob& job, TimePoint now, std::string* out) {
  if (job.state != SnapshotJobState::kRunning) return;
  if (!job.allocated) {
    Line(out, "protection", "none: unallocated work may be preempted by allocated work at any time");
  } else if (job.protection_end != SnapshotJob::kNoTime) {
    bool over = job.protection_end <= now;
    Line(out, "protection",
         std::string(over ? "ended " : "protected until ") + FormatTimestamp(job.protection_end) +
             " (" + Relative(job.protection_end, now) + ")" +
             (over ? "; runs on while its allocation ranks ahead of the waiting work that needs its GPUs"
                   : ", then preemptible"));
  }
}

// What became of a job preempt/timeslice took its GPUs from, from Slurm's
// record (the notes do not say): a requeued job is pending again, or ran
// since, with its restart count raised (job_requeue counts every requeue);
// a job it ended is PREEMPTED, Slurm's state for a job killed by a
// preemption (sched_timeslice/job_actions.cc: not resumable, or Slurm
// refused the requeue). Whether it was resumable is its contract's word,
// not Slurm's Requeue flag, which is also set for jobs an admin may requeue
// (libbudget/policy/requeue_request.h); a job without a contract record is
// resumable iff Slurm may requeue it, as preempt/timeslice reads it
// (sched_timeslice/job_facts.cc).
bool Resumable(const SlurmJob& slurm) {
  budget::JobContract contract;
  return budget::ParseContractRecord(slurm.admin_comment, &contract) ? contract.resumable : slurm.requeue;
}

std::string Outcome(const SlurmJob& slurm) {
  if (slurm.base_state == "PREEMPTED") {
    const bool resumable = Resumable(slurm);
    const std::string flag = std::string("Requeue=") + (slurm.requeue ? "1" : "0");
    return "not requeued: it ended (JobState=PREEMPTED; " +
           (resumable ? flag + ", but Slurm refused the requeue" : "not resumable, " + flag) + ")";
  }
  if (slurm.restart_count == 0) return "not requeued (JobState=" + slurm.base_state + ")";
  return "requeued (resumable), " + std::to_string(slurm.restart_count) + " restart(s) so far";
}

void ExplainPreemption(const SlurmJob* slurm, const SnapshotJob* job, TimePoint now, std::string* out,
                       JobFacts* facts) {
  if (job != nullptr && job->has_preemption) {
    const budget::PreemptionRecord& p = job->preemption;
    facts->preempted_by = p.preempted_by;
    facts->preemption_rule = p.rule;
    Line(out, "preempted", "at " + FormatTimestamp(p.at) + " by job " +
                               std::to_string(p.preempted_by) + ", rule \"" + p.rule + "\"; " +
                               (p.action == "requeue" ? "requeued (resumable)"
                                                      : "cancelled (not resumable)"));
    return;
  }
  if (slurm == nullptr) return;
  budget::PreemptionNote note;
  budget::DrainNote drain;
  // The notes on the job itself (preempt/timeslice writes them in its
  // SystemComment, which no user can write; job_notes.h). A note dated
  // after now is refused: the controller never writes one.
  const budget::JobNotes notes = budget::JobNotesOf(slurm->system_comment);
  const bool preempted = budget::ParsePreemptionNote(notes.departure, &note);
  const bool drained = !preempted && budget::ParseDrainNote(notes.departure, &drain);
  const budget::TimePoint told = preempted ? note.at_time : drained ? drain.at_time : 0;
  // Told to leave and still in its notice (PreemptNotice): it runs on.
  if ((preempted || drained) && told <= now && notes.notice_until > now && slurm->base_state == "RUNNING") {
    facts->preempted_by = preempted ? note.preempted_by : 0;
    facts->preemption_rule = preempted ? note.rule : "drain at contract end";
    facts->told_at = told;
    facts->notice_until = notes.notice_until;
    const std::string why = preempted ? "preempted by job " + std::to_string(note.preempted_by) + ", rule \"" +
                                            note.rule + "\""
                                      : "node " + drain.node + " is draining, rule \"drain at contract end\"";
    Line(out, "leaving", "told at " + (preempted ? note.at : drain.at) + " (" + why + "); it keeps its GPUs until " +
                             FormatTimestamp(notes.notice_until) + " (PreemptNotice), then it is " +
                             (Resumable(*slurm) ? "requeued (resumable)" : "cancelled (not resumable)") +
                             ", unless it ends first");
    return;
  }
  budget::TimePoint at = 0;
  const bool dated = budget::DepartureAt(notes, now, &at);
  // "; told then, gone by <notice end>" when it had a notice.
  std::string notice;
  if (dated && notes.notice_until != 0) {
    facts->told_at = told;
    facts->notice_until = notes.notice_until;
    notice = "told then, gone by " + FormatTimestamp(notes.notice_until) + "; ";
  }
  if (dated && preempted) {
    facts->preempted_by = note.preempted_by;
    facts->preemption_rule = note.rule;
    Line(out, "preempted", "at " + note.at + " by job " + std::to_string(note.preempted_by) + ", rule \"" +
                               note.rule + "\"; " + notice + Outcome(*slurm));
  } else if (dated && drained) {
    facts->preemption_rule = "drain at contract end";
    Line(out, "drained", (notice.empty() ? "left node " : "told to leave node ") + drain.node + " at " + drain.at +
                             ": the node is draining and the job's protection was over (rule \"drain at "
                             "contract end\"); " + notice + Outcome(*slurm));
  } else {
    if (!notes.departure.empty()) {
      Line(out, "note", "the job's note is dated after now and is ignored (was the clock set back?)");
    }
    if (slurm->restart_count > 0) {
      Line(out, "requeued", std::to_string(slurm->restart_count) +
                                " time(s); neither the snapshot nor the job records a preemption");
    }
  }
}

// The last contract change job_submit/contract refused: scontrol showed the
// requester only the error code's text (22.05's job_modify has no message).
void ExplainRefusal(const SlurmJob* slurm, std::string* out, JobFacts* facts) {
  if (slurm == nullptr) return;
  budget::RefusalNote refusal;
  if (!budget::ParseRefusalNote(budget::JobNotesOf(slurm->system_comment).refusal, &refusal)) return;
  facts->refused_change = refusal.reason;
  facts->refused_change_at = refusal.at_time;
  Line(out, "refused", "a contract change at " + refusal.at + ": " + refusal.reason);
}

}  // namespace

std::string WhyAhead(const SnapshotJob& ahead, const SnapshotJob& job) {
  if (ahead.allocated != job.allocated) return "allocated work goes before unallocated work";
  if (ahead.rank != job.rank) {
    if (job.rank == FairShareOrder::kNoRank) {
      return "its allocation has a rank, this job's has none";
    }
    return "its allocation ranks ahead (rank " + RankText(ahead.rank) + " < " +
           RankText(job.rank) + ": more under-served)";
  }
  if (ahead.user_priority != job.user_priority) {
    return "same allocation, higher user priority (" + std::to_string(ahead.user_priority) +
           " > " + std::to_string(job.user_priority) + ")";
  }
  if (ahead.submit_time != job.submit_time) return "same allocation and priority, submitted earlier";
  return "same allocation, priority and submit time, lower job id";
}

std::string WrapExplanation(const std::string& text, size_t width) {
  constexpr size_t kLabelColumns = 14;  // "  " and a 12-character label (Line)
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t eol = text.find('\n', start);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(start, eol - start);
    start = eol + 1;
    // Where the line's text begins: after the label column for a labelled
    // line (and after the text's own indent), else 4 spaces in.
    size_t indent = 4;
    if (line.rfind("  ", 0) == 0 && line.size() > kLabelColumns) {
      size_t body = line.find_first_not_of(' ', kLabelColumns);
      indent = body == std::string::npos ? kLabelColumns : body;
    }
    std::string prefix;
    while (line.size() > width && width > indent + 20) {
      size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent) break;
      out += prefix + line.substr(0, cut) + "\n";
      line = std::string(indent, ' ') + line.substr(cut + 1);
    }
    out += line + "\n";
  }
  return out;
}

std::vector<QueuedJob> PlacePendingJobs(const std::vector<SlurmJob>& pending, const ReportSnapshot& snapshot) {
  // Per rank: the node, and the account its jobs come from (its own, else
  // its nearest ancestor's; nodes are in pre-order with their depth).
  std::vector<const budget::SnapshotNode*> node_of_rank;
  std::vector<std::string> account_of_rank;
  std::vector<std::string> account_at_depth;
  for (const budget::SnapshotNode& n : snapshot.nodes) {
    const size_t depth = static_cast<size_t>(std::max(n.depth, 0));
    account_at_depth.resize(depth + 1);
    account_at_depth[depth] =
        !n.account.empty() ? n.account : depth > 0 ? account_at_depth[depth - 1] : std::string();
    if (!n.has_rank()) continue;
    if (n.rank >= node_of_rank.size()) {
      node_of_rank.resize(n.rank + 1, nullptr);
      account_of_rank.resize(n.rank + 1);
    }
    node_of_rank[n.rank] = &n;
    account_of_rank[n.rank] = account_at_depth[depth];
  }
  const uint32_t ranked = static_cast<uint32_t>(node_of_rank.size());
  std::vector<QueuedJob> queue;
  queue.reserve(pending.size());
  for (const SlurmJob& slurm : pending) {
    if (slurm.priority == 0) continue;  // held
    QueuedJob q;
    SnapshotJob& j = q.job;
    j.job_id = slurm.job_id;
    j.state = SnapshotJobState::kPending;
    j.user = slurm.user;
    j.account = slurm.account;
    j.gpus = slurm.gpus;
    j.priority = slurm.priority;
    j.submit_time = slurm.submit_time;
    budget::JobContract contract;
    j.contract_known = budget::ParseContractRecord(slurm.admin_comment, &contract);
    j.min_runtime = contract.min_runtime;
    j.resumable = contract.resumable;
    budget::PriorityFactors f;
    q.decoded = budget::DecodePriority(slurm.priority, ranked, &f);
    if (q.decoded && f.rank != FairShareOrder::kNoRank) {
      // The node of that rank in this snapshot must be one the job's account
      // (and user) can be charged to: a priority set by an order whose ranks
      // differ from the snapshot's (a pass without a report, a changed tree)
      // would otherwise be read as another team's.
      const budget::SnapshotNode* node = node_of_rank[f.rank];
      q.decoded = node != nullptr && account_of_rank[f.rank] == slurm.account &&
                  (node->user.empty() || node->user == slurm.user);
    }
    if (q.decoded) {
      j.allocated = f.allocated;
      j.rank = f.rank;
      j.fairshare = f.fairshare;
      j.user_priority = f.user_priority;
      if (f.rank != FairShareOrder::kNoRank) {
        j.has_node = true;
        j.node_path = node_of_rank[f.rank]->path;
      }
    }
    queue.push_back(std::move(q));
  }
  std::sort(queue.begin(), queue.end(), [](const QueuedJob& a, const QueuedJob& b) {
    if (a.job.priority != b.job.priority) return a.job.priority > b.job.priority;
    if (a.job.submit_time != b.job.submit_time) return a.job.submit_time < b.job.submit_time;
    return a.job.job_id < b.job.job_id;
  });
  for (size_t i = 0; i < queue.size(); ++i) queue[i].job.queue_position = static_cast<uint32_t>(i);
  return queue;
}

budget::Status ExplainJob(uint32_t job_id, const SlurmJob* slurm, const std::vector<SlurmJob>* pending,
                          const ReportSnapshot* snapshot, TimePoint now, std::string* out) {
  std::vector<QueuedJob> queue;
  const bool place = slurm != nullptr && slurm->state == "PENDING" && snapshot != nullptr && pending != nullptr;
  if (place) queue = PlacePendingJobs(*pending, *snapshot);
  JobFacts facts;
  return ExplainPlacedJob(job_id, slurm, place ? &queue : nullptr, snapshot, now, out, &facts);
}

budget::Status ExplainPlacedJob(uint32_t job_id, const SlurmJob* slurm, const std::vector<QueuedJob>* queue,
                                const ReportSnapshot* snapshot, TimePoint now, std::string* out,
                                JobFacts* facts) {
  *facts = JobFacts();
  const bool slurm_pending = slurm != nullptr && slurm->state == "PENDING";
  // A pending job's place is its priority, not a row (reports before
  // version 3 listed pending jobs; their rows are not used).
  const SnapshotJob* job =
      snapshot != nullptr && !slurm_pending ? snapshot->FindJob(job_id) : nullptr;
  if (slurm == nullptr && job == nullptr) {
    return budget::Status::NotFound("job " + std::to_string(job_id) +
                                    " is known neither to Slurm nor to the budget snapshot");
  }
  std::string text = "Job " + std::to_string(job_id);
  if (slurm != nullptr) {
    text += ": " + slurm->state;
    if (!slurm->reason.empty() && slurm->reason != "None") text += " (Reason=" + slurm->reason + ")";
    // The account is whatever the job's owner typed (-A): quoted safely.
    text += ", user " + slurm->user + ", account " + budget::LogSafe(slurm->account);
  } else {
    text += ": " + std::string(budget::SnapshotJobStateName(job->state)) + " in the snapshot, user " +
            job->user + ", account " + budget::LogSafe(job->account) + " (Slurm did not answer for it)";
  }
  *out = text + "\n";
  ExplainContract(slurm, job, out);
  ExplainRefusal(slurm, out, facts);
  if (slurm_pending) {
    ExplainPendingJob(*slurm, queue, snapshot, now, out, facts);
    ExplainPreemption(slurm, nullptr, now, out, facts);
    return budget::Status::Ok();
  }
  if (job == nullptr) {
    Line(out, "budget", snapshot == nullptr
                            ? "no budget snapshot to explain its place"
                            : "not in the budget snapshot (finished, or newer than the snapshot)");
    ExplainPreemption(slurm, nullptr, now, out, facts);
    return budget::Status::Ok();
  }
  ExplainAllocation(*snapshot, *job, out);
  ExplainPriority(*job, out);
  ExplainProtection(*job, now, out);
  ExplainPreemption(slurm, job, now, out, facts);
  facts->decoded = true;
  facts->has_node = job->has_node;
  facts->node_path = job->node_path;
  facts->tree_rank = job->rank;
  facts->allocated = job->allocated;
  facts->priority = job->priority;
  if (job->protection_end != SnapshotJob::kNoTime) facts->protection_end = job->protection_end;
  return budget::Status::Ok();
}

std::string FormatExplanationsJson(const std::vector<Explanation>& jobs) {
  json_object* array = json_object_new_array();
  for (const Explanation& e : jobs) {
    const JobFacts& f = e.facts;
    json_object* o = json_object_new_object();
    auto add = [o](const char* key, json_object* v) { json_object_object_add(o, key, v); };
    auto str = [](const std::string& v) { return json_object_new_string(v.c_str()); };
    auto time_or_null = [](TimePoint t) { return t > 0 ? json_object_new_int64(t) : nullptr; };
    add("job_id", json_object_new_int64(e.slurm.job_id));
    add("state", str(e.slurm.state));
    add("reason", str(e.slurm.reason));
    add("user", str(e.slurm.user));
    add("account", str(e.slurm.account));
    add("gpus", json_object_new_int64(e.slurm.gpus));
    budget::JobContract contract;
    const bool known = budget::ParseContractRecord(e.slurm.admin_comment, &contract);
    add("min_runtime", known ? json_object_new_int64(contract.min_runtime) : nullptr);
    add("resumable", known ? json_object_new_boolean(contract.resumable) : nullptr);
    add("allocation", f.decoded && f.has_node ? str(f.node_path) : nullptr);
    add("allocated", f.decoded ? json_object_new_boolean(f.allocated) : nullptr);
    add("tree_rank", f.decoded && f.tree_rank != FairShareOrder::kNoRank ? json_object_new_int64(f.tree_rank)
                                                                          : nullptr);
    add("priority", e.slurm.priority > 0 || f.priority > 0 ? json_object_new_int64(e.slurm.priority) : nullptr);
    add("queue_position", f.queue_position != SnapshotJob::kNoPosition
                              ? json_object_new_int64(int64_t(f.queue_position) + 1)
                              : nullptr);
    add("queue_length", f.queue_position != SnapshotJob::kNoPosition ? json_object_new_int64(f.queue_length)
                                                                     : nullptr);
    add("submit_time", time_or_null(e.slurm.submit_time));
    add("start_time", time_or_null(e.slurm.start_time));
    add("estimated_start", time_or_null(f.estimated_start));
    add("timeslice_start", time_or_null(f.timeslice_start));
    add("protection_end", f.protection_end != SnapshotJob::kNoTime ? json_object_new_int64(f.protection_end)
                                                                   : nullptr);
    add("preempted_by", f.preempted_by > 0 ? json_object_new_int64(f.preempted_by) : nullptr);
    add("preemption_rule", f.preemption_rule.empty() ? nullptr : str(f.preemption_rule));
    add("told_at", time_or_null(f.told_at));
    add("notice_until", time_or_null(f.notice_until));
    add("refused_change", f.refused_change.empty() ? nullptr : str(f.refused_change));
    add("refused_change_at", f.refused_change.empty() ? nullptr : json_object_new_int64(f.refused_change_at));
    json_object* lines = json_object_new_array();
    size_t start = 0;
    while (start < e.text.size()) {
      size_t eol = e.text.find('\n', start);
      if (eol == std::string::npos) eol = e.text.size();
      json_object_array_add(lines, json_object_new_string(e.text.substr(start, eol - start).c_str()));
      start = eol + 1;
    }
    add("explanation", lines);
    json_object_array_add(array, o);
  }
  std::string text = json_object_to_json_string_ext(
      array, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
  json_object_put(array);
  return text + "\n";
}

}  // namespace sbudget
