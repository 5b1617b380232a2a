// Tests of what budget-sim reports of a run (report_table.h, report_json.h,
// rejections.h, output_file.h): jobs refused at submission are counted per
// reason in the table and the JSON, a run that admitted no job is an error,
// and every file written is named.
#include "libbudget/testing/test_support.h"

#include <json-c/json.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/output_file.h"
#include "sim/rejections.h"
#include "sim/report_json.h"
#include "sim/report_table.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

// Jobs 1, 3, 4 of account x (in no node of kTwoTeams), job 2 of 16 GPUs
// on a one-node cluster, job 5 a job that runs.
Workload MixedWorkload() {
  return MakeWorkload({{0, "x", 1, 10, 0, true, 0},
                       {1, "a", 16, 10, 0, true, 0},
                       {2, "x", 1, 10, 0, true, 0},
                       {3, "x", 1, 10, 0, true, 0},
                       {4, "a", 1, 10, 0, true, 0}});
}

void test_table_counts_rejections_per_reason(void**) {
  Workload w = MixedWorkload();
  AllocationTree tree = MakeTree(kTwoTeams);
  std::string table = FormatTable({Run("budget", w, tree, 1, 1000).result, Run("fifo", w, tree, 1, 1000).result});
  const char* want =
      "jobs rejected                          4             4\n"
      "wall seconds";
  assert_non_null(strstr(table.c_str(), want));
  want =
      "\nrejected jobs per reason\n"
      "account 'x' in no tree node (UnknownAccount=reject)\n"
      "  e.g. jobs 1, 3, 4                    3             3\n"
      "asks for more GPUs than the cluster has (8)\n"
      "  e.g. job 2                           1             1\n"
      "\ndelivered / owed";
  assert_non_null(strstr(table.c_str(), want));
}

void test_table_without_rejections_has_no_reasons(void**) {
  Workload w = MakeWorkload({{0, "a", 1, 10, 0, true, 0}});
  std::string table = FormatTable({Run("fifo", w, MakeTree(kTwoTeams), 1, 1000).result});
  assert_non_null(strstr(table.c_str(), "jobs rejected                          0\n"));
  assert_null(strstr(table.c_str(), "per reason"));
}

void test_table_names_at_most_ten_reasons(void**) {
  // Twelve accounts in no tree node: twelve reasons, ten shown.
  std::vector<Row> rows;
  static const char* kAccounts[] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "xa", "xb"};
  for (const char* account : kAccounts) rows.push_back(Row{0, account, 1, 10, 0, true, 0});
  rows.push_back(Row{0, "a", 1, 10, 0, true, 0});
  std::string table = FormatTable({Run("fifo", MakeWorkload(rows), MakeTree(kTwoTeams), 1, 1000).result});
  assert_non_null(strstr(table.c_str(), "account 'x9' in no tree node"));
  assert_null(strstr(table.c_str(), "account 'xa' in no tree node"));
  assert_non_null(strstr(table.c_str(), "... and 2 more reasons (all in --json)\n"));
}

void test_json_counts_rejections_per_reason(void**) {
  Workload w = MixedWorkload();
  std::string text = FormatJson({Run("budget", w, MakeTree(kTwoTeams), 1, 1000).result});
  json_object* root = json_tokener_parse(text.c_str());
  assert_non_null(root);
  json_object *policies, *budget, *rejected, *total, *reasons;
  assert_true(json_object_object_get_ex(root, "policies", &policies));
  assert_true(json_object_object_get_ex(policies, "budget", &budget));
  assert_true(json_object_object_get_ex(budget, "rejected", &rejected));
  assert_true(json_object_object_get_ex(rejected, "total", &total));
  assert_int_equal(json_object_get_int64(total), 4);
  assert_true(json_object_object_get_ex(rejected, "by_reason", &reasons));
  assert_int_equal(json_object_array_length(reasons), 2);
  json_object* first = json_object_array_get_idx(reasons, 0);
  json_object *reason, *jobs, *ids;
  assert_true(json_object_object_get_ex(first, "reason", &reason));
  assert_string_equal(json_object_get_string(reason), "account 'x' in no tree node (UnknownAccount=reject)");
  assert_true(json_object_object_get_ex(first, "jobs", &jobs));
  assert_int_equal(json_object_get_int64(jobs), 3);
  assert_true(json_object_object_get_ex(first, "first_job_ids", &ids));
  assert_int_equal(json_object_array_length(ids), 3);
  assert_int_equal(json_object_get_int64(json_object_array_get_idx(ids, 2)), 4);
  json_object_put(root);
}

void test_a_run_that_admitted_no_job_is_an_error(void**) {
  // A tree that lacks the trace's accounts: budget-sim's first run on a
  // real trace, which must not look like an idle cluster.
  Workload w = MakeWorkload({{0, "x", 1, 10, 0, true, 0}, {1, "x", 16, 10, 0, true, 0}, {2, "y", 1, 10, 0, true, 0}});
  AllocationTree tree = MakeTree(kTwoTeams);
  Status st = CheckSomeJobAdmitted({Run("budget", w, tree, 1, 1000).result, Run("fifo", w, tree, 1, 1000).result});
  assert_false(st.ok());
  assert_int_equal(st.code(), Status::Code::kInvalidArgument);
  assert_string_equal(st.message().c_str(),
                      "every job (3) was rejected under budget, fifo: 1 account 'x' in no tree node "
                      "(UnknownAccount=reject), 1 asks for more GPUs than the cluster has (8), "
                      "1 account 'y' in no tree node (UnknownAccount=reject)");
  // Policies that refused otherwise get clauses of their own: budget's
  // contract refuses the 9-hour min-runtime, fifo runs it.
  Workload contract = MakeWorkload({{0, "x", 1, 10, 0, true, 0}, {0, "a", 1, 36000, 9 * 3600, true, 0}});
  st = CheckSomeJobAdmitted({Run("budget", contract, tree, 1, 1000).result, Run("fifo", contract, tree, 1, 1000).result,
                             Run("priority", w, tree, 1, 1000).result});
  assert_string_equal(st.message().c_str(),
                      "every job (2) was rejected under budget: 1 account 'x' in no tree node "
                      "(UnknownAccount=reject), 1 min-runtime over MaxMinRuntime=08:00:00 (contract); "
                      "every job (3) was rejected under priority: 1 account 'x' in no tree node "
                      "(UnknownAccount=reject), 1 asks for more GPUs than the cluster has (8), "
                      "1 account 'y' in no tree node (UnknownAccount=reject)");
  // One admitted job is a run.
  assert_true(CheckSomeJobAdmitted({Run("fifo", MixedWorkload(), tree, 1, 1000).result}).ok());
}

void test_each_written_file_is_named(void**) {
  char path[] = "/tmp/report_testXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  char* logged = nullptr;
  size_t size = 0;
  FILE* log = open_memstream(&logged, &size);
  assert_non_null(log);
  assert_true(WriteOutputFile(path, "{}\n", "figures per policy, JSON", log).ok());
  // A file that cannot be written: the error, and no line.
  Status st = WriteOutputFile("/nonexistent/dir/out.json", "{}\n", "figures per policy, JSON", log);
  std::fclose(log);
  assert_int_equal(st.code(), Status::Code::kIOError);
  assert_string_equal(st.message().c_str(), "/nonexistent/dir/out.json: cannot open for writing");
  assert_string_equal(logged, (std::string("budget-sim: wrote ") + path + " (figures per policy, JSON)\n").c_str());
  std::free(logged);
  FILE* f = std::fopen(path, "r");
  char text[8] = {0};
  assert_non_null(std::fgets(text, sizeof text, f));
  std::fclose(f);
  assert_string_equal(text, "{}\n");
  unlink(path);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_counts_rejections_per_reason),
      cmocka_unit_test(test_table_without_rejections_has_no_reasons),
      cmocka_unit_test(test_table_names_at_most_ten_reasons),
      cmocka_unit_test(test_json_counts_rejections_per_reason),
      cmocka_unit_test(test_a_run_that_admitted_no_job_is_an_error),
      cmocka_unit_test(test_each_written_file_is_named),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
