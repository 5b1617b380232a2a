// BudgetConfigWatch: budget.conf kept current for a plugin that has no
// reconfigure hook (job_submit/contract: Slurm 22.05 calls a job_submit
// plugin's init() only at start). The file is stat()ed at each call of
// Refresh() (a submission) and read again only when its stamp (mtime, size,
// inode) changed, so an edit followed by `scontrol reconfigure` (or by
// nothing) takes effect at the next submission, as it does in the plugins
// that re-read it on reconfigure.
//
// A changed file that does not parse is refused: the caller keeps the
// settings it has, and the same version is not read (nor reported) again
// until the file changes once more. A file that disappears means the
// defaults, as at start (LoadBudgetConfig).
//
// Thread safety: none; the caller serialises calls.
#ifndef SLURM_BUDGET_LIBBUDGET_CONFIG_WATCH_H_
#define SLURM_BUDGET_LIBBUDGET_CONFIG_WATCH_H_

#include <cstdint>
#include <string>

#include "libbudget/config/config.h"
#include "libbudget/status.h"

namespace budget {

// What identifies one version of a file without reading it.
struct FileVersion {
  bool exists = false;
  int64_t mtime_ns = 0;
  int64_t size = 0;
  uint64_t inode = 0;
};
inline bool operator==(const FileVersion& a, const FileVersion& b) {
  return a.exists == b.exists && a.mtime_ns == b.mtime_ns && a.size == b.size && a.inode == b.inode;
}
FileVersion VersionOfFile(const std::string& path);

class BudgetConfigWatch {
 public:
  explicit BudgetConfigWatch(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // Reads the file now (at init), as LoadBudgetConfig, and remembers the
  // version read, even when it is refused.
  Status Load(BudgetConfig* out, bool* missing);

  enum class Change { kNone, kReloaded, kRefused };
  // kNone: the file is the version last seen; nothing is touched.
  // kReloaded: it changed and parsed: *out and *missing are replaced.
  // kRefused: it changed and does not parse: *why says where, *out is
  // untouched.
  Change Refresh(BudgetConfig* out, bool* missing, Status* why);

 private:
  const std::string path_;
  FileVersion seen_;
};

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CONFIG_WATCH_H_
