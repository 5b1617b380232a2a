// Small builders shared by the simulator's tests: a workload from rows, a
// tree from JSON, one run with decisions recorded.
#ifndef SLURM_BUDGET_SIM_SIM_TEST_UTIL_H_
#define SLURM_BUDGET_SIM_SIM_TEST_UTIL_H_

#include <string>
#include <vector>

#include "libbudget/config/config.h"
#include "libbudget/testing/test_support.h"
#include "libbudget/state/tree.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/workload.h"

namespace budget {
namespace sim {
namespace testing {

struct Row {
  TimePoint submit;
  const char* account;
  uint32_t gpus;
  Seconds duration;
  Seconds min_runtime;
  bool resumable;
  uint32_t priority;
};

inline Workload MakeWorkload(const std::vector<Row>& rows) {
  Workload w;
  for (const Row& r : rows) {
    TraceJob j;
    j.submit = r.submit;
    j.account = w.InternAccount(r.account);
    j.user = w.InternUser(std::string(r.account) + "-user");
    j.gpus = r.gpus;
    j.duration = r.duration;
    // The rule of every trace without a limit (workload.h): the rows give none.
    j.time_limit = DeriveTimeLimit(r.duration, kDefaultTimeLimitFactor);
    j.min_runtime = r.min_runtime;
    j.resumable = r.resumable;
    j.priority = r.priority;
    w.jobs.push_back(j);
  }
  w.SortAndNumber();
  return w;
}

inline AllocationTree MakeTree(const char* json) {
  AllocationTree tree;
  Status st = AllocationTree::Parse(json, "test tree", &tree, nullptr);
  if (!st.ok()) tree = AllocationTree();
  return tree;
}

// Two teams a and b at equal share.
constexpr const char kTwoTeams[] =
    R"({"name":"c","children":[{"name":"a","share":1,"account":"a"},)"
    R"({"name":"b","share":1,"account":"b"}]})";

inline RunOutput Run(const std::string& policy_name, const Workload& w, const AllocationTree& tree,
                     uint32_t nodes, TimePoint until, const BudgetConfig& config = BudgetConfig(),
                     EngineOptions options = EngineOptions()) {
  options.nodes = nodes;
  options.gpus_per_node = 8;
  options.until = until;
  options.record_decisions = true;
  options.record_timeline = true;
  std::unique_ptr<Policy> policy = MakePolicy(policy_name);
  RunOutput out;
  Status st = RunSimulation(w, tree, config, options, policy.get(), &out);
  if (!st.ok()) out.result.policy = "error: " + st.message();
  return out;
}

// The time job `id` started for the n-th time (0-based), or -1.
inline TimePoint StartTime(const RunOutput& out, uint32_t id, int nth = 0) {
  for (const Decision& d : out.decisions)
    if (d.kind == Decision::Kind::kStart && d.job_id == id && nth-- == 0) return d.time;
  return -1;
}

// The time job `id` was preempted (first time), and by whom, or -1.
inline TimePoint PreemptTime(const RunOutput& out, uint32_t id, uint32_t* by = nullptr) {
  for (const Decision& d : out.decisions) {
    if (d.kind == Decision::Kind::kPreempt && d.job_id == id) {
      if (by) *by = d.by_job_id;
      return d.time;
    }
  }
  return -1;
}

inline TimePoint FinishTime(const RunOutput& out, uint32_t id) {
  for (const Decision& d : out.decisions)
    if (d.kind == Decision::Kind::kFinish && d.job_id == id) return d.time;
  return -1;
}

// Job a of workload wa and job b of wb are the same trace job (accounts and
// users compared by name).
inline void AssertSameJob(const Workload& wa, const TraceJob& a, const Workload& wb, const TraceJob& b) {
  assert_int_equal(a.id, b.id);
  assert_int_equal(a.submit, b.submit);
  assert_string_equal(wa.accounts[a.account].c_str(), wb.accounts[b.account].c_str());
  assert_string_equal(wa.UserName(a.user).c_str(), wb.UserName(b.user).c_str());
  assert_int_equal(a.gpus, b.gpus);
  assert_int_equal(a.duration, b.duration);
  assert_int_equal(a.min_runtime, b.min_runtime);
  assert_int_equal(a.resumable, b.resumable);
  assert_int_equal(a.priority, b.priority);
  assert_int_equal(a.time_limit, b.time_limit);
}

}  // namespace testing
}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_SIM_TEST_UTIL_H_
