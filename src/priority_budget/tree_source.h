// TreeSource: where the allocation tree comes from (budget.conf BudgetTree)
// and how its text is fetched: a plain path or file:// URL is read from
// disk; an http:// or https:// URL is fetched with libcurl (loaded at the
// first URL fetch, see curl_library.h), with a connect timeout and a total
// timeout, following redirects.
//
// Fetching blocks (up to the total timeout for a URL): call it only from the
// plugin's own thread, never under slurmctld's locks or on the scheduling
// path.
//
// Thread safety: a TreeSource is an immutable value; Fetch() and
// ModificationTime() may run in any thread. libcurl is loaded, and its
// global init done, once, thread-safely, on first use.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_

#include <cstdint>
#include <string>

#include "libbudget/status.h"

namespace budget_prio {

class TreeSource {
 public:
  static constexpr long kConnectTimeoutSeconds = 5;
  static constexpr long kTotalTimeoutSeconds = 20;
  // A tree document larger than this is refused (the core's node limit fits
  // well inside it).
  static constexpr size_t kMaxDocumentBytes = 64u << 20;

  // Parses a BudgetTree value. InvalidArgument for an empty value or a URL
  // scheme other than file, http and https.
  static budget::Status FromSpec(const std::string& spec, TreeSource* out);

  bool is_file() const { return !file_path_.empty(); }
  // The file path (files) or the URL, for messages.
  const std::string& description() const { return is_file() ? file_path_ : url_; }

  // The document's text. IOError naming the source and the reason (the
  // file's errno text, curl's error, an HTTP status >= 400, too large).
  budget::Status Fetch(std::string* text) const;

  // Files: the file's mtime in nanoseconds, or -1 if it cannot be stat'ed.
  // URLs: always 0 (they are re-fetched every BudgetRefresh instead).
  int64_t ModificationTime() const;

 private:
  budget::Status FetchFile(std::string* text) const;
  budget::Status FetchUrl(std::string* text) const;

  std::string file_path_;  // set for paths and file:// URLs
  std::string url_;        // set for http(s):// URLs
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_
