// Ledger migration: the usage of allocations that a tree reload moved or
// renamed follows them to their new paths.
//
// The ledger is keyed by path (ledger.h). When `sacctmgr modify account x
// set parent=y` moves a subtree (BudgetTree=slurmdbd,
// tree_from_associations.h), or an edit of the JSON renames a node, every
// path under it changes ("a/x" becomes "y/x"), and without a migration the
// moved allocations would start the new tree with no window usage.
//
// Which nodes follow: those identified by their binding, the same in both
// trees whatever their paths:
//   a node bound to account A          (A)
//   a node bound to user U in account A (A, U), A being the node's
//                                      effective_account (tree.h)
// For each node of `new_tree` whose binding `old_tree` holds at a different
// path, the old path's usage (every series, every retained bucket) is moved
// to the new path, added to what the new path may already hold (usage left
// at that path by a node it no longer has). All moves happen at once
// (Ledger::MovePaths), so two allocations that swapped paths swap usage.
//
// What does not follow:
//   - inner nodes bound to nothing: they are known by their path only, so a
//     moved or renamed one cannot be told from one removed and another
//     added. Jobs are charged to bound nodes only
//     (src/priority_budget/usage_charging.cc), so such a path holds usage
//     only from a time it was bound, and that usage stays where it is;
//   - a binding that changes kind or account (a user node moved to another
//     account is another allocation);
//   - an allocation bound at the root in either tree: the root's path is
//     "", which the ledger file cannot hold (ledger_file.h: L >= 1);
//   - usage of nodes the new tree no longer has (e.g. a user whose
//     Fairshare became parent): it stays at its path, as for any removed
//     node (tree_diff.h).
// Job cursors are keyed by job id and need no migration.
//
// Thread safety: none beyond the ledger's (ledger.h): the caller holds
// whatever serialises access to *ledger.
#ifndef SLURM_BUDGET_LIBBUDGET_LEDGER_MIGRATION_H_
#define SLURM_BUDGET_LIBBUDGET_LEDGER_MIGRATION_H_

#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/state/tree.h"

namespace budget {

// Moves the usage of every allocation that `new_tree` holds at another path
// than `old_tree` (see above). Returns the moves that carried usage, in
// `new_tree`'s node order, for a log line per move ("a/x -> y/x"); a moved
// allocation that had no usage is not listed. Either tree may be empty (the
// first load: nothing moves). REQUIRES: ledger != nullptr.
std::vector<Ledger::PathMove> MigrateLedgerPaths(const AllocationTree& old_tree, const AllocationTree& new_tree,
                                                 Ledger* ledger);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_LEDGER_MIGRATION_H_
