// Tests of the Slurm-free half of sched/timeslice and preempt/timeslice:
// the GPU spec reader, the victim key against the core's VictimOrder, the
// standings cache (ranked, degraded, stale), the counts file, and what one
// pass plans (drain at contract end, time slicing, gang safety).
#include "libbudget/test_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "libbudget/preempt.h"
#include "libbudget/preemption_note.h"
#include "libbudget/report_snapshot.h"
#include "sched_timeslice/commitments.h"
#include "sched_timeslice/job_facts.h"
#include "sched_timeslice/standings_cache.h"
#include "sched_timeslice/state_counts.h"
#include "sched_timeslice/timeslice_pass.h"
#include "sched_timeslice/victim_key.h"

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

// --- GpusIn -------------------------------------------------------------------

void test_gpus_in_tres_and_gres_strings(void**) {
  struct Case {
    const char* spec;
    uint32_t gpus;
  } cases[] = {
      {"gres/gpu=8", 8},
      {"cpu=1,mem=1G,node=1,gres/gpu:a100=4", 4},  // typed TRES
      {"gres:gpu:8", 8},                           // 22.05 tres_per_node
      {"gres/gpu:a100:2", 2},
      {"gpu:8(S:0-1)", 8},                         // a node's Gres
      {"gres/gpumem=100", 0},                      // not a GPU count
      {"cpu=4,mem=1G", 0},
      {"", 0},
  };
  for (const Case& c : cases) {
    assert_int_equal(timeslice::GpusIn(c.spec), c.gpus);
  }
}

// --- VictimKey ----------------------------------------------------------------

budget::RunningJob Running(uint32_t id, int32_t allocation, TimePoint start, budget::Seconds min_runtime,
                           uint32_t user_priority = 0) {
  budget::RunningJob r;
  r.job_id = id;
  r.allocation = allocation;
  r.start = start;
  r.min_runtime = min_runtime;
  r.user_priority = user_priority;
  return r;
}

void test_victim_key_sorts_as_victim_order(void**) {
  std::vector<budget::Standing> standings(3);
  standings[0].rank = 0;  // most under-served
  standings[1].rank = 1;
  standings[2].rank = 2;  // most over-served
  std::vector<budget::RunningJob> jobs = {
      Running(1, 0, kNow - 1000, 60),                     // allocated, rank 0
      Running(2, 2, kNow - 1000, 60),                     // allocated, rank 2
      Running(3, 2, kNow - 1000, 60, 5),                  // rank 2, higher user priority
      Running(4, 2, kNow - 100, 60),                      // rank 2, younger than job 2
      Running(5, 1, kNow - 1000, 0),                      // unallocated of an allocation
      Running(6, budget::kNoAllocation, kNow - 1000, 0),  // unallocated, no allocation
  };
  std::vector<budget::RunningJob> by_core = jobs;
  std::stable_sort(by_core.begin(), by_core.end(), budget::VictimOrder(standings));
  std::vector<budget::RunningJob> by_key = jobs;
  std::stable_sort(by_key.begin(), by_key.end(), [&](const budget::RunningJob& a, const budget::RunningJob& b) {
    return timeslice::VictimKey(a, standings, kNow) < timeslice::VictimKey(b, standings, kNow);
  });
  // Core order: 6 (no allocation) 5 (unallocated) 4 (rank 2, youngest) 2 (rank 2)
  // 3 (rank 2, user priority 5) 1 (rank 0).
  const uint32_t expected[] = {6, 5, 4, 2, 3, 1};
  for (size_t i = 0; i < jobs.size(); ++i) {
    assert_int_equal(by_core[i].job_id, expected[i]);
    assert_int_equal(by_key[i].job_id, expected[i]);
  }
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

// --- Counts -------------------------------------------------------------------

void test_counts_add_up(void**) {
  std::string file = TempDir() + "/timeslice_state.json";
  timeslice::TimesliceCounts after;
  assert_true(timeslice::AddToCounts(file, 2, 0, kNow, &after).ok());
  assert_true(timeslice::AddToCounts(file, 1, 1, kNow, &after).ok());
  // 2 + 1 preemptions, 0 + 1 drains.
  assert_int_equal(after.preemptions, 3);
  assert_int_equal(after.automated_drains, 1);
  timeslice::TimesliceCounts read;
  assert_true(timeslice::ReadCounts(file, &read).ok());
  assert_int_equal(read.preemptions, 3);
}

void test_counts_report_an_unwritable_file(void**) {
  budget::Status st = timeslice::AddToCounts("/nonexistent-dir/timeslice_state.json", 1, 0, kNow, nullptr);
  assert_false(st.ok());
  assert_non_null(strstr(st.message().c_str(), "/nonexistent-dir/timeslice_state.json"));
}

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

void test_drain_requeues_unprotected_and_promises_empty_time(void**) {
  auto view = RankedView(TempDir());
  std::vector<JobFacts> jobs = {
      RunningFacts(1, "teama", kNow - 5, 20, {0}, 4),         // protected until kNow + 15
      RunningFacts(2, "teamb", kNow - 100, 20, {0}, 4),       // protection over
      RunningFacts(3, "teamb", kNow - 100, 20, {1}, 8),       // not on the draining node
  };
  timeslice::TimeslicePlanner planner;
  timeslice::PassPlan plan = planner.Plan(jobs, Nodes(2, 0), *view, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 2);
  assert_true(plan.preemptions[0].for_drain);
  assert_true(plan.preemptions[0].action == budget::PreemptAction::kRequeue);
  assert_non_null(strstr(plan.preemptions[0].comment.c_str(), "drain at contract end"));
  // Empty at job 1's protection end: kNow - 5 + 20 = kNow + 15.
  assert_int_equal(plan.empty_by.size(), 1);
  assert_int_equal(plan.empty_by[0].empty_at, kNow + 15);
  assert_int_equal(plan.new_automated_drains, 1);
  // The next pass still drains the same node: not counted again.
  plan = planner.Plan(jobs, Nodes(2, 0), *view, kNow + 1);
  assert_int_equal(plan.new_automated_drains, 0);
  // Job 1's protection over (kNow + 15): it leaves, cancelled (not resumable).
  jobs = {RunningFacts(1, "teama", kNow - 5, 20, {0}, 4, false)};
  plan = planner.Plan(jobs, Nodes(2, 0), *view, kNow + 15);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_true(plan.preemptions[0].action == budget::PreemptAction::kCancel);
}

void test_timeslice_waits_for_protection_then_preempts(void**) {
  auto view = RankedView(TempDir());
  // teamb (rank 1, ratio 1.0) holds the only node; teama (rank 0) waits.
  // Projected ratio of teama: (0 + 8 x 20) / (0.5 x 16 x 600) = 160 / 4800
  // = 0.033 <= 1.0: no ping-pong.
  std::vector<JobFacts> jobs = {RunningFacts(5, "teamb", kNow - 10, 20, {0}, 8),
                                PendingFacts(6, "teama", 20, 1, 8)};
  timeslice::TimeslicePlanner planner;
  timeslice::PassPlan plan = planner.Plan(jobs, Nodes(1), *view, kNow);
  // Job 5 is protected until kNow + 10: nothing.
  assert_int_equal(plan.preemptions.size(), 0);
  plan = planner.Plan(jobs, Nodes(1), *view, kNow + 10);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 5);
  assert_false(plan.preemptions[0].for_drain);
  // The core's note: "preempted by job 6 at <kNow + 10> (rule: over-served
  // allocation)", which sbudget and the commitments read back.
  assert_string_equal(plan.preemptions[0].comment.c_str(),
                      budget::FormatPreemptionNote(6, kNow + 10, "over-served allocation").c_str());
  budget::PreemptionNote note;
  assert_true(budget::ParsePreemptionNote(plan.preemptions[0].comment, &note));
  assert_int_equal(note.preempted_by, 6);
  assert_int_equal(note.at_time, kNow + 10);
}

void test_timeslice_serves_the_job_slurm_tries_first(void**) {
  auto view = RankedView(TempDir());
  // teamb (rank 1) holds the only node, unprotected; teama (rank 0) waits
  // with three jobs of equal Slurm priority. Job 3 was requeued (Slurm reset
  // its submit time to kNow - 5); job 4 was submitted at kNow - 50, before
  // it; job 2 of teamb was submitted first of all but ranks behind.
  JobFacts requeued = PendingFacts(3, "teama", 20, 1, 8);
  requeued.submit_time = kNow - 5;
  JobFacts older = PendingFacts(4, "teama", 20, 1, 8);
  older.submit_time = kNow - 50;
  JobFacts behind = PendingFacts(2, "teamb", 20, 1, 8);
  behind.submit_time = kNow - 500;
  std::vector<JobFacts> jobs = {RunningFacts(5, "teamb", kNow - 100, 20, {0}, 8), requeued, older, behind};
  timeslice::TimeslicePlanner planner;
  timeslice::PassPlan plan = planner.Plan(jobs, Nodes(1), *view, kNow);
  // Core job order: rank (teama 0 < teamb 1), then submit time (kNow - 50 <
  // kNow - 5): job 4, not the lower id 3, is served.
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 5);
  assert_string_equal(plan.preemptions[0].comment.c_str(),
                      budget::FormatPreemptionNote(4, kNow, "over-served allocation").c_str());
  // A higher user priority (nice -10 = user priority 10) comes before the
  // submit time inside teama: job 3 now.
  jobs[1].user_priority = 10;
  plan = planner.Plan(jobs, Nodes(1), *view, kNow);
  assert_int_equal(plan.preemptions.size(), 1);
  assert_string_equal(plan.preemptions[0].comment.c_str(),
                      budget::FormatPreemptionNote(3, kNow, "over-served allocation").c_str());
}

void test_timeslice_never_by_the_team_behind(void**) {
  auto view = RankedView(TempDir());
  // teama (rank 0) runs; teamb (rank 1) waits: it ranks behind, nothing.
  std::vector<JobFacts> jobs = {RunningFacts(5, "teama", kNow - 100, 20, {0}, 8),
                                PendingFacts(6, "teamb", 20, 1, 8)};
  timeslice::TimeslicePlanner planner;
  assert_int_equal(planner.Plan(jobs, Nodes(1), *view, kNow).preemptions.size(), 0);
}

void test_timeslice_takes_a_multi_node_job_whole_and_no_more(void**) {
  auto view = RankedView(TempDir());
  // Three 8-GPU nodes: a 2-node teamb job on n2+n3, an unallocated 8-GPU
  // job on n1. teama needs one node of 8 GPUs: n1 is the cheapest (its only
  // victim is unallocated work, preempted before any allocated work).
  std::vector<JobFacts> jobs = {RunningFacts(7, "teamb", kNow - 100, 20, {1, 2}, 8),
                                RunningFacts(8, "nobody", kNow - 100, 0, {0}, 8),
                                PendingFacts(9, "teama", 20, 1, 8)};
  timeslice::TimeslicePlanner planner;
  timeslice::PassPlan plan = planner.Plan(jobs, Nodes(3), *view, kNow);
  // One victim: the unallocated job 8 (victim order: unallocated first).
  assert_int_equal(plan.preemptions.size(), 1);
  assert_int_equal(plan.preemptions[0].job_id, 8);
  // A 2-node teama job needs two whole nodes: n1 (job 8) and one node of
  // job 7, which then goes whole: two victims, job 7 listed once.
  jobs[2] = PendingFacts(9, "teama", 20, 2, 8);
  plan = planner.Plan(jobs, Nodes(3), *view, kNow);
  assert_int_equal(plan.preemptions.size(), 2);
  std::vector<uint32_t> ids = {plan.preemptions[0].job_id, plan.preemptions[1].job_id};
  std::sort(ids.begin(), ids.end());
  assert_int_equal(ids[0], 7);
  assert_int_equal(ids[1], 8);
}

// --- Commitments ------------------------------------------------------------------

void test_commitments_read_grants_from_the_victims_notes(void**) {
  auto view = RankedView(TempDir());
  JobFacts victim = RunningFacts(1, "teamb", kNow - 100, 20, {0}, 8);
  victim.running = false;
  victim.pending = true;
  victim.comment = budget::FormatPreemptionNote(2, kNow - 5, "over-served allocation");
  JobFacts older_victim = RunningFacts(9, "teamb", kNow - 100, 20, {0}, 8);
  older_victim.running = false;
  older_victim.pending = true;
  older_victim.comment = budget::FormatPreemptionNote(2, kNow - 50, "unallocated");
  std::vector<JobFacts> jobs = {
      victim,
      older_victim,
      PendingFacts(2, "teama", 20, 1, 8),               // granted: 8 x 20 = 160
      PendingFacts(3, "teama", 20, 1, 8),               // not granted: 0
      RunningFacts(4, "teama", kNow - 5, 20, {1}, 8),        // protected 15 s more: 8 x 15 = 120
      RunningFacts(5, "teamb", kNow - 100, 20, {1}, 8),      // protection over: 0
  };
  // Job 2 is named twice: one grant, at the later time kNow - 5.
  std::vector<budget::GrantedPreemptor> granted = timeslice::GrantedPreemptorsOf(jobs, *view);
  assert_int_equal(granted.size(), 1);
  assert_int_equal(granted[0].job_id, 2);
  assert_int_equal(granted[0].allocation, 1);
  assert_int_equal(granted[0].gpus, 8);
  assert_int_equal(granted[0].granted_at, kNow - 5);
  std::vector<budget::Standing> standings = timeslice::StandingsWithCommitments(jobs, *view, kNow);
  // teama (index 1): 480 + 160 + 120 = 760; teamb (index 2): 4800 + 0.
  assert_true(standings[1].window_usage == 760.0);
  assert_true(standings[2].window_usage == 4800.0);
  // At kNow + 56 the grant is 61 s old (> kGrantTtl = 60 s) and job 4's
  // protection (until kNow + 15) is over: 480 + 0.
  standings = timeslice::StandingsWithCommitments(jobs, *view, kNow + 56);
  assert_true(standings[1].window_usage == 480.0);
}

void test_second_preemption_of_a_team_counts_the_first(void**) {
  // teama used 4000 GPU-s (ratio 0.833), teamb 4272 (ratio 0.89) holds both
  // nodes, unprotected. Alone, teama's job projects
  // (4000 + 8 x 20) / 4800 = 0.867 <= 0.89: allowed.
  auto view = RankedView(TempDir(), 4000, 4272);
  std::vector<JobFacts> jobs = {RunningFacts(5, "teamb", kNow - 100, 20, {0}, 8),
                                RunningFacts(6, "teamb", kNow - 100, 20, {1}, 8),
                                PendingFacts(7, "teama", 20, 1, 8)};
  timeslice::TimeslicePlanner planner;
  assert_int_equal(planner.Plan(jobs, Nodes(2), *view, kNow).preemptions.size(), 1);
  // Job 5 was preempted and job 7 now runs on n1, protected until
  // kNow + 20; teama's job 8 waits next. With the snapshot alone it would
  // project 0.867 again; with job 7's protected run still to be charged
  // (8 x 19 = 152 at kNow + 1): (4000 + 152 + 160) / 4800 = 0.898 > 0.89:
  // refused, so the second node does not change hands.
  jobs = {RunningFacts(7, "teama", kNow, 20, {0}, 8), jobs[1], PendingFacts(8, "teama", 20, 1, 8)};
  assert_int_equal(planner.Plan(jobs, Nodes(2), *view, kNow + 1).preemptions.size(), 0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gpus_in_tres_and_gres_strings),
      cmocka_unit_test(test_victim_key_sorts_as_victim_order),
      cmocka_unit_test(test_standings_degraded_without_snapshot),
      cmocka_unit_test(test_standings_from_snapshot_then_stale),
      cmocka_unit_test(test_standings_file_preferred_to_the_report),
      cmocka_unit_test(test_standings_map_users_through_the_tree),
      cmocka_unit_test(test_counts_add_up),
      cmocka_unit_test(test_counts_report_an_unwritable_file),
      cmocka_unit_test(test_drain_requeues_unprotected_and_promises_empty_time),
      cmocka_unit_test(test_timeslice_waits_for_protection_then_preempts),
      cmocka_unit_test(test_timeslice_serves_the_job_slurm_tries_first),
      cmocka_unit_test(test_timeslice_never_by_the_team_behind),
      cmocka_unit_test(test_timeslice_takes_a_multi_node_job_whole_and_no_more),
      cmocka_unit_test(test_commitments_read_grants_from_the_victims_notes),
      cmocka_unit_test(test_second_preemption_of_a_team_counts_the_first),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
