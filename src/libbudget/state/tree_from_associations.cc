#include "libbudget/state/tree_from_associations.h"

#include <json-c/json.h>

#include <algorithm>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "libbudget/state/tree.h"

namespace budget {

namespace {

struct JsonDeleter {
  void operator()(json_object* o) const { json_object_put(o); }
};
using JsonPtr = std::unique_ptr<json_object, JsonDeleter>;

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// Up to AllocationTree::kMaxReportedErrors lines, then a count of the rest
// (the parser's convention, tree.h).
class Problems {
 public:
  void Add(std::string line) {
    if (++count_ <= AllocationTree::kMaxReportedErrors) lines_.push_back(std::move(line));
  }
  bool any() const { return count_ > 0; }
  Status ToStatus() const {
    std::string text;
    for (const std::string& line : lines_) text += (text.empty() ? "" : "\n") + line;
    if (count_ > lines_.size()) {
      text += "\n... and " + std::to_string(count_ - lines_.size()) + " more problems";
    }
    return Status::InvalidArgument(text);
  }

 private:
  std::vector<std::string> lines_;
  size_t count_ = 0;
};

// The associations arranged as the tree will be: per account, its own
// association, its sub-accounts and its users (those with shares of their
// own), each in the script's order.
struct Hierarchy {
  std::map<std::string, const AssociationRecord*> accounts;  // Not root.
  std::map<std::string, std::vector<std::string>> sub_accounts;
  std::map<std::string, std::vector<const AssociationRecord*>> users;
};

// The script sorts (user, Fairshare text) tuples.
bool UserOrder(const AssociationRecord* a, const AssociationRecord* b) {
  return std::forward_as_tuple(a->user, std::to_string(a->shares)) <
         std::forward_as_tuple(b->user, std::to_string(b->shares));
}

void CollectAccounts(const std::vector<AssociationRecord>& associations, Hierarchy* h, Problems* problems) {
  std::set<std::string> reported_twice;
  for (const AssociationRecord& r : associations) {
    if (!r.user.empty() || r.account == kRootAccount) continue;
    auto [it, added] = h->accounts.emplace(r.account, &r);
    if (!added && reported_twice.insert(r.account).second) {
      problems->Add("account " + Quoted(r.account) + " has more than one association");
    }
  }
}

// An account whose parent is known but that is not under root: its parent
// chain either meets an orphan (reported for the orphan alone) or loops.
bool InCycle(const Hierarchy& h, const std::string& account) {
  std::string at = account;
  for (size_t steps = 0; steps <= h.accounts.size(); ++steps) {
    const std::string& parent = h.accounts.at(at)->parent_account;
    if (parent == kRootAccount || h.accounts.count(parent) == 0) return false;
    at = parent;
  }
  return true;
}

// Marks the accounts under root, depth first; refuses any deeper than the
// tree allows (which also bounds the recursion of the JSON writer).
void MarkUnderRoot(const Hierarchy& h, const std::string& account, int depth,
                   std::set<std::string>* reached, Problems* problems) {
  reached->insert(account);
  auto children = h.sub_accounts.find(account);
  if (children == h.sub_accounts.end()) return;
  for (const std::string& child : children->second) {
    if (depth + 1 > AllocationTree::kMaxDepth) {
      problems->Add("account " + Quoted(child) + " is deeper than " +
                    std::to_string(AllocationTree::kMaxDepth) + " levels below root");
      continue;
    }
    MarkUnderRoot(h, child, depth + 1, reached, problems);
  }
}

void LinkAccounts(const std::vector<AssociationRecord>& associations, Hierarchy* h, Problems* problems) {
  for (const auto& [account, record] : h->accounts) {
    const std::string& parent = record->parent_account;
    if (parent == kRootAccount || h->accounts.count(parent) != 0) {
      h->sub_accounts[parent].push_back(account);  // In account order: the map's.
    } else {
      problems->Add("account " + Quoted(account) + ": its parent " + Quoted(parent) +
                    " has no association");
    }
  }
  std::set<std::string> reached;
  MarkUnderRoot(*h, kRootAccount, 0, &reached, problems);
  for (const auto& entry : h->accounts) {
    if (reached.count(entry.first) == 0 && InCycle(*h, entry.first)) {
      problems->Add("account " + Quoted(entry.first) + ": its parents form a cycle that never reaches " +
                    Quoted(kRootAccount));
    }
  }
  if (h->sub_accounts.count(kRootAccount) == 0) {
    problems->Add("no account under " + Quoted(kRootAccount));
  }
  for (const AssociationRecord& r : associations) {
    if (r.user.empty() || r.account == kRootAccount) continue;
    if (h->accounts.count(r.account) == 0) {
      problems->Add("user " + Quoted(r.user) + ": their account " + Quoted(r.account) +
                    " has no association");
    } else if (!r.shares_parent) {
      h->users[r.account].push_back(&r);
    }
  }
  for (auto& entry : h->users) std::sort(entry.second.begin(), entry.second.end(), UserOrder);
}

void AddString(json_object* obj, const char* key, const std::string& value) {
  json_object_object_add(obj, key, json_object_new_string_len(value.data(), static_cast<int>(value.size())));
}

void AddOwners(json_object* obj, const AccountCoordinators& coordinators, const std::string& account) {
  auto it = coordinators.find(account);
  if (it == coordinators.end()) return;
  std::set<std::string> owners(it->second.begin(), it->second.end());
  owners.erase("");
  if (owners.empty()) return;
  json_object* array = json_object_new_array();
  for (const std::string& owner : owners) {
    json_object_array_add(array, json_object_new_string_len(owner.data(), static_cast<int>(owner.size())));
  }
  json_object_object_add(obj, "owners", array);
}

// The node of `account` and its subtree, keys in the script's order
// (name, share, account, children) with owners before the binding, as in
// tree.h's example.
json_object* AccountNode(const Hierarchy& h, const AccountCoordinators& coordinators,
                         const std::string& account, std::vector<std::string>* warnings) {
  json_object* node = json_object_new_object();
  const bool is_root = account == kRootAccount;
  AddString(node, "name", is_root ? kAssociationTreeRootName : NodeNameFromSlurmName(account));
  if (!is_root) {
    const AssociationRecord& r = *h.accounts.at(account);
    if (r.shares_parent && warnings != nullptr) {
      warnings->push_back("account " + Quoted(account) + ": Fairshare=parent written as share 1: give it shares");
    }
    json_object_object_add(node, "share", json_object_new_int64(r.shares_parent ? 1 : r.shares));
  }
  AddOwners(node, coordinators, account);
  if (!is_root) AddString(node, "account", account);
  json_object* children = json_object_new_array();
  auto subs = h.sub_accounts.find(account);
  if (subs != h.sub_accounts.end()) {
    for (const std::string& sub : subs->second) {
      json_object_array_add(children, AccountNode(h, coordinators, sub, warnings));
    }
  }
  auto users = h.users.find(account);
  if (!is_root && users != h.users.end()) {
    for (const AssociationRecord* u : users->second) {
      json_object* user = json_object_new_object();
      AddString(user, "name", NodeNameFromSlurmName(u->user));
      json_object_object_add(user, "share", json_object_new_int64(u->shares));
      AddString(user, "user", u->user);
      json_object_array_add(children, user);
    }
  }
  if (json_object_array_length(children) > 0) {
    json_object_object_add(node, "children", children);
  } else {
    json_object_put(children);
  }
  return node;
}

bool IsNameChar(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

std::string NodeNameFromSlurmName(const std::string& slurm_name) {
  std::string name;
  name.reserve(slurm_name.size());
  bool in_sequence = false;  // Inside a multi-byte UTF-8 character.
  for (unsigned char c : slurm_name) {
    const bool continuation = (c & 0xC0) == 0x80;
    if (in_sequence && continuation) continue;
    in_sequence = c >= 0x80;
    name += IsNameChar(c) ? static_cast<char>(c) : '_';
  }
  return name;
}

Status TreeJsonFromAssociations(const std::vector<AssociationRecord>& associations,
                                const AccountCoordinators& coordinators, std::string* json,
                                std::vector<std::string>* warnings) {
  Hierarchy hierarchy;
  Problems problems;
  CollectAccounts(associations, &hierarchy, &problems);
  LinkAccounts(associations, &hierarchy, &problems);
  if (problems.any()) return problems.ToStatus();
  JsonPtr root(AccountNode(hierarchy, coordinators, kRootAccount, warnings));
  *json = json_object_to_json_string_ext(
      root.get(), JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
  *json += '\n';
  return Status::Ok();
}

}  // namespace budget
