// Ledger generations: see ledger_generations.h.
#include "libbudget/state/ledger_generations.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "libbudget/state/ledger_file.h"

namespace budget {

namespace {

std::string Quoted(const std::string& file) { return "ledger file '" + file + "'"; }

Status Failed(const std::string& file, const std::string& step) {
  return Status::IOError(Quoted(file) + ": " + step + ": " + std::strerror(errno));
}

std::string DirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return file.substr(0, slash);
}

Status SyncDirectory(const std::string& file) {
  const std::string dir = DirectoryOf(file);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed(file, "cannot open directory '" + dir + "' to fsync it");
  Status s;
  if (::fsync(fd) != 0) s = Failed(file, "fsync of directory '" + dir + "' failed");
  ::close(fd);
  return s;
}

// The current newest becomes file.1 (step 2 in the header). Ok when there
// is no newest (a first save, or one set aside at load).
Status RotateNewestToPrevious(const std::string& file) {
  const std::string prev = PreviousGenerationFile(file);
  const std::string prev_tmp = prev + ".tmp";
  ::unlink(prev_tmp.c_str());
  if (::link(file.c_str(), prev_tmp.c_str()) == 0) {
    if (::rename(prev_tmp.c_str(), prev.c_str()) != 0) {
      Status s = Failed(prev, "cannot rename '" + prev_tmp + "' over it");
      ::unlink(prev_tmp.c_str());
      return s;
    }
    // rename() of two links to one inode (file.1 already is the newest,
    // after a save that failed in step 3) succeeds and leaves prev_tmp.
    ::unlink(prev_tmp.c_str());
    return Status::Ok();
  }
  if (errno == ENOENT) return Status::Ok();
  // No hard links here: move the newest instead (the load falls back to
  // file.1 if a crash comes before step 3).
  if (::rename(file.c_str(), prev.c_str()) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Failed(prev, "cannot rename '" + file + "' to it");
  }
  return Status::Ok();
}

// The file's mtime in seconds, or 0 if it cannot be stat'ed.
TimePoint SavedAt(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return 0;
  return static_cast<TimePoint>(st.st_mtim.tv_sec);
}

bool Exists(const std::string& file) {
  struct stat st;
  return ::lstat(file.c_str(), &st) == 0;
}

void RemoveStaleTemp(const std::string& tmp, LedgerLoadReport* report) {
  if (::unlink(tmp.c_str()) == 0) report->removed_tmp.push_back(tmp);
}

// Renames a damaged generation out of the way, to a name no later save or
// load uses; adds "<from> -> <to>" (or why it could not) to the report.
void SetAside(const std::string& file, TimePoint now, LedgerLoadReport* report) {
  std::string target = file + ".corrupt." + std::to_string(now);
  for (int n = 2; Exists(target) && n < 100; ++n) {
    target = file + ".corrupt." + std::to_string(now) + "." + std::to_string(n);
  }
  if (::rename(file.c_str(), target.c_str()) == 0) {
    report->set_aside.push_back(file + " -> " + target);
  } else {
    report->set_aside.push_back(file + " (could not be set aside: " + std::strerror(errno) + ")");
  }
}

}  // namespace

std::string PreviousGenerationFile(const std::string& file) { return file + ".1"; }

Status SaveLedgerGeneration(const Ledger& ledger, const std::string& file) {
  const std::string tmp = file + ".tmp";
  Status s = WriteLedgerFile(ledger, tmp);
  if (s.ok()) s = RotateNewestToPrevious(file);
  if (s.ok() && ::rename(tmp.c_str(), file.c_str()) != 0) {
    s = Failed(file, "cannot rename '" + tmp + "' over it");
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return SyncDirectory(file);
}

Status LoadNewestGoodLedger(const std::string& file, TimePoint now, Ledger* out, LedgerLoadReport* report) {
  *report = LedgerLoadReport();
  const std::string prev = PreviousGenerationFile(file);
  RemoveStaleTemp(file + ".tmp", report);
  RemoveStaleTemp(prev + ".tmp", report);

  Status newest = LoadLedger(file, out);
  if (newest.ok()) {
    report->outcome = LedgerLoadReport::Outcome::kNewest;
    report->loaded_file = file;
    report->loaded_saved_at = SavedAt(file);
    return Status::Ok();
  }
  if (!newest.IsNotFound() && !newest.IsCorruption()) return newest;
  // The damaged newest's save time, read before it is set aside.
  const TimePoint newest_saved_at = newest.IsNotFound() ? now : SavedAt(file);

  Ledger previous_ledger(out->options());
  Status previous = LoadLedger(prev, &previous_ledger);
  if (!previous.ok() && !previous.IsNotFound() && !previous.IsCorruption()) return previous;

  if (newest.IsCorruption()) {
    report->problems.push_back(newest.message());
    SetAside(file, now, report);
  }
  if (previous.ok()) {
    *out = std::move(previous_ledger);
    report->outcome = LedgerLoadReport::Outcome::kPrevious;
    report->loaded_file = prev;
    report->loaded_saved_at = SavedAt(prev);
    report->time_lost = std::max<Seconds>(0, newest_saved_at - report->loaded_saved_at);
    return Status::Ok();
  }
  if (previous.IsCorruption()) {
    report->problems.push_back(previous.message());
    SetAside(prev, now, report);
  }
  report->outcome = newest.IsNotFound() && previous.IsNotFound() ? LedgerLoadReport::Outcome::kNoFile
                                                                 : LedgerLoadReport::Outcome::kNothingGood;
  return Status::Ok();
}

}  // namespace budget
