#include "libbudget/state/tree_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <utility>

namespace budget {

namespace {

std::string FormatNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

std::string FormatList(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += ", ";
    text += items[i];
  }
  return text + "]";
}

std::string OrNone(const std::string& s) { return s.empty() ? "(none)" : s; }

std::vector<std::string> SortedOwners(const TreeNode& n) {
  std::vector<std::string> owners = n.owners;
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

void FillSide(const AllocationTree& tree, NodeId id, bool is_before, NodeChange* c) {
  if (id == kNoNode) return;
  const TreeNode& n = tree.node(id);
  (is_before ? c->share_before : c->share_after) = n.share;
  (is_before ? c->entitlement_before : c->entitlement_after) = n.entitlement;
  (is_before ? c->owners_before : c->owners_after) = SortedOwners(n);
  (is_before ? c->account_before : c->account_after) = n.account;
  (is_before ? c->user_before : c->user_after) = n.user;
  (is_before ? c->name_before : c->name_after) = n.name;
}

uint32_t ChangedFields(const NodeChange& c, NodeId before, NodeId after) {
  if (before == kNoNode) return NodeChange::kAdded;
  if (after == kNoNode) return NodeChange::kRemoved;
  uint32_t fields = 0;
  if (c.share_before != c.share_after) fields |= NodeChange::kShare;
  if (c.owners_before != c.owners_after) fields |= NodeChange::kOwners;
  if (c.account_before != c.account_after || c.user_before != c.user_after) {
    fields |= NodeChange::kBinding;
  }
  if (c.name_before != c.name_after) fields |= NodeChange::kName;
  if (std::fabs(c.entitlement_before - c.entitlement_after) > kEntitlementEpsilon) {
    fields |= NodeChange::kEntitlement;
  }
  return fields;
}

// The proper ancestors' paths of `path`, nearest first, the root ("") last.
std::vector<std::string> AncestorPaths(const std::string& path) {
  std::vector<std::string> ancestors;
  if (path.empty()) return ancestors;
  for (size_t slash = path.rfind('/'); slash != std::string::npos;
       slash = slash == 0 ? std::string::npos : path.rfind('/', slash - 1)) {
    ancestors.push_back(path.substr(0, slash));
  }
  ancestors.push_back("");
  return ancestors;
}

// The violation line for `c`, or "" if `user` may make it.
std::string Violation(const AllocationTree& before, const NodeChange& c,
                      std::string_view user) {
  std::vector<std::string> existing;  // Display paths of ancestors in `before`.
  for (const std::string& a : AncestorPaths(c.path)) {
    const NodeId id = before.Find(a);
    if (id == kNoNode) continue;
    if (before.IsOwner(id, user)) return "";
    existing.push_back(before.DisplayPath(id));
  }
  if (c.path.empty()) {
    return c.DescribeEdit() + ": the root has no ancestors; only an administrator may change it";
  }
  std::string who = existing.empty() ? "" : " (" + existing.front();
  for (size_t i = 1; i < existing.size(); ++i) who += ", " + existing[i];
  if (!existing.empty()) who += ")";
  return c.DescribeEdit() + ": " + std::string(user) + " owns none of its ancestors" + who;
}

}  // namespace

std::string NodeChange::DescribeEdit() const {
  std::vector<std::string> parts;
  if (Has(kAdded)) {
    parts.push_back("added (share " + FormatNumber(share_after) + ")");
  } else if (Has(kRemoved)) {
    parts.push_back("removed (share " + FormatNumber(share_before) + ")");
  } else {
    if (Has(kName)) parts.push_back("name " + name_before + " -> " + name_after);
    if (Has(kShare)) {
      parts.push_back("share " + FormatNumber(share_before) + " -> " + FormatNumber(share_after));
    }
    if (Has(kOwners)) {
      parts.push_back("owners " + FormatList(owners_before) + " -> " + FormatList(owners_after));
    }
    if (account_before != account_after) {
      parts.push_back("account " + OrNone(account_before) + " -> " + OrNone(account_after));
    }
    if (user_before != user_after) {
      parts.push_back("user " + OrNone(user_before) + " -> " + OrNone(user_after));
    }
  }
  if (parts.empty()) return "";
  std::string text = display_path + ": " + parts[0];
  for (size_t i = 1; i < parts.size(); ++i) text += ", " + parts[i];
  return text;
}

std::string NodeChange::Describe() const {
  const std::string entitlement = "entitlement " + FormatNumber(entitlement_before) + " -> " +
                                  FormatNumber(entitlement_after);
  const bool show_entitlement = Has(kEntitlement) || Has(kAdded) || Has(kRemoved);
  std::string text = DescribeEdit();
  if (text.empty()) return show_entitlement ? display_path + ": " + entitlement : "";
  return show_entitlement ? text + ", " + entitlement : text;
}

std::vector<NodeChange> DiffTrees(const AllocationTree& before, const AllocationTree& after) {
  // path -> (id before, id after); std::map gives the path order.
  std::map<std::string, std::pair<NodeId, NodeId>> paths;
  for (size_t i = 0; i < before.size(); ++i) {
    paths[before.node(static_cast<NodeId>(i)).path] = {static_cast<NodeId>(i), kNoNode};
  }
  for (size_t i = 0; i < after.size(); ++i) {
    auto inserted = paths.emplace(after.node(static_cast<NodeId>(i)).path,
                                  std::make_pair(kNoNode, static_cast<NodeId>(i)));
    if (!inserted.second) inserted.first->second.second = static_cast<NodeId>(i);
  }
  std::vector<NodeChange> changes;
  for (const auto& [path, ids] : paths) {
    NodeChange c;
    FillSide(before, ids.first, true, &c);
    FillSide(after, ids.second, false, &c);
    c.fields = ChangedFields(c, ids.first, ids.second);
    if (c.fields == 0) continue;
    c.path = path;
    c.display_path = ids.second != kNoNode ? after.DisplayPath(ids.second)
                                           : before.DisplayPath(ids.first);
    changes.push_back(std::move(c));
  }
  return changes;
}

Status CheckEditAllowed(const AllocationTree& before, const AllocationTree& after,
                        std::string_view user, std::vector<std::string>* violations) {
  try {
    size_t count = 0;
    std::string first;
    for (const NodeChange& c : DiffTrees(before, after)) {
      if (!c.IsEdit()) continue;
      std::string line = Violation(before, c, user);
      if (line.empty()) continue;
      if (count++ == 0) first = line;
      if (violations != nullptr) violations->push_back(std::move(line));
    }
    if (count == 0) return Status::Ok();
    std::string message = std::string(user) + " may not make this edit: " + first;
    if (count > 1) message += " (and " + std::to_string(count - 1) + " more)";
    return Status::InvalidArgument(message);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("cannot check the edit: ") + e.what());
  }
}

}  // namespace budget
