// KnownAccounts: the UnknownAccount=reject check of job_submit/contract.
// Whether a job's account is bound to a node of the allocation tree, read
// from the last good tree that priority/budget saves in StateSaveLocation
// (budget_tree.last_good.json): job_submit never fetches a URL or reads the
// tree source itself, so a submission never waits on the network. The file
// is re-parsed only when its mtime changes; a file that cannot be read or
// parsed keeps the previous answer (none at first: kNoTree, which
// job_submit/contract refuses like an unknown account, saying why;
// priority/budget reads the tree source once at start for this).
//
// Thread safety: Check() may be called from several RPC threads at once
// (internally serialised).
#ifndef SLURM_BUDGET_JOB_SUBMIT_CONTRACT_KNOWN_ACCOUNTS_H_
#define SLURM_BUDGET_JOB_SUBMIT_CONTRACT_KNOWN_ACCOUNTS_H_

#include <cstdint>
#include <mutex>
#include <string>

#include "libbudget/state/tree.h"

namespace budget_submit {

// The name priority/budget saves its last good tree under.
constexpr char kLastGoodTreeFileName[] = "budget_tree.last_good.json";

class KnownAccounts {
 public:
  enum class Verdict { kKnown, kUnknown, kNoTree };

  explicit KnownAccounts(std::string file) : file_(std::move(file)) {}

  Verdict Check(const std::string& account);

 private:
  std::mutex mutex_;
  const std::string file_;
  int64_t mtime_ = -1;              // GUARDED_BY(mutex_)
  bool have_tree_ = false;          // GUARDED_BY(mutex_)
  budget::AllocationTree tree_;     // GUARDED_BY(mutex_)
};

}  // namespace budget_submit

#endif  // SLURM_BUDGET_JOB_SUBMIT_CONTRACT_KNOWN_ACCOUNTS_H_
