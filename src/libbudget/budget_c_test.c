/* Tests of the C API (budget_c.h), written in C as the plugin shims use it.
 * The rules themselves are tested in tree_test, tree_diff_test and
 * order_test; these check that each call reaches them, that results come
 * back intact, and that errors come back through errptr, never as a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbudget/budget_c.h"

/* The example of issue 3. Ids (pre-order): cluster 0, llm 1, pretrain 2,
 * posttrain 3, alice 4, bob 5, robotics 6, science 7. */
static const char kExample[] =
    "{ \"name\": \"cluster\", \"owners\": [\"director\"], \"children\": ["
    "  { \"name\": \"llm\", \"share\": 50, \"owners\": [\"pi-llm\"], \"children\": ["
    "    { \"name\": \"pretrain\", \"share\": 70, \"account\": \"pretrain\" },"
    "    { \"name\": \"posttrain\", \"share\": 30, \"account\": \"posttrain\", \"children\": ["
    "      { \"name\": \"alice\", \"share\": 2, \"user\": \"alice\" },"
    "      { \"name\": \"bob\", \"share\": 1, \"user\": \"bob\" } ] } ] },"
    "  { \"name\": \"robotics\", \"share\": 30, \"account\": \"robotics\" },"
    "  { \"name\": \"science\", \"share\": 20, \"account\": \"science\" } ] }";

static budget_tree_t* ParseExample(void) {
  char* err = NULL;
  char* warnings = NULL;
  budget_tree_t* tree = budget_tree_parse(kExample, strlen(kExample), "t.json", &warnings, &err);
  if (err != NULL) fail_msg("parse: %s", err);
  assert_non_null(tree);
  assert_null(warnings);
  return tree;
}

static void test_parse_and_lookups(void** state) {
  (void)state;
  budget_tree_t* tree = ParseExample();
  assert_int_equal(budget_tree_size(tree), 8);
  const int32_t pretrain = budget_tree_find(tree, "llm/pretrain");
  assert_int_equal(pretrain, 2);
  assert_int_equal(budget_tree_find(tree, ""), 0);
  assert_int_equal(budget_tree_find(tree, "nope"), BUDGET_NO_TREE_NODE);
  assert_int_equal(budget_tree_find(tree, NULL), BUDGET_NO_TREE_NODE);
  /* alice has her own node; carol falls back to the account's node. */
  assert_int_equal(budget_tree_node_for(tree, "posttrain", "alice"), 4);
  assert_int_equal(budget_tree_node_for(tree, "posttrain", "carol"), 3);
  assert_int_equal(budget_tree_node_for(tree, "posttrain", NULL), 3);
  assert_int_equal(budget_tree_node_for(tree, "nosuch", "alice"), BUDGET_NO_TREE_NODE);
  /* llm's children in document order: pretrain, posttrain. */
  assert_int_equal(budget_tree_child(tree, 1, 0), 2);
  assert_int_equal(budget_tree_child(tree, 1, 1), 3);
  assert_int_equal(budget_tree_child(tree, 1, 2), BUDGET_NO_TREE_NODE);
  assert_int_equal(budget_tree_child(tree, 99, 0), BUDGET_NO_TREE_NODE);

  budget_tree_node_info_t info;
  char* err = NULL;
  budget_tree_node_info(tree, pretrain, &info, &err);
  assert_null(err);
  assert_string_equal(info.name, "pretrain");
  assert_string_equal(info.path, "llm/pretrain");
  assert_string_equal(info.account, "pretrain");
  assert_string_equal(info.user, "");
  /* 70 / (70 + 30) = 0.7; the 35% example: 0.5 x 0.7 = 0.35 */
  assert_float_equal(info.normalized_share, 0.7, 1e-12);
  assert_float_equal(info.entitlement, 0.35, 1e-12);
  assert_float_equal(info.share, 70, 0);
  assert_int_equal(info.parent, 1);
  assert_int_equal(info.depth, 2);
  assert_int_equal(info.child_count, 0);
  assert_int_equal(info.holds_jobs, 1);
  budget_tree_node_info(tree, 0, &info, &err);
  assert_null(err);
  assert_string_equal(info.path, "");
  assert_string_equal(info.display_path, "cluster");
  assert_int_equal(info.parent, BUDGET_NO_TREE_NODE);
  assert_int_equal(info.holds_jobs, 0);
  budget_tree_node_info(tree, 8, &info, &err);
  assert_string_equal(err, "budget_tree_node_info: no node 8 in a tree of 8");
  budget_free(err);
  budget_tree_destroy(tree);
}

static void test_parse_errors_and_warnings(void** state) {
  (void)state;
  const char* bad = "{\"name\":\"c\",\"children\":[{\"name\":\"a\",\"share\":\"abc\"}]}";
  /* A previous message in *errptr is freed and replaced (ASan checks). */
  char* err = malloc(8);
  strcpy(err, "old");
  char* warnings = NULL;
  budget_tree_t* tree = budget_tree_parse(bad, strlen(bad), "t.json", &warnings, &err);
  assert_null(tree);
  assert_string_equal(err, "t.json: $.children[0].share: must be a number >= 0, got \"abc\"");
  budget_free(err);
  err = NULL;
  /* Only the first `len` bytes count: the closing brace is cut off. */
  tree = budget_tree_parse("{\"name\":\"c\"}", 11, "t.json", NULL, &err);
  assert_null(tree);
  assert_non_null(err);
  assert_true(strncmp(err, "t.json: not JSON: ", 18) == 0);
  budget_free(err);
  err = NULL;
  /* A NULL errptr is allowed. */
  assert_null(budget_tree_parse(bad, strlen(bad), "t.json", NULL, NULL));
  assert_null(budget_tree_parse(NULL, 3, "t.json", NULL, &err));
  assert_string_equal(err, "t.json: no data (NULL buffer)");
  budget_free(err);
  err = NULL;
  /* Two unknown keys: two warning lines. */
  const char* odd = "{\"name\":\"c\",\"x\":1,\"y\":2}";
  tree = budget_tree_parse(odd, strlen(odd), "t.json", &warnings, &err);
  assert_null(err);
  assert_non_null(tree);
  assert_string_equal(warnings,
                      "t.json: $.x: unknown key, ignored\nt.json: $.y: unknown key, ignored");
  budget_free(warnings);
  budget_tree_destroy(tree);
}

static void test_parse_file(void** state) {
  (void)state;
  char name[] = "/tmp/budget_c_test_XXXXXX";
  int fd = mkstemp(name);
  assert_true(fd >= 0);
  FILE* f = fdopen(fd, "w");
  fputs(kExample, f);
  fclose(f);
  char* err = NULL;
  budget_tree_t* tree = budget_tree_parse_file(name, NULL, &err);
  assert_null(err);
  assert_int_equal(budget_tree_size(tree), 8);
  budget_tree_destroy(tree);
  unlink(name);
  assert_null(budget_tree_parse_file(name, NULL, &err));
  char expected[128];
  snprintf(expected, sizeof expected, "%s: cannot open for reading", name);
  assert_string_equal(err, expected);
  budget_free(err);
}

/* Usage: pretrain 6000, alice 1000, bob 1000, robotics 1000, science 2000;
 * every job-holding node has demand. Ranks (order_test works them out):
 * robotics 0, science 1, alice 2, bob 3, posttrain 4, pretrain 5. */
static const double kUsage[8] = {0, 0, 6000, 0, 1000, 1000, 1000, 2000};
static const double kDemand[8] = {0, 0, 1, 1, 1, 1, 1, 1};

static void test_order_standings_and_priorities(void** state) {
  (void)state;
  budget_tree_t* tree = ParseExample();
  budget_order_t* order = budget_order_create();
  char* err = NULL;
  budget_node_standing_t st;
  /* Nothing computed yet. */
  budget_order_standing(order, 0, &st, &err);
  assert_string_equal(err, "budget_order_standing: no order computed yet");
  budget_free(err);
  err = NULL;
  budget_order_compute(order, tree, kUsage, kDemand, 8, 100, 1000, &err);
  assert_null(err);
  assert_int_equal(budget_order_ranked_count(order), 6);

  budget_order_standing(order, 6, &st, &err); /* robotics */
  assert_null(err);
  assert_int_equal(st.rank, 0);
  /* 1000 / (0.3 x 100 GPUs x 1000 s) = 0.0333 */
  assert_float_equal(st.usage_ratio, 1000.0 / 30000, 1e-12);
  /* (1000 / 11000) / 0.3 = 0.30303 */
  assert_float_equal(st.sibling_ratio, 1000.0 / 11000 / 0.3, 1e-12);
  assert_int_equal(st.sibling_position, 0);
  assert_int_equal(st.has_demand, 1);
  budget_order_standing(order, 1, &st, &err); /* llm: no jobs of its own */
  assert_int_equal(st.rank, BUDGET_NO_RANK);
  /* 6000 + 1000 + 1000 = 8000 */
  assert_float_equal(st.window_usage, 8000, 0);
  budget_order_standing(order, 42, &st, &err);
  assert_string_equal(err, "budget_order_standing: no node 42 in an order of 8");
  budget_free(err);
  err = NULL;

  /* Allocated, rank 0, user 0: 1<<31 | 32767<<16 | 1 = 0xffff0001 */
  budget_pending_job_t job = {7, 6, 1, 0, 100};
  budget_priority_factors_t factors;
  assert_int_equal(budget_order_job_priority(order, &job, &factors, &err), 0xffff0001u);
  assert_null(err);
  assert_float_equal(factors.fairshare, 1.0, 0);
  assert_int_equal(factors.rank, 0);
  assert_int_equal(factors.allocated, 1);
  /* Unallocated, rank 5 (pretrain), user 7: (32767-5)<<16 | 8 = 0x7ffa0008 */
  budget_pending_job_t free_job = {8, 2, 0, 7, 50};
  assert_int_equal(budget_order_job_priority(order, &free_job, &factors, &err), 0x7ffa0008u);
  /* 1 - 5/6 */
  assert_float_equal(factors.fairshare, 1.0 / 6, 1e-12);
  assert_int_equal(factors.user_priority, 7);

  /* Job order: allocated robotics (rank 0), allocated alice (2) with
   * priority 9 before alice's priority 1, then unallocated science. */
  budget_pending_job_t jobs[4] = {
      {1, 7, 0, 500, 10}, {2, 4, 1, 1, 10}, {3, 4, 1, 9, 20}, {4, 6, 1, 0, 30}};
  budget_order_sort_jobs(order, jobs, 4, &err);
  assert_null(err);
  assert_int_equal(jobs[0].job_id, 4);
  assert_int_equal(jobs[1].job_id, 3);
  assert_int_equal(jobs[2].job_id, 2);
  assert_int_equal(jobs[3].job_id, 1);
  assert_int_equal(jobs[3].user_priority, 500);
  assert_int_equal(jobs[3].submit_time, 10);

  /* A wrong count is refused and the previous order kept. */
  budget_order_compute(order, tree, kUsage, kDemand, 7, 100, 1000, &err);
  assert_string_equal(err, "fair-share order: 7 usage values for 8 tree nodes");
  budget_free(err);
  err = NULL;
  budget_order_compute(order, tree, NULL, kDemand, 8, 100, 1000, &err);
  assert_string_equal(err, "budget_order_compute: NULL usage or demand array");
  budget_free(err);
  err = NULL;
  assert_int_equal(budget_order_ranked_count(order), 6);
  budget_order_destroy(order);
  budget_tree_destroy(tree);
}

static void test_diff_and_owner_check(void** state) {
  (void)state;
  budget_tree_t* before = ParseExample();
  /* pi-llm moves pretrain from 70 to 60: posttrain 30 of 90 now. */
  char edited[sizeof kExample];
  strcpy(edited, kExample);
  char* at = strstr(edited, "\"share\": 70");
  assert_non_null(at);
  at[9] = '6';
  char* err = NULL;
  budget_tree_t* after = budget_tree_parse(edited, strlen(edited), "t2.json", NULL, &err);
  assert_null(err);
  char* diff = budget_tree_diff(before, after, &err);
  assert_null(err);
  /* pretrain 0.5 x 60/90 = 0.3333; posttrain 0.5 x 30/90 = 0.1667;
   * alice 2/3 of it = 0.1111; bob 1/3 = 0.0556. */
  assert_string_equal(diff,
                      "llm/posttrain: entitlement 0.15 -> 0.166667\n"
                      "llm/posttrain/alice: entitlement 0.1 -> 0.111111\n"
                      "llm/posttrain/bob: entitlement 0.05 -> 0.0555556\n"
                      "llm/pretrain: share 70 -> 60, entitlement 0.35 -> 0.333333");
  budget_free(diff);
  char* violations = NULL;
  assert_int_equal(budget_tree_check_edit(before, after, "pi-llm", &violations, &err), 1);
  assert_null(violations);
  assert_null(err);
  assert_int_equal(budget_tree_check_edit(before, after, "bob", &violations, &err), 0);
  assert_null(err);
  assert_string_equal(violations,
                      "llm/pretrain: share 70 -> 60: bob owns none of its ancestors (llm, cluster)");
  budget_free(violations);
  /* No change: an empty text, not NULL. */
  diff = budget_tree_diff(before, before, &err);
  assert_string_equal(diff, "");
  budget_free(diff);
  assert_null(budget_tree_diff(before, NULL, &err));
  assert_string_equal(err, "budget_tree_diff: NULL tree");
  budget_free(err);
  err = NULL;
  assert_int_equal(budget_tree_check_edit(before, after, NULL, NULL, &err), 0);
  assert_string_equal(err, "budget_tree_check_edit: NULL tree or user");
  budget_free(err);
  budget_tree_destroy(after);
  budget_tree_destroy(before);
}

static void test_null_handles_never_crash(void** state) {
  (void)state;
  char* err = NULL;
  assert_int_equal(budget_tree_size(NULL), 0);
  assert_int_equal(budget_tree_find(NULL, "x"), BUDGET_NO_TREE_NODE);
  assert_int_equal(budget_tree_node_for(NULL, "x", "y"), BUDGET_NO_TREE_NODE);
  assert_int_equal(budget_order_ranked_count(NULL), 0);
  budget_order_compute(NULL, NULL, NULL, NULL, 0, 1, 1, &err);
  assert_string_equal(err, "budget_order_compute: NULL order or tree");
  budget_free(err);
  err = NULL;
  assert_int_equal(budget_order_job_priority(NULL, NULL, NULL, &err), 0);
  assert_string_equal(err, "budget_order_job_priority: NULL order or job");
  budget_free(err);
  err = NULL;
  budget_order_sort_jobs(NULL, NULL, 0, &err);
  assert_string_equal(err, "budget_order_sort_jobs: NULL order or jobs");
  budget_free(err);
  budget_tree_destroy(NULL);
  budget_order_destroy(NULL);
  budget_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_and_lookups),
      cmocka_unit_test(test_parse_errors_and_warnings),
      cmocka_unit_test(test_parse_file),
      cmocka_unit_test(test_order_standings_and_priorities),
      cmocka_unit_test(test_diff_and_owner_check),
      cmocka_unit_test(test_null_handles_never_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
