/* Tests of the C API (placement_c.h), written in C as the plugin shims use
 * it. The rules themselves are tested in contract_, preempt_, drain_ and
 * packing_test; these check that each call reaches them, that results come
 * back intact and that errors come back through errptr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "libbudget/placement_c.h"

/* Allocations 0 (rank 0, ratio 0.2) and 1 (rank 1, ratio 0.9); entitlement
 * 0.5 of 16 GPUs x 1000 s = 8000 GPU-s; allocation 0 used 0.2 x 8000 = 1600. */
static const budget_standing_t kStandings[2] = {{0, 0.2, 0.5, 1600.0}, {1, 0.9, 0.5, 7200.0}};
static const budget_cluster_scale_t kScale = {16, 1000};
static const int64_t kNow = 1000;

static budget_node_t Node(int32_t index, uint32_t free_gpus) {
  budget_node_t n;
  n.index = index;
  n.total_gpus = 8;
  n.free_gpus = free_gpus;
  n.group = BUDGET_NO_GROUP;
  n.usable = 1;
  return n;
}

static budget_running_job_t Running(uint32_t id, int32_t allocation, int64_t start,
                                    int64_t min_runtime, unsigned char resumable,
                                    const budget_node_gpus_t* nodes, size_t node_count) {
  budget_running_job_t j;
  j.job_id = id;
  j.allocation = allocation;
  j.start = start;
  j.min_runtime = min_runtime;
  j.resumable = resumable;
  j.user_priority = 0;
  j.nodes = nodes;
  j.node_count = node_count;
  return j;
}

/* Allocation 0 wants 8 GPUs on one node for 100 s: projected
 * (1600 + 8 x 100) / 8000 = 0.3. */
static budget_job_shape_t Pending(void) {
  budget_job_shape_t p = {99, 0, 100, 1, 8};
  return p;
}

static void test_contract(void** state) {
  (void)state;
  /* 1000 + 900 + 1 = 1901 (contract.h: protected through 1900). */
  assert_int_equal(budget_protection_end(1000, 900), 1901);
  /* 1900 < 1901: protected; 1901: not. */
  assert_int_equal(budget_is_protected(1000, 900, 1900), 1);
  assert_int_equal(budget_is_protected(1000, 900, 1901), 0);
  /* Unallocated: never protected. */
  assert_int_equal(budget_is_protected(1000, 0, 1000), 0);
  assert_int_equal(budget_action_when_preempted(1), BUDGET_REQUEUE);
  assert_int_equal(budget_action_when_preempted(0), BUDGET_CANCEL);
  assert_string_equal(budget_action_name(BUDGET_CANCEL), "cancel");
}

static void test_may_preempt(void** state) {
  (void)state;
  budget_node_gpus_t on0 = {0, 8};
  budget_job_shape_t pending = Pending();
  budget_verdict_t verdict = BUDGET_REFUSED_PROTECTED;
  char* err = NULL;
  /* Allocation 1's job, past its protection (0 + 10 <= 1000): 0.3 <= 0.9. */
  budget_running_job_t victim = Running(1, 1, 0, 10, 1, &on0, 1);
  assert_int_equal(budget_may_preempt(&pending, &kStandings[0], &victim, &kStandings[1], &kScale,
                                      kNow, &verdict, &err), 1);
  assert_null(err);
  assert_int_equal(verdict, BUDGET_ALLOWED_OVER_SERVED);
  assert_string_equal(budget_verdict_name(verdict), "over-served allocation");
  /* Started 950 with 100: protected until 1050. */
  victim.start = 950;
  victim.min_runtime = 100;
  assert_int_equal(budget_may_preempt(&pending, &kStandings[0], &victim, &kStandings[1], &kScale,
                                      kNow, &verdict, &err), 0);
  assert_int_equal(verdict, BUDGET_REFUSED_PROTECTED);
  /* Allocation 1 does not rank ahead of 0. */
  budget_running_job_t ahead = Running(2, 0, 0, 10, 1, &on0, 1);
  pending.allocation = 1;
  assert_int_equal(budget_may_preempt(&pending, &kStandings[1], &ahead, &kStandings[0], &kScale,
                                      kNow, &verdict, &err), 0);
  assert_int_equal(verdict, BUDGET_REFUSED_RANKS_BEHIND);
  assert_string_equal(budget_verdict_name((budget_verdict_t)42), "unknown");
  /* NULL argument: an error, 0. */
  assert_int_equal(budget_may_preempt(NULL, &kStandings[0], &victim, &kStandings[1], &kScale,
                                      kNow, NULL, &err), 0);
  assert_non_null(err);
  assert_string_equal(err, "budget_may_preempt: NULL argument");
  /* A second error replaces (and frees) the first message. */
  victim.nodes = NULL;
  assert_int_equal(budget_may_preempt(&pending, &kStandings[0], &victim, &kStandings[1], &kScale,
                                      kNow, NULL, &err), 0);
  assert_string_equal(err, "budget_may_preempt: running job 1: 1 nodes but nodes is NULL");
  free(err);
}

static void test_victim_order(void** state) {
  (void)state;
  budget_node_gpus_t on0 = {0, 1};
  budget_running_job_t jobs[3];
  size_t order[3] = {9, 9, 9};
  char* err = NULL;
  jobs[0] = Running(10, 0, 0, 10, 1, &on0, 1); /* allocated, rank 0 */
  jobs[1] = Running(11, 1, 0, 10, 1, &on0, 1); /* allocated, rank 1 */
  jobs[2] = Running(12, 0, 0, 0, 1, &on0, 1);  /* unallocated */
  budget_victim_order(jobs, 3, kStandings, 2, order, &err);
  assert_null(err);
  /* Unallocated (index 2), then rank 1 (index 1), then rank 0 (index 0). */
  assert_int_equal(order[0], 2);
  assert_int_equal(order[1], 1);
  assert_int_equal(order[2], 0);
  budget_victim_order(jobs, 3, kStandings, 2, NULL, &err);
  assert_string_equal(err, "budget_victim_order: NULL order array");
  free(err);
}

static void test_choose_preemption(void** state) {
  (void)state;
  /* Node 0 full: free job 1 (4 GPUs, resumable) and allocation 1's job 2
   * (4 GPUs, not resumable). Node 1 full: a protected job 3. */
  budget_node_gpus_t n0 = {0, 4};
  budget_node_gpus_t n1 = {1, 8};
  budget_running_job_t running[3];
  budget_node_t nodes[2];
  budget_job_shape_t pending = Pending();
  char* err = NULL;
  running[0] = Running(1, 1, 0, 0, 1, &n0, 1);
  running[1] = Running(2, 1, 0, 10, 0, &n0, 1);
  running[2] = Running(3, 1, 990, 100, 1, &n1, 1);
  nodes[0] = Node(0, 0);
  nodes[1] = Node(1, 0);
  budget_preemption_plan_t* plan = budget_choose_preemption(
      &pending, running, 3, nodes, 2, kStandings, 2, &kScale, kNow, &err);
  assert_non_null(plan);
  assert_null(err);
  assert_int_equal(budget_preemption_plan_feasible(plan), 1);
  /* 8 GPUs on node 0 need both: free job 1 first, then job 2. */
  assert_int_equal(budget_preemption_plan_victim_count(plan), 2);
  budget_victim_t v0 = budget_preemption_plan_victim(plan, 0);
  budget_victim_t v1 = budget_preemption_plan_victim(plan, 1);
  assert_int_equal(v0.job_id, 1);
  assert_int_equal(v0.action, BUDGET_REQUEUE);
  assert_int_equal(v0.rule, BUDGET_ALLOWED_UNALLOCATED);
  assert_int_equal(v1.job_id, 2);
  assert_int_equal(v1.action, BUDGET_CANCEL);
  assert_int_equal(v1.rule, BUDGET_ALLOWED_OVER_SERVED);
  /* Allocation 1's ratio 0.9; projected 0.3. */
  assert_true(v1.preemptee_ratio == 0.9);
  assert_true(v1.preemptor_projected_ratio == 0.3);
  assert_int_equal(budget_preemption_plan_target_count(plan), 1);
  assert_int_equal(budget_preemption_plan_target(plan, 0), 0);
  /* Out of range: zeroed / -1, never a crash. */
  assert_int_equal(budget_preemption_plan_victim(plan, 5).job_id, 0);
  assert_int_equal(budget_preemption_plan_target(plan, 5), -1);
  char* line = budget_preemption_plan_describe(plan);
  assert_non_null(strstr(line, "preempt job 1 (alloc 1, requeue, rule unallocated"));
  free(line);
  budget_preemption_plan_destroy(plan);

  /* Job 1 is protected now too (started 950, 100 s): node 0 can free only
   * job 2's 4 GPUs < 8, node 1 none. Nothing is preempted. */
  running[0].start = 950;
  running[0].min_runtime = 100;
  plan = budget_choose_preemption(&pending, running, 3, nodes, 2, kStandings, 2, &kScale, kNow,
                                  &err);
  assert_non_null(plan);
  assert_int_equal(budget_preemption_plan_feasible(plan), 0);
  assert_int_equal(budget_preemption_plan_victim_count(plan), 0);
  line = budget_preemption_plan_describe(plan);
  assert_non_null(strstr(line, "preempt nothing"));
  free(line);
  budget_preemption_plan_destroy(plan);

  /* Allocation 5 has no standing: an error, no plan. */
  pending.allocation = 5;
  plan = budget_choose_preemption(&pending, running, 3, nodes, 2, kStandings, 2, &kScale, kNow,
                                  &err);
  assert_null(plan);
  assert_string_equal(err,
                      "budget_choose_preemption: preempt: pending job 99: allocation 5 has no "
                      "standing (have 2)");
  free(err);
}

static void test_plan_drain(void** state) {
  (void)state;
  budget_node_gpus_t n3 = {3, 4};
  budget_running_job_t running[2];
  int32_t draining[1] = {3};
  char* err = NULL;
  running[0] = Running(1, 0, 9000, 600, 1, &n3, 1);  /* 9601 <= 10000: now */
  running[1] = Running(2, 0, 9500, 3600, 0, &n3, 1); /* through 13100 */
  budget_drain_plan_t* plan = budget_plan_drain(draining, 1, running, 2, 10000, &err);
  assert_non_null(plan);
  assert_int_equal(budget_drain_plan_departure_count(plan), 2);
  budget_departure_t d0 = budget_drain_plan_departure(plan, 0);
  budget_departure_t d1 = budget_drain_plan_departure(plan, 1);
  assert_int_equal(d0.leave_now, 1);
  assert_int_equal(d0.leave_at, 10000);
  assert_int_equal(d0.action, BUDGET_REQUEUE);
  assert_int_equal(d1.leave_now, 0);
  /* 9500 + 3600 + 1 = 13101, cancel (not resumable). */
  assert_int_equal(d1.leave_at, 13101);
  assert_int_equal(d1.action, BUDGET_CANCEL);
  assert_int_equal(budget_drain_plan_node_count(plan), 1);
  /* Node 3 empty at max(now, 13101) = 13101. */
  assert_int_equal(budget_drain_plan_node(plan, 0).empty_at, 13101);
  assert_int_equal(budget_drain_plan_node(plan, 0).node_index, 3);
  budget_drain_plan_destroy(plan);
  int32_t twice[2] = {3, 3};
  plan = budget_plan_drain(twice, 2, running, 2, 10000, &err);
  assert_null(plan);
  assert_string_equal(err, "budget_plan_drain: drain: node 3: given twice");
  free(err);
}

static void test_packing(void** state) {
  (void)state;
  budget_node_t nodes[4];
  int32_t chosen[2] = {-1, -1};
  char* err = NULL;
  /* Free 1,1,4,2 (8 free in all). */
  nodes[0] = Node(0, 1);
  nodes[1] = Node(1, 1);
  nodes[2] = Node(2, 4);
  nodes[3] = Node(3, 2);
  /* 2 GPUs: best fit is node 3 (exactly 2 free). */
  assert_int_equal(budget_choose_nodes(nodes, 4, 1, 2, chosen, &err), 1);
  assert_int_equal(chosen[0], 3);
  /* 8 GPUs: no node has them. Infeasible, not an error. */
  assert_int_equal(budget_choose_nodes(nodes, 4, 1, 8, chosen, &err), 0);
  assert_null(err);
  /* All 8 free GPUs are on partial nodes: 8/8 = 1. */
  assert_true(budget_fragmentation(nodes, 4) == 1.0);
  /* Nodes 0 and 1 whole free: 2 x 8 takes them; fragmentation (4+2)/22. */
  nodes[0].free_gpus = 8;
  nodes[1].free_gpus = 8;
  assert_int_equal(budget_choose_nodes(nodes, 4, 2, 8, chosen, &err), 1);
  assert_int_equal(chosen[0], 0);
  assert_int_equal(chosen[1], 1);
  assert_true(budget_fragmentation(nodes, 4) == 6.0 / 22.0);
  /* 0 GPUs: an error. */
  assert_int_equal(budget_choose_nodes(nodes, 4, 1, 0, chosen, &err), 0);
  assert_non_null(err);
  assert_non_null(strstr(err, "budget_choose_nodes: packing request"));
  free(err);
  assert_true(budget_fragmentation(NULL, 3) == 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contract),
      cmocka_unit_test(test_may_preempt),
      cmocka_unit_test(test_victim_order),
      cmocka_unit_test(test_choose_preemption),
      cmocka_unit_test(test_plan_drain),
      cmocka_unit_test(test_packing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
