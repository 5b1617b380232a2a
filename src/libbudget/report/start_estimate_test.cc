// Tests of EstimateStart (start_estimate.h) on hand-made running jobs: a
// 16-GPU cluster at now = 1000.
#include "libbudget/testing/test_support.h"

#include <vector>

#include "libbudget/report/start_estimate.h"

using budget::EstimateStart;
using budget::FairShareOrder;
using budget::SnapshotJob;
using budget::SnapshotJobState;
using budget::StartEstimate;
using budget::TimePoint;

namespace {

constexpr TimePoint kNow = 1000;
constexpr double kCapacity = 16;

SnapshotJob Job(uint32_t id, uint32_t gpus, uint32_t rank, bool allocated, TimePoint protection_end,
                SnapshotJobState state = SnapshotJobState::kRunning) {
  SnapshotJob j;
  j.job_id = id;
  j.state = state;
  j.gpus = gpus;
  j.rank = rank;
  j.allocated = allocated;
  j.min_runtime = allocated ? 600 : 0;
  j.protection_end = allocated ? protection_end : SnapshotJob::kNoTime;
  return j;
}

SnapshotJob Pending(uint32_t id, uint32_t gpus, uint32_t rank) {
  return Job(id, gpus, rank, true, SnapshotJob::kNoTime, SnapshotJobState::kPending);
}

void test_head_of_line_waits_for_a_lower_ranked_protection(void**) {
  // 8 GPUs of rank 2 protected through 1300, 8 of rank 0 through 1100: a
  // job of rank 1 asking 8 GPUs takes the rank-2 job's from 1301 (the
  // rank-0 job ranks ahead of it: not counted).
  std::vector<SnapshotJob> running = {Job(1, 8, 2, true, 1300), Job(2, 8, 0, true, 1100)};
  StartEstimate e = EstimateStart(Pending(3, 8, 1), {}, running, kCapacity, kNow);
  assert_true(e.known);
  assert_int_equal(e.at, 1301);
  assert_int_equal(e.gpus_needed, 8);
  assert_int_equal(e.gpus_free_now, 0);
  assert_int_equal(e.gpus_releasable, 8);
}

void test_free_gpus_and_unallocated_work_count_now(void**) {
  // 4 GPUs free, 4 of unallocated work: a 8-GPU job can start now; a
  // 12-GPU job also needs the rank-2 job's 8, from 1301.
  std::vector<SnapshotJob> running = {Job(1, 8, 2, true, 1300), Job(2, 4, FairShareOrder::kNoRank, false, 0)};
  StartEstimate e = EstimateStart(Pending(3, 8, 1), {}, running, kCapacity, kNow);
  assert_true(e.known);
  assert_int_equal(e.at, kNow);
  assert_int_equal(e.gpus_free_now, 8);
  e = EstimateStart(Pending(3, 12, 1), {}, running, kCapacity, kNow);
  assert_true(e.known);
  assert_int_equal(e.at, 1301);
  // Past its protection (its last protected second gone), now.
  running[0].protection_end = kNow - 1;
  e = EstimateStart(Pending(3, 12, 1), {}, running, kCapacity, kNow);
  assert_int_equal(e.at, kNow);
}

void test_a_notice_delays_what_a_preemption_frees(void**) {
  // As above with PreemptNotice=30: free GPUs are free now, but the
  // unallocated job's and the rank-2 job's come free 30 s after the pass
  // takes them (their victims keep them for their notice).
  std::vector<SnapshotJob> running = {Job(1, 8, 2, true, 1300), Job(2, 4, FairShareOrder::kNoRank, false, 0)};
  StartEstimate e = EstimateStart(Pending(3, 4, 1), {}, running, kCapacity, kNow, 30);
  assert_int_equal(e.at, kNow);
  e = EstimateStart(Pending(3, 8, 1), {}, running, kCapacity, kNow, 30);
  assert_int_equal(e.at, kNow + 30);
  assert_int_equal(e.gpus_free_now, 8);  // free, or held by unallocated work: as without a notice
  e = EstimateStart(Pending(3, 12, 1), {}, running, kCapacity, kNow, 30);
  assert_int_equal(e.at, 1331);
}

void test_jobs_ahead_are_served_first(void**) {
  // Two lower-ranked 8-GPU jobs are protected through 1200 and 1500; an
  // allocated 8-GPU job waits ahead: ours gets the second, from 1501.
  // Unallocated work waiting ahead takes nothing from it.
  std::vector<SnapshotJob> running = {Job(1, 8, 3, true, 1200), Job(2, 8, 4, true, 1500)};
  SnapshotJob free_work = Job(9, 8, FairShareOrder::kNoRank, false, 0, SnapshotJobState::kPending);
  StartEstimate e = EstimateStart(Pending(3, 8, 1), {Pending(4, 8, 0), free_work}, running, kCapacity, kNow);
  assert_true(e.known);
  assert_int_equal(e.at, 1501);
  assert_int_equal(e.gpus_needed, 16);
}

void test_unknown_when_only_work_ranked_ahead_could_free_gpus(void**) {
  // Every GPU held by work of its own rank or ranked ahead: no estimate.
  std::vector<SnapshotJob> running = {Job(1, 8, 0, true, 1100), Job(2, 8, 1, true, 1100)};
  StartEstimate e = EstimateStart(Pending(3, 8, 1), {}, running, kCapacity, kNow);
  assert_false(e.known);
  assert_int_equal(e.gpus_releasable, 0);
  // Nor for a job without a rank (unallocated, or outside the tree).
  SnapshotJob unranked = Pending(3, 1, 0);
  unranked.rank = FairShareOrder::kNoRank;
  assert_false(EstimateStart(unranked, {}, {}, kCapacity, kNow).known);
  SnapshotJob free_work = Pending(3, 1, 0);
  free_work.allocated = false;
  assert_false(EstimateStart(free_work, {}, {}, kCapacity, kNow).known);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_head_of_line_waits_for_a_lower_ranked_protection),
      cmocka_unit_test(test_free_gpus_and_unallocated_work_count_now),
      cmocka_unit_test(test_a_notice_delays_what_a_preemption_frees),
      cmocka_unit_test(test_jobs_ahead_are_served_first),
      cmocka_unit_test(test_unknown_when_only_work_ranked_ahead_could_free_gpus),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
