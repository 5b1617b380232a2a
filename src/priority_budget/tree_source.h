// TreeSource: where the allocation tree comes from (budget.conf BudgetTree)
// and how its text is fetched: a plain path or file:// URL is read from
// disk; an http:// or https:// URL is fetched with libcurl (loaded at the
// first URL fetch, see curl_library.h), with a connect timeout and a total
// timeout (budget.conf TreeConnectTimeout, TreeFetchTimeout), following
// redirects; the word `slurmdbd` (kSlurmdbd) reads slurmctld's copy of
// slurmdbd's association tree through the reader the plugin registers
// (SetAssociationReader; association_reader.h), re-read every
// BudgetRefresh like a URL.
//
// Fetching blocks (up to the total timeout for a URL): call it only from the
// tree fetcher's thread (tree_fetcher.h), never under slurmctld's locks, on
// the scheduling path or inside a priority pass.
//
// Thread safety: a TreeSource is an immutable value; Fetch() and
// ModificationTime() may run in any thread. libcurl is loaded, and its
// global init done, once, thread-safely, on first use.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "libbudget/status.h"

namespace budget_prio {

class TreeSource {
 public:
  // Defaults, as budget.conf's (config.h).
  static constexpr long kConnectTimeoutSeconds = 5;
  static constexpr long kTotalTimeoutSeconds = 20;
  // A tree document larger than this is refused (the core's node limit fits
  // well inside it).
  static constexpr size_t kMaxDocumentBytes = 64u << 20;

  // The BudgetTree value that names slurmdbd's association tree.
  static constexpr char kSlurmdbd[] = "slurmdbd";
  using AssociationReader = budget::Status (*)(std::string* text);

  // Parses a BudgetTree value. InvalidArgument for an empty value or a URL
  // scheme other than file, http and https.
  static budget::Status FromSpec(const std::string& spec, TreeSource* out);
  // The function that reads the association tree (set once, at plugin
  // load, before any fetch; without one a slurmdbd source fails to fetch).
  static void SetAssociationReader(AssociationReader reader);

  // The URL timeouts, in seconds (REQUIRES: 1 <= connect <= total).
  void set_timeouts(long connect_seconds, long total_seconds) {
    connect_timeout_ = connect_seconds;
    total_timeout_ = total_seconds;
  }
  long connect_timeout() const { return connect_timeout_; }
  long total_timeout() const { return total_timeout_; }

  bool is_file() const { return !file_path_.empty(); }
  bool is_slurmdbd() const { return slurmdbd_; }
  // The file path (files), the URL, or "slurmdbd", for messages.
  const std::string& description() const { return is_file() ? file_path_ : url_; }

  // The document's text. IOError naming the source and the reason (the
  // file's errno text, curl's error, an HTTP status >= 400, too large, a
  // timeout naming the budget.conf key that set it). A URL fetch gives up
  // within about a second once *cancel is true (null: never cancelled).
  budget::Status Fetch(std::string* text, const std::atomic<bool>* cancel = nullptr) const;

  // Files: the file's mtime in nanoseconds, or -1 if it cannot be stat'ed.
  // URLs and slurmdbd: always 0 (re-fetched every BudgetRefresh instead).
  int64_t ModificationTime() const;

 private:
  budget::Status FetchFile(std::string* text) const;
  budget::Status FetchUrl(std::string* text, const std::atomic<bool>* cancel) const;

  std::string file_path_;  // set for paths and file:// URLs
  std::string url_;        // set for http(s):// URLs, and "slurmdbd"
  bool slurmdbd_ = false;
  long connect_timeout_ = kConnectTimeoutSeconds;
  long total_timeout_ = kTotalTimeoutSeconds;
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_TREE_SOURCE_H_
