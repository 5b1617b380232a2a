// budget.conf: the suite's own configuration file, read by every plugin and
// tool through this one parser.
//
// Format (Slurm style): one `Key=Value` per line, keys case-insensitive,
// `#` starts a comment, blank lines ignored, the value may be wrapped in
// double quotes. The file lives beside slurm.conf. An unknown key, a bad
// value or a key given twice is an error that names file, line and key; the
// caller (a plugin's init()) refuses to start on it.
//
// Keys and defaults (durations in Slurm time format, see time_string.h;
// *Interval keys in plain seconds, as in slurm.conf):
//   BudgetTree=PATH|URL|slurmdbd  allocation tree (JSON): a path, file://,
//                              http:// or https:// URL; or slurmdbd: the
//                              tree of Slurm's associations (a file named
//                              so: ./slurmdbd); no default
//   BudgetRefresh=5:00         re-read the tree at least this often
//   TreeConnectTimeout=5       seconds a BudgetTree URL may take to accept
//                              the connection
//   TreeFetchTimeout=20        seconds a whole URL fetch may take (>=
//                              TreeConnectTimeout)
//   LookbackWindow=7-0         sliding window of the fair-share ledger
//   LedgerBucket=5:00          width of a ledger time bucket (<= window)
//   RecalcInterval=30          seconds between priority recomputations
//   UnknownAccount=reject      a job whose account is in no tree node:
//                              reject | unallocated (runs as free work)
//   MaxMinRuntime=8:00:00      the longest protected minimum runtime
//   DefaultMinRuntime=0        the contract of a job that declares none
//   DefaultContractNotice=yes  tell a job that declares no --min-runtime
//                              which contract it got (one line at
//                              submission): yes | no
//   TimesliceInterval=30       seconds between time-slicing passes
//   TimeSlicing=yes|no         whether preempt/timeslice time-slices
//                              (slurm_settings.h, TimeSlicingOn); unset:
//                              yes unless slurm.conf has PreemptMode=OFF
//                              (the behaviour before the key existed)
//   PreemptNotice=30           seconds a preempted job keeps its GPUs
//                              after its signal (SIGTERM, or its own
//                              --signal), to write a checkpoint; 0: it
//                              leaves at once (0 .. 3600)
//   HeroWait=30:00             wait after which the first job of
//                              HeroMinNodes whole nodes gets nodes held for
//                              it, once its account ranks first
//   HeroMinNodes=8             the whole nodes a job asks for to be a hero
//   QuickStartGpus=8           quick start: one-node jobs of at most this
//   QuickStartMinRuntime=15:00 many GPUs and this min-runtime (0 GPUs: off)
//   QuickStartUserGpus=8       at most this many GPUs of a user's protected
//                              quick-start runs at once (0: no bound)
//   QuickStartReserveNodes=0   spare nodes kept free of long protections,
//                              so that quick-start jobs find GPUs to take
//                              (quick_reserve.h; 0: none)
//   ReportDir=DIR              priority/budget also writes its report
//                              snapshot here (an absolute path, typically
//                              on a file system the login nodes mount), and
//                              sbudget reads it from here; no default: only
//                              in StateSaveLocation
//   GpuTypeWeights=T:W,...     what an hour of each GPU type is worth
//                              (gpu_type_weights.h): budgets are charged in
//                              weighted GPU-hours; no default: every GPU 1.0
//
// Thread safety: plain functions over values; no shared state.
#ifndef SLURM_BUDGET_LIBBUDGET_CONFIG_H_
#define SLURM_BUDGET_LIBBUDGET_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "libbudget/config/gpu_type_weights.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

enum class UnknownAccountPolicy { kReject, kUnallocated };

// budget.conf TimeSlicing: unset (follow slurm.conf's PreemptMode), yes or no.
enum class TimeSlicingKey { kUnset, kYes, kNo };

// BudgetTree's value for the tree of Slurm's associations (slurmdbd's, as
// slurmctld holds them).
constexpr char kBudgetTreeSlurmdbd[] = "slurmdbd";

struct BudgetConfig {
  std::string budget_tree;                 // BudgetTree
  Seconds budget_refresh = 5 * 60;         // BudgetRefresh
  Seconds tree_connect_timeout = 5;        // TreeConnectTimeout
  Seconds tree_fetch_timeout = 20;         // TreeFetchTimeout
  Seconds lookback_window = 7 * 86400;     // LookbackWindow
  Seconds ledger_bucket = 5 * 60;          // LedgerBucket
  Seconds recalc_interval = 30;            // RecalcInterval
  UnknownAccountPolicy unknown_account = UnknownAccountPolicy::kReject;  // UnknownAccount
  Seconds max_min_runtime = 8 * 3600;      // MaxMinRuntime
  Seconds default_min_runtime = 0;         // DefaultMinRuntime
  bool default_contract_notice = true;     // DefaultContractNotice
  Seconds timeslice_interval = 30;         // TimesliceInterval
  TimeSlicingKey time_slicing = TimeSlicingKey::kUnset;  // TimeSlicing
  Seconds preempt_notice = 30;             // PreemptNotice
  Seconds hero_wait = 30 * 60;             // HeroWait
  uint32_t hero_min_nodes = 8;             // HeroMinNodes
  // Quick start (preempt.h rule 3b): a job of one node with at most this
  // many GPUs and a min-runtime of at most QuickStartMinRuntime may preempt
  // unprotected allocated work of any other allocation, whatever the ranks.
  // 0 GPUs turns it off.
  Seconds quick_start_min_runtime = 15 * 60;  // QuickStartMinRuntime
  uint32_t quick_start_gpus = 8;              // QuickStartGpus
  uint32_t quick_start_user_gpus = 8;         // QuickStartUserGpus
  uint32_t quick_start_reserve_nodes = 0;     // QuickStartReserveNodes
  // Where else the report snapshot is written and read (sbudget on any
  // host, snapshot_locate.h); "" for StateSaveLocation only.
  std::string report_dir;                     // ReportDir
  // What an hour of each GPU type is worth (policy/gpu_worth.h charges
  // by it); empty: every GPU 1.0.
  GpuTypeWeights gpu_type_weights;            // GpuTypeWeights
};

// Parses the text of a budget.conf. `file` names it in error messages, and
// a relative BudgetTree path is taken relative to its directory
// ("/etc/slurm/budget.conf" and "BudgetTree=tree.json" give
// /etc/slurm/tree.json).
// On error *out is untouched. Cross-key rules are checked after all keys
// (DefaultMinRuntime <= MaxMinRuntime, LedgerBucket <= LookbackWindow,
// TreeConnectTimeout <= TreeFetchTimeout).
Status ParseBudgetConfig(std::string_view text, const std::string& file, BudgetConfig* out);

// Reads and parses `file`. A missing file is not an error: *out gets the
// defaults and *missing is set, so that the caller can log one line saying so.
Status LoadBudgetConfig(const std::string& file, BudgetConfig* out, bool* missing);

// "<dir of slurm_conf>/budget.conf".
std::string BudgetConfigPathBeside(const std::string& slurm_conf);

// The names of every key, as documented (for help texts and tests).
std::vector<std::string> BudgetConfigKeys();

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CONFIG_H_
