#include "libbudget/config/config_watch.h"

#include <sys/stat.h>

namespace budget {

FileVersion VersionOfFile(const std::string& path) {
  FileVersion v;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return v;
  v.exists = true;
  v.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  v.size = static_cast<int64_t>(st.st_size);
  v.inode = static_cast<uint64_t>(st.st_ino);
  return v;
}

Status BudgetConfigWatch::Load(BudgetConfig* out, bool* missing) {
  seen_ = VersionOfFile(path_);
  return LoadBudgetConfig(path_, out, missing);
}

BudgetConfigWatch::Change BudgetConfigWatch::Refresh(BudgetConfig* out, bool* missing, Status* why) {
  FileVersion now = VersionOfFile(path_);
  if (now == seen_) return Change::kNone;
  seen_ = now;
  BudgetConfig config;
  bool gone = false;
  Status st = LoadBudgetConfig(path_, &config, &gone);
  if (!st.ok()) {
    *why = st;
    return Change::kRefused;
  }
  *out = std::move(config);
  *missing = gone;
  return Change::kReloaded;
}

}  // namespace budget
