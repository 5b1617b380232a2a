// The budget policy orders the queue as the plugins do: its lane order is
// the core's job order (and so Slurm's queue order under priority/budget).
// A run's preemptions are the time-slicing pass's (libbudget/
// timeslice_plan.h, which the engine calls), so they keep the contract
// rules: checked here on every preemption of a two-day run.
#include "libbudget/testing/test_support.h"

#include <algorithm>
#include <map>
#include <set>

#include "libbudget/policy/commitments.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/order.h"
#include "libbudget/policy/packing.h"
#include "libbudget/policy/preempt.h"
#include "sim/budget_policy.h"
#include "sim/generator.h"
#include "sim/sim_test_util.h"
#include "sim/trace_reader.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

const char kTree[] =
    R"({"name":"c","children":[)"
    R"({"name":"llm","share":50,"children":[)"
    R"({"name":"pre","share":70,"account":"pre","children":[{"name":"u1","share":1,"user":"pre-u1"}]},)"
    R"({"name":"post","share":30,"account":"post"}]},)"
    R"({"name":"rob","share":30,"account":"rob"},)"
    R"({"name":"sci","share":20,"account":"sci"}]})";

Workload Scenario(double days, uint64_t seed) {
  ScenarioSpec spec;
  spec.seed = seed;
  spec.days = days;
  const char* accounts[] = {"pre", "post", "rob", "sci"};
  for (int t = 0; t < 4; ++t) {
    TeamSpec team;
    team.account = accounts[t];
    team.users = 3;
    StreamSpec debug;
    debug.per_hour = 2;
    debug.gpus = {1, 2};
    debug.duration.a = 900;
    debug.min_runtime = 900;
    debug.priority = 5;
    StreamSpec train;
    train.per_hour = 0.6;
    train.gpus = {4, 8, 16};
    train.duration.kind = DurationDist::Kind::kLognormal;
    train.duration.a = 5400;
    train.duration.b = 0.7;
    train.duration.min = 600;
    train.duration.max = 86400;
    train.min_runtime = 1800;
    train.unallocated_share = 0.3;
    train.priority = uint32_t(t);
    team.streams = {debug, train};
    spec.teams.push_back(team);
  }
  Workload w;
  GenerateWorkload(spec, &w);
  return w;
}

void test_queue_order_is_the_core_job_order(void**) {
  Workload w = Scenario(1, 11);
  AllocationTree tree = MakeTree(kTree);
  assert_true(tree.size() > 0);
  BudgetConfig config;
  PolicyOptions popts;
  Cluster cluster(4, 8, {}, true);
  std::vector<SimJob> jobs(w.jobs.size());
  BudgetPolicy policy;
  SimContext ctx{&w, &tree, &config, &popts, &jobs, &cluster};
  assert_true(policy.Init(ctx).ok());
  // Every job waits, but the first 20 ran for a while first, so the teams
  // have different usage and the ranks differ from the tree order.
  std::vector<PendingJob> pending;
  for (uint32_t i = 0; i < jobs.size(); ++i) {
    const TraceJob& t = w.jobs[i];
    jobs[i].node = tree.NodeFor(w.accounts[t.account], w.UserName(t.user));
    jobs[i].shape = ShapeFor(t.gpus, 8);
    jobs[i].min_runtime = t.min_runtime;
    if (i < 20) {
      jobs[i].run_start = 0;
      policy.OnStart(i, 0);
      policy.OnStop(i, 100 + 50 * i);
    }
    jobs[i].queue_submit = t.submit;
    policy.Enqueue(i, t.submit);
    pending.push_back(PendingJob{t.id, jobs[i].node, t.min_runtime > 0, t.priority, t.submit});
  }
  policy.Recompute(86400);
  policy.order().SortJobs(&pending);
  std::vector<uint32_t> visited;
  for (uint32_t lane : policy.lane_order())
    for (const PendingQueue::Key& k : policy.queue().lane(lane))
      visited.push_back(w.jobs[PendingQueue::JobOf(k)].id);
  assert_int_equal(visited.size(), pending.size());
  for (size_t i = 0; i < pending.size(); ++i) assert_int_equal(visited[i], pending[i].job_id);
}

void test_every_preemption_keeps_the_contract(void**) {
  // Two days of four teams on 4 nodes (32 GPUs): debug streams, training,
  // free work; demand well above capacity, so there are preemptions.
  Workload w = Scenario(2, 5);
  AllocationTree tree = MakeTree(kTree);
  RunOutput out = Run("budget", w, tree, 4, 2 * 86400);
  assert_true(out.result.preemptions > 10);
  // The runs by job: when each started, and its contract.
  std::map<uint32_t, TimePoint> started;  // trace id -> current run's start
  size_t checked = 0;
  for (const Decision& d : out.decisions) {
    if (d.kind == Decision::Kind::kStart) started[d.job_id] = d.time;
    if (d.kind != Decision::Kind::kPreempt) continue;
    const TraceJob& victim = w.jobs[d.job_id - 1];
    // Never inside its protection.
    assert_true(d.time >= started.at(d.job_id) + victim.min_runtime);
    if (d.by_job_id == 0) continue;  // a drain (none here)
    const TraceJob& by = w.jobs[d.by_job_id - 1];
    // Only allocated work preempts, and allocated work only of another
    // allocation (the same one only for free work).
    assert_true(by.min_runtime > 0);
    auto node_of = [&](const TraceJob& t) { return tree.NodeFor(w.accounts[t.account], w.UserName(t.user)); };
    if (victim.min_runtime > 0) assert_true(node_of(by) != node_of(victim));
    ++checked;
  }
  assert_int_equal(checked, out.result.preemptions);
  // Every preemptor started within one pass of its grant: the victims'
  // GPUs went to it, not to a job Slurm tries first (the pass serves the
  // jobs in Slurm's own order). At most a few do not (a higher-priority
  // job that fits once the victims leave takes them first).
  size_t served = 0, grants = 0;
  std::set<std::pair<uint32_t, TimePoint>> seen;
  for (const Decision& d : out.decisions) {
    if (d.kind != Decision::Kind::kPreempt || d.by_job_id == 0 || !seen.insert({d.by_job_id, d.time}).second) continue;
    ++grants;
    for (const Decision& e : out.decisions)
      if (e.kind == Decision::Kind::kStart && e.job_id == d.by_job_id && e.time >= d.time && e.time <= d.time + 30) {
        ++served;
        break;
      }
  }
  std::printf("     %zu grants, %zu started within one pass\n", grants, served);
  assert_true(served * 10 >= grants * 9);
}

void test_a_default_contract_is_never_refused(void**) {
  // Two Philly rows under a 1 h default (10 min and 3 h of work, limits
  // 20 min and 6 h: the first contract is cut to its 20 min limit), and a
  // native row that declares 2 h on a 1 h limit. budget admits both Philly
  // jobs, refused before for "min-runtime longer than the job's time limit",
  // and still refuses the declared contract that breaks the rule.
  TraceOptions o;
  o.default_min_runtime = 3600;
  Workload w;
  ReadStats stats;
  assert_true(ReadTraceText("timestamp,duration,num_gpus,gpu_time,cluster\n"
                            "1970-01-01 00:00:00,600,8,4800,a\n"
                            "1970-01-01 00:00:00,10800,8,86400,a\n",
                            "p.csv", TraceFormat::kPhilly, o, &w, &stats).ok());
  RunOutput out = Run("budget", w, MakeTree(kTwoTeams), 2, 86400);
  // Both admitted, both finished within the day on 2 nodes.
  assert_int_equal(out.result.rejected, 0);
  assert_int_equal(out.result.finished, 2);
  Workload declared;
  assert_true(ReadTraceText("submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit\n"
                            "0,a,a-user,8,600,7200,1,0,3600\n", "t.csv",
                            TraceFormat::kNative, TraceOptions(), &declared, &stats).ok());
  out = Run("budget", declared, MakeTree(kTwoTeams), 2, 86400);
  // 2 h declared on a 1 h limit: refused, with the rule as the reason.
  assert_int_equal(out.result.rejected, 1);
  assert_string_equal(out.result.rejections.at(0).reason.c_str(),
                      "min-runtime longer than the job's time limit (contract)");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queue_order_is_the_core_job_order),
      cmocka_unit_test(test_every_preemption_keeps_the_contract),
      cmocka_unit_test(test_a_default_contract_is_never_refused),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
