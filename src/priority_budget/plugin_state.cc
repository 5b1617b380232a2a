// PluginState: see plugin_state.h.
#include "priority_budget/plugin_state.h"

#include <utility>

namespace budget_prio {

std::shared_ptr<const OrderView> PluginState::order() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_;
}

void PluginState::Publish(std::shared_ptr<const OrderView> order) {
  std::lock_guard<std::mutex> lock(mutex_);
  order_.swap(order);
  // The old order (if this was its last reference) is freed after the
  // mutex is released, when `order` goes out of scope.
}

void PluginState::QueueEndedJob(JobView job) {
  std::lock_guard<std::mutex> lock(mutex_);
  ended_jobs_.push_back(std::move(job));
}

std::vector<JobView> PluginState::TakeEndedJobs() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<JobView> jobs;
  jobs.swap(ended_jobs_);
  return jobs;
}

void PluginState::MarkJobChanged(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (changed_overflow_) return;
  if (changed_jobs_.size() >= kMaxChangedJobs) {
    changed_overflow_ = true;
    changed_jobs_.clear();
    changed_jobs_.shrink_to_fit();
    return;
  }
  changed_jobs_.push_back(job_id);
}

std::vector<uint32_t> PluginState::TakeChangedJobs(bool* all) {
  std::lock_guard<std::mutex> lock(mutex_);
  *all = changed_overflow_;
  changed_overflow_ = false;
  std::vector<uint32_t> jobs;
  jobs.swap(changed_jobs_);
  return jobs;
}

}  // namespace budget_prio
