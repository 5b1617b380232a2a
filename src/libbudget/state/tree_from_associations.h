// Tree from associations: the allocation tree (tree.h's JSON) that Slurm's
// association hierarchy describes, for budget.conf `BudgetTree=slurmdbd`.
// The adapter copies slurmctld's associations into AssociationRecords; the
// text produced here then goes through AllocationTree::Parse and the
// reloader's last-good logic like any other tree document.
//
// The mapping is the one of scripts/tree_from_sacctmgr.py (the site-facing
// script for the same conversion; the two must agree, and
// tree_from_associations_test.cc checks one sample,
// testdata/associations.txt, against the script's output):
//   account root                  the tree's root, named "cluster"; the
//                                 users of root get no node
//   account A, parent P, shares N a node named A under P's node, share N,
//                                 "account": A
//   user U of account A, shares N a node named U under A's node, share N,
//                                 "user": U
//   user with Fairshare=parent    no node: U's jobs are charged to A's node
//   account with Fairshare=parent share 1, and a warning naming it (Fair
//                                 Tree ranks its children with its parent's;
//                                 the suite has no such notion)
// Node names keep [A-Za-z0-9._-] of the Slurm name, other characters (UTF-8
// sequences, as the script's str) become one '_' each;
// the bindings keep the Slurm name as it is. Children: the sub-accounts
// sorted by account name, then the users sorted by user name (then share,
// compared as decimal text, as the script's tuple sort does).
//
// Beyond the script: an account's coordinators become its node's "owners"
// (sorted, duplicates dropped); the coordinators of root own the root.
// Coordinators of accounts that have no association are ignored.
//
// Refused (InvalidArgument, nothing produced), where the script silently
// leaves accounts out: an account whose parent has no association (an
// orphan, or a cycle that never reaches root), a user association of an
// account that has none, two associations of one account, an account
// deeper than AllocationTree::kMaxDepth, and a hierarchy with no account
// under root. slurmctld's association manager never holds such a
// hierarchy, so one of them means a partial or inconsistent read: keeping
// the last good tree is safer than a tree that hangs the lost accounts
// elsewhere, whose shares would be wrong for every sibling.
//
// Passed through to AllocationTree::Parse, which refuses them as it would
// refuse them in the script's output: siblings whose names collide (two
// associations of one user in one account, e.g. per partition; a user and
// a sub-account of the same name; names equal once odd characters became
// '_'), and a user bound twice in one account.
//
// Deterministic: the records' and coordinators' order does not matter; the
// same associations always give byte-identical text (the reloader takes an
// identical document as "unchanged").
//
// Thread safety: a pure function of its arguments.
#ifndef SLURM_BUDGET_LIBBUDGET_TREE_FROM_ASSOCIATIONS_H_
#define SLURM_BUDGET_LIBBUDGET_TREE_FROM_ASSOCIATIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libbudget/status.h"

namespace budget {

// One association of the cluster, as sacctmgr shows it with
// format=Account,ParentName,User,Fairshare.
struct AssociationRecord {
  std::string account;
  std::string parent_account;  // An account's own association; "" for root.
  std::string user;            // "" for an account's own association.
  uint32_t shares = 1;         // Fairshare=N; ignored if shares_parent.
  bool shares_parent = false;  // Fairshare=parent.
};

// Account name -> the user names of its coordinators, in any order.
using AccountCoordinators = std::map<std::string, std::vector<std::string>>;

// The account whose association is the tree's root, and the root's name.
constexpr char kRootAccount[] = "root";
constexpr char kAssociationTreeRootName[] = "cluster";

// Writes the tree the associations describe (see above) to *json, as
// tree.h's JSON document (indented, ending in a newline). Appends one line
// per account with Fairshare=parent to *warnings (may be null):
//   account "physics": Fairshare=parent written as share 1: give it shares
// InvalidArgument, one line per problem ('\n'-separated, at most
// AllocationTree::kMaxReportedErrors), if refused (see above); *json is then
// untouched. REQUIRES: json != nullptr.
Status TreeJsonFromAssociations(const std::vector<AssociationRecord>& associations,
                                const AccountCoordinators& coordinators, std::string* json,
                                std::vector<std::string>* warnings);

// The node name a Slurm account or user name becomes: each character outside
// [A-Za-z0-9._-] replaced by '_', one per character (a UTF-8 sequence is
// one character, as in the script).
std::string NodeNameFromSlurmName(const std::string& slurm_name);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TREE_FROM_ASSOCIATIONS_H_
