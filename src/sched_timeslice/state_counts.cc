// Timeslice counts: see state_counts.h.
#include "sched_timeslice/state_counts.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <json-c/json.h>

namespace timeslice {

namespace {

budget::Status IoError(const std::string& file, const char* step) {
  return budget::Status::IOError(file + ": " + step + ": " + std::strerror(errno));
}

uint64_t CountAt(json_object* root, const char* key) {
  json_object* value = nullptr;
  if (!json_object_object_get_ex(root, key, &value) || !json_object_is_type(value, json_type_int)) return 0;
  int64_t n = json_object_get_int64(value);
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

}  // namespace

budget::Status ReadCounts(const std::string& file, TimesliceCounts* out) {
  std::ifstream in(file);
  *out = TimesliceCounts{};
  if (!in) return budget::Status::Ok();
  std::stringstream text;
  text << in.rdbuf();
  json_object* root = json_tokener_parse(text.str().c_str());
  if (!root) return budget::Status::Corruption(file + ": not a JSON document");
  out->preemptions = CountAt(root, "preemptions");
  out->automated_drains = CountAt(root, "automated_drains");
  json_object_put(root);
  return budget::Status::Ok();
}

budget::Status AddToCounts(const std::string& file, uint64_t preemptions, uint64_t automated_drains,
                           budget::TimePoint now, TimesliceCounts* after) {
  std::string lock_path = file + ".lock";
  int lock_fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return IoError(lock_path, "open");
  if (flock(lock_fd, LOCK_EX) != 0) {
    budget::Status st = IoError(lock_path, "flock");
    close(lock_fd);
    return st;
  }
  TimesliceCounts counts;
  (void)ReadCounts(file, &counts);  // unreadable: count from 0 rather than stop counting
  counts.preemptions += preemptions;
  counts.automated_drains += automated_drains;
  char text[160];
  std::snprintf(text, sizeof(text), "{ \"preemptions\": %llu, \"automated_drains\": %llu, \"updated_at\": %lld }\n",
                static_cast<unsigned long long>(counts.preemptions),
                static_cast<unsigned long long>(counts.automated_drains), static_cast<long long>(now));
  std::string tmp = file + ".tmp";
  budget::Status st = budget::Status::Ok();
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    st = IoError(tmp, "open");
  } else {
    bool written = std::fputs(text, f) >= 0;
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

}  // namespace timeslice
