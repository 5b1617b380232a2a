#include "libbudget/policy/packing_state.h"

#include <json-c/json.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace budget {

namespace {

struct JsonDeleter {
  void operator()(json_object* o) const { json_object_put(o); }
};
using JsonPtr = std::unique_ptr<json_object, JsonDeleter>;

std::string ErrnoText(int err) { return std::strerror(err); }

std::string Where(const std::string& file, const std::string& key) { return file + ": " + key; }

// Fetches `key` of `object` with the given type, or says why not.
Status Field(json_object* object, const std::string& file, const std::string& path, const char* key,
             json_type type, json_object** out) {
  json_object* value = nullptr;
  if (!json_object_object_get_ex(object, key, &value)) {
    return Status::Corruption(Where(file, path + key) + ": missing");
  }
  bool ok = json_object_is_type(value, type) ||
            (type == json_type_double && json_object_is_type(value, json_type_int));
  if (!ok) {
    return Status::Corruption(Where(file, path + key) + ": expected " + json_type_to_name(type) + ", found " +
                              json_type_to_name(json_object_get_type(value)));
  }
  *out = value;
  return Status::Ok();
}

Status Count(json_object* object, const std::string& file, const std::string& path, const char* key,
             int64_t max, int64_t* out) {
  json_object* value = nullptr;
  Status st = Field(object, file, path, key, json_type_int, &value);
  if (!st.ok()) return st;
  int64_t v = json_object_get_int64(value);
  if (v < 0 || v > max) return Status::Corruption(Where(file, path + key) + ": out of range (" + std::to_string(v) + ")");
  *out = v;
  return Status::Ok();
}

Status ParseNode(json_object* entry, const std::string& file, const std::string& path, PublishedNode* node) {
  if (!json_object_is_type(entry, json_type_object)) return Status::Corruption(Where(file, path) + ": expected object");
  json_object* name = nullptr;
  json_object* usable = nullptr;
  int64_t free_gpus = 0, total_gpus = 0;
  Status st = Field(entry, file, path + ".", "name", json_type_string, &name);
  if (st.ok()) st = Count(entry, file, path + ".", "free_gpus", UINT32_MAX, &free_gpus);
  if (st.ok()) st = Count(entry, file, path + ".", "total_gpus", UINT32_MAX, &total_gpus);
  if (st.ok()) st = Field(entry, file, path + ".", "usable", json_type_boolean, &usable);
  if (!st.ok()) return st;
  if (free_gpus > total_gpus) return Status::Corruption(Where(file, path) + ": free_gpus > total_gpus");
  node->name = json_object_get_string(name);
  node->free_gpus = uint32_t(free_gpus);
  node->total_gpus = uint32_t(total_gpus);
  node->usable = json_object_get_boolean(usable);
  return Status::Ok();
}

Status ParseHero(json_object* hero, const std::string& file, PackingState* state) {
  if (json_object_is_type(hero, json_type_null)) return Status::Ok();
  if (!json_object_is_type(hero, json_type_object)) return Status::Corruption(Where(file, "hero") + ": expected object or null");
  int64_t job_id = 0, planned_start = 0;
  json_object* nodes = nullptr;
  Status st = Count(hero, file, "hero.", "job_id", UINT32_MAX, &job_id);
  if (st.ok()) st = Count(hero, file, "hero.", "planned_start", INT64_MAX, &planned_start);
  if (st.ok()) st = Field(hero, file, "hero.", "nodes", json_type_array, &nodes);
  // waiting_since came later (doc/formats.md): absent reads as 0, unknown.
  int64_t waiting_since = 0;
  json_object* waiting = nullptr;
  if (st.ok() && json_object_object_get_ex(hero, "waiting_since", &waiting)) {
    st = Count(hero, file, "hero.", "waiting_since", INT64_MAX, &waiting_since);
  }
  // promised_start came later still: absent reads as the planned start.
  int64_t promised_start = planned_start;
  json_object* promised = nullptr;
  if (st.ok() && json_object_object_get_ex(hero, "promised_start", &promised)) {
    st = Count(hero, file, "hero.", "promised_start", INT64_MAX, &promised_start);
  }
  if (!st.ok()) return st;
  state->hero_active = true;
  state->hero_job_id = uint32_t(job_id);
  state->hero_planned_start = planned_start;
  state->hero_waiting_since = waiting_since;
  state->hero_promised_start = promised_start;
  for (size_t i = 0; i < json_object_array_length(nodes); ++i) {
    json_object* name = json_object_array_get_idx(nodes, i);
    if (!json_object_is_type(name, json_type_string)) {
      return Status::Corruption(Where(file, "hero.nodes[" + std::to_string(i) + "]") + ": expected string");
    }
    state->hero_nodes.push_back(json_object_get_string(name));
  }
  return Status::Ok();
}

}  // namespace

PackingState SummarizePacking(const std::vector<NodeState>& nodes, const std::vector<std::string>& names,
                              TimePoint now) {
  PackingState state;
  state.time = now;
  state.fragmentation = Fragmentation(nodes);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeState& n = nodes[i];
    if (n.usable) state.free_gpus += n.free_gpus;
    state.nodes.push_back(PublishedNode{i < names.size() ? names[i] : std::to_string(n.index), n.free_gpus,
                                   n.total_gpus, n.usable});
  }
  // Fragmentation() is stranded / free exactly; the count is recovered from
  // it rather than re-deriving which nodes count as partially free.
  state.stranded_gpus = uint32_t(std::lround(state.fragmentation * state.free_gpus));
  return state;
}

std::string FragmentationLine(const PackingState& state) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", state.fragmentation);
  return std::string("fragmentation ") + ratio + " (" + std::to_string(state.stranded_gpus) + " of " +
         std::to_string(state.free_gpus) + " free GPUs cannot host a whole-node job)";
}

std::string FormatPackingState(const PackingState& state) {
  JsonPtr root(json_object_new_object());
  json_object_object_add(root.get(), "version", json_object_new_int(kPackingStateVersion));
  json_object_object_add(root.get(), "time", json_object_new_int64(state.time));
  json_object_object_add(root.get(), "fragmentation", json_object_new_double(state.fragmentation));
  json_object_object_add(root.get(), "free_gpus", json_object_new_int64(state.free_gpus));
  json_object_object_add(root.get(), "stranded_gpus", json_object_new_int64(state.stranded_gpus));
  json_object* nodes = json_object_new_array();
  for (const PublishedNode& n : state.nodes) {
    json_object* entry = json_object_new_object();
    json_object_object_add(entry, "name", json_object_new_string(n.name.c_str()));
    json_object_object_add(entry, "free_gpus", json_object_new_int64(n.free_gpus));
    json_object_object_add(entry, "total_gpus", json_object_new_int64(n.total_gpus));
    json_object_object_add(entry, "usable", json_object_new_boolean(n.usable));
    json_object_array_add(nodes, entry);
  }
  json_object_object_add(root.get(), "nodes", nodes);
  if (state.hero_active) {
    json_object* hero = json_object_new_object();
    json_object_object_add(hero, "job_id", json_object_new_int64(state.hero_job_id));
    json_object_object_add(hero, "planned_start", json_object_new_int64(state.hero_planned_start));
    json_object_object_add(hero, "waiting_since", json_object_new_int64(state.hero_waiting_since));
    json_object_object_add(hero, "promised_start", json_object_new_int64(state.hero_promised_start));
    json_object* hero_nodes = json_object_new_array();
    for (const std::string& name : state.hero_nodes) json_object_array_add(hero_nodes, json_object_new_string(name.c_str()));
    json_object_object_add(hero, "nodes", hero_nodes);
    json_object_object_add(root.get(), "hero", hero);
  } else {
    json_object_object_add(root.get(), "hero", nullptr);
  }
  json_object* reserve = json_object_new_array();
  for (const std::string& name : state.reserve_nodes) json_object_array_add(reserve, json_object_new_string(name.c_str()));
  json_object_object_add(root.get(), "quick_reserve", reserve);
  return std::string(json_object_to_json_string_ext(root.get(), JSON_C_TO_STRING_PRETTY |
                                                                    JSON_C_TO_STRING_NOSLASHESCAPE)) + "\n";
}

Status ParsePackingState(const std::string& text, const std::string& file, PackingState* out) {
  json_tokener_error err = json_tokener_success;
  JsonPtr root(json_tokener_parse_verbose(text.c_str(), &err));
  if (err != json_tokener_success || !root) {
    return Status::Corruption(file + ": not JSON: " + json_tokener_error_desc(err));
  }
  if (!json_object_is_type(root.get(), json_type_object)) return Status::Corruption(file + ": expected a JSON object");
  PackingState state;
  int64_t version = 0, time = 0, free_gpus = 0, stranded = 0;
  json_object* fragmentation = nullptr;
  json_object* nodes = nullptr;
  json_object* hero = nullptr;
  Status st = Count(root.get(), file, "", "version", INT32_MAX, &version);
  if (st.ok() && version != kPackingStateVersion) {
    st = Status::Corruption(Where(file, "version") + ": unknown version " + std::to_string(version));
  }
  if (st.ok()) st = Count(root.get(), file, "", "time", INT64_MAX, &time);
  if (st.ok()) st = Field(root.get(), file, "", "fragmentation", json_type_double, &fragmentation);
  if (st.ok()) st = Count(root.get(), file, "", "free_gpus", UINT32_MAX, &free_gpus);
  if (st.ok()) st = Count(root.get(), file, "", "stranded_gpus", UINT32_MAX, &stranded);
  if (st.ok()) st = Field(root.get(), file, "", "nodes", json_type_array, &nodes);
  if (!st.ok()) return st;
  state.time = time;
  state.fragmentation = json_object_get_double(fragmentation);
  if (!(state.fragmentation >= 0.0 && state.fragmentation <= 1.0)) {
    return Status::Corruption(Where(file, "fragmentation") + ": outside [0, 1]");
  }
  state.free_gpus = uint32_t(free_gpus);
  state.stranded_gpus = uint32_t(stranded);
  if (state.stranded_gpus > state.free_gpus) return Status::Corruption(Where(file, "stranded_gpus") + ": exceeds free_gpus");
  for (size_t i = 0; i < json_object_array_length(nodes); ++i) {
    PublishedNode node;
    st = ParseNode(json_object_array_get_idx(nodes, i), file, "nodes[" + std::to_string(i) + "]", &node);
    if (!st.ok()) return st;
    state.nodes.push_back(node);
  }
  if (json_object_object_get_ex(root.get(), "hero", &hero)) {
    st = ParseHero(hero, file, &state);
    if (!st.ok()) return st;
  }
  // quick_reserve came later (doc/formats.md): absent reads as none.
  json_object* reserve = nullptr;
  if (json_object_object_get_ex(root.get(), "quick_reserve", &reserve)) {
    if (!json_object_is_type(reserve, json_type_array))
      return Status::Corruption(Where(file, "quick_reserve") + ": expected array");
    for (size_t i = 0; i < json_object_array_length(reserve); ++i) {
      json_object* name = json_object_array_get_idx(reserve, i);
      if (!json_object_is_type(name, json_type_string))
        return Status::Corruption(Where(file, "quick_reserve[" + std::to_string(i) + "]") + ": expected string");
      state.reserve_nodes.push_back(json_object_get_string(name));
    }
  }
  *out = std::move(state);
  return Status::Ok();
}

Status SavePackingState(const std::string& path, const PackingState& state) {
  std::string tmp = path + ".tmp";
  std::string text = FormatPackingState(state);
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return Status::IOError(tmp + ": cannot create: " + ErrnoText(errno));
  bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int write_errno = errno;
  if (std::fclose(f) != 0 && written) {
    written = false;
    write_errno = errno;
  }
  if (!written) {
    std::remove(tmp.c_str());
    return Status::IOError(tmp + ": write failed: " + ErrnoText(write_errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int rename_errno = errno;
    std::remove(tmp.c_str());
    return Status::IOError(path + ": rename from " + tmp + " failed: " + ErrnoText(rename_errno));
  }
  return Status::Ok();
}

Status LoadPackingState(const std::string& path, PackingState* out) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IOError(path + ": cannot open: " + ErrnoText(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParsePackingState(text.str(), path, out);
}

}  // namespace budget
