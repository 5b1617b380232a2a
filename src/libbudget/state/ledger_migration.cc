#include "libbudget/state/ledger_migration.h"

namespace budget {

namespace {

// The node of `tree` with the same binding as `node` (tree.h, "Bindings"),
// kNoNode if none or if `node` binds nothing.
NodeId SameBinding(const AllocationTree& tree, const TreeNode& node) {
  if (!node.account.empty()) return tree.NodeFor(node.account, "");
  if (node.user.empty()) return kNoNode;
  const NodeId id = tree.NodeFor(node.effective_account, node.user);
  // NodeFor falls back on the account's node for a user without one.
  return id != kNoNode && tree.node(id).user == node.user ? id : kNoNode;
}

}  // namespace

std::vector<Ledger::PathMove> MigrateLedgerPaths(const AllocationTree& old_tree, const AllocationTree& new_tree,
                                                 Ledger* ledger) {
  std::vector<Ledger::PathMove> moves;
  for (const TreeNode& node : new_tree.nodes()) {
    const NodeId old_id = SameBinding(old_tree, node);
    if (old_id == kNoNode) continue;
    const std::string& old_path = old_tree.node(old_id).path;
    if (old_path.empty() || node.path.empty()) continue;  // The root: see the header.
    if (old_path != node.path && ledger->HasPath(old_path)) moves.push_back({old_path, node.path});
  }
  ledger->MovePaths(moves);
  return moves;
}

}  // namespace budget
