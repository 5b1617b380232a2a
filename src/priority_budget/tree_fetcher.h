// TreeFetcher: fetches the allocation tree's source in a thread of its own,
// so that a priority pass never waits on the network. A BudgetTree URL that
// accepts the connection and never answers holds this thread for up to
// TreeFetchTimeout; the recalc thread keeps its passes (and ledger saves)
// on time meanwhile, with the last good tree.
//
// Protocol: the recalc thread Start()s a fetch when one is due and none is
// in flight; when the fetch ends (text or error), `on_done` is called from
// the fetcher's thread and the recalc thread TakeResult()s it and hands it
// to its TreeReloader (tree_reloader.h), which parses and adopts it. At most
// one fetch is in flight: a request while one is (a slow source) is
// refused, and the caller asks again later.
//
// CancelInFlight() ends the fetch in flight early (a reconfigure named
// another source); Stop() cancels a fetch in flight (curl gives up within about a second,
// tree_source.h) and joins the thread.
//
// Thread safety: every method may be called from any thread; on_done must
// not call back into the fetcher (it is called without the fetcher's lock,
// but from its thread).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_TREE_FETCHER_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_TREE_FETCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "libbudget/status.h"
#include "priority_budget/tree_source.h"

namespace budget_prio {

struct FetchResult {
  TreeSource source;     // what was fetched
  budget::Status status;  // Ok, or why not (tree_source.h)
  std::string text;       // the document, when ok
  double seconds = 0;     // how long the fetch took
};

class TreeFetcher {
 public:
  // How a source is fetched: TreeSource::Fetch by default; tests inject a
  // slow or failing one.
  using FetchFunction =
      std::function<budget::Status(const TreeSource&, const std::atomic<bool>& cancel, std::string*)>;

  explicit TreeFetcher(std::function<void()> on_done, FetchFunction fetch = DefaultFetch);
  ~TreeFetcher();
  TreeFetcher(const TreeFetcher&) = delete;
  TreeFetcher& operator=(const TreeFetcher&) = delete;

  // Starts fetching `source` and returns at once. False (nothing started)
  // while a fetch is in flight or a result waits to be taken, or after Stop().
  bool Start(TreeSource source);
  // Whether a fetch is in flight; *seconds, if given, how long it has been.
  bool busy(double* seconds = nullptr) const;
  // Makes a fetch in flight give up (within about a second); its result
  // is an error. For a source budget.conf no longer names.
  void CancelInFlight();
  // The finished fetch's result, once; false if none is waiting.
  bool TakeResult(FetchResult* out);
  void Stop();

  static budget::Status DefaultFetch(const TreeSource& source, const std::atomic<bool>& cancel, std::string* text);

 private:
  void Run();

  const std::function<void()> on_done_;
  const FetchFunction fetch_;
  std::atomic<bool> cancel_{false};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<TreeSource> request_;                 // GUARDED_BY(mutex_)
  std::optional<FetchResult> result_;                 // GUARDED_BY(mutex_)
  bool in_flight_ = false;                            // GUARDED_BY(mutex_)
  std::chrono::steady_clock::time_point started_;     // GUARDED_BY(mutex_)
  bool stop_ = false;                                 // GUARDED_BY(mutex_)
  std::thread thread_;
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_TREE_FETCHER_H_
