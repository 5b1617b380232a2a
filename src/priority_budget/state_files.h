// State files of priority/budget in slurmctld's StateSaveLocation:
//   budget_ledger.dat             the ledger (buckets + job cursors), written
//                                 by the core's SaveLedger (atomic) every
//                                 RecalcInterval and at shutdown;
//   budget_tree.last_good.json    the text of the last tree that parsed,
//                                 written atomically here whenever it
//                                 changes, so that a restart with the source
//                                 down still has a tree. job_submit/contract
//                                 reads it too (UnknownAccount=reject), so
//                                 that it never fetches a URL itself.
//
// Atomic write: the bytes go to `file.tmp`, fsync, rename over `file`,
// fsync of the directory: a crash leaves the old file or the new one.
//
// Thread safety: plain functions; callers do not write the same file from
// two threads (only the recalc thread writes).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_

#include <string>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget_prio {

constexpr char kLedgerFileName[] = "budget_ledger.dat";
constexpr char kLastGoodTreeFileName[] = "budget_tree.last_good.json";

// "<dir>/<name>".
std::string StateFile(const std::string& dir, const char* name);

// Writes `text` to `path` atomically (see above). IOError naming the file and
// the failing step; `path` is then unchanged.
budget::Status WriteFileAtomically(const std::string& path, const std::string& text);

// The whole content of `path`. NotFound if it does not exist, IOError else.
budget::Status ReadWholeFile(const std::string& path, std::string* text);

// Renames a state file that failed to load to "<path>.corrupt.<now>", so
// that it is kept for a post-mortem and never loaded again. Sets *moved_to.
budget::Status SetAsideCorruptFile(const std::string& path, budget::TimePoint now, std::string* moved_to);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_
