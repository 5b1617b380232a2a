// Tests of the Slurm-free half of priority/budget: nice -> user priority,
// GPU counts from TRES strings, charging a job snapshot into the ledger
// (cursors, tails, suspension, unknown accounts, demand), the pass's order
// and priorities, tree sources and reloading (bad tree keeps the last good
// one, which is saved), and the atomic state files. Expected values worked
// out by hand above each assertion. Also the job view cache (what a pass
// rebuilds) and the changed-job marks.
#include "libbudget/testing/test_support.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/policy/job_contract.h"
#include "libbudget/state/ledger.h"
#include "libbudget/policy/packing_state.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_reader.h"
#include "libbudget/report/report_file.h"
#include "libbudget/state/tree.h"
#include "priority_budget/curl_library.h"
#include "priority_budget/job_view.h"
#include "priority_budget/job_view_cache.h"
#include "priority_budget/plugin_state.h"
#include "priority_budget/priority_pass.h"
#include "priority_budget/report_writer.h"
#include "priority_budget/state_files.h"
#include "priority_budget/tree_fetcher.h"
#include "priority_budget/tree_reloader.h"
#include "priority_budget/tree_source.h"
#include "priority_budget/usage_charging.h"

namespace {

using budget::Ledger;
using budget_prio::JobPhase;
using budget_prio::JobView;

// Two teams at 70/30 and a posttrain-like account with a user node.
const char kTree[] = R"({ "name": "cluster", "children": [
    { "name": "a", "share": 70, "account": "acct_a" },
    { "name": "b", "share": 30, "account": "acct_b", "children": [
        { "name": "bob", "share": 1, "user": "bob" } ] } ] })";

budget::AllocationTree ParseTree(const char* json) {
  budget::AllocationTree tree;
  budget::Status st = budget::AllocationTree::Parse(json, "test", &tree, nullptr);
  assert_true(st.ok());
  return tree;
}

Ledger::Options SmallWindow() {
  Ledger::Options options;
  options.window = 600;  // 10 min of 5-s buckets
  options.bucket_width = 5;
  options.report_bucket_width = 5;
  return options;
}

JobView Job(uint32_t id, const char* account, const char* user, JobPhase phase, double gpus,
            budget::TimePoint start, const char* contract = "contract:min_runtime=60,resumable=0,declared=1") {
  JobView job;
  job.job_id = id;
  job.account = account;
  job.user = user;
  job.phase = phase;
  job.gpus = gpus;
  job.start_time = start;
  job.submit_time = start > 0 ? start - 1 : 1;
  job.has_contract = budget::ParseContractRecord(contract, &job.contract);
  return job;
}

// A fresh directory for one case, removed with the files the case left in
// it when the case ends (a failing case leaves it: cmocka jumps past).
class ScratchDir {
 public:
  ScratchDir() {
    char dir[] = "/tmp/priority_adapter_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    path_ = dir;
  }
  ~ScratchDir() {
    if (DIR* d = opendir(path_.c_str())) {
      while (const struct dirent* entry = readdir(d)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") unlink((path_ + "/" + name).c_str());
      }
      closedir(d);
    }
    rmdir(path_.c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void WriteText(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "w");
  assert_non_null(f);
  fputs(text.c_str(), f);
  fclose(f);
}

// --- job_view ---------------------------------------------------------------

void test_user_priority_from_nice(void** /*state*/) {
  struct { int64_t nice; uint32_t want; } cases[] = {
      {0, 10000},        // neutral
      {100, 9900},       // 10000 - 100
      {-100, 10100},     // operators may lower nice: 10000 + 100
      {20000, 0},        // 10000 - 20000 < 0: clamped to 0
      {-60000, 65534},   // 10000 + 60000 = 70000 > 65534: clamped
  };
  for (const auto& c : cases) assert_int_equal(budget_prio::UserPriorityFromNice(c.nice), c.want);
}

// job_view.h's layout: what the pass's sweeps read sits in the first cache
// line of a view, and every view starts one.
void test_job_view_sweep_fields_fit_one_cache_line(void** /*state*/) {
  std::vector<JobView> views(3);
  const char* base = reinterpret_cast<const char*>(&views[1]);
  assert_int_equal(reinterpret_cast<uintptr_t>(base) % 64, 0);
  assert_int_equal(sizeof(JobView) % 64, 0);
  // Three lines: the rest (strings, placement) fits two.
  assert_int_equal(sizeof(JobView), 192);
  const JobView& v = views[1];
  auto end_of = [&](const auto& field) {
    return static_cast<size_t>(reinterpret_cast<const char*>(&field) - base) + sizeof field;
  };
  for (size_t end : {end_of(v.job_id), end_of(v.priority), end_of(v.node), end_of(v.nice), end_of(v.phase),
                     end_of(v.held), end_of(v.fixed_priority), end_of(v.node_resolved),
                     end_of(v.has_contract), end_of(v.gpus), end_of(v.submit_time), end_of(v.start_time),
                     end_of(v.contract)}) {
    assert_true(end <= 64);
  }
}

void test_gpu_count_from_tres(void** /*state*/) {
  struct { const char* tres; double want; } cases[] = {
      {"cpu=1,mem=1000M,node=1,billing=1,gres/gpu=2", 2},
      {"gres/gpu=8", 8},
      {"cpu=4,gres/gpu:a100=4,gres/gpu=4", 4},  // the untyped total
      {"cpu=4,gres/gpu:a100=4", 0},             // typed only: no total
      {"cpu=1,mem=1G", 0},
      {"", 0},
      {"gres/gpu=", 0},
      {"gres/gpux=3", 0},
      // strtod reads these as inf or nan: not a count.
      {"gres/gpu=inf", 0},
      {"gres/gpu=1e400", 0},
      {"gres/gpu=nan", 0},
  };
  for (const auto& c : cases) assert_true(budget_prio::GpuCountFromTres(c.tres) == c.want);
}

void test_gpu_count_from_gres_spec(void** /*state*/) {
  struct { const char* spec; double want; } cases[] = {
      {"gres:gpu:4", 4},
      {"gres:gpu:a100:2,gres:gpu:v100:1", 3},  // 2 + 1
      {"gpu:8", 8},                            // a node's Gres=
      {"gpu:8(S:0-1)", 8},                     // with its socket binding
      {"gres/gpu=2", 2},
      {"gres:gpu", 1},
      {"gres:gpu:a100", 1},                    // a type without a count: one
      {"gres:nic:1,gres:gpu:2", 2},
      {"gres:gpux:2", 0},
      {"", 0},
      // Not counts: a type named "inf" (one GPU), and 1e400 (inf to strtod).
      {"gres:gpu:inf", 1},
      {"gres:gpu:1e400", 1},
      {"gres:gpu:nan,gres:gpu:2", 3},
  };
  for (const auto& c : cases) assert_true(budget_prio::GpuCountFromGresSpec(c.spec) == c.want);
}

// --- usage charging --------------------------------------------------------

// What every charging case starts from: kTree, budget.conf's defaults and a
// 10-min ledger of 5-s buckets; Charge is one pass from `last_pass` to `now`.
// `fleet` has no node and no weights unless a case adds them: every GPU
// is worth 1.0.
struct Charging {
  budget::AllocationTree tree = ParseTree(kTree);
  budget::BudgetConfig config;
  Ledger ledger{SmallWindow()};
  budget::FleetWorth fleet{&config.gpu_type_weights};

  budget_prio::ChargeStats Charge(const std::vector<JobView>& jobs, budget::TimePoint last_pass,
                                  budget::TimePoint now) {
    return budget_prio::ChargeJobs(jobs, tree, config, fleet, last_pass, now, &ledger);
  }
  double Usage(const char* path, Ledger::Series series, budget::TimePoint now) {
    return ledger.WindowUsage(path, series, now);
  }
};

using Series = Ledger::Series;

void test_running_job_charged_from_cursor_never_twice(void** /*state*/) {
  Charging c;
  std::vector<JobView> jobs = {Job(1, "acct_a", "alice", JobPhase::kRunning, 2, 100)};
  c.Charge(jobs, 100, 110);
  // 2 GPUs x [100, 110) = 20 GPU-s to "a".
  assert_true(c.Usage("a", Series::kAllocated, 110) == 20);
  assert_int_equal(c.ledger.ChargedUntil(1), 110);
  c.Charge(jobs, 110, 120);
  // + 2 x [110, 120) = 40 in all; the first 10 s are not charged again.
  assert_true(c.Usage("a", Series::kAllocated, 120) == 40);
  // The same pass replayed (a restart that reloads the cursor): nothing more.
  c.Charge(jobs, 120, 120);
  assert_true(c.Usage("a", Series::kAllocated, 120) == 40);
}

void test_unallocated_suspended_and_unknown_jobs(void** /*state*/) {
  Charging c;
  std::vector<JobView> jobs = {
      Job(1, "acct_b", "bob", JobPhase::kRunning, 1, 100, "contract:min_runtime=0,resumable=1,declared=1"),
      Job(2, "acct_b", "carol", JobPhase::kSuspended, 4, 100),
      Job(3, "nowhere", "dave", JobPhase::kRunning, 8, 100),
      Job(4, "acct_b", "carol", JobPhase::kRunning, 1, 100, ""),  // no record: DefaultMinRuntime=0
  };
  c.Charge(jobs, 100, 110);
  // bob's min-runtime-0 job: 1 x 10 = 10 unallocated GPU-s on b/bob, none allocated.
  assert_true(c.Usage("b/bob", Series::kUnallocated, 110) == 10);
  assert_true(c.Usage("b/bob", Series::kAllocated, 110) == 0);
  // carol has no node of her own: her jobs go to "b"; the suspended one is
  // not charged, the one without a record is unallocated work: 1 x 10 = 10.
  assert_true(c.Usage("b", Series::kAllocated, 110) == 0);
  assert_true(c.Usage("b", Series::kUnallocated, 110) == 10);
  // ... but the suspended job's cursor moved, so its pause is never charged.
  assert_int_equal(c.ledger.ChargedUntil(2), 110);
  // The unknown account is charged nowhere and gets no cursor.
  assert_int_equal(c.ledger.ChargedUntil(3), 0);
  assert_int_equal(c.ledger.path_count(), 2);
  // With DefaultMinRuntime > 0, a job without a record is allocated work.
  c.config.default_min_runtime = 60;
  assert_true(budget_prio::IsAllocatedWork(jobs[3], c.config));
}

void test_finished_job_tail_charged_once_then_forgotten(void** /*state*/) {
  Charging c;
  JobView job = Job(7, "acct_a", "x", JobPhase::kRunning, 4, 100);
  c.Charge({job}, 100, 110);
  job.phase = JobPhase::kFinished;
  job.end_time = 115;
  c.Charge({job}, 110, 120);
  // 4 x [100, 110) + 4 x [110, 115) = 40 + 20 = 60.
  assert_true(c.Usage("a", Series::kAllocated, 120) == 60);
  c.Charge({job}, 120, 130);
  // Seen again (still in slurmctld's list): still 60.
  assert_true(c.Usage("a", Series::kAllocated, 130) == 60);
  assert_int_equal(c.ledger.ChargedUntil(7), 115);
  // Purged from slurmctld: its cursor goes.
  budget_prio::ChargeStats stats = c.Charge({}, 130, 140);
  assert_int_equal(stats.forgotten, 1);
  assert_int_equal(c.ledger.ChargedUntil(7), 0);
}

// Job 9 (8 GPUs, running since 100) charged by the pass of 110, then seen
// requeued at 117 (pending again, end_time 117, showing `start_shown` as
// its start) by the pass of 120, which charges the run's tail:
// 8 x [100, 110) + 8 x [110, 117) = 80 + 56 = 136 allocated.
JobView ChargeRunRequeuedAt117(Charging* c, budget::TimePoint start_shown) {
  JobView job = Job(9, "acct_a", "x", JobPhase::kRunning, 8, 100);
  c->Charge({job}, 100, 110);
  job.phase = JobPhase::kPending;
  job.start_time = start_shown;
  job.end_time = 117;
  budget_prio::ChargeStats stats = c->Charge({job}, 110, 120);
  assert_int_equal(stats.requeued, 1);
  assert_true(c->Usage("a", Series::kAllocated, 120) == 136);
  assert_int_equal(c->ledger.ChargedUntil(9), 117);
  return job;
}

void test_requeued_job_tail_charged_then_new_run_charged_fresh(void** /*state*/) {
  Charging c;
  // Preempted and requeued at 117.
  JobView job = ChargeRunRequeuedAt117(&c, 100);
  // Still pending at the next pass: nothing more, only demand.
  budget_prio::ChargeStats stats = c.Charge({job}, 120, 130);
  assert_int_equal(stats.requeued, 0);
  assert_true(c.Usage("a", Series::kAllocated, 130) == 136);
  // Started again at 135: charged from its new start, not from 117.
  job.phase = JobPhase::kRunning;
  job.start_time = 135;
  job.end_time = 135 + 3600;
  c.Charge({job}, 130, 140);
  // 136 + 8 x [135, 140) = 136 + 40 = 176.
  assert_true(c.Usage("a", Series::kAllocated, 140) == 176);
}

void test_requeued_job_tail_charged_whatever_its_start_time_now(void** /*state*/) {
  Charging c;
  // Requeued at 117; by the next pass Slurm has finished the requeue and
  // backfill has given the job an expected start of 200: the view's start
  // time is no longer its run's. The tail [110, 117) is charged all the same.
  ChargeRunRequeuedAt117(&c, 200);
}

void test_pending_job_that_never_ran_is_not_charged(void** /*state*/) {
  Charging c;
  // Slurm may hold an expected end_time on a pending job; without a cursor
  // it never ran under our watch and nothing is charged but demand.
  JobView job = Job(4, "acct_a", "x", JobPhase::kPending, 2, 0);
  job.end_time = 115;
  budget_prio::ChargeStats stats = c.Charge({job}, 100, 120);
  assert_int_equal(stats.requeued, 0);
  assert_true(c.Usage("a", Series::kAllocated, 120) == 0);
  // 2 GPUs x [100, 120) = 40 GPU-s of demand.
  assert_true(c.Usage("a", Series::kDemand, 120) == 40);
}

void test_finished_job_without_cursor(void** /*state*/) {
  Charging c;
  // Started and ended between two passes (last pass 100, now 130): charged.
  JobView seen = Job(1, "acct_a", "x", JobPhase::kFinished, 2, 105);
  seen.end_time = 125;
  // Ended before the previous pass, e.g. before a restart: not charged.
  JobView old = Job(2, "acct_a", "x", JobPhase::kFinished, 2, 50);
  old.end_time = 90;
  c.Charge({seen, old}, 100, 130);
  // 2 x [105, 125) = 40 only.
  assert_true(c.Usage("a", Series::kAllocated, 130) == 40);
}

void test_pending_demand(void** /*state*/) {
  Charging c;
  JobView pending = Job(1, "acct_a", "x", JobPhase::kPending, 3, 0);
  JobView held = Job(2, "acct_a", "x", JobPhase::kPending, 5, 0);
  held.held = true;
  c.Charge({pending, held}, 100, 110);
  // 3 GPUs x 10 s = 30 GPU-s of demand; the held job asks for nothing.
  assert_true(c.Usage("a", Series::kDemand, 110) == 30);
  assert_true(c.Usage("a", Series::kAllocated, 110) == 0);
}

// GpuTypeWeights=b200:2.0 on scripts/cluster.sh's fleet (GPU_TYPES="b200
// b200 h100 h100": nodes 0-1 b200 x 8, 2-3 h100 x 8): capacity 2 x 16 +
// 2 x 8 = 48 weighted GPUs of 32, a mean of 1.5 per GPU.
void WeighTheTestFleet(Charging* c) {
  assert_true(budget::GpuTypeWeights::Parse("b200:2.0", &c->config.gpu_type_weights).ok());
  c->fleet = budget::FleetWorth(&c->config.gpu_type_weights);
  for (int32_t i = 0; i < 4; ++i) c->fleet.AddNode(i, i < 2 ? "gpu:b200:8(S:0)" : "gpu:h100:8(S:0)", 8);
  assert_true(c->fleet.weighted_capacity() == 48);
}

JobView RunningOn(uint32_t id, double gpus, std::vector<int32_t> nodes, const char* type = "") {
  JobView job = Job(id, "acct_a", "x", JobPhase::kRunning, gpus, 100);
  job.placement = budget_prio::PlacementOf(type, std::move(nodes));
  return job;
}

void test_weighted_charging_by_the_nodes_a_job_runs_on(void** /*state*/) {
  struct Case {
    const char* what;
    JobView job;
    double allocated;  // GPU-s over [100, 110), by hand
  };
  const Case cases[] = {
      {"4 untyped GPUs on b200 node 0: 4 x 2 x 10", RunningOn(1, 4, {0}), 80},
      {"the same job on h100 node 2: 4 x 1 x 10", RunningOn(2, 4, {2}), 40},
      {"16 typed b200 GPUs on nodes 0-1: 16 x 2 x 10", RunningOn(3, 16, {0, 1}, "b200"), 320},
      {"16 untyped GPUs on nodes 1 and 3: (8 x 2 + 8 x 1) x 10", RunningOn(4, 16, {1, 3}), 240},
  };
  for (const Case& k : cases) {
    Charging c;
    WeighTheTestFleet(&c);
    budget_prio::ChargeStats stats = c.Charge({k.job}, 100, 110);
    if (c.Usage("a", Series::kAllocated, 110) != k.allocated)
      fail_msg("%s: %g", k.what, c.Usage("a", Series::kAllocated, 110));
    assert_true(stats.allocated_gpu_seconds == k.allocated);
    // A running allocated job demands what it is charged.
    assert_true(c.Usage("a", Series::kDemand, 110) == k.allocated);
  }
}

void test_weighted_tails_and_demand(void** /*state*/) {
  Charging c;
  WeighTheTestFleet(&c);
  // Job 7, 8 untyped GPUs on b200 node 0, ends at 115: 8 x 2 x [100, 115) = 240.
  JobView ended = RunningOn(7, 8, {0});
  c.Charge({ended}, 100, 110);
  ended.phase = JobPhase::kFinished;
  ended.end_time = 115;
  c.Charge({ended}, 110, 120);
  assert_true(c.Usage("a", Series::kAllocated, 120) == 240);
  // Pending (b/bob): 2 typed h100 GPUs x 1 + 2 untyped x the mean 1.5 = 5
  // weighted GPUs, over [120, 130): 50 GPU-s of demand.
  JobView h100 = Job(8, "acct_b", "bob", JobPhase::kPending, 2, 0);
  h100.placement = budget_prio::PlacementOf("h100", {});
  JobView untyped = Job(9, "acct_b", "bob", JobPhase::kPending, 2, 0);
  c.Charge({h100, untyped}, 120, 130);
  assert_true(c.Usage("b/bob", Series::kDemand, 130) == 50);
  // Without weights the same jobs are worth their GPUs: 2 + 2 over 10 s = 40.
  Charging plain;
  plain.Charge({h100, untyped}, 120, 130);
  assert_true(plain.Usage("b/bob", Series::kDemand, 130) == 40);
}

// --- the pass --------------------------------------------------------------

uint32_t PriorityOf(const budget_prio::PassResult& result, uint32_t job_id) {
  for (const auto& [id, priority] : result.priorities) {
    if (id == job_id) return priority;
  }
  return 0;
}

void test_pass_orders_teams_by_usage_over_share(void** /*state*/) {
  auto shared = std::make_shared<const budget::AllocationTree>(ParseTree(kTree));
  budget::BudgetConfig config;
  config.unknown_account = budget::UnknownAccountPolicy::kUnallocated;
  Ledger ledger(SmallWindow());
  // a used 700 GPU-s, b 100: a took 7/8 of the usage for a 70% share
  // (ratio 0.875 / 0.7 = 1.25), b 1/8 for 30% (0.125 / 0.3 = 0.42): b first.
  ledger.Charge("a", Ledger::Series::kAllocated, 0, 100, 7);
  ledger.Charge("b", Ledger::Series::kAllocated, 0, 100, 1);
  std::vector<JobView> jobs = {
      Job(1, "acct_a", "x", JobPhase::kPending, 1, 0),
      Job(2, "acct_b", "carol", JobPhase::kPending, 1, 0),
      Job(3, "nowhere", "y", JobPhase::kPending, 1, 0),
      Job(4, "acct_a", "x", JobPhase::kPending, 1, 0, "contract:min_runtime=0,resumable=0,declared=1"),
  };
  JobView niced = Job(5, "acct_a", "x", JobPhase::kPending, 1, 0);
  niced.nice = 100;
  jobs.push_back(niced);
  JobView held = Job(6, "acct_b", "carol", JobPhase::kPending, 1, 0);
  held.held = true;
  jobs.push_back(held);
  budget_prio::PassResult result;
  assert_true(budget_prio::ComputePriorities(shared, config, jobs, 8, 100, &ledger, &result).ok());
  // Allocated: b's job, then a's (nice 0), then a's niced one; then
  // unallocated: a's min-runtime-0 job, then the unknown account's.
  assert_int_equal(result.priorities.size(), 5);  // the held job gets none
  assert_int_equal(result.prioritised, 5);
  // The report's counts: a's three pending GPUs, b's one (the held job and
  // the unknown account's count nowhere), nothing running.
  const budget::AllocationTree& tree = *shared;
  assert_int_equal(result.activity.size(), tree.size());
  assert_true(result.activity[tree.Find("a")].pending_gpus == 3);
  assert_true(result.activity[tree.Find("b")].pending_gpus == 1);
  assert_true(result.activity[tree.Find("a")].running_gpus == 0);
  assert_true(result.running_jobs.empty());
  assert_true(PriorityOf(result, 2) > PriorityOf(result, 1));
  // nice 0 -> user priority 10000 > nice 100 -> 9900, same node: higher.
  assert_true(PriorityOf(result, 1) > PriorityOf(result, 5));
  assert_true(PriorityOf(result, 5) > PriorityOf(result, 4));
  assert_true(PriorityOf(result, 4) > PriorityOf(result, 3));
  // The unknown account's job: unallocated, no rank: 1 (order.h encoding).
  assert_int_equal(PriorityOf(result, 3), 1);
  // Nodes with work in rank order: b (carol's job is on b itself), then a.
  assert_int_equal(result.ranked_paths_with_demand.size(), 2);
  assert_string_equal(result.ranked_paths_with_demand[0].c_str(), "b");
  assert_string_equal(result.ranked_paths_with_demand[1].c_str(), "a");
  // Usage shifts (b takes 2000 more GPU-s): a is now the under-served one.
  ledger.Charge("b", Ledger::Series::kAllocated, 100, 200, 20);
  assert_true(budget_prio::ComputePriorities(shared, config, jobs, 8, 200, &ledger, &result).ok());
  assert_true(PriorityOf(result, 1) > PriorityOf(result, 2));
  // A priority the job already has is not written again, but still counts.
  const uint32_t a_first = PriorityOf(result, 1);
  jobs[0].priority = a_first;
  assert_true(budget_prio::ComputePriorities(shared, config, jobs, 8, 200, &ledger, &result).ok());
  assert_int_equal(result.priorities.size(), 4);
  assert_int_equal(result.prioritised, 5);
  assert_int_equal(PriorityOf(result, 1), 0);
  jobs[0].priority = 0;
  // A user's nice never jumps a team: even a much better nice on b's job
  // (user priority 65534) stays below a's jobs now.
  jobs[1].nice = -60000;
  assert_true(budget_prio::ComputePriorities(shared, config, jobs, 8, 200, &ledger, &result).ok());
  assert_true(PriorityOf(result, 5) > PriorityOf(result, 2));
}

void test_pass_counts_what_the_report_shows(void** /*state*/) {
  auto shared = std::make_shared<const budget::AllocationTree>(ParseTree(kTree));
  const budget::AllocationTree& tree = *shared;
  budget::BudgetConfig config;
  Ledger ledger(SmallWindow());
  std::vector<JobView> jobs = {
      Job(1, "acct_a", "x", JobPhase::kRunning, 4, 50),
      Job(2, "acct_b", "carol", JobPhase::kPending, 2, 0),
      Job(3, "acct_a", "x", JobPhase::kFinished, 8, 40),
      Job(4, "acct_b", "bob", JobPhase::kRunning, 1, 60),
  };
  budget_prio::PassResult result;
  assert_true(budget_prio::ComputePriorities(shared, config, jobs, 8, 100, &ledger, &result).ok());
  assert_true((result.running_jobs == std::vector<size_t>{0, 3}));
  assert_true(result.activity[tree.Find("a")].running_gpus == 4);
  assert_true(result.activity[tree.Find("b")].pending_gpus == 2);
  assert_true(result.activity[tree.Find("b/bob")].running_gpus == 1);
  assert_true(result.activity[tree.Find("b")].running_gpus == 0);  // direct, not subtree
}

// --- the job view cache ----------------------------------------------------

using budget_prio::JobFingerprint;
using budget_prio::JobViewCache;
using budget_prio::JobVolatile;

// A fingerprint as job_snapshot.cc takes it; `strings` stands for the
// addresses of the record's strings.
// As job_snapshot.cc's FingerprintOf makes them: a pending job's is its
// phase alone.
JobFingerprint Print(uintptr_t strings, JobPhase phase = JobPhase::kPending) {
  JobFingerprint print;
  print.phase = phase;
  if (phase != JobPhase::kPending) print.strings.fill(strings);
  return print;
}

JobVolatile Fields(uint32_t priority, JobPhase phase = JobPhase::kPending) {
  JobVolatile fields;
  fields.phase = phase;
  fields.priority = priority;
  fields.start_time = 400;
  fields.end_time = 500;
  return fields;
}

// One pass over `ids` (in list order): reuses what stands, builds the rest
// with Job(id, account "acct_a"); returns how many views were built.
size_t CachePass(JobViewCache* cache, const std::vector<uint32_t>& ids, uintptr_t strings = 1,
                 const std::vector<uint32_t>& changed = {}, bool full = false) {
  cache->BeginPass(changed, full);
  for (uint32_t id : ids) {
    if (!cache->Reuse(id, Print(strings), Fields(id * 10))) {
      JobView view = Job(id, "acct_a", "x", JobPhase::kPending, 1, 0);
      view.priority = id * 10;
      cache->Store(view, Print(strings));
    }
  }
  cache->EndPass();
  return cache->built();
}

// Stores a running view of job `id` under `account` (priority id * 10, as
// Fields gives it), parsed from strings at `strings`.
void StoreRunning(JobViewCache* cache, uint32_t id, const char* account, uintptr_t strings) {
  JobView view = Job(id, account, "x", JobPhase::kRunning, 1, 0);
  view.priority = id * 10;
  cache->Store(view, Print(strings, JobPhase::kRunning));
}

std::vector<uint32_t> CachedIds(JobViewCache* cache) {
  std::vector<uint32_t> ids;
  for (const JobView& view : cache->views()) ids.push_back(view.job_id);
  return ids;
}

// One pass over jobs 1, 2, 3 in which 1 (its strings at 2) and 3 (at 1)
// stand as they are, and `job_2` does what the case needs with 2; returns
// how many views the pass built.
template <typename Job2>
size_t PassAroundJob2(JobViewCache* cache, Job2 job_2) {
  cache->BeginPass({}, false);
  assert_non_null(cache->Reuse(1, Print(2), Fields(10)));
  job_2();
  assert_non_null(cache->Reuse(3, Print(1), Fields(30)));
  cache->EndPass();
  return cache->built();
}

void test_view_cache_rebuilds_only_what_changed(void** /*state*/) {
  JobViewCache cache;
  assert_int_equal(CachePass(&cache, {1, 2, 3}), 3);
  // Unchanged: every view stands, with the per-pass fields re-read; a
  // pending job keeps the start and end times it was built with (backfill's
  // estimate moves every cycle; the end time is the end of its last run).
  cache.BeginPass({}, false);
  JobVolatile fields = Fields(20);
  fields.fixed_priority = true;
  JobView* view = cache.Reuse(2, Print(1), fields);
  assert_non_null(view);
  assert_int_equal(view->end_time, 0);
  assert_true(view->fixed_priority);
  assert_int_equal(view->start_time, 0);
  assert_string_equal(view->account.c_str(), "acct_a");
  assert_non_null(cache.Reuse(1, Print(1), Fields(10)));
  assert_non_null(cache.Reuse(3, Print(1), Fields(30)));
  cache.EndPass();
  assert_int_equal(cache.built(), 0);
  // A priority the plugin wrote (noted) stands; one it did not write
  // (`scontrol top`, a hold) means the record changed: rebuilt.
  cache.NotePriorities({{3, 35}, {99, 1}});
  cache.BeginPass({}, false);
  assert_non_null(cache.Reuse(3, Print(1), Fields(35)));
  assert_null(cache.Reuse(1, Print(1), Fields(0)));
  cache.Store(Job(1, "acct_a", "x", JobPhase::kPending, 1, 0), Print(1));
  assert_non_null(cache.Reuse(2, Print(1), Fields(20)));
  cache.EndPass();
  assert_int_equal(cache.built(), 1);
  assert_int_equal(CachePass(&cache, {1, 2, 3}), 2);  // 1 released (10), 3 set back to 30
  assert_int_equal(CachePass(&cache, {1, 2, 3}), 0);
  // The phase changed (the job started), a running job's string moved
  // (Slurm replaced it), slurmctld marked the job changed, or a full
  // rebuild: the view is built again.
  assert_int_equal(PassAroundJob2(&cache, [&] {
                     assert_null(cache.Reuse(2, Print(1, JobPhase::kRunning), Fields(20, JobPhase::kRunning)));
                     StoreRunning(&cache, 2, "acct_a", 1);
                   }),
                   1);
  // A running job's start and end times are re-read; its strings are
  // compared.
  assert_int_equal(PassAroundJob2(&cache, [&] {
                     view = cache.Reuse(2, Print(1, JobPhase::kRunning), Fields(20, JobPhase::kRunning));
                     assert_non_null(view);
                     assert_int_equal(view->start_time, 400);
                     assert_int_equal(view->end_time, 500);
                   }),
                   0);
  assert_int_equal(PassAroundJob2(&cache, [&] {
                     assert_null(cache.Reuse(2, Print(2, JobPhase::kRunning), Fields(20, JobPhase::kRunning)));
                     StoreRunning(&cache, 2, "acct_b", 2);
                   }),
                   1);
  assert_string_equal(cache.views()[1].account.c_str(), "acct_b");  // rebuilt in place
  assert_true((CachedIds(&cache) == std::vector<uint32_t>{1, 2, 3}));
  // Requeued: running -> pending is a change of phase, built again.
  assert_int_equal(PassAroundJob2(&cache, [&] {
                     assert_null(cache.Reuse(2, Print(2), Fields(20)));
                     cache.Store(Job(2, "acct_b", "x", JobPhase::kPending, 1, 0), Print(2));
                   }),
                   1);
  // 2's view is pending now (priority 0) and 3 is marked changed: 2 and 3
  // built.
  assert_int_equal(CachePass(&cache, {1, 2, 3}, 1, {3}), 2);
  assert_int_equal(CachePass(&cache, {1, 2, 3}), 0);
  assert_int_equal(CachePass(&cache, {1, 2, 3}, 1, {2}), 1);
  assert_int_equal(CachePass(&cache, {1, 2, 3}, 1, {}, true), 3);
  assert_int_equal(cache.cached(), 3);
}

void test_view_cache_keeps_the_gpus_of_a_run_that_ended(void** /*state*/) {
  JobViewCache cache;
  cache.BeginPass({}, false);
  assert_null(cache.Reuse(5, Print(1, JobPhase::kRunning), Fields(50, JobPhase::kRunning)));
  cache.Store(Job(5, "acct_a", "x", JobPhase::kRunning, 16, 100), Print(1, JobPhase::kRunning));
  cache.EndPass();
  // Completing on two nodes, then one: Slurm has taken a node's TRES off
  // the record each time, which now reads 8 GPUs, then 0. The tail of the
  // run held 16.
  for (double shown : {8.0, 0.0}) {
    cache.BeginPass({}, false);
    assert_null(cache.Reuse(5, Print(2, JobPhase::kFinished), Fields(50, JobPhase::kFinished)));
    cache.Store(Job(5, "acct_a", "x", JobPhase::kFinished, shown, 100), Print(2, JobPhase::kFinished));
    cache.EndPass();
    assert_true(cache.views()[0].gpus == 16);
  }
  // A job requeued and pending again asks for what it asks for.
  cache.BeginPass({}, false);
  assert_null(cache.Reuse(5, Print(3), Fields(50)));
  cache.Store(Job(5, "acct_a", "x", JobPhase::kPending, 4, 0), Print(3));
  cache.EndPass();
  assert_true(cache.views()[0].gpus == 4);
}

// The nodes of a run (what its GPUs are worth) stay with the view through
// its end, whose record may list fewer, and through a requeue, whose tail
// is charged at their weights.
void test_view_cache_keeps_the_nodes_of_a_run(void** /*state*/) {
  JobViewCache cache;
  cache.BeginPass({}, false);
  assert_null(cache.Reuse(5, Print(1, JobPhase::kRunning), Fields(50, JobPhase::kRunning)));
  JobView running = Job(5, "acct_a", "x", JobPhase::kRunning, 16, 100);
  running.placement = budget_prio::PlacementOf("", {0, 1});
  cache.Store(running, Print(1, JobPhase::kRunning));
  cache.EndPass();
  // Ended, its record now showing node 1 only: nodes 0 and 1 stay.
  cache.BeginPass({}, false);
  assert_null(cache.Reuse(5, Print(2, JobPhase::kFinished), Fields(50, JobPhase::kFinished)));
  JobView ended = Job(5, "acct_a", "x", JobPhase::kFinished, 8, 100);
  ended.placement = budget_prio::PlacementOf("", {1});
  cache.Store(ended, Print(2, JobPhase::kFinished));
  cache.EndPass();
  assert_true(cache.views()[0].nodes() == std::vector<int32_t>({0, 1}));
  // Another job, requeued: pending, no nodes in its record; its run's stay.
  JobViewCache requeues;
  requeues.BeginPass({}, false);
  assert_null(requeues.Reuse(6, Print(1, JobPhase::kRunning), Fields(50, JobPhase::kRunning)));
  running.job_id = 6;
  running.placement = budget_prio::PlacementOf("", {3});
  requeues.Store(running, Print(1, JobPhase::kRunning));
  requeues.EndPass();
  requeues.BeginPass({}, false);
  assert_null(requeues.Reuse(6, Print(3), Fields(50)));
  requeues.Store(Job(6, "acct_a", "x", JobPhase::kPending, 16, 0), Print(3));
  requeues.EndPass();
  assert_true(requeues.views()[0].nodes() == std::vector<int32_t>({3}));
}

void test_view_cache_follows_the_job_list(void** /*state*/) {
  JobViewCache cache;
  CachePass(&cache, {1, 2, 3, 4});
  // 2 left the list, 5 is new, and the rest keep their views and order.
  assert_int_equal(CachePass(&cache, {1, 3, 4, 5}), 1);
  assert_true((CachedIds(&cache) == std::vector<uint32_t>{1, 3, 4, 5}));
  // A list in another order still finds every view.
  assert_int_equal(CachePass(&cache, {5, 4, 1, 3}), 0);
  assert_int_equal(cache.cached(), 4);
  assert_int_equal(CachePass(&cache, {}), 0);
  assert_int_equal(cache.cached(), 0);
  assert_int_equal(CachePass(&cache, {3}), 1);
}

void test_view_cache_resolves_nodes_per_tree(void** /*state*/) {
  budget::AllocationTree tree = ParseTree(kTree);
  budget_prio::UserNames names;
  JobViewCache cache;
  CachePass(&cache, {1});
  JobView ended = Job(9, "acct_b", "", JobPhase::kFinished, 1, 0);
  ended.uid = 0;
  cache.AppendTransient({ended});
  cache.Resolve(tree, 1, &names);
  assert_int_equal(cache.views().size(), 2);
  assert_true(cache.views()[0].node_resolved);
  assert_int_equal(cache.views()[0].node, tree.Find("a"));
  assert_int_equal(budget_prio::NodeOf(tree, cache.views()[0]), tree.Find("a"));
  // The ended job: user from its uid, then its node; dropped next pass.
  assert_string_equal(cache.views()[1].user.c_str(), "root");
  assert_int_equal(cache.views()[1].node, tree.Find("b"));
  CachePass(&cache, {1});
  assert_int_equal(cache.views().size(), 1);
  // A new tree where acct_a is bound elsewhere: every node again.
  budget::AllocationTree moved = ParseTree(R"({ "name": "cluster", "children": [
      { "name": "z", "share": 1, "account": "other" },
      { "name": "a2", "share": 1, "account": "acct_a" } ] })");
  cache.Resolve(moved, 1, &names);  // same generation: nothing to do
  assert_int_equal(cache.views()[0].node, tree.Find("a"));
  cache.Resolve(moved, 2, &names);
  assert_int_equal(cache.views()[0].node, moved.Find("a2"));
  // An unresolved view is looked up.
  JobView loose = Job(4, "acct_b", "bob", JobPhase::kPending, 1, 0);
  assert_int_equal(budget_prio::NodeOf(tree, loose), tree.Find("b/bob"));
}

void test_changed_jobs_overflow_to_a_full_rebuild(void** /*state*/) {
  budget_prio::PluginState state;
  state.MarkJobChanged(7);
  state.MarkJobChanged(8);
  bool all = true;
  assert_true((state.TakeChangedJobs(&all) == std::vector<uint32_t>{7, 8}));
  assert_false(all);
  for (size_t i = 0; i <= budget_prio::PluginState::kMaxChangedJobs; ++i) state.MarkJobChanged(i + 1);
  assert_true(state.TakeChangedJobs(&all).empty());
  assert_true(all);
  assert_true(state.TakeChangedJobs(&all).empty());
  assert_false(all);
}

// --- tree source and reloading ----------------------------------------------

void test_tree_source_specs(void** /*state*/) {
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec("/etc/slurm/tree.json", &source).ok());
  assert_true(source.is_file());
  assert_true(budget_prio::TreeSource::FromSpec("file:///etc/slurm/tree.json", &source).ok());
  assert_string_equal(source.description().c_str(), "/etc/slurm/tree.json");
  assert_true(budget_prio::TreeSource::FromSpec("https://budgets.example/tree.json", &source).ok());
  assert_false(source.is_file());
  assert_int_equal(source.ModificationTime(), 0);
  assert_false(budget_prio::TreeSource::FromSpec("", &source).ok());
  assert_false(budget_prio::TreeSource::FromSpec("ftp://x/tree.json", &source).ok());
  assert_false(budget_prio::TreeSource::FromSpec("file://relative", &source).ok());
}

// BudgetTree=slurmdbd: the tree of the associations, read through the
// reader the plugin registers (association_reader.h), checked and kept as
// a file's: read at every pass until a tree loads, then every
// BudgetRefresh; a refused read keeps the last good tree.
std::string g_associations_json;
budget::Status g_associations_status;
budget::Status FakeAssociationReader(std::string* text) {
  if (g_associations_status.ok()) *text = g_associations_json;
  return g_associations_status;
}

void test_tree_source_slurmdbd(void** /*state*/) {
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec("slurmdbd", &source).ok());
  assert_true(source.is_slurmdbd());
  assert_false(source.is_file());
  assert_string_equal(source.description().c_str(), "slurmdbd");
  assert_int_equal(source.ModificationTime(), 0);
  std::string text;
  budget_prio::TreeSource::SetAssociationReader(nullptr);
  budget::Status st = source.Fetch(&text);
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "no association reader"));
  budget_prio::TreeSource::SetAssociationReader(&FakeAssociationReader);
  ScratchDir scratch;
  budget_prio::TreeReloader reloader(source, budget_prio::StateFile(scratch.path(), budget_prio::kLastGoodTreeFileName),
                                     300);
  // slurmdbd not up yet: no tree, and due again at the next pass.
  g_associations_status = budget::Status::IOError("slurmdbd: slurmctld has no associations yet (is slurmdbd up?)");
  assert_true(reloader.Reload(1000).kind == budget_prio::ReloadOutcome::Kind::kRefused);
  assert_true(reloader.ReloadDue(1001));
  // Up: the tree loads, and is then read every BudgetRefresh.
  g_associations_status = budget::Status::Ok();
  g_associations_json = kTree;
  assert_true(reloader.Reload(1001).kind == budget_prio::ReloadOutcome::Kind::kLoaded);
  assert_int_equal(reloader.tree().size(), 4);
  assert_false(reloader.ReloadDue(1100));
  assert_true(reloader.ReloadDue(1301));
  // A hierarchy the core refuses: the last good tree stays.
  g_associations_status = budget::Status::InvalidArgument("slurmdbd's associations: account \"x\": no parent");
  assert_true(reloader.Reload(1301).kind == budget_prio::ReloadOutcome::Kind::kRefused);
  assert_int_equal(reloader.tree().size(), 4);
  assert_false(reloader.ReloadDue(1302));
  budget_prio::TreeSource::SetAssociationReader(nullptr);
}

// libcurl is loaded on demand: a missing library, or one without curl's
// functions, is an error naming it; the real one loads.
void test_curl_library_loads_on_demand(void** /*state*/) {
  budget_prio::CurlLibrary lib;
  std::string error;
  assert_false(budget_prio::CurlLibrary::Open("libcurl-absent.so.0", &lib, &error));
  assert_non_null(strstr(error.c_str(), "cannot load libcurl-absent.so.0"));
  error.clear();
  assert_false(budget_prio::CurlLibrary::Open("libz.so.1", &lib, &error));
  assert_string_equal(error.c_str(), "libz.so.1: no function curl_global_init");
  error.clear();
  assert_true(budget_prio::CurlLibrary::Open(budget_prio::CurlLibrary::kSoname, &lib, &error));
  assert_true(error.empty());
  assert_non_null(lib.easy_perform);
  // libcurl 7 (Debian 12) says "Couldn't connect to server", libcurl 8
  // (Debian 13) "Could not connect to server".
  assert_non_null(strstr(lib.easy_strerror(CURLE_COULDNT_CONNECT), "connect to server"));
}

void test_unreachable_url_is_an_error(void** /*state*/) {
  budget_prio::TreeSource source;
  // Port 1 on localhost: nothing listens, connection refused at once.
  assert_true(budget_prio::TreeSource::FromSpec("http://127.0.0.1:1/tree.json", &source).ok());
  std::string text;
  budget::Status st = source.Fetch(&text);
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "http://127.0.0.1:1/tree.json"));
}

// --- a black-holed URL: timeouts, and a fetch that never blocks a pass ------

using SteadyClock = std::chrono::steady_clock;

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// A listener that completes TCP handshakes (the kernel's backlog) and never
// reads or answers: the URL "accepts the connection and never answers".
struct BlackHole {
  int fd = -1;
  int port = 0;
  BlackHole() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t len = sizeof addr;
    assert_int_equal(getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len), 0);
    port = ntohs(addr.sin_port);
  }
  ~BlackHole() { close(fd); }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port) + "/tree.json"; }
};

void test_black_holed_url_times_out_as_configured(void** /*state*/) {
  BlackHole hole;
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec(hole.Url(), &source).ok());
  source.set_timeouts(1, 2);
  std::string text;
  SteadyClock::time_point start = SteadyClock::now();
  budget::Status st = source.Fetch(&text);
  double took = SecondsSince(start);
  assert_false(st.ok());
  // The message says it timed out and which keys set the limits.
  assert_non_null(strstr(st.message().c_str(), "timed out"));
  assert_non_null(strstr(st.message().c_str(), "TreeFetchTimeout=2 s"));
  // TreeFetchTimeout=2: about 2 s (the 20 s default would fail this).
  if (took < 1.5 || took > 6) fail_msg("the fetch took %.2f s, expected about 2", took);
}

void test_cancelled_fetch_gives_up_within_about_a_second(void** /*state*/) {
  BlackHole hole;
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec(hole.Url(), &source).ok());
  source.set_timeouts(30, 60);
  std::atomic<bool> cancel{false};
  std::thread canceller([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  std::string text;
  SteadyClock::time_point start = SteadyClock::now();
  budget::Status st = source.Fetch(&text, &cancel);
  double took = SecondsSince(start);
  canceller.join();
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "cancelled"));
  if (took > 5) fail_msg("the cancelled fetch took %.2f s", took);
}

// Waits up to 10 s for `done`.
bool WaitFor(const std::atomic<bool>& done) {
  SteadyClock::time_point start = SteadyClock::now();
  while (!done && SecondsSince(start) < 10) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return done;
}

void test_fetcher_never_blocks_the_caller(void** /*state*/) {
  std::atomic<bool> release{false};
  std::atomic<bool> done{false};
  std::atomic<int> fetches{0};
  // A source that hangs until released (the black hole, without a socket).
  budget_prio::TreeFetcher fetcher([&done] { done = true; },
                                   [&](const budget_prio::TreeSource&, const std::atomic<bool>& cancel,
                                       std::string* text) {
                                     ++fetches;
                                     while (!release && !cancel) {
                                       std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                     }
                                     *text = kTree;
                                     return budget::Status::Ok();
                                   });
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec("http://tree.invalid/t.json", &source).ok());
  SteadyClock::time_point start = SteadyClock::now();
  assert_true(fetcher.Start(source));
  // Returns at once, whatever the source does.
  if (SecondsSince(start) > 0.5) fail_msg("Start() took %.3f s", SecondsSince(start));
  assert_true(fetcher.busy());
  // One fetch at a time: a second request is refused, not queued.
  assert_false(fetcher.Start(source));
  budget_prio::FetchResult result;
  assert_false(fetcher.TakeResult(&result));
  release = true;
  assert_true(WaitFor(done));
  assert_false(fetcher.busy());
  assert_true(fetcher.TakeResult(&result));
  assert_true(result.status.ok());
  assert_string_equal(result.text.c_str(), kTree);
  assert_string_equal(result.source.description().c_str(), "http://tree.invalid/t.json");
  // Taken once; then a new fetch may start.
  assert_false(fetcher.TakeResult(&result));
  release = false;
  done = false;
  assert_true(fetcher.Start(source));
  // A reconfigure named another source: the hung fetch is cut short...
  fetcher.CancelInFlight();
  assert_true(WaitFor(done));
  assert_true(fetcher.TakeResult(&result));
  // ...and the next one is not cancelled by it (it hangs until released).
  done = false;
  assert_true(fetcher.Start(source));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  assert_true(fetcher.busy());
  assert_false(done);
  fetcher.Stop();
  assert_int_equal(fetches.load(), 3);
  assert_false(fetcher.Start(source));
}

void test_fetcher_stop_cancels_a_hung_fetch(void** /*state*/) {
  BlackHole hole;
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec(hole.Url(), &source).ok());
  source.set_timeouts(60, 60);
  budget_prio::TreeFetcher fetcher([] {});
  assert_true(fetcher.Start(source));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  assert_true(fetcher.busy());
  SteadyClock::time_point start = SteadyClock::now();
  fetcher.Stop();
  // curl's progress callback sees the cancel within about a second.
  if (SecondsSince(start) > 5) fail_msg("Stop() took %.2f s", SecondsSince(start));
}

// A fetch that ends after budget.conf named another source is not adopted.
void test_reloader_ignores_a_fetch_from_an_old_source(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  std::string last_good = budget_prio::StateFile(dir, budget_prio::kLastGoodTreeFileName);
  budget_prio::TreeSource old_source, new_source;
  assert_true(budget_prio::TreeSource::FromSpec("http://old.invalid/t.json", &old_source).ok());
  assert_true(budget_prio::TreeSource::FromSpec("http://new.invalid/t.json", &new_source).ok());
  budget_prio::TreeReloader reloader(old_source, last_good, 300);
  budget_prio::TreeSource fetching = reloader.BeginReload(1000);
  reloader.set_source(new_source);
  budget_prio::ReloadOutcome outcome = reloader.FinishReload(fetching, budget::Status::Ok(), kTree);
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kStale);
  assert_false(reloader.has_tree());
  // From the current source, it is.
  outcome = reloader.FinishReload(reloader.BeginReload(1001), budget::Status::Ok(), kTree);
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kLoaded);
  assert_int_equal(reloader.tree().size(), 4);
  // A failed fetch keeps it.
  outcome = reloader.FinishReload(reloader.BeginReload(1002), budget::Status::IOError("timed out"), "");
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kRefused);
  assert_int_equal(reloader.tree().size(), 4);
}

void test_reloader_keeps_last_good_tree(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  std::string tree_file = dir + "/tree.json";
  std::string last_good = budget_prio::StateFile(dir, budget_prio::kLastGoodTreeFileName);
  WriteText(tree_file, kTree);
  budget_prio::TreeSource source;
  assert_true(budget_prio::TreeSource::FromSpec(tree_file, &source).ok());
  budget_prio::TreeReloader reloader(source, last_good, 300);
  assert_true(reloader.LoadLastGood().IsNotFound());
  assert_true(reloader.ReloadDue(1000));
  budget_prio::ReloadOutcome outcome = reloader.Reload(1000);
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kLoaded);
  // cluster, a, b, bob = 4 nodes; saved as the last good copy.
  assert_int_equal(reloader.tree().size(), 4);
  std::string saved;
  assert_true(budget_prio::ReadWholeFile(last_good, &saved).ok());
  assert_string_equal(saved.c_str(), kTree);
  // Not due again before BudgetRefresh (300 s) unless the file changes.
  assert_false(reloader.ReloadDue(1100));
  assert_true(reloader.ReloadDue(1300));
  // A malformed document: refused with the core's JSON path, tree kept.
  WriteText(tree_file, R"({ "name": "cluster", "children": [ { "name": "a", "share": -1 } ] })");
  assert_true(reloader.ReloadDue(1101));
  outcome = reloader.Reload(1101);
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kRefused);
  assert_non_null(strstr(outcome.message.c_str(), "$.children[0].share"));
  assert_int_equal(reloader.tree().size(), 4);
  assert_true(budget_prio::ReadWholeFile(last_good, &saved).ok());
  assert_string_equal(saved.c_str(), kTree);
  // The source gone: refused too, tree kept.
  unlink(tree_file.c_str());
  outcome = reloader.Reload(1200);
  assert_true(outcome.kind == budget_prio::ReloadOutcome::Kind::kRefused);
  assert_int_equal(reloader.tree().size(), 4);
  // A restart with the source down still has the tree (from the last good copy).
  budget_prio::TreeReloader restarted(source, last_good, 300);
  assert_true(restarted.LoadLastGood().ok());
  assert_int_equal(restarted.tree().size(), 4);
}

// --- state files -------------------------------------------------------------

void test_atomic_write(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  std::string path = dir + "/f";
  assert_true(budget_prio::WriteFileAtomically(path, "one").ok());
  assert_true(budget_prio::WriteFileAtomically(path, "two").ok());
  std::string text;
  assert_true(budget_prio::ReadWholeFile(path, &text).ok());
  assert_string_equal(text.c_str(), "two");
  assert_int_equal(access((path + ".tmp").c_str(), F_OK), -1);  // no temporary left
  unlink(path.c_str());
  // A directory that does not exist: IOError naming the temporary file.
  budget::Status st = budget_prio::WriteFileAtomically(dir + "/no/such/f", "x");
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "/no/such/f.tmp"));
}

// Temp files of an interrupted write are removed at start, and only ours.
void test_stale_temp_files_removed(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  std::string tree_tmp = budget_prio::StateFile(dir, budget_prio::kLastGoodTreeFileName) + ".tmp";
  std::string report_tmp = budget_prio::StateFile(dir, budget::kReportSnapshotFileName) + ".tmp";
  std::string other_tmp = dir + "/job_state.tmp";  // slurmctld's, not ours
  for (const std::string& f : {tree_tmp, report_tmp, other_tmp}) {
    assert_true(budget_prio::WriteFileAtomically(f, "half").ok());
  }
  std::vector<std::string> removed = budget_prio::RemoveStaleTempFiles(dir);
  assert_int_equal(removed.size(), 2);
  assert_string_equal(removed[0].c_str(), tree_tmp.c_str());
  assert_string_equal(removed[1].c_str(), report_tmp.c_str());
  assert_int_equal(access(tree_tmp.c_str(), F_OK), -1);
  assert_int_equal(access(other_tmp.c_str(), F_OK), 0);
  assert_true(budget_prio::RemoveStaleTempFiles(dir).empty());
}

// select/topo's figure reaches the report (sbudget reads the report
// alone, possibly on another host); without its state file the report
// says null, and a state file that does not parse is said, not guessed.
void test_report_carries_select_topo_fragmentation(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  std::string file = dir + "/" + budget::kPackingStateFile;
  budget::ReportSnapshot report;
  report.has_fragmentation = true;  // from a previous pass
  assert_true(budget_prio::AddFragmentation(file, &report).ok());
  assert_false(report.has_fragmentation);
  budget::PackingState packing;
  packing.time = 1700000000;
  packing.fragmentation = 0.25;
  packing.free_gpus = 24;
  packing.stranded_gpus = 6;
  assert_true(budget::SavePackingState(file, packing).ok());
  assert_true(budget_prio::AddFragmentation(file, &report).ok());
  assert_true(report.has_fragmentation);
  assert_float_equal(report.fragmentation, 0.25, 1e-12);
  assert_true(budget_prio::WriteFileAtomically(file, "{ \"version\": 1 }").ok());
  budget::Status st = budget_prio::AddFragmentation(file, &report);
  assert_false(st.ok());
  assert_false(report.has_fragmentation);
  assert_non_null(strstr(st.message().c_str(), budget::kPackingStateFile));
}

// While no tree has loaded, the report says so (and where the tree should
// come from), and reads back as such; so does its copy in ReportDir.
void test_no_tree_report_says_so(void** /*state*/) {
  ScratchDir scratch;
  const std::string& dir = scratch.path();
  budget::BudgetConfig config;
  config.lookback_window = 600;
  config.ledger_bucket = 5;
  config.recalc_interval = 2;
  budget::ReportSnapshot report;
  report.nodes.resize(3);
  budget_prio::BuildNoTreeReport(config, "/etc/slurm/budget-tree.json", 1700000000, &report);
  budget::ReportFileWriter writer;
  std::string file = dir + "/" + budget::kReportSnapshotFileName;
  std::string copy = dir + "/copy.json";
  assert_true(writer.Write(report, file, std::string(), nullptr, -1, copy).ok());
  for (const std::string& f : {file, copy}) {
    budget::ReportSnapshot read;
    assert_true(budget::ReadReportSnapshot(f, &read).ok());
    assert_false(read.tree_loaded);
    assert_int_equal(read.nodes.size(), 0);
    assert_string_equal(read.tree_source.c_str(), "/etc/slurm/budget-tree.json");
    assert_int_equal(read.window, 600);
    assert_int_equal(read.recalc_interval, 2);
    assert_int_equal(read.generated_at, 1700000000);
  }
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_user_priority_from_nice),
      cmocka_unit_test(test_job_view_sweep_fields_fit_one_cache_line),
      cmocka_unit_test(test_gpu_count_from_tres),
      cmocka_unit_test(test_gpu_count_from_gres_spec),
      cmocka_unit_test(test_running_job_charged_from_cursor_never_twice),
      cmocka_unit_test(test_unallocated_suspended_and_unknown_jobs),
      cmocka_unit_test(test_finished_job_tail_charged_once_then_forgotten),
      cmocka_unit_test(test_requeued_job_tail_charged_then_new_run_charged_fresh),
      cmocka_unit_test(test_requeued_job_tail_charged_whatever_its_start_time_now),
      cmocka_unit_test(test_pending_job_that_never_ran_is_not_charged),
      cmocka_unit_test(test_finished_job_without_cursor),
      cmocka_unit_test(test_pending_demand),
      cmocka_unit_test(test_weighted_charging_by_the_nodes_a_job_runs_on),
      cmocka_unit_test(test_weighted_tails_and_demand),
      cmocka_unit_test(test_pass_orders_teams_by_usage_over_share),
      cmocka_unit_test(test_pass_counts_what_the_report_shows),
      cmocka_unit_test(test_view_cache_rebuilds_only_what_changed),
      cmocka_unit_test(test_view_cache_keeps_the_gpus_of_a_run_that_ended),
      cmocka_unit_test(test_view_cache_keeps_the_nodes_of_a_run),
      cmocka_unit_test(test_view_cache_follows_the_job_list),
      cmocka_unit_test(test_view_cache_resolves_nodes_per_tree),
      cmocka_unit_test(test_changed_jobs_overflow_to_a_full_rebuild),
      cmocka_unit_test(test_tree_source_specs),
      cmocka_unit_test(test_tree_source_slurmdbd),
      cmocka_unit_test(test_curl_library_loads_on_demand),
      cmocka_unit_test(test_unreachable_url_is_an_error),
      cmocka_unit_test(test_reloader_keeps_last_good_tree),
      cmocka_unit_test(test_black_holed_url_times_out_as_configured),
      cmocka_unit_test(test_cancelled_fetch_gives_up_within_about_a_second),
      cmocka_unit_test(test_fetcher_never_blocks_the_caller),
      cmocka_unit_test(test_fetcher_stop_cancels_a_hung_fetch),
      cmocka_unit_test(test_reloader_ignores_a_fetch_from_an_old_source),
      cmocka_unit_test(test_atomic_write),
      cmocka_unit_test(test_stale_temp_files_removed),
      cmocka_unit_test(test_report_carries_select_topo_fragmentation),
      cmocka_unit_test(test_no_tree_report_says_so),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
