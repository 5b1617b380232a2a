// Tree diff and owner check: what an edit of the allocation tree changes,
// and whether a given user may make it.
//
// Nodes are matched by path, so a renamed or moved node is a removal plus an
// addition (its ledger usage, also keyed by path, follows it only where the
// caller runs MigrateLedgerPaths, ledger_migration.h).
// DiffTrees() lists every node whose entitlement changes (added nodes count
// from 0, removed ones go to 0) and every node whose share, owners (compared
// as sets), account/user binding, or (the root only) name changes, in path
// order ("" = the root first).
//
// Ownership rule: a node's owners may change its descendants
// and nothing else. So a change to node N (share, owners, binding, name,
// added, removed) is allowed for user U iff U is an owner, in `before`, of a
// proper ancestor of N; for an added node, of one of its ancestors that
// existed before. Nobody may change the root in place (it has no ancestor):
// that is an administrator's edit of the file, outside this check.
// Entitlement changes are never violations by themselves: they only follow
// from share changes, additions and removals, which are checked.
//
// Thread safety: free functions on immutable trees; safe from any thread.
#ifndef SLURM_BUDGET_LIBBUDGET_TREE_DIFF_H_
#define SLURM_BUDGET_LIBBUDGET_TREE_DIFF_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/status.h"
#include "libbudget/state/tree.h"

namespace budget {

struct NodeChange {
  enum Field : uint32_t {
    kAdded = 1u << 0,
    kRemoved = 1u << 1,
    kShare = 1u << 2,
    kOwners = 1u << 3,
    kBinding = 1u << 4,  // account or user
    kName = 1u << 5,     // the root's name (other names are paths)
    kEntitlement = 1u << 6,
  };

  std::string path;          // "" for the root.
  std::string display_path;  // The root's name (after the edit) for the root.
  uint32_t fields = 0;       // Bitwise or of Field.
  // Values on each side; an absent node has share and entitlement 0 and no
  // owners or bindings.
  double share_before = 0, share_after = 0;
  double entitlement_before = 0, entitlement_after = 0;
  std::vector<std::string> owners_before, owners_after;  // Sorted.
  std::string account_before, account_after, user_before, user_after;
  std::string name_before, name_after;

  bool Has(Field f) const { return (fields & f) != 0; }
  // Whether an owner had to make this change (anything but entitlement).
  bool IsEdit() const { return (fields & ~uint32_t{kEntitlement}) != 0; }
  // One line, e.g. "llm/pretrain: share 70 -> 60, entitlement 0.35 -> 0.3".
  std::string Describe() const;
  // The same without the entitlement part ("" if !IsEdit()).
  std::string DescribeEdit() const;
};

// Entitlements closer than this are equal (they are products of doubles).
constexpr double kEntitlementEpsilon = 1e-12;

std::vector<NodeChange> DiffTrees(const AllocationTree& before, const AllocationTree& after);

// Ok if `user` may make every change from `before` to `after`; otherwise
// InvalidArgument naming the first violation and how many there are, and
// one line per violation appended to *violations (may be null):
//   "llm/pretrain: share 70 -> 60: bob owns none of its ancestors (llm, cluster)"
Status CheckEditAllowed(const AllocationTree& before, const AllocationTree& after,
                        std::string_view user, std::vector<std::string>* violations);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TREE_DIFF_H_
