// JobViewCache: the recalc thread's job views, kept from pass to pass so
// that a pass re-reads only what can have changed.
//
// Why. A pass used to copy every job record's strings (account, user, TRES,
// AdminComment) and parse them again: at 20,000 pending jobs that copy was
// ~9 ms of the pass under the job read lock, as much as priority/
// multifactor's whole pass, for records that almost never change while a
// job waits. Now each record's view is built once and rebuilt only when
//   - slurmctld said the job changed: priority_p_set() runs at submission
//     and after every `scontrol update` of a job that is not held, and
//     when a held job is released (job_mgr.c); it marks the job
//     (PluginState::MarkJobChanged);
//   - its priority is not the one the view holds (the last read or
//     written by the plugin, NotePriorities): someone else set it, e.g.
//     `scontrol top`, which also edits the nice in place, or a hold;
//   - its fingerprint changed: the phase; for a job that is not pending
//     also the addresses of the strings the view was parsed from (Slurm
//     replaces a string with a new allocation when it changes one), start
//     time, node count, uid and details (a job that starts gets its
//     allocated GPUs read). A pending job's fingerprint is its phase alone:
//     the marks above cover its changes, and its pointers would cost four
//     more cache lines of the record per job per pass;
//   - a full rebuild is asked for (BeginPass(full=true)): after a
//     reconfigure, and every kFullRebuildSeconds, so that a change no sign
//     above shows (none is known) lives at most that long. An hour: at
//     20,000 pending jobs a full rebuild costs 22-34 ms more than a pass
//     that reuses the views (measured on the controller benchmark after
//     `scontrol reconfigure`), which every 10 minutes was 2-3 ms per
//     60-s pass, more than the rest of the plugin's excess over
//     multifactor's decay thread.
// The fields that change without any sign (the phase, hold, operator
// priority, priority, end time, and a started job's start time) are
// re-read from the record at every pass (JobVolatile): plain numbers of
// the record, no strings.
//
// Nodes. Each view also carries the tree node it is charged to
// (JobView::node), resolved once per view and tree: Resolve() resolves the
// views built since the last call, or all of them when the tree changed
// (a new tree generation). The pass's four per-job node lookups (charge,
// demand, priority, report) then read it instead of hashing the account.
//
// Order. views() is in job-list order as far as the cache can keep it: a
// job seen for the first time is appended, a job gone is removed. Lookups
// follow the list's order (the next cached view is tried first), with an
// index for the rest.
//
// Transient views (AppendTransient): the jobs that ended since the last
// pass (priority_p_job_end), charged once by the next pass; they follow the
// cached views and are dropped at the next BeginPass.
//
// Slurm-free (job_snapshot.cc fills it from job records); thread safety:
// none, the recalc thread owns it.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_CACHE_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_CACHE_H_

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libbudget/state/tree.h"
#include "priority_budget/job_view.h"

namespace budget_prio {

// What must be unchanged for a cached view to stand (see above). A pending
// job's holds its phase and nothing else (Reuse relies on it).
struct JobFingerprint {
  std::array<uintptr_t, 8> strings{};  // addresses of the strings parsed
  uintptr_t details = 0;
  JobPhase phase = JobPhase::kPending;
  budget::TimePoint start_time = 0;
  uint32_t node_count = 0;
  uid_t uid = 0;

  bool operator==(const JobFingerprint& other) const;
  bool operator!=(const JobFingerprint& other) const { return !(*this == other); }
};

// The fields re-read at every pass.
struct JobVolatile {
  JobPhase phase = JobPhase::kPending;
  bool held = false;
  bool fixed_priority = false;
  uint32_t priority = 0;
  budget::TimePoint start_time = 0;  // not copied into a pending job's view
  budget::TimePoint end_time = 0;
};

// Copies `fields` into `view`; a job pending then and now keeps the start
// and end times its view was built with: the start of its last run, if it
// was requeued (a pending job's start_time is otherwise the backfill
// scheduler's estimate, which moves every cycle), and when that run ended
// (Slurm moves a pending job's end time only when it starts it). The end
// time is outside the view's first cache line (job_view.h): writing it for
// every pending job cost a cache miss per job per pass.
void ApplyVolatile(const JobVolatile& fields, JobView* view);

// Fills in JobView::user from the uid where slurmctld had no user name
// (getpwuid_r, cached per uid for the life of the object).
class UserNames {
 public:
  const std::string& NameOf(uid_t uid);

 private:
  std::unordered_map<uid_t, std::string> cache_;
};

class JobViewCache {
 public:
  static constexpr budget::Seconds kFullRebuildSeconds = 3600;

  // Starts a pass: drops the transient views; `changed` are the jobs
  // slurmctld said changed; `full` rebuilds every view.
  void BeginPass(const std::vector<uint32_t>& changed, bool full);
  // For each job of the pass, in job-list order: the cached view of
  // `job_id` with `fields` copied in, if it stands; nullptr if the caller
  // must build one and Store() it.
  JobView* Reuse(uint32_t job_id, const JobFingerprint& fingerprint, const JobVolatile& fields);
  // A finished job's view built over its running (or finished) one keeps
  // that view's GPUs: the run's, which its tail is charged with.
  void Store(JobView view, const JobFingerprint& fingerprint);
  // Ends the pass: drops the views of jobs not seen since BeginPass.
  void EndPass();
  // The priorities the pass wrote (job id, priority), so that the next pass
  // tells them from someone else's.
  void NotePriorities(const std::vector<std::pair<uint32_t, uint32_t>>& written);

  void AppendTransient(std::vector<JobView> views);
  // Resolves users (from uids) and tree nodes (see above).
  void Resolve(const budget::AllocationTree& tree, uint64_t tree_generation, UserNames* names);

  std::vector<JobView>& views() { return views_; }
  // Views built (not reused) since BeginPass.
  size_t built() const { return built_; }
  size_t cached() const { return cached_count_; }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t Locate(uint32_t job_id) const;
  void Reindex();

  // views_[0, cached_count_) are cached, the rest transient;
  // fingerprints_, seen_ and unresolved_ run parallel to the cached part.
  std::vector<JobView> views_;
  size_t cached_count_ = 0;
  std::vector<JobFingerprint> fingerprints_;
  std::vector<char> seen_;
  std::vector<char> unresolved_;  // built since the last Resolve
  std::unordered_map<uint32_t, size_t> index_;  // job id -> position
  std::unordered_set<uint32_t> changed_;
  bool full_ = false;
  size_t cursor_ = 0;    // where the next job of the list is expected
  size_t located_ = kNone;  // Reuse()'s answer for Store()
  size_t built_ = 0;
  uint64_t tree_generation_ = 0;  // of the nodes in the views
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_JOB_VIEW_CACHE_H_
