// Tests of --events-json: the exact text for hand-made runs (so that the
// format scripts/replay/compare.py reads cannot drift unnoticed), grouping by
// job in start order, and the ends that carry no preemptor.
#include "libbudget/testing/test_support.h"

#include <string>
#include <vector>

#include "sim/events_json.h"
#include "sim/sim_test_util.h"

using namespace budget;
using namespace budget::sim;
using namespace budget::sim::testing;

namespace {

Segment Run(uint32_t job, TimePoint start, TimePoint end, std::vector<int32_t> nodes, RunEnd ended,
            uint32_t by = 0) {
  Segment s;
  s.job = job;
  s.start = start;
  s.end = end;
  s.ended = ended;
  s.preempted = ended == RunEnd::kPreempted || ended == RunEnd::kDrained;
  s.preempted_by = by;
  for (int32_t n : nodes) s.allocation.nodes.push_back(NodeGpus{n, 8});
  return s;
}

void test_exact_text(void**) {
  // Job 1 (a, 16 GPUs, resumable) runs on n1+n2 from 5, is preempted at 20
  // by job 2, and runs again on n3+n4 from 40 to 50; job 2 (b) runs on n2
  // from 20 until the end (still running); job 3 (b, unallocated) never
  // starts. The timeline is in start order across jobs, as the engine
  // appends it.
  Workload w = MakeWorkload({{0, "a", 16, 25, 600, true, 0},
                             {10, "b", 8, 100, 300, false, 1},
                             {12, "b", 1, 5, 0, false, 0}});
  std::vector<Segment> timeline = {Run(0, 5, 20, {0, 1}, RunEnd::kPreempted, 2),
                                   Run(1, 20, 60, {1}, RunEnd::kRunning),
                                   Run(0, 40, 50, {2, 3}, RunEnd::kFinished)};
  std::string text = FormatEventsJson(w, 4, 8, {{"budget", &timeline}});
  const char* expected =
      R"({"version":1,"capacity_gpus":32,"nodes":4,"gpus_per_node":8,"policies":{"budget":{"jobs":[)"
      R"({"id":1,"account":"a","user":"a-user","gpus":16,"submit":0,"min_runtime":600,"resumable":true,"runs":[)"
      R"({"start":5,"end":20,"nodes":["n1","n2"],"ended":"preempted","preempted_by":2},)"
      R"({"start":40,"end":50,"nodes":["n3","n4"],"ended":"finished","preempted_by":null}]},)"
      R"({"id":2,"account":"b","user":"b-user","gpus":8,"submit":10,"min_runtime":300,"resumable":false,"runs":[)"
      R"({"start":20,"end":60,"nodes":["n2"],"ended":"running","preempted_by":null}]},)"
      R"({"id":3,"account":"b","user":"b-user","gpus":1,"submit":12,"min_runtime":0,"resumable":false,"runs":[]}]}}})"
      "\n";
  assert_string_equal(text.c_str(), expected);
}

void test_only_preemptions_name_a_preemptor(void**) {
  // A drained run and a timed-out run carry no preemptor, even when the
  // segment holds a stale number; runs of one job come out in start order
  // whatever the timeline's order.
  Workload w = MakeWorkload({{0, "a", 8, 100, 60, true, 0}});
  std::vector<Segment> timeline = {Run(0, 30, 40, {0}, RunEnd::kTimeout, 9),
                                   Run(0, 0, 10, {1}, RunEnd::kDrained, 9)};
  std::string text = FormatEventsJson(w, 2, 8, {{"fifo", &timeline}, {"budget", nullptr}});
  const char* expected =
      R"({"version":1,"capacity_gpus":16,"nodes":2,"gpus_per_node":8,"policies":{"fifo":{"jobs":[)"
      R"({"id":1,"account":"a","user":"a-user","gpus":8,"submit":0,"min_runtime":60,"resumable":true,"runs":[)"
      R"({"start":0,"end":10,"nodes":["n2"],"ended":"drained","preempted_by":null},)"
      R"({"start":30,"end":40,"nodes":["n1"],"ended":"timeout","preempted_by":null}]}]},)"
      R"("budget":{"jobs":[)"
      R"({"id":1,"account":"a","user":"a-user","gpus":8,"submit":0,"min_runtime":60,"resumable":true,"runs":[]}]}}})"
      "\n";
  assert_string_equal(text.c_str(), expected);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_text),
      cmocka_unit_test(test_only_preemptions_name_a_preemptor),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
