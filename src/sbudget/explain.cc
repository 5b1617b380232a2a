// sbudget explain (explain.h).
#include "sbudget/explain.h"

#include "libbudget/preemption_note.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "libbudget/job_contract.h"
#include "libbudget/order.h"
#include "libbudget/time_string.h"
#include "sbudget/report_table.h"

namespace sbudget {

using budget::FairShareOrder;
using budget::ReportSnapshot;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::TimePoint;

namespace {

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
                    : std::string("(no allocation)");
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
    Line(out, "allocation", "none: account '" + job.account +
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
  text += ": rank " + RankText(node->rank) + " of " + std::to_string(ranked) +
          " (0 is served first), usage ratio " + Fixed("%.3f", node->usage_ratio) +
          " of its entitlement " + Fixed("%.2f%%", 100 * node->entitlement);
  Line(out, "allocation", text);
  Line(out, "", "delivered " + FormatGpuHours(node->delivered) + " of " +
                    FormatGpuHours(node->owed) + " GPU-h owed over the window (" +
                    Fixed("%.0f%%", 100 * node->DeliveredOverOwed()) + ")");
}

void ExplainPriority(const SnapshotJob& job, std::string* out) {
  std::string text = std::to_string(job.priority) + " = ";
  text += job.allocated ? "allocated work (first)" : "unallocated work (after all allocated)";
  text += ", fair-share " + Fixed("%.3f", job.fairshare) + " (rank " + RankText(job.rank) +
          "), user priority " + std::to_string(job.user_priority) + " (orders jobs of its own allocation only)";
  Line(out, "priority", text);
}

void ExplainQueue(const ReportSnapshot& s, const SnapshotJob& job, std::string* out) {
  std::vector<const SnapshotJob*> ahead;
  size_t pending = 0;
  for (const SnapshotJob& j : s.jobs) {
    if (j.state != SnapshotJobState::kPending) continue;
    ++pending;
    if (j.queue_position < job.queue_position) ahead.push_back(&j);
  }
  if (job.queue_position == SnapshotJob::kNoPosition) {
    Line(out, "queue", "no place in the plugin's queue");
    return;
  }
  std::sort(ahead.begin(), ahead.end(), [](const SnapshotJob* a, const SnapshotJob* b) {
    return a->queue_position < b->queue_position;
  });
  Line(out, "queue", "position " + std::to_string(job.queue_position + 1) + " of " +
                         std::to_string(pending) + " pending jobs" +
                         (ahead.empty() ? std::string(": next to start when GPUs free up")
                                        : "; ahead of it:"));
  for (size_t i = 0; i < ahead.size() && i < kMaxJobsAheadListed; ++i) {
    const SnapshotJob& a = *ahead[i];
    Line(out, "", "  job " + std::to_string(a.job_id) + " (" + NodeText(a) + ", " +
                      std::to_string(a.gpus) + " GPUs): " + WhyAhead(a, job));
  }
  if (ahead.size() > kMaxJobsAheadListed) {
    Line(out, "", "  ... and " + std::to_string(ahead.size() - kMaxJobsAheadListed) + " more");
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

void ExplainPreemption(const SlurmJob* slurm, const SnapshotJob* job, std::string* out) {
  if (job != nullptr && job->has_preemption) {
    const budget::PreemptionRecord& p = job->preemption;
    Line(out, "preempted", "at " + FormatTimestamp(p.at) + " by job " +
                               std::to_string(p.preempted_by) + ", rule \"" + p.rule + "\"; " +
                               (p.action == "requeue" ? "requeued (resumable)"
                                                      : "cancelled (not resumable)"));
    return;
  }
  budget::PreemptionNote note;
  if (slurm != nullptr && budget::ParsePreemptionNote(slurm->comment, &note)) {
    // The note on the job itself (sched/timeslice writes it at preemption).
    bool cancelled = slurm->state == "CANCELLED";
    Line(out, "preempted", "at " + note.at + " by job " + std::to_string(note.preempted_by) + ", rule \"" +
                               note.rule + "\"; " +
                               (cancelled ? "cancelled (not resumable)"
                                          : "requeued (resumable), " + std::to_string(slurm->restart_count) +
                                                " restart(s) so far"));
  } else if (slurm != nullptr && slurm->restart_count > 0) {
    Line(out, "requeued", std::to_string(slurm->restart_count) +
                              " time(s); neither the snapshot nor the job records a preemption");
  }
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

budget::Status ExplainJob(uint32_t job_id, const SlurmJob* slurm, const ReportSnapshot* snapshot,
                          TimePoint now, std::string* out) {
  const SnapshotJob* job = snapshot != nullptr ? snapshot->FindJob(job_id) : nullptr;
  if (slurm == nullptr && job == nullptr) {
    return budget::Status::NotFound("job " + std::to_string(job_id) +
                                    " is known neither to Slurm nor to the budget snapshot");
  }
  std::string text = "Job " + std::to_string(job_id);
  if (slurm != nullptr) {
    text += ": " + slurm->state;
    if (!slurm->reason.empty() && slurm->reason != "None") text += " (Reason=" + slurm->reason + ")";
    text += ", user " + slurm->user + ", account " + slurm->account;
  } else {
    text += ": " + std::string(budget::SnapshotJobStateName(job->state)) + " in the snapshot, user " +
            job->user + ", account " + job->account + " (Slurm did not answer for it)";
  }
  *out = text + "\n";
  ExplainContract(slurm, job, out);
  if (job == nullptr) {
    Line(out, "budget", snapshot == nullptr
                            ? "no budget snapshot to explain its place"
                            : "not in the budget snapshot (finished, or newer than the snapshot)");
    ExplainPreemption(slurm, nullptr, out);
    return budget::Status::Ok();
  }
  ExplainAllocation(*snapshot, *job, out);
  ExplainPriority(*job, out);
  if (job->state == SnapshotJobState::kPending) ExplainQueue(*snapshot, *job, out);
  ExplainProtection(*job, now, out);
  ExplainPreemption(slurm, job, out);
  return budget::Status::Ok();
}

}  // namespace sbudget
