#include "sim/policy.h"

#include "sim/budget_policy.h"
#include "sim/fairtree_policy.h"
#include "sim/fifo_policy.h"
#include "sim/priority_policy.h"

namespace budget {
namespace sim {

bool Policy::Admit(uint32_t, Seconds*, std::string*) { return true; }

bool Policy::RefusedAsUnknownAccount(uint32_t job, std::string* why) const {
  if ((*ctx_.jobs)[job].node != kNoNode || ctx_.config->unknown_account != UnknownAccountPolicy::kReject)
    return false;
  *why = "account '" + ctx_.workload->accounts[ctx_.workload->jobs[job].account] +
         "' in no tree node (UnknownAccount=reject)";
  return true;
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
  if (name == "priority") return std::make_unique<PriorityPolicy>();
  if (name == "fifo") return std::make_unique<FifoPolicy>();
  return nullptr;
}

const char* PolicyNames() { return "budget,fairtree,priority,fifo"; }

}  // namespace sim
}  // namespace budget
