/* ledger_c.h: the C API of the usage ledger (ledger.h), its file
 * (ledger_file.h) and the service metrics (metrics.h), for the priority
 * plugin, the simulator and the report tool.
 *
 * In the manner of leveldb's c.h:
 *   - one opaque handle, budget_ledger_t, from budget_ledger_create() and
 *     freed with budget_ledger_destroy(); plain structs otherwise;
 *   - every fallible call takes `char** errptr` last. On failure *errptr is
 *     set to a malloc()ed one-line message (a previous message there is
 *     freed first); the caller frees it with free(). On success *errptr is
 *     left untouched, so callers set it to NULL before the call. A NULL
 *     errptr is allowed: the message is then dropped;
 *   - arrays returned are malloc()ed; the caller frees them with free();
 *   - no C++ exception ever crosses this boundary; a NULL handle or path is
 *     an error, never a crash;
 *   - the clock is never read: time comes in as int64_t seconds since the
 *     epoch.
 * The semantics (window, buckets, file format, metrics) are those of the
 * C++ headers named above; read them there.
 *
 * Thread safety: none. A ledger handle must be used by one thread at a
 * time (the plugin holds its own mutex around every call).
 */
#ifndef SLURM_BUDGET_LIBBUDGET_LEDGER_C_H_
#define SLURM_BUDGET_LIBBUDGET_LEDGER_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct budget_ledger_t budget_ledger_t;

/* Series are passed as int (as leveldb's c.h passes its enums), so that a
 * value outside the enum is a reported error rather than undefined
 * behaviour in C++. */
typedef enum {
  BUDGET_SERIES_ALLOCATED = 0,   /* occupancy by allocated work: ranks jobs */
  BUDGET_SERIES_UNALLOCATED = 1, /* occupancy by unallocated work */
  BUDGET_SERIES_DEMAND = 2       /* asked for by running + pending work */
} budget_series_t;

typedef struct {
  int64_t window;              /* seconds; default 7 days */
  int64_t bucket_width;        /* allocated series; default 300 */
  int64_t report_bucket_width; /* unallocated, demand, metrics "hour"; 3600 */
} budget_ledger_options_t;

typedef enum {
  BUDGET_LEDGER_LOADED = 0,     /* the ledger now holds the file's contents */
  BUDGET_LEDGER_NO_FILE = 1,    /* no such file (first start): not an error,
                                   *errptr untouched, ledger unchanged */
  BUDGET_LEDGER_LOAD_FAILED = 2 /* corrupt or unreadable: *errptr says why,
                                   ledger unchanged */
} budget_ledger_load_t;

/* --- lifetime ------------------------------------------------------------- */

void budget_ledger_default_options(budget_ledger_options_t* options);
/* 1 if the options are usable, else 0 with *errptr naming the bad one. */
unsigned char budget_ledger_check_options(const budget_ledger_options_t* options,
                                          char** errptr);
/* NULL options means the defaults. Unusable options are refused: NULL is
 * returned and *errptr says why. */
budget_ledger_t* budget_ledger_create(const budget_ledger_options_t* options, char** errptr);
void budget_ledger_destroy(budget_ledger_t* ledger);
/* The options in effect (the defaults for a NULL ledger). */
void budget_ledger_options(const budget_ledger_t* ledger, budget_ledger_options_t* options);

/* --- charging and querying ------------------------------------------------ */

/* Adds gpus x |[from, to)| GPU-seconds to `path`'s series (ledger.h:
 * Charge). Empty intervals and gpus <= 0 are ignored, not errors. */
void budget_ledger_charge(budget_ledger_t* ledger, const char* path, int series,
                          int64_t from, int64_t to, double gpus, char** errptr);
/* Charges a running job from max(start, its cursor) to now, to `occupancy`
 * and to demand, and moves its cursor to now (ledger.h: ChargeRunningJob). */
void budget_ledger_charge_running_job(budget_ledger_t* ledger, uint32_t job_id,
                                      const char* path, int occupancy,
                                      int64_t start, int64_t now, double gpus,
                                      char** errptr);
/* GPU-seconds charged to `path` itself in the window ending at now; 0 for an
 * unknown path, and on error. */
double budget_ledger_window_usage(budget_ledger_t* ledger, const char* path,
                                  int series, int64_t now, char** errptr);
/* The same for count paths at once: usage[i] for paths[i]. On error usage
 * is left untouched. */
void budget_ledger_window_usages(budget_ledger_t* ledger, const char* const* paths,
                                 size_t count, int series, int64_t now,
                                 double* usage, char** errptr);
/* Per-bucket values of a series over the buckets overlapping [from, to), at
 * `resolution` seconds per point (0 = the series's bucket width). Returns a
 * malloc()ed array of *count values (NULL when *count is 0 or on error);
 * value i covers [*start + i * *width, *start + (i+1) * *width). */
double* budget_ledger_history(const budget_ledger_t* ledger, const char* path,
                              int series, int64_t from, int64_t to,
                              int64_t resolution, int64_t* start, int64_t* width,
                              size_t* count, char** errptr);

/* Paths charged so far, and forgetting one (e.g. removed from the tree):
 * returns 1 if it existed. */
size_t budget_ledger_path_count(const budget_ledger_t* ledger);
unsigned char budget_ledger_forget_path(budget_ledger_t* ledger, const char* path);

/* --- job cursors ---------------------------------------------------------- */

/* End of the last interval charged for the job; 0 if unknown or NULL. */
int64_t budget_ledger_charged_until(const budget_ledger_t* ledger, uint32_t job_id);
void budget_ledger_set_charged_until(budget_ledger_t* ledger, uint32_t job_id, int64_t t);
/* Call when a job ends, so its cursor is not kept forever. */
void budget_ledger_forget_job(budget_ledger_t* ledger, uint32_t job_id);
/* Number of jobs with a cursor. Copies up to `capacity` of their ids into
 * ids (ascending) if ids is non-NULL, e.g. to forget jobs that ended while
 * the controller was down. */
size_t budget_ledger_jobs(const budget_ledger_t* ledger, uint32_t* ids, size_t capacity);

/* --- file ----------------------------------------------------------------- */

/* Atomic save (write file.tmp, fsync, rename, fsync the directory). On
 * error `file` is unchanged. */
void budget_ledger_save(const budget_ledger_t* ledger, const char* file, char** errptr);
/* See budget_ledger_load_t. The ledger keeps its own options; a file saved
 * with other options is rebucketed (ledger_file.h). */
budget_ledger_load_t budget_ledger_load(budget_ledger_t* ledger, const char* file,
                                        char** errptr);

/* --- service metrics (metrics.h) ----------------------------------------- */

typedef struct {
  int64_t start; /* the hour is [start, start + budget_service_t.hour) */
  double demand_gpu_seconds;
  double owed_gpu_seconds;
  double delivered_gpu_seconds;
} budget_hour_service_t;

typedef struct {
  int64_t hour;                   /* seconds per hour: report_bucket_width */
  size_t hour_count;
  double owed_gpu_seconds;
  double delivered_gpu_seconds;
  double delivered_over_owed;     /* 1 when nothing was owed */
  double owed_delivered_fraction; /* in [0, 1]; 1 when nothing was owed */
} budget_service_t;

/* Owed vs delivered over [from, to) for an allocation of `entitlement`
 * (share of the cluster, [0, 1]) whose usage is charged to paths[0..count)
 * (the node, or the node and its descendants; summed before capping), on a
 * cluster of capacity_gpus GPUs. If hours is non-NULL, *hours is set to a
 * malloc()ed array of out->hour_count hours (NULL if none). On error *out
 * and *hours are untouched. */
void budget_ledger_measure_service(const budget_ledger_t* ledger, const char* const* paths,
                                   size_t count, double entitlement, double capacity_gpus,
                                   int64_t from, int64_t to, budget_service_t* out,
                                   budget_hour_service_t** hours, char** errptr);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SLURM_BUDGET_LIBBUDGET_LEDGER_C_H_ */
