// Writing the report snapshot's files (report_file.h).
#include "libbudget/report/report_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "libbudget/report/history_cache.h"
#include "libbudget/report/json_writer.h"
#include "libbudget/report/report_format.h"

namespace budget {

namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Writes `pieces` in order, a batch of them per writev.
Status WritePieces(int fd, const std::vector<TextPiece>& pieces, const std::string& tmp) {
  constexpr size_t kBatch = 512;  // at most IOV_MAX (1024 on Linux)
  iovec batch[kBatch];
  size_t next = 0;    // the first piece not wholly written
  size_t written = 0;  // of which this many bytes were
  for (;;) {
    // Empty pieces are skipped: a batch of them alone would write 0 bytes.
    while (next < pieces.size() && pieces[next].size == 0) ++next;
    if (next == pieces.size()) break;
    size_t count = 0;
    for (size_t i = next; i < pieces.size() && count < kBatch; ++i) {
      batch[count++] = iovec{const_cast<char*>(pieces[i].data), pieces[i].size};
    }
    batch[0].iov_base = static_cast<char*>(batch[0].iov_base) + written;
    batch[0].iov_len -= written;
    ssize_t n = ::writev(fd, batch, static_cast<int>(count));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError(tmp + ": write failed: " + ErrnoText(errno));
    size_t left = static_cast<size_t>(n);
    while (left > 0) {
      const size_t rest = pieces[next].size - written;
      if (left < rest) {
        written += left;
        break;
      }
      left -= rest;
      ++next;
      written = 0;
    }
  }
  return Status::Ok();
}

Status WriteAllAndSync(const std::string& tmp, const std::vector<TextPiece>& pieces, bool sync) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(tmp + ": cannot create: " + ErrnoText(errno));
  Status s;
  // The umask may have narrowed the mode; users must be able to read it.
  if (::fchmod(fd, 0644) != 0) s = Status::IOError(tmp + ": chmod 0644 failed: " + ErrnoText(errno));
  if (s.ok()) s = WritePieces(fd, pieces, tmp);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Status::IOError(tmp + ": fsync failed: " + ErrnoText(errno));
  if (::close(fd) != 0 && s.ok()) s = Status::IOError(tmp + ": close failed: " + ErrnoText(errno));
  return s;
}

Status SyncDirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : file.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(dir + ": cannot open directory to fsync: " + ErrnoText(errno));
  Status s;
  if (::fsync(fd) != 0) s = Status::IOError(dir + ": fsync of directory failed: " + ErrnoText(errno));
  ::close(fd);
  return s;
}

// `pieces`, one after the other, to `file` atomically (tmp, fsync, rename,
// directory fsync). `sync` false: replaced atomically, but not forced to
// disk (see ReportFileWriter).
Status ReplaceFileWith(const std::string& file, const std::vector<TextPiece>& pieces, bool sync) {
  std::string tmp = file + ".tmp";
  Status s = WriteAllAndSync(tmp, pieces, sync);
  if (s.ok() && ::rename(tmp.c_str(), file.c_str()) != 0) {
    s = Status::IOError(file + ": rename from " + tmp + " failed: " + ErrnoText(errno));
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync ? SyncDirectoryOf(file) : Status::Ok();
}

Status ReplaceFileWith(const std::string& file, const std::string& text) {
  return ReplaceFileWith(file, {TextPiece{text.data(), text.size()}}, /*sync=*/true);
}

}  // namespace

Status WriteTextFileAtomically(const std::string& file, const std::string& text) {
  return ReplaceFileWith(file, text);
}

Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file) {
  std::string text;
  return WriteReportSnapshot(snapshot, file, &text);
}

Status WriteReportSnapshot(const ReportSnapshot& snapshot, const std::string& file,
                           std::string* scratch) {
  FormatReportSnapshotInto(snapshot, scratch);
  return ReplaceFileWith(file, *scratch);
}

Status WriteStandingsSnapshot(const ReportSnapshot& report, const std::string& file,
                              std::string* scratch) {
  FormatStandingsSnapshotInto(report, scratch);
  return ReplaceFileWith(file, *scratch);
}

void ReportFileWriter::AppendValue(double value, std::string* out) {
  value_text_.clear();
  JsonWriter(&value_text_).Double(MilliRounded(value));
  *out += value_text_;
  ++history_values_formatted_;
}

void ReportFileWriter::FormatClosedHistory(const SubtreeHistoryCache& cache, int max_depth) {
  closed_text_.clear();
  closed_ends_.clear();
  closed_nodes_.clear();
  const size_t slots = cache.slots();
  // As WriteHistory writes a SnapshotHistory, up to each last value.
  for (size_t id = 0; id < cache.node_count(); ++id) {
    if (cache.depth(id) > max_depth) continue;
    closed_nodes_.push_back(id);
    closed_text_ += "{\"path\":";
    value_text_.clear();
    JsonWriter(&value_text_).String(slots > 0 ? cache.path(id) : std::string());
    closed_text_ += value_text_;
    closed_text_ += ",\"start\":" + std::to_string(slots > 0 ? cache.start() : 0);
    closed_text_ += ",\"width\":" + std::to_string(slots > 0 ? cache.width() : 0);
    closed_text_ += ",\"delivered\":[";
    for (size_t k = 0; k + 1 < slots; ++k) {
      AppendValue(cache.delivered(id, k), &closed_text_);
      closed_text_.push_back(',');
    }
    closed_ends_.push_back(static_cast<uint32_t>(closed_text_.size()));
    closed_text_ += "],\"owed\":[";
    for (size_t k = 0; k + 1 < slots; ++k) {
      AppendValue(cache.owed(id, k), &closed_text_);
      closed_text_.push_back(',');
    }
    closed_ends_.push_back(static_cast<uint32_t>(closed_text_.size()));
  }
  closed_generation_ = cache.closed_generation();
  closed_depth_ = max_depth;
}

void ReportFileWriter::AddPiece(const char* data, size_t size) {
  if (size > 0) pieces_.push_back(TextPiece{data, size});
}

void ReportFileWriter::AddHistoryPieces(const SubtreeHistoryCache& cache) {
  const size_t slots = cache.slots();
  // First every last value, so that last_text_ no longer moves.
  last_text_.clear();
  last_ends_.clear();
  for (size_t id : closed_nodes_) {
    if (slots == 0) break;
    AppendValue(cache.delivered(id, slots - 1), &last_text_);
    last_ends_.push_back(static_cast<uint32_t>(last_text_.size()));
    AppendValue(cache.owed(id, slots - 1), &last_text_);
    last_ends_.push_back(static_cast<uint32_t>(last_text_.size()));
  }
  AddPiece("[", 1);
  uint32_t begin = 0, last_begin = 0;
  for (size_t e = 0; e < closed_nodes_.size(); ++e) {
    if (e > 0) AddPiece(",", 1);
    const uint32_t delivered_end = closed_ends_[2 * e], owed_end = closed_ends_[2 * e + 1];
    AddPiece(closed_text_.data() + begin, delivered_end - begin);
    if (slots > 0) {
      AddPiece(last_text_.data() + last_begin, last_ends_[2 * e] - last_begin);
      last_begin = last_ends_[2 * e];
    }
    AddPiece(closed_text_.data() + delivered_end, owed_end - delivered_end);
    if (slots > 0) {
      AddPiece(last_text_.data() + last_begin, last_ends_[2 * e + 1] - last_begin);
      last_begin = last_ends_[2 * e + 1];
    }
    AddPiece("]}", 2);
    begin = owed_end;
  }
  AddPiece("]", 1);
}

void ReportFileWriter::FormatTreeFields(const std::vector<SnapshotNode>& nodes) {
  tree_text_.clear();
  tree_ends_.clear();
  tree_nodes_.clear();
  for (const SnapshotNode& n : nodes) {
    JsonWriter w(&tree_text_);
    w.BeginObject();
    WriteNodeTreeFields(w, n);
    tree_ends_.push_back(static_cast<uint32_t>(tree_text_.size()));
    tree_nodes_.push_back(n);  // only its tree fields are compared
  }
  ++tree_formats_;
}

void ReportFileWriter::FormatNodes(const std::vector<SnapshotNode>& nodes) {
  bool same_tree = nodes.size() == tree_nodes_.size();
  for (size_t i = 0; same_tree && i < nodes.size(); ++i) same_tree = SameTreeFields(nodes[i], tree_nodes_[i]);
  if (!same_tree) FormatTreeFields(nodes);
  nodes_text_.assign(1, '[');
  uint32_t begin = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) nodes_text_.push_back(',');
    nodes_text_.append(tree_text_, begin, tree_ends_[i] - begin);
    begin = tree_ends_[i];
    // The pass's fields as an object of their own, whose '{' becomes the
    // ',' after the tree's fields.
    value_text_.clear();
    JsonWriter w(&value_text_);
    w.BeginObject();
    WriteNodePassFields(w, nodes[i]);
    w.EndObject();
    nodes_text_.push_back(',');
    nodes_text_.append(value_text_, 1, std::string::npos);
  }
  nodes_text_.push_back(']');
}

Status ReportFileWriter::Write(const ReportSnapshot& report, const std::string& report_file,
                               const std::string& standings_file, const SubtreeHistoryCache* history,
                               int history_max_depth, const std::string& report_copy) {
  FormatNodes(report.nodes);

  history_values_formatted_ = 0;
  if (history == nullptr) {
    history_text_.clear();
    JsonWriter hw(&history_text_);
    hw.BeginArray();
    for (const SnapshotHistory& h : report.history) {
      WriteHistory(hw, h);
      history_values_formatted_ += h.delivered.size() + h.owed.size();
    }
    hw.EndArray();
  } else if (closed_generation_ == 0 || closed_generation_ != history->closed_generation() ||
             closed_depth_ != history_max_depth) {
    FormatClosedHistory(*history, history_max_depth);
  }

  // The file is written from the pieces where they lie (writev): the text
  // around the nodes and the history, the nodes' text, and the history's
  // closed text with each series' last value. Copied into one buffer, those
  // megabytes were touched twice more per pass.
  text_.clear();
  JsonWriter w(&text_);
  WriteReportHead(w, report);
  w.Key("nodes").Raw("[]");
  const size_t nodes_at = text_.size() - 2;
  WriteReportJobs(w, report, /*rows=*/true);
  w.Key("history").Raw("[]");
  const size_t history_at = text_.size() - 2;
  w.EndObject();
  text_.push_back('\n');
  // Raw("[]") left a place for each: the text resumes 2 bytes after it.
  pieces_.clear();
  AddPiece(text_.data(), nodes_at);
  AddPiece(nodes_text_.data(), nodes_text_.size());
  AddPiece(text_.data() + nodes_at + 2, history_at - (nodes_at + 2));
  if (history == nullptr) {
    AddPiece(history_text_.data(), history_text_.size());
  } else {
    AddHistoryPieces(*history);
  }
  AddPiece(text_.data() + history_at + 2, text_.size() - (history_at + 2));
  Status s = ReplaceFileWith(report_file, pieces_, /*sync=*/false);
  if (!report_copy.empty()) {
    Status copied = ReplaceFileWith(report_copy, pieces_, /*sync=*/false);
    if (s.ok()) s = copied;
  }
  if (standings_file.empty()) return s;

  text_.clear();
  JsonWriter sw(&text_);
  WriteReportHead(sw, report);
  sw.Key("nodes").Raw("[]");
  const size_t standings_nodes_at = text_.size() - 2;
  WriteReportJobs(sw, report, /*rows=*/false);
  sw.Key("history").BeginArray().EndArray();
  sw.EndObject();
  text_.push_back('\n');
  pieces_.clear();
  AddPiece(text_.data(), standings_nodes_at);
  AddPiece(nodes_text_.data(), nodes_text_.size());
  AddPiece(text_.data() + standings_nodes_at + 2, text_.size() - (standings_nodes_at + 2));
  Status standings = ReplaceFileWith(standings_file, pieces_, /*sync=*/false);
  return s.ok() ? standings : s;
}

}  // namespace budget
