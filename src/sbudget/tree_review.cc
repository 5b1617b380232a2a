// sbudget validate / diff (tree_review.h).
#include "sbudget/tree_review.h"

#include <cstdio>
#include <vector>

#include "libbudget/state/tree.h"
#include "libbudget/state/tree_diff.h"

namespace sbudget {

using budget::AllocationTree;

namespace {

// Loads `file` into *tree; on failure fills result (exit 1, the parser's
// error lines on stderr) and returns false. Warnings go to stderr.
bool LoadTree(const std::string& file, AllocationTree* tree, ReviewResult* result) {
  std::vector<std::string> warnings;
  budget::Status s = AllocationTree::ParseFile(file, tree, &warnings);
  for (const std::string& w : warnings) result->err += "warning: " + w + "\n";
  if (!s.ok()) {
    result->exit_code = 1;
    result->err += s.message() + "\n";
    return false;
  }
  return true;
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.3f%%", 100 * fraction);
  return buf;
}

}  // namespace

ReviewResult ValidateTreeFile(const std::string& file) {
  ReviewResult r;
  AllocationTree tree;
  if (!LoadTree(file, &tree, &r)) {
    r.err += file + ": invalid; the plugin would refuse it and keep its last good tree\n";
    return r;
  }
  size_t accounts = 0;
  for (const budget::TreeNode& n : tree.nodes()) accounts += n.account.empty() ? 0 : 1;
  r.out = file + ": valid, " + std::to_string(tree.size()) + " nodes, " +
          std::to_string(accounts) + " accounts\n";
  r.out += "Entitled  Node\n";
  for (size_t i = 0; i < tree.size(); ++i) {
    const budget::TreeNode& n = tree.node(static_cast<budget::NodeId>(i));
    std::string binding;
    if (!n.account.empty()) binding += " account=" + n.account;
    if (!n.user.empty()) binding += " user=" + n.user;
    std::string owners;
    for (const std::string& o : n.owners) owners += (owners.empty() ? " owners=" : ",") + o;
    r.out += Percent(n.entitlement) + "  " + std::string(2 * n.depth, ' ') +
             tree.DisplayPath(static_cast<budget::NodeId>(i)) + binding + owners + "\n";
  }
  return r;
}

ReviewResult DiffTreeFiles(const std::string& old_file, const std::string& new_file,
                           const std::optional<std::string>& as_user) {
  ReviewResult r;
  AllocationTree before, after;
  if (!LoadTree(old_file, &before, &r) || !LoadTree(new_file, &after, &r)) return r;
  std::vector<budget::NodeChange> changes = budget::DiffTrees(before, after);
  for (const budget::NodeChange& c : changes) r.out += c.Describe() + "\n";
  r.out += std::to_string(changes.size()) + (changes.size() == 1 ? " node changes" : " nodes change") + "\n";
  if (!as_user) return r;
  std::vector<std::string> violations;
  budget::Status s = budget::CheckEditAllowed(before, after, *as_user, &violations);
  if (s.ok()) {
    r.out += "allowed: " + *as_user + " owns an ancestor of every edited node\n";
    return r;
  }
  r.exit_code = 1;
  for (const std::string& v : violations) r.err += "not allowed: " + v + "\n";
  if (violations.empty()) r.err += "not allowed: " + s.message() + "\n";
  r.err += std::to_string(violations.size()) + " change(s) outside what " + *as_user + " owns\n";
  return r;
}

}  // namespace sbudget
