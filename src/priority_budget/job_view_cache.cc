// JobViewCache: see job_view_cache.h.
#include "priority_budget/job_view_cache.h"

#include <pwd.h>

#include <utility>

namespace budget_prio {

bool JobFingerprint::operator==(const JobFingerprint& other) const {
  return strings == other.strings && details == other.details && phase == other.phase &&
         start_time == other.start_time && node_count == other.node_count && uid == other.uid;
}

void ApplyVolatile(const JobVolatile& fields, JobView* view) {
  const bool still_pending = view->phase == JobPhase::kPending && fields.phase == JobPhase::kPending;
  view->phase = fields.phase;
  view->held = fields.held;
  view->fixed_priority = fields.fixed_priority;
  view->priority = fields.priority;
  if (fields.phase != JobPhase::kPending) view->start_time = fields.start_time;
  if (!still_pending) view->end_time = fields.end_time;
}

const std::string& UserNames::NameOf(uid_t uid) {
  auto known = cache_.find(uid);
  if (known != cache_.end()) return known->second;
  std::string name;
  struct passwd pw;
  struct passwd* result = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &result) == 0 && result) name = result->pw_name;
  return cache_.emplace(uid, std::move(name)).first->second;
}

void JobViewCache::BeginPass(const std::vector<uint32_t>& changed, bool full) {
  views_.resize(cached_count_);  // drops the transient views
  seen_.assign(cached_count_, 0);
  changed_.clear();
  changed_.insert(changed.begin(), changed.end());
  full_ = full;
  cursor_ = 0;
  located_ = kNone;
  built_ = 0;
}

size_t JobViewCache::Locate(uint32_t job_id) const {
  if (cursor_ < cached_count_ && views_[cursor_].job_id == job_id) return cursor_;
  auto found = index_.find(job_id);
  return found == index_.end() ? kNone : found->second;
}

JobView* JobViewCache::Reuse(uint32_t job_id, const JobFingerprint& fingerprint, const JobVolatile& fields) {
  located_ = Locate(job_id);
  if (located_ == kNone) return nullptr;
  seen_[located_] = 1;
  cursor_ = located_ + 1;
  JobView* view = &views_[located_];
  // A view's phase is its fingerprint's (both are read from one record, and
  // a view is reused only while they match), and a pending job's
  // fingerprint is its phase alone: pending then and now, nothing else to
  // compare, and the 96-byte fingerprint is not read.
  const bool still_pending = fingerprint.phase == JobPhase::kPending && view->phase == JobPhase::kPending;
  if (full_ || (!still_pending && fingerprints_[located_] != fingerprint) || view->priority != fields.priority ||
      (!changed_.empty() && changed_.count(job_id) != 0)) {
    return nullptr;
  }
  ApplyVolatile(fields, view);
  return view;
}

void JobViewCache::Store(JobView view, const JobFingerprint& fingerprint) {
  ++built_;
  view.node_resolved = false;
  if (located_ != kNone && views_[located_].job_id == view.job_id) {
    // A job that ended keeps the GPUs of its run: Slurm takes each node's
    // TRES off the job as the node finishes with it (job_update_tres_cnt()
    // in slurmctld/job_mgr.c), so the record soon shows fewer GPUs than the
    // tail of the run held.
    const JobView& old = views_[located_];
    if (view.phase == JobPhase::kFinished && old.phase != JobPhase::kPending) view.gpus = old.gpus;
    // So does it keep the nodes of its run (Slurm clears them off the
    // record as they finish), and a requeued job (pending again, its tail
    // still to charge) those of the run it left: the tail is charged at
    // their GPU types' weights (libbudget/policy/gpu_worth.h).
    if (old.phase != JobPhase::kPending && (view.phase == JobPhase::kFinished || view.phase == JobPhase::kPending))
      view.placement = PlacementOf(view.gpu_type(), old.nodes());
    views_[located_] = std::move(view);
    fingerprints_[located_] = fingerprint;
    unresolved_[located_] = 1;
    located_ = kNone;
    return;
  }
  located_ = kNone;
  index_[view.job_id] = cached_count_;
  views_.push_back(std::move(view));
  fingerprints_.push_back(fingerprint);
  seen_.push_back(1);
  unresolved_.push_back(1);
  ++cached_count_;
}

void JobViewCache::EndPass() {
  size_t kept = 0;
  for (size_t i = 0; i < cached_count_; ++i) {
    if (!seen_[i]) {
      index_.erase(views_[i].job_id);
      continue;
    }
    if (kept != i) {
      views_[kept] = std::move(views_[i]);
      fingerprints_[kept] = fingerprints_[i];
      unresolved_[kept] = unresolved_[i];
      index_[views_[kept].job_id] = kept;  // an existing key: no allocation
    }
    ++kept;
  }
  cached_count_ = kept;
  views_.resize(kept);
  fingerprints_.resize(kept);
  unresolved_.resize(kept);
  seen_.assign(kept, 1);
  changed_.clear();
}

void JobViewCache::NotePriorities(const std::vector<std::pair<uint32_t, uint32_t>>& written) {
  for (const auto& [job_id, priority] : written) {
    auto found = index_.find(job_id);
    if (found != index_.end() && found->second < cached_count_) views_[found->second].priority = priority;
  }
}

void JobViewCache::AppendTransient(std::vector<JobView> views) {
  for (JobView& view : views) {
    view.node_resolved = false;
    views_.push_back(std::move(view));
  }
}

void JobViewCache::Resolve(const budget::AllocationTree& tree, uint64_t tree_generation, UserNames* names) {
  const bool all = tree_generation != tree_generation_;
  tree_generation_ = tree_generation;
  for (size_t i = 0; i < views_.size(); ++i) {
    JobView& view = views_[i];
    bool transient = i >= cached_count_;
    if (!all && !transient && !unresolved_[i]) continue;
    if (view.user.empty()) view.user = names->NameOf(view.uid);
    view.node = tree.NodeFor(view.account, view.user);
    view.node_resolved = true;
    if (!transient) unresolved_[i] = 0;
  }
}

}  // namespace budget_prio
