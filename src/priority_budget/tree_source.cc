// TreeSource: see tree_source.h.
#include "priority_budget/tree_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "priority_budget/curl_library.h"

namespace budget_prio {

namespace {

std::atomic<TreeSource::AssociationReader> g_association_reader{nullptr};

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

struct Download {
  std::string* body;
  bool too_large = false;
};

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  auto* download = static_cast<Download*>(user);
  size_t bytes = size * count;
  if (download->body->size() + bytes > TreeSource::kMaxDocumentBytes) {
    download->too_large = true;
    return 0;  // makes curl fail with CURLE_WRITE_ERROR
  }
  download->body->append(data, bytes);
  return bytes;
}

// curl's progress callback (at least once a second, even while nothing
// arrives): a non-zero return aborts the transfer.
int AbortIfCancelled(void* cancel, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(cancel)->load() ? 1 : 0;
}

}  // namespace

budget::Status TreeSource::FromSpec(const std::string& spec, TreeSource* out) {
  TreeSource source;
  if (spec.empty()) return budget::Status::InvalidArgument("BudgetTree is empty");
  if (spec == kSlurmdbd) {
    source.slurmdbd_ = true;
    source.url_ = kSlurmdbd;
  } else if (StartsWith(spec, "file://")) {
    source.file_path_ = spec.substr(std::strlen("file://"));
    if (source.file_path_.empty() || source.file_path_[0] != '/') {
      return budget::Status::InvalidArgument("BudgetTree=" + spec + ": a file:// URL needs an absolute path");
    }
  } else if (StartsWith(spec, "http://") || StartsWith(spec, "https://")) {
    source.url_ = spec;
  } else if (spec.find("://") != std::string::npos) {
    return budget::Status::InvalidArgument("BudgetTree=" + spec +
                                           ": unsupported URL scheme (use a path, file://, http:// or https://)");
  } else {
    source.file_path_ = spec;
  }
  *out = std::move(source);
  return budget::Status::Ok();
}

void TreeSource::SetAssociationReader(AssociationReader reader) { g_association_reader.store(reader); }

budget::Status TreeSource::Fetch(std::string* text, const std::atomic<bool>* cancel) const {
  if (slurmdbd_) {
    AssociationReader reader = g_association_reader.load();
    if (!reader) return budget::Status::IOError("slurmdbd: no association reader (not inside slurmctld)");
    return reader(text);
  }
  return is_file() ? FetchFile(text) : FetchUrl(text, cancel);
}

int64_t TreeSource::ModificationTime() const {
  if (!is_file()) return 0;
  struct stat st;
  if (stat(file_path_.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

budget::Status TreeSource::FetchFile(std::string* text) const {
  std::ifstream in(file_path_, std::ios::binary);
  if (!in) return budget::Status::IOError(file_path_ + ": cannot open: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return budget::Status::IOError(file_path_ + ": read error");
  std::string body = buffer.str();
  if (body.size() > kMaxDocumentBytes) {
    return budget::Status::IOError(file_path_ + ": larger than " + std::to_string(kMaxDocumentBytes) + " bytes");
  }
  *text = std::move(body);
  return budget::Status::Ok();
}

budget::Status TreeSource::FetchUrl(std::string* text, const std::atomic<bool>* cancel) const {
  std::string load_error;
  const CurlLibrary* lib = CurlLibrary::Get(&load_error);
  if (!lib) return budget::Status::IOError(url_ + ": " + load_error);
  CURL* curl = lib->easy_init();
  if (!curl) return budget::Status::IOError(url_ + ": curl_easy_init failed");
  std::string body;
  Download download{&body};
  char error[CURL_ERROR_SIZE] = {0};
  lib->easy_setopt(curl, CURLOPT_URL, url_.c_str());
  lib->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, connect_timeout_);
  lib->easy_setopt(curl, CURLOPT_TIMEOUT, total_timeout_);
  static const std::atomic<bool> kNever{false};
  lib->easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  lib->easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, AbortIfCancelled);
  lib->easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(cancel ? cancel : &kNever));
  lib->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // we are a thread of slurmctld
  lib->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  lib->easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  lib->easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  lib->easy_setopt(curl, CURLOPT_WRITEDATA, &download);
  lib->easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = lib->easy_perform(curl);
  long http_status = 0;
  lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  lib->easy_cleanup(curl);
  if (download.too_large) {
    return budget::Status::IOError(url_ + ": larger than " + std::to_string(kMaxDocumentBytes) + " bytes");
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return budget::Status::IOError(url_ + ": timed out (TreeConnectTimeout=" + std::to_string(connect_timeout_) +
                                   " s, TreeFetchTimeout=" + std::to_string(total_timeout_) +
                                   " s): " + (error[0] ? error : lib->easy_strerror(rc)));
  }
  if (rc == CURLE_ABORTED_BY_CALLBACK) {
    return budget::Status::IOError(url_ + ": fetch cancelled (slurmctld shutting down, or BudgetTree changed)");
  }
  if (rc != CURLE_OK) {
    return budget::Status::IOError(url_ + ": " + (error[0] ? error : lib->easy_strerror(rc)));
  }
  if (http_status >= 400) {
    return budget::Status::IOError(url_ + ": HTTP status " + std::to_string(http_status));
  }
  *text = std::move(body);
  return budget::Status::Ok();
}

}  // namespace budget_prio
