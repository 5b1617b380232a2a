#include "sim/sim_setup.h"

#include <json-c/json.h>

#include "libbudget/packing.h"

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

Status LoadTreeOrFlat(const std::string& file, const Workload& workload, AllocationTree* out,
                      std::vector<std::string>* warnings) {
  if (file.empty()) return FlatTreeFor(workload, out);
  return AllocationTree::ParseFile(file, out, warnings);
}

Status LoadSimConfig(const std::string& file, BudgetConfig* out) {
  if (file.empty()) {
    *out = BudgetConfig();
    return Status::Ok();
  }
  bool missing = false;
  Status st = LoadBudgetConfig(file, out, &missing);
  if (st.ok() && missing) return Status::IOError(file + ": cannot open for reading");
  return st;
}

std::vector<int32_t> ContiguousGroups(uint32_t nodes, uint32_t group_size) {
  std::vector<int32_t> groups;
  if (group_size == 0) return groups;
  for (uint32_t i = 0; i < nodes; ++i) groups.push_back(int32_t(i / group_size));
  return groups;
}

}  // namespace sim
}  // namespace budget
