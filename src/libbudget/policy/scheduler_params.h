// SchedulerParams: the parts of slurm.conf's SchedulerParameters that shape
// what Slurm's main scheduler and its backfill scheduler do with the
// priorities the suite computes, as the scheduling model (slurm_model.h)
// reads them. Defaults are Slurm 22.05's (src/slurmctld/job_scheduler.c,
// src/plugins/sched/backfill/backfill.c).
//
//   key                   unit     default  read as
//   sched_interval        s        60       main scheduler's periodic pass
//   default_queue_depth   jobs     100      jobs one event-driven main pass
//                                           tests (0 = no limit)
//   sched_max_job_start   jobs     0        jobs one main pass may start
//                                           (0 = no limit)
//   bf_interval           s        30       backfill's period
//   bf_window             minutes  1440     how far ahead backfill plans
//   bf_resolution         s        60       backfill's time granularity
//   bf_max_job_test       jobs     500      jobs one backfill pass tests
//   bf_max_job_start      jobs     0        jobs one backfill pass may start
//                                           (0 = no limit)
//   bf_continue           flag     off      see below
//
// Every other key (Slurm has dozens) is kept in `not_modelled`, so that a
// caller can say which parts of a site's configuration the model ignores.
// A key the model reads with a bad value (not a whole number, out of Slurm's
// own range) is an error naming the key: Slurm would log it and fall back to
// the default, which silently models something else.
//
// bf_continue: Slurm's backfill yields its locks every bf_yield_interval and,
// without bf_continue, gives up its cycle when jobs or nodes changed in the
// meantime. The model's passes take no time, so a cycle is never
// interrupted: with or without the flag it runs to bf_max_job_test. The flag
// is read (and shown) so that the difference is stated, not hidden.
//
// Thread safety: plain values and functions.
#ifndef SLURM_BUDGET_LIBBUDGET_SCHEDULER_PARAMS_H_
#define SLURM_BUDGET_LIBBUDGET_SCHEDULER_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

struct SchedulerParams {
  Seconds sched_interval = 60;
  uint32_t default_queue_depth = 100;
  uint32_t sched_max_job_start = 0;
  Seconds bf_interval = 30;
  Seconds bf_window = 1440 * 60;
  Seconds bf_resolution = 60;
  uint32_t bf_max_job_test = 500;
  uint32_t bf_max_job_start = 0;
  bool bf_continue = false;
  // Keys of the text that the model does not read, in input order.
  std::vector<std::string> not_modelled;
};

// Parses a SchedulerParameters value ("bf_interval=10,bf_continue,...").
// Empty text gives the defaults. Errors (InvalidArgument naming the key):
// a modelled key with a bad value or a missing '=' value.
Status ParseSchedulerParameters(const std::string& text, SchedulerParams* out);

// The modelled values as SchedulerParameters text, every key spelled out
// (for logs and reports): "sched_interval=60,default_queue_depth=100,...".
std::string FormatSchedulerParameters(const SchedulerParams& params);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_SCHEDULER_PARAMS_H_
