// State files: see state_files.h.
#include "priority_budget/state_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "libbudget/report/report_snapshot.h"

namespace budget_prio {

namespace {

budget::Status Failed(const std::string& path, const char* step) {
  return budget::Status::IOError(path + ": " + step + ": " + std::strerror(errno));
}

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::string StateFile(const std::string& dir, const char* name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

budget::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Failed(tmp, "open");
  if (!WriteAll(fd, text)) {
    budget::Status st = Failed(tmp, "write");
    close(fd);
    unlink(tmp.c_str());
    return st;
  }
  if (fsync(fd) != 0) {
    budget::Status st = Failed(tmp, "fsync");
    close(fd);
    unlink(tmp.c_str());
    return st;
  }
  if (close(fd) != 0) {
    unlink(tmp.c_str());
    return Failed(tmp, "close");
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    budget::Status st = Failed(path, "rename");
    unlink(tmp.c_str());
    return st;
  }
  std::string dir = DirectoryOf(path);
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return Failed(dir, "open directory");
  int rc = fsync(dir_fd);
  close(dir_fd);
  if (rc != 0) return Failed(dir, "fsync directory");
  return budget::Status::Ok();
}

budget::Status ReadWholeFile(const std::string& path, std::string* text) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return budget::Status::NotFound(path + ": no such file");
    return Failed(path, "open");
  }
  std::string out;
  char buffer[65536];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      budget::Status st = Failed(path, "read");
      close(fd);
      return st;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  *text = std::move(out);
  return budget::Status::Ok();
}

std::vector<std::string> RemoveStaleTempFiles(const std::string& dir) {
  std::vector<std::string> removed;
  for (const char* name : {kLastGoodTreeFileName, kGpuWeightsFileName, budget::kReportSnapshotFileName,
                           budget::kStandingsSnapshotFileName}) {
    std::string tmp = StateFile(dir, name) + ".tmp";
    if (unlink(tmp.c_str()) == 0) removed.push_back(tmp);
  }
  return removed;
}


}  // namespace budget_prio
