// Timeslice counts: see timeslice_counts.h.
#include "libbudget/policy/timeslice_counts.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <json-c/json.h>

namespace budget {

namespace {

Status IoError(const std::string& file, const char* step) {
  return Status::IOError(file + ": " + step + ": " + std::strerror(errno));
}

uint64_t CountAt(json_object* object, const char* key) {
  json_object* value = nullptr;
  if (!json_object_object_get_ex(object, key, &value) || !json_object_is_type(value, json_type_int)) return 0;
  int64_t n = json_object_get_int64(value);
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

std::string CountsText(const TimesliceCounts& counts) {
  json_object* root = json_object_new_object();
  json_object_object_add(root, "preemptions", json_object_new_int64(int64_t(counts.preemptions)));
  json_object_object_add(root, "automated_drains", json_object_new_int64(int64_t(counts.automated_drains)));
  json_object* by_rule = json_object_new_object();
  for (const auto& [rule, n] : counts.preemptions_by_rule)
    json_object_object_add(by_rule, rule.c_str(), json_object_new_int64(int64_t(n)));
  json_object_object_add(root, "preemptions_by_rule", by_rule);
  json_object_object_add(root, "updated_at", json_object_new_int64(counts.updated_at));
  std::string text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_SPACED);
  json_object_put(root);
  return text + "\n";
}

}  // namespace

Status ReadCounts(const std::string& file, TimesliceCounts* out) {
  std::ifstream in(file);
  *out = TimesliceCounts{};
  if (!in) return Status::Ok();
  std::stringstream text;
  text << in.rdbuf();
  json_object* root = json_tokener_parse(text.str().c_str());
  if (!root || !json_object_is_type(root, json_type_object)) {
    if (root) json_object_put(root);
    return Status::Corruption(file + ": not a JSON object");
  }
  out->preemptions = CountAt(root, "preemptions");
  out->automated_drains = CountAt(root, "automated_drains");
  out->updated_at = static_cast<TimePoint>(CountAt(root, "updated_at"));
  json_object* by_rule = nullptr;
  if (json_object_object_get_ex(root, "preemptions_by_rule", &by_rule) &&
      json_object_is_type(by_rule, json_type_object)) {
    json_object_object_foreach(by_rule, rule, value) {
      (void)value;
      uint64_t n = CountAt(by_rule, rule);
      if (n > 0) out->preemptions_by_rule[rule] = n;
    }
  }
  json_object_put(root);
  return Status::Ok();
}

Status AddToCounts(const std::string& file, const TimesliceCounts& added, TimePoint now, TimesliceCounts* after) {
  std::string lock_path = file + ".lock";
  int lock_fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return IoError(lock_path, "open");
  if (flock(lock_fd, LOCK_EX) != 0) {
    Status st = IoError(lock_path, "flock");
    close(lock_fd);
    return st;
  }
  TimesliceCounts counts;
  if (!ReadCounts(file, &counts).ok()) counts = TimesliceCounts{};  // corrupt: count from 0 rather than stop counting
  counts.preemptions += added.preemptions;
  counts.automated_drains += added.automated_drains;
  for (const auto& [rule, n] : added.preemptions_by_rule) counts.preemptions_by_rule[rule] += n;
  counts.updated_at = now;
  const std::string text = CountsText(counts);
  std::string tmp = file + ".tmp";
  Status st = Status::Ok();
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    st = IoError(tmp, "open");
  } else {
    bool written = std::fputs(text.c_str(), f) >= 0;
    written = (std::fclose(f) == 0) && written;
    if (!written) {
      st = IoError(tmp, "write");
    } else if (std::rename(tmp.c_str(), file.c_str()) != 0) {
      st = IoError(file, "rename");
    }
  }
  flock(lock_fd, LOCK_UN);
  close(lock_fd);
  if (st.ok() && after) *after = counts;
  return st;
}

}  // namespace budget
