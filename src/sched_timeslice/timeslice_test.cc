// Tests of the Slurm-free half of preempt/timeslice: the standings cache
// (ranked, degraded, stale) and the planner's inputs made
// from the job and node records (pass_inputs.h). The planner's rules are
// tested in libbudget/policy/timeslice_plan_test.cc.
#include "libbudget/testing/test_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_file.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/pass_inputs.h"
#include "sched_timeslice/standings_cache.h"

using budget::TimePoint;
using timeslice::JobFacts;
using timeslice::NodeFacts;

namespace {

constexpr TimePoint kNow = 1'800'000'000;

// The cache's log lines, shown in the test output (why a view is degraded).
void PrintNote(const std::string& line) { fprintf(stderr, "     note: %s\n", line.c_str()); }

std::string TempDir() {
  char pattern[] = "/tmp/timeslice_test.XXXXXX";
  const char* dir = mkdtemp(pattern);
  assert_non_null(dir);
  return dir;
}

// --- StandingsCache -----------------------------------------------------------

budget::SnapshotNode Node(const std::string& path, const std::string& account, uint32_t rank, double ratio,
                          double entitlement) {
  budget::SnapshotNode n;
  n.path = path;
  n.name = path.empty() ? "cluster" : path;
  n.account = account;
  n.rank = rank;
  n.usage_ratio = ratio;
  n.entitlement = entitlement;
  return n;
}

void WriteSnapshot(const std::string& dir, TimePoint generated_at, double usage_a = 480, double usage_b = 4800,
                   const char* file_name = budget::kReportSnapshotFileName) {
  budget::ReportSnapshot s;
  s.generated_at = generated_at;
  s.window = 600;
  s.bucket_width = 5;
  s.capacity_gpus = 16;
  s.recalc_interval = 2;
  s.nodes.push_back(Node("", "", budget::FairShareOrder::kNoRank, 0, 1));
  // Ratio = usage / (0.5 x 16 GPUs x 600 s) = usage / 4800.
  s.nodes.push_back(Node("teama", "teama", 0, usage_a / 4800, 0.5));
  s.nodes.push_back(Node("teamb", "teamb", 1, usage_b / 4800, 0.5));
  s.nodes[1].window_usage = usage_a;
  s.nodes[2].window_usage = usage_b;
  assert_true(budget::WriteReportSnapshot(s, dir + "/" + file_name).ok());
}

// The standings file, when priority/budget writes one, is read instead of
// the whole report; without it, the report again.
void test_standings_file_preferred_to_the_report(void**) {
  std::string dir = TempDir();
  // The report says teama (480 GPU-s) ratio 0.1; the standings file,
  // written later, says teama used 2400: ratio 2400 / 4800 = 0.5.
  WriteSnapshot(dir, kNow);
  WriteSnapshot(dir, kNow, 2400, 4800, budget::kStandingsSnapshotFileName);
  timeslice::StandingsCache cache(dir, PrintNote);
  auto view = cache.View(kNow);
  assert_true(view->ranked);
  assert_float_equal(view->StandingOf(1).usage_ratio, 0.5, 1e-12);
  // Gone (an older priority/budget): the report's 480 / 4800 = 0.1, read at
  // the next stat, kStatPeriod later.
  assert_int_equal(unlink((dir + "/" + budget::kStandingsSnapshotFileName).c_str()), 0);
  view = cache.View(kNow + timeslice::StandingsCache::kStatPeriod);
  assert_true(view->ranked);
  assert_float_equal(view->StandingOf(1).usage_ratio, 0.1, 1e-12);
}

void test_standings_degraded_without_snapshot(void**) {
  std::string dir = TempDir();
  std::vector<std::string> lines;
  timeslice::StandingsCache cache(dir, [&](const std::string& l) { lines.push_back(l); });
  auto view = cache.View(kNow);
  assert_false(view->ranked);
  // Every account maps to the one neutral allocation 0: allocated work is
  // then "same allocation" for the core, never preempted by allocated work.
  assert_int_equal(view->AllocationOf("teama", "u"), 0);
  assert_int_equal(view->AllocationOf("teamb", "u"), 0);
  assert_int_equal(lines.size(), 1);  // logged once
  cache.View(kNow + 5);
  assert_int_equal(lines.size(), 1);  // and not again
}

void test_standings_from_snapshot_then_stale(void**) {
  std::string dir = TempDir();
  WriteSnapshot(dir, kNow);
  timeslice::StandingsCache cache(dir, PrintNote);
  auto view = cache.View(kNow);
  assert_true(view->ranked);
  // No last good tree: mapped by account; nodes in file order (root 0).
  assert_int_equal(view->AllocationOf("teama", "alice"), 1);
  assert_int_equal(view->AllocationOf("teamb", "bob"), 2);
  assert_int_equal(view->AllocationOf("nobody", "bob"), budget::kNoAllocation);
  assert_int_equal(view->StandingOf(2).rank, 1);
  assert_int_equal(view->scale.capacity_gpus, 16);
  assert_int_equal(view->scale.window, 600);
  // Stale after max(3 x 2 s, 90 s) = 90 s: degraded again.
  assert_true(cache.View(kNow + 90)->ranked);
  assert_false(cache.View(kNow + 92)->ranked);
}

void test_standings_map_users_through_the_tree(void**) {
  std::string dir = TempDir();
  WriteSnapshot(dir, kNow);
  FILE* f = fopen((dir + "/budget_tree.last_good.json").c_str(), "w");
  assert_non_null(f);
  fputs("{ \"name\": \"cluster\", \"children\": [\n"
        "  { \"name\": \"teama\", \"share\": 1, \"account\": \"teama\" },\n"
        "  { \"name\": \"teamb\", \"share\": 1, \"account\": \"teamb\" } ] }\n", f);
  fclose(f);
  timeslice::StandingsCache cache(dir, PrintNote);
  auto view = cache.View(kNow);
  assert_true(view->has_tree);
  // teamb -> tree path "teamb" -> snapshot index 2.
  assert_int_equal(view->AllocationOf("teamb", "bob"), 2);
  assert_int_equal(view->AllocationOf("other", "bob"), budget::kNoAllocation);
}

// --- Pass inputs -------------------------------------------------------------

// --- The pass -----------------------------------------------------------------

JobFacts RunningFacts(uint32_t id, const char* account, TimePoint start, budget::Seconds min_runtime,
                      std::vector<int32_t> nodes, uint32_t gpus_per_node, bool resumable = true) {
  JobFacts j;
  j.job_id = id;
  j.account = account;
  j.user = "u";
  j.contract.min_runtime = min_runtime;
  j.contract.resumable = resumable;
  j.running = true;
  j.start = start;
  j.nodes = std::move(nodes);
  j.node_count = j.nodes.size();
  j.gpus_per_node = gpus_per_node;
  return j;
}

JobFacts PendingFacts(uint32_t id, const char* account, budget::Seconds min_runtime, uint32_t nodes,
                      uint32_t gpus_per_node) {
  JobFacts j;
  j.job_id = id;
  j.account = account;
  j.contract.min_runtime = min_runtime;
  j.pending = true;
  j.waits_for_resources = true;
  j.node_count = nodes;
  j.gpus_per_node = gpus_per_node;
  return j;
}

std::vector<NodeFacts> Nodes(int count, int draining = -1) {
  std::vector<NodeFacts> nodes;
  for (int i = 0; i < count; ++i) {
    NodeFacts n;
    n.index = i;
    n.name = "n" + std::to_string(i + 1);
    n.total_gpus = 8;
    n.draining = i == draining;
    n.usable = i != draining;
    n.reason = n.draining ? "repair" : "";
    nodes.push_back(n);
  }
  return nodes;
}

std::shared_ptr<const timeslice::StandingsView> RankedView(const std::string& dir, double usage_a = 480,
                                                           double usage_b = 4800) {
  WriteSnapshot(dir, kNow, usage_a, usage_b);
  static std::vector<std::unique_ptr<timeslice::StandingsCache>> keep;
  keep.push_back(std::make_unique<timeslice::StandingsCache>(dir, PrintNote));
  return keep.back()->View(kNow);
}

void test_pass_inputs_from_the_records(void**) {
  auto view = RankedView(TempDir());
  // n1 drains; n2 is down. Running: job 1 (teama) on n1, job 2 (unbound
  // account, unallocated) on n2. Waiting: job 3 (teamb), job 4 (teama,
  // later submitted), job 5 held (not waiting for resources), job 6 with
  // no GPUs.
  std::vector<NodeFacts> nodes = Nodes(3, 0);
  nodes[1].usable = false;
  std::vector<JobFacts> jobs = {RunningFacts(1, "teama", kNow - 100, 20, {0}, 8),
                                RunningFacts(2, "nobody", kNow - 100, 0, {1}, 8),
                                PendingFacts(3, "teamb", 20, 1, 8), PendingFacts(4, "teama", 20, 2, 8),
                                PendingFacts(5, "teama", 20, 1, 8), PendingFacts(6, "teama", 20, 1, 0)};
  jobs[2].submit_time = kNow - 50;
  jobs[3].submit_time = kNow - 10;
  jobs[3].time_limit = 3600;
  jobs[4].waits_for_resources = false;
  budget::PackingState packing;
  packing.hero_active = true;
  packing.hero_job_id = 4;
  packing.hero_planned_start = kNow + 60;
  packing.hero_nodes = {"n3", "n9"};  // n9 is no node: dropped
  budget::TimesliceInputs in = timeslice::PassInputsOf(jobs, nodes, *view, &packing, budget::QuickStartRule(), 0);
  assert_int_equal(in.nodes.size(), 3);
  assert_false(in.nodes[0].usable);  // draining
  assert_false(in.nodes[1].usable);  // down
  assert_true(in.nodes[2].usable);
  assert_string_equal(in.node_names[2].c_str(), "n3");
  assert_true((in.draining == std::vector<int32_t>{0}));
  assert_int_equal(in.running.size(), 2);
  assert_int_equal(in.running[0].allocation, 1);  // teama
  assert_int_equal(in.running[1].allocation, budget::kNoAllocation);
  // Waiting, in the core's order: teama (rank 0) before teamb (rank 1)
  // whatever the submit times; jobs 5 and 6 are not waiting for GPUs.
  assert_int_equal(in.waiting.size(), 2);
  assert_int_equal(in.waiting[0].shape.job_id, 4);
  assert_int_equal(in.waiting[0].shape.node_count, 2);
  assert_int_equal(in.waiting[0].time_limit, 3600);
  assert_int_equal(in.waiting[1].shape.job_id, 3);
  assert_int_equal(in.waiting[1].shape.allocation, 2);
  // The hold, its nodes by index.
  assert_true(in.hold.active);
  assert_int_equal(in.hold.job_id, 4);
  assert_true((in.hold.nodes == std::vector<int32_t>{2}));
  assert_int_equal(in.scale.capacity_gpus, 16);
  // No published state: no hold.
  assert_false(timeslice::PassInputsOf(jobs, nodes, *view, nullptr, budget::QuickStartRule(), 0).hold.active);
  // Job 1 told to leave (in its notice): leaving, as a completing job, it
  // is not among the running jobs; a job that left in its notice is
  // neither running nor waiting.
  jobs[0].notice_until = kNow + 30;
  JobFacts left;
  left.job_id = 7;
  left.left_in_notice = true;
  jobs.push_back(left);
  in = timeslice::PassInputsOf(jobs, nodes, *view, &packing, budget::QuickStartRule(), 0);
  assert_int_equal(in.running.size(), 1);
  assert_int_equal(in.running[0].job_id, 2);
  assert_int_equal(in.waiting.size(), 2);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_standings_degraded_without_snapshot),
      cmocka_unit_test(test_standings_from_snapshot_then_stale),
      cmocka_unit_test(test_standings_file_preferred_to_the_report),
      cmocka_unit_test(test_standings_map_users_through_the_tree),
      cmocka_unit_test(test_pass_inputs_from_the_records),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
