// Ledger generations: the ledger file kept in two good generations, so that
// one damaged file (a flipped byte, a truncation, a disk that lied about a
// write) costs one save interval of usage, not the whole window.
//
// Files, for a ledger `file` (e.g. StateSaveLocation/budget_ledger.dat):
//   file          the newest generation (ledger_file.h's format);
//   file.1        the generation before it;
//   file.tmp      a save in progress (never loaded);
//   file.1.tmp    a rotation in progress (never loaded);
//   file.corrupt.<t>, file.1.corrupt.<t>
//                 generations that failed to load, set aside at time t for a
//                 post-mortem and never loaded again.
//
// Save (SaveLedgerGeneration), in this order:
//   1. write file.tmp and fsync it (ledger_file.h's SaveLedger steps);
//   2. hard-link file to file.1.tmp and rename that over file.1: file.1 is
//      now the previous generation (the same inode as file);
//   3. rename file.tmp over file; fsync the directory.
// At every instant `file` is a complete, fsynced generation (the renames
// are atomic) and, from the second save on, so is file.1. A crash in step 1
// leaves both generations and a stale file.tmp; in step 2, a stale
// file.1.tmp (file.1 still the older generation); in step 3, either the old
// or the new newest. If the file system refuses hard links, step 2 renames
// file to file.1 instead: then for an instant only file.1 exists, which the
// load below falls back to.
//
// Load (LoadNewestGoodLedger): stale file.tmp and file.1.tmp are removed
// first (a rotation or save that a crash interrupted; they are never
// loaded). Then file is loaded; if it is missing or damaged, file.1 is.
// Every generation that fails to load is set aside (renamed
// <name>.corrupt.<now>), so that the next save never rotates a damaged
// file into file.1. Time lost: usage charged after the loaded generation
// was saved (its mtime) is gone from the ledger; the damaged newest's mtime
// (or `now`, when it is missing) bounds it. Running jobs lose nothing: their
// cursors in the older generation make the next pass charge them from
// there (usage_charging.h); only jobs that ended and left slurmctld's
// records in between are lost.
//
// Thread safety: plain functions; callers never save or load the same file
// from two threads at once.
#ifndef SLURM_BUDGET_LIBBUDGET_LEDGER_GENERATIONS_H_
#define SLURM_BUDGET_LIBBUDGET_LEDGER_GENERATIONS_H_

#include <string>
#include <vector>

#include "libbudget/state/ledger.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

// "<file>.1".
std::string PreviousGenerationFile(const std::string& file);

// Saves `ledger` as the newest generation of `file`, the current newest
// becoming file.1 (see above). IOError naming the file and the failing
// step; on error the generations on disk are both still good.
Status SaveLedgerGeneration(const Ledger& ledger, const std::string& file);

struct LedgerLoadReport {
  enum class Outcome {
    kNoFile,       // neither generation exists: a first start
    kNewest,       // `file` loaded
    kPrevious,     // `file` missing or damaged, file.1 loaded
    kNothingGood,  // every existing generation is damaged: start empty
  };
  Outcome outcome = Outcome::kNoFile;
  std::string loaded_file;               // kNewest / kPrevious
  TimePoint loaded_saved_at = 0;         // the loaded file's mtime (s)
  // kPrevious: seconds between the loaded generation's save and the
  // damaged newest's save (its mtime), or `now` if the newest is missing.
  Seconds time_lost = 0;
  std::vector<std::string> problems;     // why each failing file failed
  std::vector<std::string> set_aside;    // "<from> -> <to>" per damaged file
  std::vector<std::string> removed_tmp;  // stale temp files removed
};

// Loads the newest good generation of `file` into *out (see above); `now`
// names the set-aside files and bounds the time lost. Ok for every outcome
// but an I/O failure that leaves the state unknown (a file that cannot be
// read for a reason other than its content): then IOError, *out untouched
// and nothing set aside. *report says what was done, for the log.
// REQUIRES: out != nullptr, report != nullptr.
Status LoadNewestGoodLedger(const std::string& file, TimePoint now, Ledger* out, LedgerLoadReport* report);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_LEDGER_GENERATIONS_H_
