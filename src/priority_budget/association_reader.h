// Association reader: the source of `BudgetTree=slurmdbd` (budget.conf). It
// copies slurmctld's cache of slurmdbd's associations (assoc_mgr) and each
// account's coordinators into plain records, and has the core turn them
// into the allocation tree's document (libbudget/state/tree_from_associations.h),
// which the reloader then checks, adopts and keeps as the last good tree
// like a file's or a URL's (tree_reloader.h).
//
// What it reads: every association of this cluster (account, parent, user,
// Fairshare=) and the users' coordinator accounts (direct ones: a
// coordinator of a parent account is one of its children through the
// tree's owners already). A user with several associations in one account
// (per partition) is read once: the association without a partition if
// there is one, else the first by partition name (the tree has one node per
// user of an account).
//
// Thread safety: takes assoc_mgr's read locks (associations, users) for
// the copy; call it from the tree fetcher's thread, never under
// slurmctld's job or node locks.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_ASSOCIATION_READER_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_ASSOCIATION_READER_H_

#include <string>

#include "libbudget/status.h"

namespace budget_prio {

// The tree document of the cluster's associations. IOError when
// slurmctld runs without slurmdbd (AccountingStorageType) or has not
// loaded the associations yet; the core's InvalidArgument when the
// hierarchy does not hang together. Fairshare=parent of an account (read
// as share 1) is logged once per change of the set of such warnings.
budget::Status ReadAssociationTree(std::string* json);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_ASSOCIATION_READER_H_
