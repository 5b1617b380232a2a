// Tests of the model of Slurm's schedulers (slurm_model.h): the main
// scheduler stops at the first job that cannot start; backfill starts jobs
// in holes that end before the reservations of the jobs ahead of them,
// planned by time limits, by bf_window, bf_resolution, bf_max_job_test and
// bf_max_job_start; the hero hold applies to both.
#include "libbudget/testing/test_nodes.h"
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "libbudget/policy/slurm_model.h"

using budget::GpuRequest;
using budget::NodeGpus;
using budget::NodeState;
using budget::RunningJob;
using budget::SchedulerParams;
using budget::Seconds;
using budget::SlurmJob;
using budget::SlurmPass;
using budget::TimePoint;
using budget::VectorQueue;

namespace {

// A multiple of every resolution used below, so rounding is visible only
// where a test wants it.
constexpr TimePoint kNow = 1'800'000'000 / 3600 * 3600;

using budget::testing::Nodes;

RunningJob Run(uint32_t id, std::vector<int32_t> nodes, uint32_t gpus, TimePoint start, Seconds limit) {
  RunningJob r;
  r.job_id = id;
  r.start = start;
  r.time_limit = limit;
  r.min_runtime = 60;
  for (int32_t n : nodes) r.nodes.push_back(NodeGpus{n, gpus});
  return r;
}

SlurmJob Job(uint32_t id, uint32_t nodes, uint32_t gpus, Seconds limit, Seconds min_runtime = 60) {
  SlurmJob j;
  j.job_id = id;
  j.request = GpuRequest{nodes, gpus};
  j.time_limit = limit;
  j.min_runtime = min_runtime;
  return j;
}

std::string Started(const SlurmPass& pass) {
  std::string s;
  for (const auto& st : pass.starts) {
    s += (s.empty() ? "" : " ") + std::to_string(st.job_id) + "@";
    for (int32_t n : st.nodes) s += std::to_string(n);
  }
  return s;
}

// Four 8-GPU nodes: 8-GPU jobs on n0-n2 (time limits ending in 1, 2, 3 h),
// a 4-GPU job on n3 ending by its limit in `n3_ends` seconds: 4 GPUs free.
struct HeadOfLine {
  std::vector<NodeState> nodes = Nodes({0, 0, 0, 4});
  std::vector<RunningJob> running;
  explicit HeadOfLine(Seconds n3_ends) {
    running = {Run(1, {0}, 8, kNow - 600, 3600 + 600), Run(2, {1}, 8, kNow, 7200), Run(3, {2}, 8, kNow, 10800),
               Run(4, {3}, 4, kNow, n3_ends)};
  }
};

void test_main_scheduler_stops_at_the_first_job_that_cannot_start(void**) {
  // The 8-GPU job 10 comes first and cannot start: the 1-GPU jobs behind
  // it wait although 4 GPUs are free (the head-of-line case of builtin
  // scheduling).
  HeadOfLine c(7200);
  VectorQueue queue({Job(10, 1, 8, 3600), Job(11, 1, 1, 600), Job(12, 1, 1, 600)});
  SlurmPass pass = budget::RunMainScheduler(SchedulerParams(), 100, c.nodes, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "");
  assert_int_equal(pass.blocked_by, 10);
  assert_int_equal(pass.tested, 1);
  // With the big job gone the small ones start, best fit on n3.
  VectorQueue small({Job(11, 1, 1, 600), Job(12, 1, 1, 600)});
  pass = budget::RunMainScheduler(SchedulerParams(), 100, c.nodes, budget::HeroPlan(), &small, kNow);
  assert_string_equal(Started(pass).c_str(), "11@3 12@3");
}

void test_backfill_starts_small_jobs_in_the_hole(void**) {
  // Job 10's earliest start by time limits: n0 frees at kNow + 3600 (job 1,
  // started kNow - 600 with a 4200-s limit), before n3 (kNow + 7200): n0 is
  // reserved from kNow + 3600. The 1-GPU jobs fit on n3, where nothing is
  // reserved: both start now.
  HeadOfLine c(7200);
  VectorQueue queue({Job(10, 1, 8, 3600), Job(11, 1, 1, 600), Job(12, 1, 1, 600)});
  SlurmPass pass = budget::RunBackfill(SchedulerParams(), c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "11@3 12@3");
  assert_int_equal(pass.reservations.size(), 1);
  assert_int_equal(pass.reservations[0].job_id, 10);
  assert_int_equal(pass.reservations[0].start, kNow + 3600);
  assert_int_equal(pass.reservations[0].nodes[0], 0);
}

void test_backfill_keeps_the_reservation(void**) {
  // Now n3 frees first (its job's limit ends at kNow + 1800): job 10 is
  // planned on n3 from kNow + 1800. A 1-GPU job may use n3 only if its
  // limit ends before: 1200 s yes (kNow + 1200 < kNow + 1800); job 12 with
  // 3600 s would delay job 10 and waits.
  HeadOfLine c(1800);
  VectorQueue queue({Job(10, 1, 8, 3600), Job(11, 1, 1, 1200), Job(12, 1, 1, 3600)});
  SlurmPass pass = budget::RunBackfill(SchedulerParams(), c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "11@3");
  assert_int_equal(pass.reservations[0].start, kNow + 1800);
  assert_int_equal(pass.reservations[0].nodes[0], 3);
}

void test_reservations_round_to_bf_resolution(void**) {
  // n3 frees at kNow + 1830; bf_resolution=60 rounds job 10's reservation
  // down to begin at kNow + 1800. A job whose limit ends at kNow + 1800
  // touches it (Slurm: a record that begins no later than the job's end is
  // in the way) and waits; one ending at kNow + 1740 starts.
  HeadOfLine c(1830);
  SchedulerParams p;
  p.bf_resolution = 60;
  VectorQueue touching({Job(10, 1, 8, 3600), Job(11, 1, 1, 1800)});
  assert_string_equal(Started(budget::RunBackfill(p, c.nodes, c.running, budget::HeroPlan(), &touching, kNow)).c_str(),
                      "");
  VectorQueue before({Job(10, 1, 8, 3600), Job(11, 1, 1, 1740)});
  assert_string_equal(Started(budget::RunBackfill(p, c.nodes, c.running, budget::HeroPlan(), &before, kNow)).c_str(),
                      "11@3");
}

void test_no_reservation_beyond_bf_window(void**) {
  // bf_window=20 minutes: job 10's start (kNow + 1800) is beyond it, so it
  // reserves nothing and the 3600-s job 12 may take n3 now.
  HeadOfLine c(1800);
  SchedulerParams p;
  assert_true(budget::ParseSchedulerParameters("bf_window=20", &p).ok());
  VectorQueue queue({Job(10, 1, 8, 3600), Job(12, 1, 1, 3600)});
  SlurmPass pass = budget::RunBackfill(p, c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "12@3");
  assert_int_equal(pass.reservations.size(), 0);
}

void test_bf_max_job_test_and_bf_max_job_start(void**) {
  // Eight free GPUs on n3 (its job gone), four 1-GPU jobs.
  HeadOfLine c(1800);
  c.nodes[3].free_gpus = 8;
  c.running.pop_back();
  SchedulerParams p;
  p.bf_max_job_test = 2;
  VectorQueue queue({Job(11, 1, 1, 600), Job(12, 1, 1, 600), Job(13, 1, 1, 600), Job(14, 1, 1, 600)});
  SlurmPass pass = budget::RunBackfill(p, c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "11@3 12@3");
  assert_int_equal(pass.tested, 2);
  p = SchedulerParams();
  p.bf_max_job_start = 3;
  VectorQueue again({Job(11, 1, 1, 600), Job(12, 1, 1, 600), Job(13, 1, 1, 600), Job(14, 1, 1, 600)});
  assert_string_equal(Started(budget::RunBackfill(p, c.nodes, c.running, budget::HeroPlan(), &again, kNow)).c_str(),
                      "11@3 12@3 13@3");
}

void test_unlimited_jobs_never_free_their_gpus(void**) {
  // n3's job has no time limit: job 10 (8 GPUs) can be planned only on
  // n0-n2; without limits anywhere it is never planned and reserves
  // nothing.
  HeadOfLine c(-1);
  for (RunningJob& r : c.running) r.time_limit = -1;
  VectorQueue queue({Job(10, 1, 8, 3600), Job(12, 1, 1, 36000)});
  SlurmPass pass = budget::RunBackfill(SchedulerParams(), c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "12@3");
  assert_int_equal(pass.reservations.size(), 0);
}

void test_whole_node_jobs_reserve_whole_nodes(void**) {
  // A 2-node job of 8 GPUs a node: n0 frees at kNow + 3600, n1 at
  // kNow + 7200: planned from kNow + 7200 on n0 and n1. Job 12 (4 GPUs,
  // limit 2 h) fits on n3 now, which is reserved for nobody.
  HeadOfLine c(36000);
  VectorQueue queue({Job(10, 2, 8, 3600), Job(12, 1, 4, 7200)});
  SlurmPass pass = budget::RunBackfill(SchedulerParams(), c.nodes, c.running, budget::HeroPlan(), &queue, kNow);
  assert_string_equal(Started(pass).c_str(), "12@3");
  assert_int_equal(pass.reservations[0].start, kNow + 7200);
  assert_int_equal(pass.reservations[0].nodes.size(), 2);
  assert_int_equal(pass.reservations[0].nodes[0], 0);
  assert_int_equal(pass.reservations[0].nodes[1], 1);
}

void test_the_hero_hold_applies_to_both_schedulers(void**) {
  // n3 held for hero job 50 until kNow + 1800. Job 11 (min-runtime 2 h,
  // limit 3 h) would hold it past then: it may not start there. Job 12
  // (min-runtime 10 min) may.
  HeadOfLine c(7200);
  budget::HeroPlan hold;
  hold.active = true;
  hold.job_id = 50;
  hold.nodes = {3};
  hold.planned_start = kNow + 1800;
  VectorQueue main_queue({Job(11, 1, 1, 10800, 7200)});
  SlurmPass pass = budget::RunMainScheduler(SchedulerParams(), 100, c.nodes, hold, &main_queue, kNow);
  assert_string_equal(Started(pass).c_str(), "");
  VectorQueue bf_queue({Job(11, 1, 1, 10800, 7200), Job(12, 1, 1, 10800, 600)});
  pass = budget::RunBackfill(SchedulerParams(), c.nodes, c.running, hold, &bf_queue, kNow);
  assert_string_equal(Started(pass).c_str(), "12@3");
}

void test_main_scheduler_limits(void**) {
  std::vector<NodeState> nodes = Nodes({8});
  SchedulerParams p;
  VectorQueue deep({Job(1, 1, 1, 60), Job(2, 1, 1, 60), Job(3, 1, 1, 60)});
  assert_string_equal(Started(budget::RunMainScheduler(p, 2, nodes, budget::HeroPlan(), &deep, kNow)).c_str(),
                      "1@0 2@0");
  p.sched_max_job_start = 1;
  VectorQueue capped({Job(1, 1, 1, 60), Job(2, 1, 1, 60)});
  assert_string_equal(Started(budget::RunMainScheduler(p, 0, nodes, budget::HeroPlan(), &capped, kNow)).c_str(), "1@0");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_main_scheduler_stops_at_the_first_job_that_cannot_start),
      cmocka_unit_test(test_backfill_starts_small_jobs_in_the_hole),
      cmocka_unit_test(test_backfill_keeps_the_reservation),
      cmocka_unit_test(test_reservations_round_to_bf_resolution),
      cmocka_unit_test(test_no_reservation_beyond_bf_window),
      cmocka_unit_test(test_bf_max_job_test_and_bf_max_job_start),
      cmocka_unit_test(test_unlimited_jobs_never_free_their_gpus),
      cmocka_unit_test(test_whole_node_jobs_reserve_whole_nodes),
      cmocka_unit_test(test_the_hero_hold_applies_to_both_schedulers),
      cmocka_unit_test(test_main_scheduler_limits),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
