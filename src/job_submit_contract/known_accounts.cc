// KnownAccounts: see known_accounts.h.
#include "known_accounts.h"

#include <sys/stat.h>

namespace budget_submit {

KnownAccounts::Verdict KnownAccounts::Check(const std::string& account) {
  std::lock_guard<std::mutex> lock(mutex_);
  struct stat st;
  if (stat(file_.c_str(), &st) == 0) {
    int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (mtime != mtime_) {
      budget::AllocationTree tree;
      if (budget::AllocationTree::ParseFile(file_, &tree, nullptr).ok()) {
        tree_ = std::move(tree);
        have_tree_ = true;
        mtime_ = mtime;
      }
    }
  }
  if (!have_tree_) return Verdict::kNoTree;
  return tree_.NodeFor(account, "") != budget::kNoNode ? Verdict::kKnown : Verdict::kUnknown;
}

}  // namespace budget_submit
