// fairtree+qos (fairtree_qos_policy.h): stock Slurm's Fair Tree with a debug
// QOS, checked run by run on one or two 8-GPU nodes, with the defaults:
// MaxWall 30 min, 2 running jobs and 8 GPUs per user in the QOS,
// PreemptExemptTime 30 min, Slurm's periodic main pass every 60 s
// (sched_interval), which is when a preemption past the exempt time is
// tried. Time limits are the rows' durations x 2 (sim_test_util.h). The
// tree: teams a and b at equal share, one user each.
#include "libbudget/testing/test_support.h"

#include <vector>

#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

struct Case {
  const char* what;
  const char* policy;
  uint32_t nodes;
  std::vector<Row> rows;  // {submit, account, gpus, duration, min_runtime, resumable, priority}
  uint32_t job_id;        // the job whose first start is checked (ids follow submit order)
  TimePoint start;        // its expected first start
};

// Team a's training: 8 GPUs, 4 h of work, protected 2 h (limit 8 h).
constexpr Row kTraining = {0, "a", 8, 14400, 7200, true, 0};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // Job 2, b's debug job (1 GPU, 10 min, limit 20 min: in the QOS),
      // waits for the training, which is exempt through 0 + 1800 - 1 s;
      // the periodic pass at 1800 preempts it for the debug job.
      {"debug preempts past PreemptExemptTime", "fairtree+qos", 1,
       {kTraining, {60, "b", 1, 600, 600, true, 0}}, 2, 1800},
      // Plain fairtree preempts by rank after its own exempt time, 1 h: b
      // ranks ahead of a (a has used GPUs, b none), so at 3600.
      {"fairtree waits its hour", "fairtree", 1, {kTraining, {60, "b", 1, 600, 600, true, 0}}, 2, 3600},
      // preempt/qos preempts across QOS, not across teams: a's own debug
      // job preempts a's training at 1800 (Fair Tree never would).
      {"debug preempts its own team", "fairtree+qos", 1, {kTraining, {60, "a", 1, 600, 600, true, 0}}, 2, 1800},
      // 20 min of work is a 40 min limit, over MaxWall: the job is in the
      // normal QOS, preempts nothing and starts when the training ends,
      // at 14400.
      {"over MaxWall: normal QOS", "fairtree+qos", 1, {kTraining, {60, "b", 1, 1200, 600, true, 0}}, 2, 14400},
      // Three 1-GPU debug jobs of one user on an empty node: two run
      // (MaxJobsPerUser=2); the third starts when the first ends, at 600.
      {"2 running jobs per user", "fairtree+qos", 1,
       {{0, "a", 1, 600, 600, true, 0}, {0, "a", 1, 900, 600, true, 0}, {0, "a", 1, 600, 600, true, 0}}, 3, 600},
      // The held third job does not stop Slurm's pass: b's training
      // behind it in the queue starts at once, at 0.
      {"a held job stops no pass", "fairtree+qos", 1,
       {{0, "a", 1, 600, 600, true, 0}, {0, "a", 1, 900, 600, true, 0}, {0, "a", 1, 600, 600, true, 0},
        {0, "b", 1, 3600, 3600, true, 0}},
       4, 0},
      // 4 + 8 GPUs > 8 per user: the 8-GPU debug job waits for the 4-GPU
      // one to end at 600, though a whole second node is free.
      {"8 GPUs per user", "fairtree+qos", 2, {{0, "a", 4, 600, 600, true, 0}, {0, "a", 8, 600, 600, true, 0}}, 2,
       600},
  };
  return cases;
}

void test_fairtree_qos_cases(void**) {
  for (const Case& c : Cases()) {
    RunOutput out = Run(c.policy, MakeWorkload(c.rows), MakeTree(kTwoTeams), c.nodes, 86400);
    std::printf("     %s: job %u starts at %lld\n", c.what, c.job_id, (long long)StartTime(out, c.job_id));
    assert_int_equal(StartTime(out, c.job_id), c.start);
  }
}

void test_debug_jobs_are_never_preempted(void**) {
  // b's debug job (8 GPUs, 15 min, limit 30 min) runs first; a's debug job
  // behind it may not preempt it: it starts when b's ends, at 900.
  std::vector<Row> rows = {{0, "b", 8, 900, 900, true, 0}, {60, "a", 8, 900, 900, true, 0}};
  RunOutput out = Run("fairtree+qos", MakeWorkload(rows), MakeTree(kTwoTeams), 1, 86400);
  assert_int_equal(PreemptTime(out, 1), -1);
  assert_int_equal(StartTime(out, 2), 900);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fairtree_qos_cases),
      cmocka_unit_test(test_debug_jobs_are_never_preempted),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
