// AllocationTree: who is entitled to what share of the cluster's GPU time.
//
// The tree is loaded from a JSON document (schema):
//   { "name": "cluster", "owners": ["director"], "children": [
//       { "name": "llm", "share": 50, "owners": ["pi-llm"], "children": [
//           { "name": "pretrain", "share": 70, "account": "pretrain" } ] } ] }
// Keys per node: name (required, [A-Za-z0-9._-]+), share (number >= 0,
// required on every node but the root), owners (array of strings), account
// (string), user (string), children (array of objects). Unknown keys are
// warnings, everything else that is wrong refuses the whole document.
//
// Paths. A node's path is its names from below the root joined by '/':
// "llm/pretrain". The root's path is "" (DisplayPath() shows its name).
//
// Shares. normalized_share = share / sum of the sibling shares (itself
// included), 0 if every sibling has share 0; the root has no share (0) and
// normalized_share 1. entitlement = product of normalized shares along the
// path (root 1.0): llm 50% x pretrain 70% = 35% of the cluster.
//
// Bindings. `account` binds a subtree to a Slurm account (an account is bound
// at most once in the tree). `user` binds a node inside an account's subtree
// to one user of that account (its nearest account-bound ancestor), at most
// once per account; a node never has both. A job of (account, user) maps to
// NodeFor(account, user): the node bound to `user` within `account`'s
// subtree, else the account node itself (a user without a node of their own,
// e.g. carol in "posttrain", is charged to the account node: see order.h for
// where such jobs stand).
//
// Node ids. Nodes are stored in pre-order (a parent before its children,
// children in document order), root = 0, so that:
//   - parent < child for every edge;
//   - the subtree of node i is the contiguous id range [i, i + subtree_size).
// Consumers (order.cc) rely on both to aggregate subtrees in one reverse scan.
//
// Thread safety: an AllocationTree is immutable once parsed; const methods
// may be called from any number of threads. Copies are cheap (the nodes are
// shared, never modified) and stay valid when the original is destroyed.
#ifndef SLURM_BUDGET_LIBBUDGET_TREE_H_
#define SLURM_BUDGET_LIBBUDGET_TREE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libbudget/status.h"

namespace budget {

using NodeId = int32_t;
constexpr NodeId kNoNode = -1;

struct TreeNode {
  std::string name;
  std::string path;  // "" for the root, "llm/pretrain" below it.
  double share = 0.0;  // As written; 0 for the root.
  double normalized_share = 1.0;
  double entitlement = 1.0;
  std::vector<std::string> owners;
  std::string account;  // "" if the node binds no account.
  std::string user;     // "" if the node binds no user.
  // The account whose jobs may land here: `account` itself, or the nearest
  // account-bound ancestor's; "" above every account (such nodes never hold
  // jobs).
  std::string effective_account;
  NodeId parent = kNoNode;
  std::vector<NodeId> children;  // Document order.
  int depth = 0;                 // Root 0.
  int32_t subtree_size = 1;      // Nodes in the subtree, itself included.
};

class AllocationTree {
 public:
  static constexpr int kMaxDepth = 16;          // Root is depth 0.
  static constexpr size_t kMaxNodes = 100000;
  // At most this many errors are listed for one document.
  static constexpr size_t kMaxReportedErrors = 20;

  // An empty tree: size() == 0, every lookup answers kNoNode.
  AllocationTree();

  // Parses and validates `json`. On success replaces *out. On failure leaves
  // *out untouched and returns InvalidArgument whose message holds one line
  // per error, '\n'-separated, at most kMaxReportedErrors of them (then a
  // line counting the rest):
  //   "<source_name>: $.children[0].share: must be a number >= 0, got -1"
  // Either way, appends one line per warning (an unknown key, a share on the
  // root) to *warnings, if non-null:
  //   "<source_name>: $.children[0].colour: unknown key, ignored"
  // REQUIRES: out != nullptr.
  static Status Parse(std::string_view json, const std::string& source_name,
                      AllocationTree* out, std::vector<std::string>* warnings);
  // Reads `filename` then Parse()s it with the file name as source name.
  // IOError if it cannot be read.
  static Status ParseFile(const std::string& filename, AllocationTree* out,
                          std::vector<std::string>* warnings);

  size_t size() const { return nodes().size(); }
  bool empty() const { return nodes().empty(); }
  // REQUIRES: 0 <= id < size().
  const TreeNode& node(NodeId id) const { return nodes()[id]; }
  const std::vector<TreeNode>& nodes() const;
  // The path, or the root's name for the root: for messages and reports.
  const std::string& DisplayPath(NodeId id) const;

  // O(1). kNoNode if no node has this path ("" is the root).
  NodeId Find(std::string_view path) const;
  // O(1). The node a job of (account, user) is charged to; see "Bindings".
  // kNoNode if `account` is bound nowhere.
  NodeId NodeFor(std::string_view account, std::string_view user) const;
  // Whether the node can hold jobs: it is bound to an account or lies in an
  // account's subtree.
  bool HoldsJobs(NodeId id) const { return !node(id).effective_account.empty(); }
  // Whether `user` is listed in the node's owners.
  bool IsOwner(NodeId id, std::string_view user) const;
  // Whether `user` owns a proper ancestor of `id`, i.e. may edit it.
  bool OwnsProperAncestor(NodeId id, std::string_view user) const;

 private:
  struct Index;
  explicit AllocationTree(std::shared_ptr<const Index> index);

  std::shared_ptr<const Index> index_;  // Never null.
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_TREE_H_
