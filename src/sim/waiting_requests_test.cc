// Tests of WaitingRequests: a lane's jobs by GPU request, the position of
// a key in its lane, and the lane's only account (what engine.cc's
// BackfillCouldStart and AccountRanksFirst read).
#include "libbudget/testing/test_support.h"

#include "sim/waiting_requests.h"

using namespace budget;
using namespace budget::sim;

namespace {

PendingQueue::Key KeyAt(uint32_t job, TimePoint submit) { return PendingQueue::KeyOf(job, 0, submit); }

void test_position_counts_the_lane_ahead_of_a_key(void**) {
  WaitingRequests w;
  w.Resize(2);
  // Lane 0: jobs 1 (8 GPUs, t=10), 2 (1 GPU, t=20), 3 (8 GPUs, t=30).
  w.Add(0, GpuRequest{1, 8}, KeyAt(1, 10), 0);
  w.Add(0, GpuRequest{1, 1}, KeyAt(2, 20), 0);
  w.Add(0, GpuRequest{1, 8}, KeyAt(3, 30), 0);
  assert_int_equal(w.size(0), 3);
  assert_int_equal(w.size(1), 0);
  // The first 1-GPU job has one job ahead of it (job 1).
  const WaitingRequests::Request* one = nullptr;
  for (const WaitingRequests::Request& r : w.requests(0))
    if (r.request.gpus_per_node == 1) one = &r;
  assert_non_null(one);
  assert_int_equal(w.position(0, *one->jobs.begin()), 1);
  // Job 1 starts: the 1-GPU job is first of its lane.
  w.Remove(0, GpuRequest{1, 8}, KeyAt(1, 10), 0);
  assert_int_equal(w.size(0), 2);
  assert_int_equal(w.position(0, *one->jobs.begin()), 0);
  // A removal of a key not there (another request) changes nothing.
  w.Remove(0, GpuRequest{1, 1}, KeyAt(3, 30), 0);
  assert_int_equal(w.size(0), 2);
}

void test_only_account_of_a_lane(void**) {
  WaitingRequests w;
  w.Resize(1);
  // Empty lane: no account.
  assert_int_equal(w.only_account(0), -1);
  w.Add(0, GpuRequest{1, 8}, KeyAt(1, 10), 4);
  w.Add(0, GpuRequest{2, 8}, KeyAt(2, 20), 4);
  assert_int_equal(w.only_account(0), 4);
  // A job of account 7 joins: the lane is mixed.
  w.Add(0, GpuRequest{1, 8}, KeyAt(3, 30), 7);
  assert_int_equal(w.only_account(0), -1);
  // Both of account 4 leave: account 7 alone.
  w.Remove(0, GpuRequest{1, 8}, KeyAt(1, 10), 4);
  w.Remove(0, GpuRequest{2, 8}, KeyAt(2, 20), 4);
  assert_int_equal(w.only_account(0), 7);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_position_counts_the_lane_ahead_of_a_key),
      cmocka_unit_test(test_only_account_of_a_lane),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
