// Report writer: see report_writer.h.
#include "priority_budget/report_writer.h"

#include "libbudget/policy/packing_state.h"
#include "libbudget/report/report_builders.h"
#include "libbudget/report/history_cache.h"
#include "priority_budget/usage_charging.h"

namespace budget_prio {

namespace {

budget::SnapshotJob ToSnapshotJob(const OrderView& view, const JobView& job, budget::NodeId node) {
  budget::SnapshotJob out;
  out.job_id = job.job_id;
  out.state = job.phase == JobPhase::kPending ? budget::SnapshotJobState::kPending
                                              : budget::SnapshotJobState::kRunning;
  out.user = job.user;
  out.account = job.account;
  out.has_node = node != budget::kNoNode;
  if (out.has_node) out.node_path = view.tree().node(node).path;
  out.gpus = static_cast<uint32_t>(job.gpus);
  out.contract_known = job.has_contract;
  out.min_runtime = job.has_contract ? job.contract.min_runtime : view.config.default_min_runtime;
  out.resumable = job.has_contract && job.contract.resumable;
  out.user_priority = UserPriorityFromNice(job.nice);
  out.submit_time = job.submit_time;
  if (job.phase != JobPhase::kPending) {
    out.start_time = job.start_time;
    if (out.min_runtime > 0) out.protection_end = job.start_time + out.min_runtime;
  }
  return out;
}

}  // namespace

budget::Status BuildReport(const PassResult& pass, const std::vector<JobView>& jobs, double capacity_gpus,
                           const std::string& tree_source, budget::TimePoint now, budget::Ledger* ledger,
                           budget::ReportSnapshot* report, budget::SubtreeHistoryCache* history_cache) {
  const OrderView& view = *pass.view;
  report->generated_at = now;
  report->tree_source = tree_source;
  report->window = ledger->options().window;
  report->bucket_width = ledger->options().bucket_width;
  report->recalc_interval = view.config.recalc_interval;
  report->preempt_notice = view.config.preempt_notice;
  report->capacity_gpus = capacity_gpus;  // weighted GPUs with GpuTypeWeights
  report->gpu_type_weights = view.config.gpu_type_weights;

  // Pending jobs are counted (pass.activity), not listed: their place is
  // their Slurm priority (report_snapshot.h, version 3).
  report->jobs.clear();  // keeps its capacity
  for (size_t i : pass.running_jobs) {
    report->jobs.push_back(ToSnapshotJob(view, jobs[i], NodeOf(view.tree(), jobs[i])));
  }
  budget::Status st =
      budget::BuildSnapshotNodes(view.tree(), view.order, pass.activity, now, ledger, report,
                                 history_cache != nullptr ? -1 : kReportHistoryDepth, history_cache);
  if (!st.ok()) return st;
  budget::RankSnapshotJobs(view.tree(), view.order, &report->jobs);
  report->tree_loaded = true;
  return budget::Status::Ok();
}

budget::Status AddFragmentation(const std::string& packing_state_file, budget::ReportSnapshot* report) {
  report->has_fragmentation = false;
  budget::PackingState packing;
  budget::Status st = budget::LoadPackingState(packing_state_file, &packing);
  if (st.IsNotFound()) return budget::Status::Ok();
  if (!st.ok()) return st;
  report->has_fragmentation = true;
  report->fragmentation = packing.fragmentation;
  return budget::Status::Ok();
}

void BuildNoTreeReport(const budget::BudgetConfig& config, const std::string& tree_source, budget::TimePoint now,
                       budget::ReportSnapshot* report) {
  *report = budget::ReportSnapshot();
  report->generated_at = now;
  report->tree_source = tree_source;
  report->tree_loaded = false;
  report->window = config.lookback_window;
  report->bucket_width = config.ledger_bucket;
  report->recalc_interval = config.recalc_interval;
  report->preempt_notice = config.preempt_notice;
  report->gpu_type_weights = config.gpu_type_weights;
}

}  // namespace budget_prio
