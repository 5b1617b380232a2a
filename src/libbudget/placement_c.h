/* placement_c.h: the C API of the contract, preemption, drain and packing
 * rules (contract.h, preempt.h, drain.h, packing.h), for the plugin shims.
 *
 * In the manner of leveldb's c.h:
 *   - plain structs and arrays in; results out through opaque handles
 *     (destroy them with the matching *_destroy) or caller-provided arrays;
 *   - every fallible call takes `char** errptr` last. On failure *errptr is
 *     set to a malloc()ed one-line message (a previous message there is
 *     freed first); the caller frees it with free(). On success *errptr is
 *     left untouched, so callers set it to NULL before the call;
 *   - no C++ exception ever crosses this boundary;
 *   - the clock is a parameter (`now`, seconds since the epoch).
 *
 * Booleans are unsigned char (0 or 1). Time is int64_t seconds. Allocation
 * ids index the standings array; -1 (BUDGET_NO_ALLOCATION) is work with no
 * allocation. Node ids are Slurm node indices (budget_node_t.index).
 *
 * Thread safety: every function is reentrant; a handle may be read from
 * several threads at once but not destroyed while in use.
 */
#ifndef SLURM_BUDGET_LIBBUDGET_PLACEMENT_C_H_
#define SLURM_BUDGET_LIBBUDGET_PLACEMENT_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BUDGET_NO_ALLOCATION (-1)
#define BUDGET_NO_GROUP (-1)

typedef enum { BUDGET_REQUEUE = 0, BUDGET_CANCEL = 1 } budget_action_t;

/* The pairwise preemption rule's verdict (preempt.h); the first two allow. */
typedef enum {
  BUDGET_ALLOWED_UNALLOCATED = 0,
  BUDGET_ALLOWED_OVER_SERVED = 1,
  BUDGET_REFUSED_PROTECTED = 2,
  BUDGET_REFUSED_PREEMPTOR_UNALLOCATED = 3,
  BUDGET_REFUSED_SAME_ALLOCATION = 4,
  BUDGET_REFUSED_RANKS_BEHIND = 5,
  BUDGET_REFUSED_PING_PONG = 6
} budget_verdict_t;

/* How well served one allocation is (standing.h). */
typedef struct {
  uint32_t rank;
  double usage_ratio;
  double entitlement;
  double window_usage;
} budget_standing_t;

typedef struct {
  int32_t index;
  uint32_t total_gpus;
  uint32_t free_gpus;
  int32_t group; /* topology switch, or BUDGET_NO_GROUP */
  unsigned char usable; /* 0 for down or drained nodes */
} budget_node_t;

typedef struct {
  int32_t node; /* budget_node_t.index */
  uint32_t gpus;
} budget_node_gpus_t;

typedef struct {
  uint32_t job_id;
  int32_t allocation;
  int64_t start; /* start of the current run (after a requeue: the new one) */
  int64_t min_runtime; /* 0: unallocated work */
  unsigned char resumable;
  uint32_t user_priority;
  const budget_node_gpus_t* nodes; /* node_count entries; NULL if 0 */
  size_t node_count;
} budget_running_job_t;

typedef struct {
  uint32_t job_id;
  int32_t allocation;
  int64_t min_runtime;
  uint32_t node_count;
  uint32_t gpus_per_node;
} budget_job_shape_t;

typedef struct {
  uint64_t capacity_gpus;
  int64_t window; /* seconds */
} budget_cluster_scale_t;

/* ---- contract ---------------------------------------------------------- */

extern int64_t budget_protection_end(int64_t start, int64_t min_runtime);
extern unsigned char budget_is_protected(int64_t start, int64_t min_runtime, int64_t now);
extern budget_action_t budget_action_when_preempted(unsigned char resumable);
/* "requeue" / "cancel"; static strings. */
extern const char* budget_action_name(budget_action_t action);

/* ---- preemption -------------------------------------------------------- */

/* "unallocated", "over-served allocation", "protected", ...; static. */
extern const char* budget_verdict_name(budget_verdict_t verdict);

/* The pairwise rule (Slurm's preempt_p_preemptable). Returns 1 if the
 * preemptor may preempt the preemptee; *verdict (if not NULL) says why. On
 * error (a NULL argument) returns 0 and sets *errptr. */
extern unsigned char budget_may_preempt(const budget_job_shape_t* preemptor,
                                        const budget_standing_t* preemptor_standing,
                                        const budget_running_job_t* preemptee,
                                        const budget_standing_t* preemptee_standing,
                                        const budget_cluster_scale_t* scale, int64_t now,
                                        budget_verdict_t* verdict, char** errptr);

/* Victim order (Slurm's preempt_p_job_preempt_check): fills order[0..n)
 * with the indices 0..n-1 of `jobs`, first to preempt first. */
extern void budget_victim_order(const budget_running_job_t* jobs, size_t n,
                                const budget_standing_t* standings, size_t nstandings,
                                size_t* order, char** errptr);

typedef struct budget_preemption_plan_t budget_preemption_plan_t;

typedef struct {
  uint32_t job_id;
  budget_action_t action;
  budget_verdict_t rule;
  int32_t allocation;
  double preemptee_ratio;
  double preemptor_projected_ratio;
  uint64_t gpus; /* freed over all its nodes */
} budget_victim_t;

/* The victims to preempt so that `pending` can start (gang-safe, never more
 * than needed), or none. Returns NULL on error (and sets *errptr). */
extern budget_preemption_plan_t* budget_choose_preemption(
    const budget_job_shape_t* pending, const budget_running_job_t* running, size_t nrunning,
    const budget_node_t* nodes, size_t nnodes, const budget_standing_t* standings,
    size_t nstandings, const budget_cluster_scale_t* scale, int64_t now, char** errptr);
extern void budget_preemption_plan_destroy(budget_preemption_plan_t* plan);
/* 1 if the pending job fits once the victims are gone (maybe none). */
extern unsigned char budget_preemption_plan_feasible(const budget_preemption_plan_t* plan);
extern size_t budget_preemption_plan_victim_count(const budget_preemption_plan_t* plan);
/* REQUIRES: i < victim_count. In victim order. */
extern budget_victim_t budget_preemption_plan_victim(const budget_preemption_plan_t* plan,
                                                     size_t i);
extern size_t budget_preemption_plan_target_count(const budget_preemption_plan_t* plan);
/* REQUIRES: i < target_count. Node indices, ascending. */
extern int32_t budget_preemption_plan_target(const budget_preemption_plan_t* plan, size_t i);
/* One log line explaining the decision; malloc()ed, free() it. */
extern char* budget_preemption_plan_describe(const budget_preemption_plan_t* plan);

/* ---- drain at contract end ----------------------------------------------- */

typedef struct budget_drain_plan_t budget_drain_plan_t;

typedef struct {
  uint32_t job_id;
  unsigned char leave_now;
  int64_t leave_at; /* now, or the protection end */
  budget_action_t action;
} budget_departure_t;

typedef struct {
  int32_t node_index;
  int64_t empty_at;
} budget_drained_node_t;

/* Returns NULL on error (and sets *errptr). */
extern budget_drain_plan_t* budget_plan_drain(const int32_t* draining_nodes, size_t ndraining,
                                              const budget_running_job_t* running,
                                              size_t nrunning, int64_t now, char** errptr);
extern void budget_drain_plan_destroy(budget_drain_plan_t* plan);
extern size_t budget_drain_plan_departure_count(const budget_drain_plan_t* plan);
/* REQUIRES: i < departure_count. */
extern budget_departure_t budget_drain_plan_departure(const budget_drain_plan_t* plan, size_t i);
extern size_t budget_drain_plan_node_count(const budget_drain_plan_t* plan);
/* REQUIRES: i < node_count. In the order given. */
extern budget_drained_node_t budget_drain_plan_node(const budget_drain_plan_t* plan, size_t i);

/* ---- packing --------------------------------------------------------------- */

/* Chooses node_count nodes for a job (packing.h) and writes their indices,
 * ascending, to chosen[0..node_count). Returns 1 if feasible, 0 if not (or
 * on error, with *errptr set). */
extern unsigned char budget_choose_nodes(const budget_node_t* nodes, size_t nnodes,
                                         uint32_t node_count, uint32_t gpus_per_node,
                                         int32_t* chosen, char** errptr);

/* Free GPUs on partially free usable nodes / all free GPUs on usable nodes;
 * 0 when nothing is free (or nodes is NULL). */
extern double budget_fragmentation(const budget_node_t* nodes, size_t nnodes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLURM_BUDGET_LIBBUDGET_PLACEMENT_C_H_ */
