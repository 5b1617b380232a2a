// `sbudget validate FILE` and `sbudget diff OLD NEW [--as USER]`: the review
// of an allocation-tree edit before it is applied, with no controller.
//
// validate parses the tree with the plugin's own parser (AllocationTree), so
// a file it accepts is a file the plugin accepts, and prints each node's
// entitlement. diff lists every node whose entitlement or definition changes
// (DiffTrees) and, with --as USER, checks that USER owns an ancestor of every
// edited node (CheckEditAllowed): the review gate of a tree kept in version
// control. The rules live in the core (tree.h, tree_diff.h); this file only
// prints their answers.
//
// Exit codes (ReviewResult::exit_code): 0 valid / allowed; 1 a tree is
// invalid or unreadable, or the edit is not USER's to make.
//
// Thread safety: plain functions.
#ifndef SLURM_BUDGET_SBUDGET_TREE_REVIEW_H_
#define SLURM_BUDGET_SBUDGET_TREE_REVIEW_H_

#include <optional>
#include <string>

namespace sbudget {

struct ReviewResult {
  int exit_code = 0;
  std::string out;  // for stdout
  std::string err;  // for stderr: errors and violations, one per line
};

ReviewResult ValidateTreeFile(const std::string& file);

// `as_user` absent: no ownership check.
ReviewResult DiffTreeFiles(const std::string& old_file, const std::string& new_file,
                           const std::optional<std::string>& as_user);

}  // namespace sbudget

#endif  // SLURM_BUDGET_SBUDGET_TREE_REVIEW_H_
