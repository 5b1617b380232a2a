// The budget policy makes the plugins' decisions: its queue order is the
// core's job order, and every decision of a run, replayed against the core's
// decision functions fed the way the plugins feed them (per-job ledger
// charges, the whole node list, the whole running list), comes out the same.
#include "libbudget/test_support.h"

#include <algorithm>
#include <map>
#include <set>

#include "libbudget/commitments.h"
#include "libbudget/ledger.h"
#include "libbudget/order.h"
#include "libbudget/packing.h"
#include "libbudget/preempt.h"
#include "sim/budget_policy.h"
#include "sim/generator.h"
#include "sim/sim_test_util.h"

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

// Replays a run's decisions against the core, fed as the plugins feed it.
class CoreReplay {
 public:
  CoreReplay(const Workload& w, const AllocationTree& tree, uint32_t nodes)
      : w_(w), tree_(tree), ledger_(Ledger::Options()) {
    for (uint32_t i = 0; i < nodes; ++i) {
      NodeState n;
      n.index = int32_t(i);
      nodes_.push_back(n);
    }
  }

  // Returns the number of decisions checked; fails the test on the first
  // disagreement.
  size_t Check(const std::vector<Decision>& log) {
    size_t checked = 0;
    for (size_t i = 0; i < log.size(); ++i) {
      const Decision& d = log[i];
      if (d.kind == Decision::Kind::kRecompute) {
        Recompute(d.time);
      } else if (d.kind == Decision::Kind::kFinish) {
        Stop(d.job_id, d.time, true);
      } else if (d.kind == Decision::Kind::kPreempt) {
        // The victims of one choice are logged together, then the start.
        std::set<uint32_t> victims;
        size_t k = i;
        for (; log[k].kind == Decision::Kind::kPreempt; ++k) victims.insert(log[k].job_id);
        const Decision& start = log[k];
        assert_int_equal(start.kind, Decision::Kind::kStart);
        assert_int_equal(start.job_id, d.by_job_id);
        PreemptionPlan plan;
        std::vector<RunningJob> running;
        for (const auto& [id, r] : running_) running.push_back(r);
        // The core's commitments (libbudget/commitments.h), as
        // sched/timeslice adds them: the protected runs under way raise
        // their allocation's window usage; no grant is ever outstanding.
        std::vector<Standing> standings = order_.standings();
        budget::AddCommitments(running, {}, d.time, &standings);
        Status st = ChoosePreemption(Shape(start.job_id), running, nodes_, standings,
                                     ClusterScale{nodes_.size() * 8, ledger_.options().window},
                                     d.time, &plan);
        assert_true(st.ok());
        assert_true(plan.feasible);
        std::set<uint32_t> core_victims;
        for (const Victim& v : plan.victims) core_victims.insert(v.job_id);
        assert_true(core_victims == victims);
        for (uint32_t v : victims) Stop(v, d.time, false);
        assert_true(plan.target_nodes == start.nodes);
        Start(start);
        checked += 1 + victims.size();
        i = k;
      } else {
        NodeChoice choice;
        JobShape shape = Shape(d.job_id);
        assert_true(ChooseNodes(nodes_, GpuRequest{shape.node_count, shape.gpus_per_node}, &choice).ok());
        assert_true(choice.feasible);
        assert_true(choice.nodes == d.nodes);
        Start(d);
        ++checked;
      }
    }
    return checked;
  }

 private:
  const TraceJob& Job(uint32_t id) const { return w_.jobs[id - 1]; }
  NodeId NodeOf(uint32_t id) const {
    const TraceJob& t = Job(id);
    return tree_.NodeFor(w_.accounts[t.account], w_.UserName(t.user));
  }
  JobShape Shape(uint32_t id) const {
    sim::Shape s = ShapeFor(Job(id).gpus, 8);
    JobShape j;
    j.job_id = id;
    j.allocation = NodeOf(id);
    j.min_runtime = Job(id).min_runtime;
    j.node_count = s.node_count;
    j.gpus_per_node = s.gpus_per_node;
    return j;
  }

  void Recompute(TimePoint now) {
    std::vector<double> usage(tree_.size(), 0), demand(tree_.size(), 0);
    for (const auto& [id, r] : running_) {
      if (r.allocated())
        ledger_.ChargeRunningJob(id, tree_.node(r.allocation).path, Ledger::Series::kAllocated,
                                 r.start, now, double(r.total_gpus()));
      demand[r.allocation] += 1;
    }
    for (const TraceJob& t : w_.jobs)
      if (t.submit <= now && !running_.count(t.id) && !done_.count(t.id)) demand[NodeOf(t.id)] += 1;
    for (size_t i = 0; i < tree_.size(); ++i)
      usage[i] = ledger_.WindowUsage(tree_.node(NodeId(i)).path, Ledger::Series::kAllocated, now);
    assert_true(order_.Compute(tree_, usage, demand, double(nodes_.size() * 8),
                               ledger_.options().window).ok());
  }

  void Start(const Decision& d) {
    JobShape s = Shape(d.job_id);
    RunningJob r;
    r.job_id = d.job_id;
    r.allocation = s.allocation;
    r.start = d.time;
    r.min_runtime = s.min_runtime;
    r.resumable = Job(d.job_id).resumable;
    r.user_priority = Job(d.job_id).priority;
    for (int32_t n : d.nodes) {
      r.nodes.push_back(NodeGpus{n, s.gpus_per_node});
      nodes_[n].free_gpus -= s.gpus_per_node;
    }
    running_[d.job_id] = r;
  }

  void Stop(uint32_t id, TimePoint now, bool finished) {
    const RunningJob& r = running_.at(id);
    if (r.allocated())
      ledger_.ChargeRunningJob(id, tree_.node(r.allocation).path, Ledger::Series::kAllocated,
                               r.start, now, double(r.total_gpus()));
    ledger_.ForgetJob(id);
    for (const NodeGpus& n : r.nodes) nodes_[n.node].free_gpus += n.gpus;
    running_.erase(id);
    if (finished) done_.insert(id);
  }

  const Workload& w_;
  const AllocationTree& tree_;
  Ledger ledger_;
  FairShareOrder order_;
  std::vector<NodeState> nodes_;
  std::map<uint32_t, RunningJob> running_;
  std::set<uint32_t> done_;
};

void test_run_decisions_are_the_core_decisions(void**) {
  // Two days of four teams on 4 nodes (32 GPUs): debug streams, training,
  // free work; demand well above capacity, so there are preemptions.
  Workload w = Scenario(2, 5);
  AllocationTree tree = MakeTree(kTree);
  RunOutput out = Run("budget", w, tree, 4, 2 * 86400);
  assert_true(out.result.preemptions > 10);
  CoreReplay replay(w, tree, 4);
  size_t checked = replay.Check(out.decisions);
  // Every start and every preemption was checked.
  size_t decisions = 0;
  for (const Decision& d : out.decisions)
    decisions += d.kind == Decision::Kind::kStart || d.kind == Decision::Kind::kPreempt;
  assert_int_equal(checked, decisions);
  assert_true(checked > 100);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queue_order_is_the_core_job_order),
      cmocka_unit_test(test_run_decisions_are_the_core_decisions),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
