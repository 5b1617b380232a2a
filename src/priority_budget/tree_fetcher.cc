// TreeFetcher: see tree_fetcher.h.
#include "priority_budget/tree_fetcher.h"

#include <pthread.h>

#include <utility>

namespace budget_prio {

using Clock = std::chrono::steady_clock;

budget::Status TreeFetcher::DefaultFetch(const TreeSource& source, const std::atomic<bool>& cancel,
                                         std::string* text) {
  return source.Fetch(text, &cancel);
}

TreeFetcher::TreeFetcher(std::function<void()> on_done, FetchFunction fetch)
    : on_done_(std::move(on_done)), fetch_(std::move(fetch)) {
  thread_ = std::thread(&TreeFetcher::Run, this);
  // Named, so that `top -H` shows a fetch that hangs on its own line.
  pthread_setname_np(thread_.native_handle(), "budget_fetch");
}

TreeFetcher::~TreeFetcher() { Stop(); }

bool TreeFetcher::Start(TreeSource source) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stop_ || in_flight_ || result_) return false;
  request_ = std::move(source);
  in_flight_ = true;
  cancel_ = false;  // a cancel was for the previous fetch, which has ended
  started_ = Clock::now();
  wake_.notify_all();
  return true;
}

bool TreeFetcher::busy(double* seconds) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (seconds) {
    *seconds = in_flight_ ? std::chrono::duration<double>(Clock::now() - started_).count() : 0;
  }
  return in_flight_;
}

bool TreeFetcher::TakeResult(FetchResult* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!result_) return false;
  *out = std::move(*result_);
  result_.reset();
  return true;
}

void TreeFetcher::CancelInFlight() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (in_flight_) cancel_ = true;
}

void TreeFetcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cancel_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void TreeFetcher::Run() {
  while (true) {
    TreeSource source;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || request_.has_value(); });
      if (stop_) return;
      source = std::move(*request_);
      request_.reset();
    }
    FetchResult result;
    Clock::time_point start = Clock::now();
    try {
      result.status = fetch_(source, cancel_, &result.text);
    } catch (const std::exception& e) {
      result.status = budget::Status::IOError(source.description() + ": fetch failed: " + e.what());
    } catch (...) {
      result.status = budget::Status::IOError(source.description() + ": fetch failed");
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.source = std::move(source);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      result_ = std::move(result);
      in_flight_ = false;
    }
    if (on_done_) on_done_();
  }
}

}  // namespace budget_prio
