// Tests of the packing state (packing_state.h): the summary and its log
// line, the JSON round trip, the file round trip, and every parse error.
#include "libbudget/testing/test_nodes.h"
#include "libbudget/testing/test_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "libbudget/policy/packing_state.h"

using budget::LoadPackingState;
using budget::NodeState;
using budget::PackingState;
using budget::ParsePackingState;
using budget::SavePackingState;
using budget::Status;
using budget::SummarizePacking;

namespace {

using budget::testing::Nodes;

void test_summary_and_line(void**) {
  // Free 8, 2, 4, 0 on four 8-GPU nodes: 14 free, 2 + 4 = 6 on partially
  // free nodes -> 6 / 14 = 0.43.
  PackingState s = SummarizePacking(Nodes({8, 2, 4, 0}), {"n1", "n2", "n3", "n4"}, 1234);
  assert_int_equal(s.free_gpus, 14);
  assert_int_equal(s.stranded_gpus, 6);
  assert_int_equal(s.time, 1234);
  assert_string_equal(budget::FragmentationLine(s).c_str(),
                      "fragmentation 0.43 (6 of 14 free GPUs cannot host a whole-node job)");
  // A drained node (n2) counts for nothing: free 8 + 4 = 12, stranded 4 ->
  // 4 / 12 = 0.33; a missing name is written as the index ("3").
  std::vector<NodeState> nodes = Nodes({8, 2, 4, 0});
  nodes[1].usable = false;
  s = SummarizePacking(nodes, {"n1", "n2", "n3"}, 1234);
  assert_int_equal(s.free_gpus, 12);
  assert_int_equal(s.stranded_gpus, 4);
  assert_string_equal(s.nodes[3].name.c_str(), "3");
  // Nothing free: 0 of 0.
  s = SummarizePacking(Nodes({0, 0}), {}, 1);
  assert_string_equal(budget::FragmentationLine(s).c_str(),
                      "fragmentation 0.00 (0 of 0 free GPUs cannot host a whole-node job)");
}

void test_json_round_trip(void**) {
  PackingState s = SummarizePacking(Nodes({8, 3}), {"a", "b"}, 77);
  s.hero_active = true;
  s.hero_job_id = 12;
  s.hero_planned_start = 500;
  s.hero_waiting_since = 60;
  s.hero_promised_start = 400;
  s.hero_nodes = {"a", "b"};
  s.reserve_nodes = {"c"};
  PackingState back;
  Status st = ParsePackingState(budget::FormatPackingState(s), "f", &back);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  // 3 stranded of 11 free = 0.2727...
  assert_int_equal(back.free_gpus, 11);
  assert_int_equal(back.stranded_gpus, 3);
  assert_true(back.fragmentation > 0.27 && back.fragmentation < 0.28);
  assert_int_equal(back.nodes.size(), 2);
  assert_string_equal(back.nodes[1].name.c_str(), "b");
  assert_int_equal(back.nodes[1].free_gpus, 3);
  assert_true(back.hero_active);
  assert_int_equal(back.hero_job_id, 12);
  assert_int_equal(back.hero_planned_start, 500);
  assert_int_equal(back.hero_waiting_since, 60);
  assert_int_equal(back.hero_promised_start, 400);
  assert_string_equal(back.hero_nodes[1].c_str(), "b");
  assert_int_equal(back.reserve_nodes.size(), 1);
  assert_string_equal(back.reserve_nodes[0].c_str(), "c");
  // A file written before hero.waiting_since, hero.promised_start and
  // quick_reserve: read, the wait unknown (0), the promise the planned
  // start, no reserve.
  st = ParsePackingState("{\"version\":1,\"time\":77,\"fragmentation\":0,\"free_gpus\":0,\"stranded_gpus\":0,"
                         "\"nodes\":[],\"hero\":{\"job_id\":12,\"planned_start\":500,\"nodes\":[]}}",
                         "f", &back);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  assert_true(back.hero_active);
  assert_int_equal(back.hero_waiting_since, 0);
  assert_int_equal(back.hero_promised_start, 500);
  assert_true(back.reserve_nodes.empty());
  // A quick_reserve that is not a list of names is refused.
  st = ParsePackingState("{\"version\":1,\"time\":77,\"fragmentation\":0,\"free_gpus\":0,\"stranded_gpus\":0,"
                         "\"nodes\":[],\"quick_reserve\":[3]}",
                         "f", &back);
  assert_false(st.ok());
  assert_true(st.message().find("quick_reserve[0]") != std::string::npos);
  // Without a hero, "hero": null reads back inactive.
  s.hero_active = false;
  st = ParsePackingState(budget::FormatPackingState(s), "f", &back);
  assert_true(st.ok());
  assert_false(back.hero_active);
}

struct BadCase {
  const char* text;
  const char* expected;  // part of the message
};

void test_parse_errors(void**) {
  const char* nodes_ok = "\"nodes\":[]";
  std::string head = "{\"version\":1,\"time\":5,\"fragmentation\":0.5,\"free_gpus\":4,\"stranded_gpus\":2,";
  const BadCase cases[] = {
      {"{", "f: not JSON"},
      {"[1]", "expected a JSON object"},
      {"{\"version\":2}", "f: version: unknown version 2"},
      {"{\"time\":5}", "f: version: missing"},
      {"{\"version\":1,\"time\":\"x\"}", "f: time: expected int, found string"},
      {"{\"version\":1,\"time\":-1}", "f: time: out of range"},
      {"{\"version\":1,\"time\":5,\"fragmentation\":1.5,\"free_gpus\":4,\"stranded_gpus\":2,\"nodes\":[]}",
       "fragmentation: outside [0, 1]"},
      {"{\"version\":1,\"time\":5,\"fragmentation\":0.5,\"free_gpus\":1,\"stranded_gpus\":2,\"nodes\":[]}",
       "stranded_gpus: exceeds free_gpus"},
  };
  PackingState out;
  out.time = 42;
  for (const BadCase& c : cases) {
    Status st = ParsePackingState(c.text, "f", &out);
    if (st.ok()) fail_msg("accepted: %s", c.text);
    if (st.message().find(c.expected) == std::string::npos) {
      fail_msg("%s: message '%s' lacks '%s'", c.text, st.message().c_str(), c.expected);
    }
  }
  const BadCase node_cases[] = {
      {"\"nodes\":[1]}", "f: nodes[0]: expected object"},
      {"\"nodes\":[{\"free_gpus\":1,\"total_gpus\":8,\"usable\":true}]}", "f: nodes[0].name: missing"},
      {"\"nodes\":[{\"name\":\"a\",\"free_gpus\":9,\"total_gpus\":8,\"usable\":true}]}",
       "f: nodes[0]: free_gpus > total_gpus"},
      {"\"nodes\":[{\"name\":\"a\",\"free_gpus\":1,\"total_gpus\":8,\"usable\":1}]}",
       "f: nodes[0].usable: expected boolean"},
      {"\"nodes\":[],\"hero\":3}", "f: hero: expected object or null"},
      {"\"nodes\":[],\"hero\":{\"job_id\":1,\"planned_start\":2}}", "f: hero.nodes: missing"},
      {"\"nodes\":[],\"hero\":{\"job_id\":1,\"planned_start\":2,\"nodes\":[1]}}", "f: hero.nodes[0]: expected string"},
  };
  for (const BadCase& c : node_cases) {
    Status st = ParsePackingState(head + c.text, "f", &out);
    if (st.ok()) fail_msg("accepted: %s", c.text);
    if (st.message().find(c.expected) == std::string::npos) {
      fail_msg("%s: message '%s' lacks '%s'", c.text, st.message().c_str(), c.expected);
    }
  }
  // Errors leave *out untouched.
  assert_int_equal(out.time, 42);
  // Unknown keys are ignored.
  assert_true(ParsePackingState(head + nodes_ok + ",\"later\":1}", "f", &out).ok());
}

void test_file_round_trip(void**) {
  char dir[] = "/tmp/packing_state_testXXXXXX";
  assert_non_null(mkdtemp(dir));
  std::string path = std::string(dir) + "/select_topo_state.json";
  PackingState out;
  // No file yet: NotFound.
  assert_true(LoadPackingState(path, &out).IsNotFound());
  PackingState s = SummarizePacking(Nodes({8, 1}), {"n1", "n2"}, 99);
  Status st = SavePackingState(path, s);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  st = LoadPackingState(path, &out);
  if (!st.ok()) fail_msg("%s", st.message().c_str());
  // 1 stranded of 9 free.
  assert_int_equal(out.free_gpus, 9);
  assert_int_equal(out.stranded_gpus, 1);
  // No temporary file left behind.
  assert_int_not_equal(access((path + ".tmp").c_str(), F_OK), 0);
  // A directory that does not exist: IOError naming the temporary file.
  st = SavePackingState(std::string(dir) + "/missing/x.json", s);
  assert_false(st.ok());
  assert_true(st.message().find("x.json.tmp: cannot create") != std::string::npos);
  // A corrupt file is reported with its path.
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("{\"version\":1", f);
  std::fclose(f);
  st = LoadPackingState(path, &out);
  assert_true(st.IsCorruption());
  assert_true(st.message().find(path) != std::string::npos);
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_summary_and_line),
      cmocka_unit_test(test_json_round_trip),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_file_round_trip),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
