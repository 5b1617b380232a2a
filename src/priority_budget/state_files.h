// State files of priority/budget in slurmctld's StateSaveLocation:
//   budget_ledger.dat             the ledger (buckets + job cursors), written
//                                 by the core's SaveLedgerGeneration
//                                 (atomic) every RecalcInterval and at
//                                 shutdown;
//   budget_ledger.dat.1           the generation before it, loaded when the
//                                 newest is damaged (ledger_generations.h);
//   budget_tree.last_good.json    the text of the last tree that parsed,
//                                 written atomically here whenever it
//                                 changes, so that a restart with the source
//                                 down still has a tree. job_submit/contract
//                                 reads it too (UnknownAccount=reject), so
//                                 that it never fetches a URL itself.
//   budget_gpu_weights            the GpuTypeWeights the ledger was last
//                                 charged under ("b200:2,h100:1", "" for
//                                 none), written when they change, so that
//                                 a change is logged once, at the
//                                 reconfigure or restart that brings it.
//
// Atomic write: the bytes go to `file.tmp`, fsync, rename over `file`,
// fsync of the directory: a crash leaves the old file or the new one.
//
// Thread safety: plain functions; callers do not write the same file from
// two threads (only the recalc thread writes).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_

#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget_prio {

constexpr char kLedgerFileName[] = "budget_ledger.dat";
constexpr char kLastGoodTreeFileName[] = "budget_tree.last_good.json";
constexpr char kGpuWeightsFileName[] = "budget_gpu_weights";

// "<dir>/<name>".
std::string StateFile(const std::string& dir, const char* name);

// Writes `text` to `path` atomically (see above). IOError naming the file and
// the failing step; `path` is then unchanged.
budget::Status WriteFileAtomically(const std::string& path, const std::string& text);

// The whole content of `path`. NotFound if it does not exist, IOError else.
budget::Status ReadWholeFile(const std::string& path, std::string* text);

// Removes the `.tmp` files that an interrupted atomic write of
// priority/budget's own files in `dir` left (the last good tree, the
// report and standings snapshots; the ledger's are the core's, see
// ledger_generations.h). Returns the paths removed.
std::vector<std::string> RemoveStaleTempFiles(const std::string& dir);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_STATE_FILES_H_
