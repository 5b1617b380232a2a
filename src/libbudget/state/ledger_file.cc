// Saving and loading a ledger file (ledger_file.h): the atomic write and
// the read; the bytes are ledger_file_format.cc's.
#include "libbudget/state/ledger_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace budget {

namespace {

std::string Quoted(const std::string& file) { return "ledger file '" + file + "'"; }

std::string ErrnoText(int err) { return std::strerror(err); }

Status WriteAll(int fd, const char* data, size_t size, const std::string& file) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(Quoted(file) + ": write failed: " + ErrnoText(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string DirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return file.substr(0, slash);
}

// Writes and fsyncs `tmp`; the caller renames it.
Status WriteTempFile(const std::string& tmp, const Ledger& ledger) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IOError(Quoted(tmp) + ": cannot create: " + ErrnoText(errno));
  }
  Status s = StreamLedger(ledger, [fd, &tmp](const char* data, size_t size) {
    return WriteAll(fd, data, size, tmp);
  });
  if (s.ok() && ::fsync(fd) != 0) {
    s = Status::IOError(Quoted(tmp) + ": fsync failed: " + ErrnoText(errno));
  }
  if (::close(fd) != 0 && s.ok()) {
    s = Status::IOError(Quoted(tmp) + ": close failed: " + ErrnoText(errno));
  }
  return s;
}

Status SyncDirectory(const std::string& dir, const std::string& file) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError(Quoted(file) + ": cannot open directory '" + dir +
                           "' to fsync it: " + ErrnoText(errno));
  }
  Status s;
  if (::fsync(fd) != 0) {
    s = Status::IOError(Quoted(file) + ": fsync of directory '" + dir +
                        "' failed: " + ErrnoText(errno));
  }
  ::close(fd);
  return s;
}

Status ReadWholeFile(const std::string& file, std::string* bytes) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(Quoted(file) + ": no such file");
    return Status::IOError(Quoted(file) + ": cannot open: " + ErrnoText(errno));
  }
  // Read straight into the string, growing it when the file is longer than
  // fstat said (or is not a regular file).
  struct stat st;
  size_t capacity = 1 << 16;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) capacity = st.st_size + 1;
  bytes->resize(capacity);
  size_t length = 0;
  Status s;
  for (;;) {
    if (length == bytes->size()) bytes->resize(bytes->size() * 2);
    ssize_t n = ::read(fd, &(*bytes)[length], bytes->size() - length);
    if (n < 0) {
      if (errno == EINTR) continue;
      s = Status::IOError(Quoted(file) + ": read failed: " + ErrnoText(errno));
      break;
    }
    if (n == 0) break;
    length += static_cast<size_t>(n);
  }
  bytes->resize(length);
  ::close(fd);
  return s;
}

}  // namespace

Status WriteLedgerFile(const Ledger& ledger, const std::string& path) { return WriteTempFile(path, ledger); }

Status SaveLedger(const Ledger& ledger, const std::string& file) {
  const std::string tmp = file + ".tmp";
  Status s = WriteTempFile(tmp, ledger);
  if (s.ok() && ::rename(tmp.c_str(), file.c_str()) != 0) {
    s = Status::IOError(Quoted(file) + ": cannot rename '" + tmp + "' over it: " +
                        ErrnoText(errno));
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  // The rename is only durable once the directory entry is on disk.
  return SyncDirectory(DirectoryOf(file), file);
}

Status LoadLedger(const std::string& file, Ledger* out) {
  std::string bytes;
  Status s = ReadWholeFile(file, &bytes);
  if (!s.ok()) return s;
  return DecodeLedger(bytes, file, out);
}

}  // namespace budget
