// Tests of a run's setup (sim_setup.h): the tree of --config's BudgetTree,
// found beside budget.conf, and the errors when it cannot be used.
#include "libbudget/testing/test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/sim_setup.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

const char kTreeJson[] = R"({"name":"c","children":[{"name":"team","share":1,"account":"a"}]})";

void WriteFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  assert_non_null(f);
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

// <tmp>/conf/ with budget.conf naming tree.json beside it.
std::string MakeConfDir() {
  char dir[] = "/tmp/sim_setup_testXXXXXX";
  assert_non_null(mkdtemp(dir));
  std::string conf = std::string(dir) + "/conf";
  assert_int_equal(mkdir(conf.c_str(), 0700), 0);
  WriteFile(conf + "/budget.conf", "BudgetTree=tree.json\n");
  WriteFile(conf + "/tree.json", kTreeJson);
  return dir;
}

void RemoveConfDir(const std::string& dir) {
  for (const char* f : {"/conf/budget.conf", "/conf/tree.json", "/conf/missing.conf", "/conf/bad.conf"})
    std::remove((dir + f).c_str());
  rmdir((dir + "/conf").c_str());
  rmdir(dir.c_str());
}

const Workload& AccountA() {
  static const Workload w = MakeWorkload({{0, "a", 1, 60, 0, true, 0}});
  return w;
}

// The working directory is `dir` while one lives.
class InDirectory {
 public:
  explicit InDirectory(const std::string& dir) {
    assert_non_null(getcwd(back_, sizeof back_));
    assert_int_equal(chdir(dir.c_str()), 0);
  }
  ~InDirectory() { assert_int_equal(chdir(back_), 0); }

 private:
  char back_[4096];
};

// What budget-sim --config `conf` without --tree loads.
Status TreeOf(const std::string& conf, AllocationTree* tree, std::string* source) {
  BudgetConfig config;
  assert_true(LoadSimConfig(conf, &config).ok());
  std::vector<std::string> warnings;
  return LoadSimTree("", conf, config, AccountA(), tree, &warnings, source);
}

void test_budget_tree_is_read_beside_budget_conf(void**) {
  std::string dir = MakeConfDir();
  std::string conf = dir + "/conf/budget.conf";
  AllocationTree tree;
  std::string source;
  assert_true(TreeOf(conf, &tree, &source).ok());
  assert_true(tree.NodeFor("a", "") != kNoNode);
  assert_string_equal(tree.node(tree.NodeFor("a", "")).name.c_str(), "team");
  assert_string_equal(source.c_str(), ("BudgetTree of " + conf + ": " + dir + "/conf/tree.json").c_str());
  // A relative budget.conf from another directory: still beside it, not
  // in the working directory.
  {
    InDirectory in(dir);
    AllocationTree relative;
    assert_true(TreeOf("conf/budget.conf", &relative, &source).ok());
    assert_true(relative.NodeFor("a", "") != kNoNode);
  }
  RemoveConfDir(dir);
}

void test_tree_option_wins_and_none_is_flat(void**) {
  BudgetConfig config;
  assert_true(budget::ParseBudgetConfig("BudgetTree=tree.json\n", "/etc/slurm/budget.conf", &config).ok());
  std::string file;
  assert_true(SimTreeFile("mine.json", "/etc/slurm/budget.conf", config, &file).ok());
  assert_string_equal(file.c_str(), "mine.json");
  assert_true(SimTreeFile("", "/etc/slurm/budget.conf", config, &file).ok());
  assert_string_equal(file.c_str(), "/etc/slurm/tree.json");
  config.budget_tree = "/srv/tree.json";
  assert_true(SimTreeFile("", "/etc/slurm/budget.conf", config, &file).ok());
  assert_string_equal(file.c_str(), "/srv/tree.json");
  config.budget_tree = "file:///srv/t.json";
  assert_true(SimTreeFile("", "/etc/slurm/budget.conf", config, &file).ok());
  assert_string_equal(file.c_str(), "/srv/t.json");
  // No BudgetTree (or no --config): the flat tree.
  AllocationTree tree;
  std::vector<std::string> warnings;
  std::string source;
  assert_true(LoadSimTree("", "", BudgetConfig(), AccountA(), &tree, &warnings, &source).ok());
  assert_string_equal(source.c_str(), "flat: one equal share per account");
  assert_true(tree.NodeFor("a", "") != kNoNode);
}

void test_a_budget_tree_that_cannot_be_used_is_an_error(void**) {
  std::string dir = MakeConfDir();
  std::string conf = dir + "/conf/missing.conf";
  WriteFile(conf, "BudgetTree=missing.json\n");
  AllocationTree tree;
  std::string source;
  Status st = TreeOf(conf, &tree, &source);
  assert_false(st.ok());
  assert_int_equal(st.code(), Status::Code::kIOError);
  assert_string_equal(st.message().c_str(),
                      (conf + ": BudgetTree: " + dir + "/conf/missing.json: cannot open for reading").c_str());
  // URLs: budget-sim fetches nothing.
  BudgetConfig url;
  url.budget_tree = "https://b.example/t.json";
  std::string file;
  st = SimTreeFile("", "budget.conf", url, &file);
  assert_int_equal(st.code(), Status::Code::kInvalidArgument);
  assert_string_equal(st.message().c_str(),
                      "budget.conf: BudgetTree=https://b.example/t.json: budget-sim fetches no URL; save the tree "
                      "and give --tree FILE");
  url.budget_tree = "file://t.json";
  assert_string_equal(SimTreeFile("", "budget.conf", url, &file).message().c_str(),
                      "budget.conf: BudgetTree=file://t.json: a file:// URL needs an absolute path");
  url.budget_tree = "ftp://b.example/t.json";
  assert_string_equal(SimTreeFile("", "budget.conf", url, &file).message().c_str(),
                      "budget.conf: BudgetTree=ftp://b.example/t.json: unsupported URL scheme (use a path or file://)");
  // budget.conf's own errors name it as it was given.
  WriteFile(dir + "/conf/bad.conf", "NoSuchKey=1\n");
  {
    InDirectory in(dir);
    BudgetConfig config;
    st = LoadSimConfig("conf/bad.conf", &config);
  }
  assert_false(st.ok());
  assert_true(st.message().rfind("conf/bad.conf:1: ", 0) == 0);
  RemoveConfDir(dir);
}

void test_a_default_contract_over_max_min_runtime_stops_the_run(void**) {
  // MaxMinRuntime defaults to 8 h: a default of 8 h is one a controller
  // starts with, 9 h is not (config.cc refuses DefaultMinRuntime over it).
  BudgetConfig config;
  assert_true(CheckDefaultMinRuntime(8 * 3600, config).ok());
  Status st = CheckDefaultMinRuntime(9 * 3600, config);
  assert_false(st.ok());
  assert_string_equal(st.message().c_str(),
                      "--default-min-runtime (09:00:00) is longer than MaxMinRuntime (08:00:00) of budget.conf");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_tree_is_read_beside_budget_conf),
      cmocka_unit_test(test_tree_option_wins_and_none_is_flat),
      cmocka_unit_test(test_a_budget_tree_that_cannot_be_used_is_an_error),
      cmocka_unit_test(test_a_default_contract_over_max_min_runtime_stops_the_run),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
