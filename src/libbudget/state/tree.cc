#include "libbudget/state/tree.h"

#include <json-c/json.h>

#include <climits>
#include <cmath>
#include <exception>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace budget {

namespace {

// json-c's own nesting limit must exceed ours so that a tree deeper than
// kMaxDepth reaches our check (and its precise message) instead of the
// tokener's: every tree level costs two JSON levels (object + array).
constexpr int kTokenerDepth = 2 * (AllocationTree::kMaxDepth + 8);
constexpr size_t kMaxQuotedValue = 40;

struct JsonDeleter {
  void operator()(json_object* o) const { json_object_put(o); }
};
using JsonPtr = std::unique_ptr<json_object, JsonDeleter>;

struct TokenerDeleter {
  void operator()(json_tokener* t) const { json_tokener_free(t); }
};

// The value as it appeared (compact JSON), shortened for one-line messages.
std::string Quote(json_object* value) {
  if (value == nullptr) return "null";
  std::string text = json_object_to_json_string_ext(
      value, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  if (text.size() > kMaxQuotedValue) text = text.substr(0, kMaxQuotedValue) + "...";
  return text;
}

std::string QuoteString(const std::string& s) { return "\"" + s + "\""; }

bool IsNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool IsValidName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool IsNumber(json_object* value) {
  return json_object_is_type(value, json_type_int) ||
         json_object_is_type(value, json_type_double);
}

// "line L, column C (offset O)" for a byte offset into `text`.
std::string DescribeOffset(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  std::ostringstream out;
  out << "line " << line << ", column " << column << " (offset " << offset << ")";
  return out.str();
}

struct PairHash {
  size_t operator()(const std::pair<std::string_view, std::string_view>& p) const {
    size_t h = std::hash<std::string_view>()(p.first);
    return h ^ (std::hash<std::string_view>()(p.second) + 0x9e3779b97f4a7c15ULL +
                (h << 6) + (h >> 2));
  }
};

}  // namespace

// The immutable parsed tree with its lookup maps. The maps hold views into
// `nodes`' strings, which is sound because an Index is built once, on the
// heap, and never modified or moved afterwards.
struct AllocationTree::Index {
  std::vector<TreeNode> nodes;
  std::unordered_map<std::string_view, NodeId> by_path;
  std::unordered_map<std::string_view, NodeId> by_account;
  // (account, user) -> the node binding `user` within `account`'s subtree.
  std::unordered_map<std::pair<std::string_view, std::string_view>, NodeId, PairHash>
      by_account_user;

  void BuildMaps() {
    by_path.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const TreeNode& n = nodes[i];
      const NodeId id = static_cast<NodeId>(i);
      by_path.emplace(n.path, id);
      if (!n.account.empty()) by_account.emplace(n.account, id);
      if (!n.user.empty()) by_account_user.emplace(std::make_pair(
          std::string_view(n.effective_account), std::string_view(n.user)), id);
    }
  }
};

namespace {

// Walks the json-c document once, building nodes in pre-order and collecting
// every error (up to a limit) with its JSON path.
class TreeBuilder {
 public:
  TreeBuilder(const std::string& source, std::vector<std::string>* warnings)
      : source_(source), warnings_(warnings) {}

  void BuildRoot(json_object* root) { ParseNode(root, kNoNode, "$", 0); }

  bool failed() const { return error_count_ > 0; }
  std::string ErrorText() const {
    std::string text;
    for (const std::string& e : errors_) {
      if (!text.empty()) text += '\n';
      text += e;
    }
    if (error_count_ > errors_.size()) {
      text += "\n" + source_ + ": ... and " +
              std::to_string(error_count_ - errors_.size()) + " more errors";
    }
    return text;
  }
  std::vector<TreeNode> TakeNodes() { return std::move(nodes_); }

 private:
  void Error(const std::string& where, const std::string& why) {
    ++error_count_;
    if (errors_.size() < AllocationTree::kMaxReportedErrors) {
      errors_.push_back(source_ + ": " + where + ": " + why);
    }
  }
  void Warning(const std::string& where, const std::string& why) {
    if (warnings_ != nullptr) warnings_->push_back(source_ + ": " + where + ": " + why);
  }

  // Returns the new node's id, or kNoNode if none was created.
  NodeId ParseNode(json_object* obj, NodeId parent, const std::string& jpath, int depth) {
    if (too_many_nodes_) return kNoNode;
    if (!json_object_is_type(obj, json_type_object)) {
      Error(jpath, "must be an object, got " + Quote(obj));
      return kNoNode;
    }
    if (depth > AllocationTree::kMaxDepth) {
      Error(jpath, "depth " + std::to_string(depth) + " exceeds the limit of " +
                       std::to_string(AllocationTree::kMaxDepth));
      return kNoNode;
    }
    if (nodes_.size() >= AllocationTree::kMaxNodes) {
      too_many_nodes_ = true;
      Error(jpath, "more than " + std::to_string(AllocationTree::kMaxNodes) +
                       " nodes (the limit)");
      return kNoNode;
    }
    const NodeId id = static_cast<NodeId>(nodes_.size());
    nodes_.emplace_back();
    nodes_[id].parent = parent;
    nodes_[id].depth = depth;

    json_object* children = nullptr;
    json_object_object_foreach(obj, key, value) {
      const std::string kpath = jpath + "." + key;
      const std::string k = key;
      if (k == "name") {
        ParseName(value, kpath, id);
      } else if (k == "share") {
        ParseShare(value, kpath, id);
      } else if (k == "owners") {
        ParseOwners(value, kpath, id);
      } else if (k == "account") {
        ParseBindingString(value, kpath, &nodes_[id].account);
      } else if (k == "user") {
        ParseBindingString(value, kpath, &nodes_[id].user);
      } else if (k == "children") {
        if (json_object_is_type(value, json_type_array)) {
          children = value;
        } else {
          Error(kpath, "must be an array of nodes, got " + Quote(value));
        }
      } else {
        Warning(kpath, "unknown key, ignored");
      }
    }
    if (!json_object_object_get_ex(obj, "name", nullptr)) {
      Error(jpath + ".name", "required, missing");
    }
    if (parent != kNoNode && !json_object_object_get_ex(obj, "share", nullptr)) {
      Error(jpath + ".share", "required on every node but the root, missing");
    }
    CheckBindings(jpath, id);

    TreeNode& self = nodes_[id];
    self.path = parent == kNoNode ? std::string()
                : nodes_[parent].path.empty()
                    ? self.name
                    : nodes_[parent].path + "/" + self.name;
    if (children != nullptr) ParseChildren(children, jpath, id, depth);
    return id;
  }

  void ParseChildren(json_object* children, const std::string& jpath, NodeId id,
                     int depth) {
    // Sibling name -> JSON path of its first holder, for duplicate reports.
    std::unordered_map<std::string, std::string> seen;
    const size_t count = json_object_array_length(children);
    for (size_t i = 0; i < count && !too_many_nodes_; ++i) {
      const std::string cpath = jpath + ".children[" + std::to_string(i) + "]";
      const NodeId child =
          ParseNode(json_object_array_get_idx(children, i), id, cpath, depth + 1);
      if (child == kNoNode) continue;
      nodes_[id].children.push_back(child);
      const std::string& name = nodes_[child].name;
      if (name.empty()) continue;  // Already reported.
      auto inserted = seen.emplace(name, cpath);
      if (!inserted.second) {
        Error(cpath + ".name", "duplicate sibling name " + QuoteString(name) +
                                   " (also at " + inserted.first->second + ")");
      }
    }
    // Each share is finite; their sum must be too, or every sibling's
    // normalized share (share / sum) would be 0.
    double sum = 0;
    for (NodeId c : nodes_[id].children) sum += nodes_[c].share;
    if (!std::isfinite(sum)) {
      Error(jpath + ".children", "the shares add up to more than the largest number (about 1.8e308); shares are "
                                 "proportions among siblings: use smaller numbers");
    }
  }

  void ParseName(json_object* value, const std::string& kpath, NodeId id) {
    if (!json_object_is_type(value, json_type_string)) {
      Error(kpath, "must be a string, got " + Quote(value));
      return;
    }
    std::string name = json_object_get_string(value);
    if (name.empty()) {
      Error(kpath, "must not be empty");
    } else if (!IsValidName(name)) {
      Error(kpath, "must match [A-Za-z0-9._-]+, got " + Quote(value));
    } else {
      nodes_[id].name = std::move(name);
    }
  }

  void ParseShare(json_object* value, const std::string& kpath, NodeId id) {
    if (nodes_[id].parent == kNoNode) {
      Warning(kpath, "the root has no share, ignored");
      return;
    }
    if (!IsNumber(value)) {
      Error(kpath, "must be a number >= 0, got " + Quote(value));
      return;
    }
    const double share = json_object_get_double(value);
    if (!std::isfinite(share)) {
      Error(kpath, "must be a finite number >= 0, got " + Quote(value));
    } else if (share < 0) {
      Error(kpath, "must be a number >= 0, got " + Quote(value));
    } else {
      nodes_[id].share = share;
    }
  }

  void ParseOwners(json_object* value, const std::string& kpath, NodeId id) {
    if (!json_object_is_type(value, json_type_array)) {
      Error(kpath, "must be an array of strings, got " + Quote(value));
      return;
    }
    const size_t count = json_object_array_length(value);
    for (size_t i = 0; i < count; ++i) {
      json_object* owner = json_object_array_get_idx(value, i);
      const std::string opath = kpath + "[" + std::to_string(i) + "]";
      if (!json_object_is_type(owner, json_type_string)) {
        Error(opath, "must be a string, got " + Quote(owner));
      } else if (json_object_get_string_len(owner) == 0) {
        Error(opath, "must not be empty");
      } else {
        nodes_[id].owners.push_back(json_object_get_string(owner));
      }
    }
  }

  void ParseBindingString(json_object* value, const std::string& kpath, std::string* out) {
    if (!json_object_is_type(value, json_type_string)) {
      Error(kpath, "must be a string, got " + Quote(value));
    } else if (json_object_get_string_len(value) == 0) {
      Error(kpath, "must not be empty");
    } else {
      *out = json_object_get_string(value);
    }
  }

  // Account/user rules; REQUIRES: the parent's effective_account is final.
  void CheckBindings(const std::string& jpath, NodeId id) {
    TreeNode& self = nodes_[id];
    const std::string inherited =
        self.parent == kNoNode ? std::string() : nodes_[self.parent].effective_account;
    if (!self.account.empty() && !self.user.empty()) {
      Error(jpath, "has both \"account\" and \"user\"; a node binds one or the other");
      return;
    }
    if (!self.account.empty()) {
      auto inserted = account_at_.emplace(self.account, jpath);
      if (!inserted.second) {
        Error(jpath + ".account", QuoteString(self.account) +
                                      " is already bound at " + inserted.first->second);
      }
      self.effective_account = self.account;
      return;
    }
    self.effective_account = inherited;
    if (self.user.empty()) return;
    if (inherited.empty()) {
      Error(jpath + ".user", QuoteString(self.user) +
                                 " is not inside an account's subtree (neither the node "
                                 "nor an ancestor has \"account\")");
      return;
    }
    auto inserted = user_at_.emplace(inherited + '\n' + self.user, jpath);
    if (!inserted.second) {
      Error(jpath + ".user", QuoteString(self.user) + " is already bound in account " +
                                 QuoteString(inherited) + " at " + inserted.first->second);
    }
  }

  const std::string& source_;
  std::vector<std::string>* warnings_;
  std::vector<TreeNode> nodes_;
  std::vector<std::string> errors_;
  size_t error_count_ = 0;
  bool too_many_nodes_ = false;
  std::unordered_map<std::string, std::string> account_at_;  // -> JSON path
  std::unordered_map<std::string, std::string> user_at_;     // "acct\nuser" -> path
};

// Fills normalized_share, entitlement and subtree_size. REQUIRES: pre-order.
void ComputeShares(std::vector<TreeNode>* nodes) {
  std::vector<TreeNode>& n = *nodes;
  for (TreeNode& parent : n) {
    double sum = 0;
    for (NodeId c : parent.children) sum += n[c].share;
    for (NodeId c : parent.children) {
      n[c].normalized_share = sum > 0 ? n[c].share / sum : 0.0;
    }
  }
  for (size_t i = 1; i < n.size(); ++i) {
    n[i].entitlement = n[n[i].parent].entitlement * n[i].normalized_share;
  }
  for (size_t i = n.size(); i-- > 1;) n[n[i].parent].subtree_size += n[i].subtree_size;
}

// Parses `text` with json-c; null and *error set on failure.
JsonPtr ParseJson(const std::string& text, const std::string& source, std::string* error) {
  if (text.size() >= static_cast<size_t>(INT_MAX)) {
    *error = source + ": not JSON: document larger than 2 GB";
    return nullptr;
  }
  std::unique_ptr<json_tokener, TokenerDeleter> tok(json_tokener_new_ex(kTokenerDepth));
  if (tok == nullptr) {
    *error = source + ": out of memory creating the JSON tokener";
    return nullptr;
  }
  // The terminating NUL is passed too, so that a document ending in a bare
  // number is complete rather than "continue".
  JsonPtr root(json_tokener_parse_ex(tok.get(), text.c_str(),
                                     static_cast<int>(text.size()) + 1));
  const json_tokener_error err = json_tokener_get_error(tok.get());
  const size_t end = json_tokener_get_parse_end(tok.get());
  if (err != json_tokener_success) {
    *error = source + ": not JSON: " + json_tokener_error_desc(err) + " at " +
             DescribeOffset(text, end);
    return nullptr;
  }
  for (size_t i = end; i < text.size(); ++i) {
    const char c = text[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\0') {
      *error = source + ": not JSON: trailing characters at " + DescribeOffset(text, i);
      return nullptr;
    }
  }
  return root;
}

}  // namespace

AllocationTree::AllocationTree() : index_(std::make_shared<const Index>()) {}

AllocationTree::AllocationTree(std::shared_ptr<const Index> index)
    : index_(std::move(index)) {}

const std::vector<TreeNode>& AllocationTree::nodes() const { return index_->nodes; }

Status AllocationTree::Parse(std::string_view json, const std::string& source_name,
                             AllocationTree* out, std::vector<std::string>* warnings) {
  try {
    std::string error;
    const std::string text(json);
    JsonPtr root = ParseJson(text, source_name, &error);
    if (root == nullptr) return Status::InvalidArgument(error);
    if (!json_object_is_type(root.get(), json_type_object)) {
      return Status::InvalidArgument(source_name + ": $: the root must be an object, got " +
                                     Quote(root.get()));
    }
    TreeBuilder builder(source_name, warnings);
    builder.BuildRoot(root.get());
    if (builder.failed()) return Status::InvalidArgument(builder.ErrorText());
    auto index = std::make_shared<Index>();
    index->nodes = builder.TakeNodes();
    ComputeShares(&index->nodes);
    index->BuildMaps();
    *out = AllocationTree(std::move(index));
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(source_name + ": cannot load the tree: " + e.what());
  }
}

Status AllocationTree::ParseFile(const std::string& filename, AllocationTree* out,
                                 std::vector<std::string>* warnings) {
  std::string text;
  try {
    std::ifstream in(filename, std::ios::binary);
    if (!in) return Status::IOError(filename + ": cannot open for reading");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) return Status::IOError(filename + ": read error");
    text = buffer.str();
  } catch (const std::exception& e) {
    return Status::IOError(filename + ": cannot read: " + e.what());
  }
  return Parse(text, filename, out, warnings);
}

const std::string& AllocationTree::DisplayPath(NodeId id) const {
  const TreeNode& n = node(id);
  return id == 0 ? n.name : n.path;
}

NodeId AllocationTree::Find(std::string_view path) const {
  auto it = index_->by_path.find(path);
  return it == index_->by_path.end() ? kNoNode : it->second;
}

NodeId AllocationTree::NodeFor(std::string_view account, std::string_view user) const {
  auto acct = index_->by_account.find(account);
  if (acct == index_->by_account.end()) return kNoNode;
  if (!user.empty()) {
    auto it = index_->by_account_user.find(std::make_pair(account, user));
    if (it != index_->by_account_user.end()) return it->second;
  }
  return acct->second;
}

bool AllocationTree::IsOwner(NodeId id, std::string_view user) const {
  for (const std::string& owner : node(id).owners) {
    if (owner == user) return true;
  }
  return false;
}

bool AllocationTree::OwnsProperAncestor(NodeId id, std::string_view user) const {
  for (NodeId a = node(id).parent; a != kNoNode; a = node(a).parent) {
    if (IsOwner(a, user)) return true;
  }
  return false;
}

}  // namespace budget
