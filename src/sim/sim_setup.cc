#include "sim/sim_setup.h"

#include <json-c/json.h>
#include <unistd.h>

#include <cstring>

#include "libbudget/config/time_string.h"
#include "libbudget/policy/packing.h"

namespace budget {
namespace sim {

Status FlatTreeFor(const Workload& workload, AllocationTree* out) {
  json_object* root = json_object_new_object();
  json_object_object_add(root, "name", json_object_new_string("cluster"));
  json_object* children = json_object_new_array();
  for (const std::string& account : workload.accounts) {
    std::string name = account;
    for (char& c : name) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
      if (!ok) c = '_';
    }
    json_object* child = json_object_new_object();
    json_object_object_add(child, "name", json_object_new_string(name.c_str()));
    json_object_object_add(child, "share", json_object_new_int(1));
    json_object_object_add(child, "account", json_object_new_string(account.c_str()));
    json_object_array_add(children, child);
  }
  json_object_object_add(root, "children", children);
  std::string text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
  json_object_put(root);
  return AllocationTree::Parse(text, "flat tree", out, nullptr);
}

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string Absolute(const std::string& file) {
  if (file.empty() || file[0] == '/') return file;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return file;
  return std::string(cwd) + "/" + file;
}

// The error `st` (IOError or InvalidArgument, the codes its sources give)
// with another message.
Status WithMessage(const Status& st, std::string message) {
  if (st.code() == Status::Code::kIOError) return Status::IOError(std::move(message));
  return Status::InvalidArgument(std::move(message));
}

}  // namespace

Status SimTreeFile(const std::string& tree_option, const std::string& config_file,
                   const BudgetConfig& config, std::string* out) {
  *out = tree_option;
  const std::string& tree = config.budget_tree;
  if (!tree_option.empty() || tree.empty()) return Status::Ok();
  const std::string key = config_file + ": BudgetTree=" + tree + ": ";
  if (StartsWith(tree, "http://") || StartsWith(tree, "https://"))
    return Status::InvalidArgument(key + "budget-sim fetches no URL; save the tree and give --tree FILE");
  if (StartsWith(tree, "file://")) {
    *out = tree.substr(std::strlen("file://"));
    if (out->empty() || (*out)[0] != '/')
      return Status::InvalidArgument(key + "a file:// URL needs an absolute path");
    return Status::Ok();
  }
  if (tree.find("://") != std::string::npos)
    return Status::InvalidArgument(key + "unsupported URL scheme (use a path or file://)");
  // A relative path is already beside budget.conf: LoadSimConfig parsed it
  // under its absolute name (libbudget/config/config.h).
  *out = tree;
  return Status::Ok();
}

Status LoadSimTree(const std::string& tree_option, const std::string& config_file,
                   const BudgetConfig& config, const Workload& workload, AllocationTree* out,
                   std::vector<std::string>* warnings, std::string* source) {
  std::string file;
  Status st = SimTreeFile(tree_option, config_file, config, &file);
  if (!st.ok()) return st;
  if (file.empty()) {
    *source = "flat: one equal share per account";
    return FlatTreeFor(workload, out);
  }
  *source = !tree_option.empty() ? "--tree " + file : "BudgetTree of " + config_file + ": " + file;
  st = AllocationTree::ParseFile(file, out, warnings);
  if (st.ok() || !tree_option.empty()) return st;
  return WithMessage(st, config_file + ": BudgetTree: " + st.message());
}

Status LoadSimConfig(const std::string& file, BudgetConfig* out) {
  if (file.empty()) {
    *out = BudgetConfig();
    return Status::Ok();
  }
  bool missing = false;
  const std::string absolute = Absolute(file);
  Status st = LoadBudgetConfig(absolute, out, &missing);
  if (st.ok() && missing) return Status::IOError(file + ": cannot open for reading");
  if (st.ok() || !StartsWith(st.message(), absolute.c_str())) return st;
  // Messages name the file as the user gave it.
  return WithMessage(st, file + st.message().substr(absolute.size()));
}

Status CheckDefaultMinRuntime(Seconds default_min_runtime, const BudgetConfig& config) {
  if (default_min_runtime <= config.max_min_runtime) return Status::Ok();
  return Status::InvalidArgument("--default-min-runtime (" + FormatDuration(default_min_runtime) +
                                 ") is longer than MaxMinRuntime (" + FormatDuration(config.max_min_runtime) +
                                 ") of budget.conf");
}

std::vector<int32_t> ContiguousGroups(uint32_t nodes, uint32_t group_size) {
  std::vector<int32_t> groups;
  if (group_size == 0) return groups;
  for (uint32_t i = 0; i < nodes; ++i) groups.push_back(int32_t(i / group_size));
  return groups;
}

}  // namespace sim
}  // namespace budget
