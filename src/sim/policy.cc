#include "sim/policy.h"

#include "sim/budget_policy.h"
#include "sim/fairtree_policy.h"
#include "sim/fairtree_qos_policy.h"
#include "sim/fifo_policy.h"
#include "sim/priority_policy.h"

namespace budget {
namespace sim {

bool Policy::Admit(uint32_t, Seconds*, std::string*) { return true; }
bool Policy::MayStart(uint32_t) { return true; }

bool Policy::RefusedAsUnknownAccount(uint32_t job, std::string* why) const {
  if ((*ctx_.jobs)[job].node != kNoNode || ctx_.config->unknown_account != UnknownAccountPolicy::kReject)
    return false;
  *why = "account '" + ctx_.workload->accounts[ctx_.workload->jobs[job].account] +
         "' in no tree node (UnknownAccount=reject)";
  return true;
}
JobShape Policy::BaseShape(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  JobShape s;
  s.job_id = ctx_.workload->jobs[job].id;
  s.allocation = j.node == kNoNode ? kNoAllocation : j.node;
  s.node_count = j.shape.node_count;
  s.gpus_per_node = j.shape.gpus_per_node;
  return s;
}

RunningJob Policy::BaseRecord(uint32_t job) const {
  const SimJob& j = (*ctx_.jobs)[job];
  const TraceJob& t = ctx_.workload->jobs[job];
  RunningJob r;
  r.job_id = t.id;
  r.allocation = j.node == kNoNode ? kNoAllocation : j.node;
  r.start = j.run_start;
  r.resumable = t.resumable;
  return r;
}

JobShape Policy::PendingShape(uint32_t) const { return JobShape(); }
RunningJob Policy::RunningRecord(uint32_t) const { return RunningJob(); }
const std::vector<Standing>& Policy::standings() const { return no_standings_; }
void Policy::AddCommitments(const std::vector<RunningJob>&, TimePoint, std::vector<Standing>*) const {}
ClusterScale Policy::scale() const { return ClusterScale(); }
TimePoint Policy::PreemptibleFrom(uint32_t job) const { return (*ctx_.jobs)[job].run_start; }

std::unique_ptr<Policy> MakePolicy(const std::string& name) {
  if (name == "budget") return std::make_unique<BudgetPolicy>();
  if (name == "fairtree") return std::make_unique<FairTreePolicy>();
  if (name == "fairtree+qos") return std::make_unique<FairTreeQosPolicy>();
  if (name == "priority") return std::make_unique<PriorityPolicy>();
  if (name == "fifo") return std::make_unique<FifoPolicy>();
  return nullptr;
}

const char* PolicyNames() { return "budget,fairtree,fairtree+qos,priority,fifo"; }

}  // namespace sim
}  // namespace budget
