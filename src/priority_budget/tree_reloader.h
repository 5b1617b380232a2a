// TreeReloader: keeps the last good allocation tree and decides when to
// re-read its source (budget.conf BudgetTree).
//
// When: a reload is due when the source is a file whose mtime changed, when
// BudgetRefresh has passed since the last fetch, when forced (scontrol
// reconfigure), or, for slurmdbd's associations, at every pass while there
// is no tree yet. A fetch that fails or a document the core refuses
// leaves the current tree in place (the outcome carries the reason: the
// source and the core's JSON path and reason); a document identical to the
// current one changes nothing. Every accepted new text is saved as the
// last good tree in StateSaveLocation (state_files.h), and at start, when
// the source fails, the last good file is loaded instead.
//
// Fetching is split from adopting: BeginReload() says what to fetch (the
// tree fetcher's thread fetches it, tree_fetcher.h, so no pass waits on
// the network) and FinishReload() parses and adopts what came back.
// Reload() does both inline (at start, and in tests).
//
// Slurm-free and clock-free (now is a parameter): the recalc thread drives
// it and logs the outcomes.
//
// Thread safety: none; only the recalc thread uses it. The current tree is
// handed to readers by value (AllocationTree copies are cheap and immutable).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_TREE_RELOADER_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_TREE_RELOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"
#include "libbudget/state/tree.h"
#include "priority_budget/tree_source.h"

namespace budget_prio {

struct ReloadOutcome {
  // kStale: fetched from a source that budget.conf no longer names (a
  // reconfigure during the fetch); ignored.
  enum class Kind { kUnchanged, kLoaded, kRefused, kStale };
  Kind kind = Kind::kUnchanged;
  // kLoaded: where from; kRefused: why (one or more '\n'-separated lines).
  std::string message;
  std::vector<std::string> warnings;  // unknown keys of an accepted tree
  budget::Status save_status;          // saving the last good copy
};

class TreeReloader {
 public:
  TreeReloader(TreeSource source, std::string last_good_file, budget::Seconds refresh);

  // Loads the last good copy (at start, before the source is tried).
  // NotFound if there is none; the tree stays empty on any error.
  budget::Status LoadLastGood();

  bool ReloadDue(budget::TimePoint now) const;
  // Fetches and parses the source (see above). Records `now` as the time of
  // the last fetch whatever the outcome.
  ReloadOutcome Reload(budget::TimePoint now);
  // Reload() in two halves: BeginReload records `now` as the last fetch and
  // returns the source to fetch; FinishReload takes the fetch's outcome
  // (`fetched` = Ok and `text`, or the error) from `source`.
  TreeSource BeginReload(budget::TimePoint now);
  ReloadOutcome FinishReload(const TreeSource& source, const budget::Status& fetched, std::string text);

  void set_refresh(budget::Seconds refresh) { refresh_ = refresh; }
  void set_source(TreeSource source);
  const TreeSource& source() const { return source_; }

  bool has_tree() const { return !tree_->empty(); }
  const budget::AllocationTree& tree() const { return *tree_; }
  // The same tree, shared: an order computed over it keeps it alive
  // (OrderView) without a copy per pass.
  const std::shared_ptr<const budget::AllocationTree>& shared_tree() const { return tree_; }
  // Changes whenever tree() is replaced (node ids of an older tree are
  // meaningless under the new one).
  uint64_t generation() const { return generation_; }
  // Where the current tree came from (the source, or the last good file).
  const std::string& tree_origin() const { return tree_origin_; }

 private:
  TreeSource source_;
  std::string last_good_file_;
  budget::Seconds refresh_;
  std::shared_ptr<const budget::AllocationTree> tree_ = std::make_shared<const budget::AllocationTree>();
  uint64_t generation_ = 0;
  std::string tree_text_;
  std::string tree_origin_;
  bool fetched_ = false;
  budget::TimePoint last_fetch_ = 0;
  int64_t last_mtime_ = -2;  // mtime seen at the last fetch
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_TREE_RELOADER_H_
