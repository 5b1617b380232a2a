/* budget_c.h: the C API of the allocation tree (tree.h), its diff and owner
 * check (tree_diff.h) and the fair-share order (order.h), for the plugin
 * shims, the simulator and the report tool.
 *
 * In the manner of leveldb's c.h:
 *   - opaque handles (budget_tree_t, budget_order_t), created by the library
 *     and destroyed with the matching *_destroy; plain structs otherwise;
 *   - every fallible call takes `char** errptr` last. On failure *errptr is
 *     set to a malloc()ed message (a previous message there is freed first);
 *     the caller frees it with budget_free() (plain free() works too). On
 *     success *errptr is left untouched, so callers set it to NULL first.
 *     A NULL errptr is allowed: the message is then dropped;
 *   - texts returned (warnings, diff, violations) are malloc()ed, one line
 *     per item separated by '\n', without a trailing '\n'; free them with
 *     budget_free();
 *   - no C++ exception ever crosses this boundary; NULL handles are errors
 *     (or "not found" for lookups), never crashes;
 *   - the clock is never read: time comes in as int64_t seconds.
 *
 * Tree nodes are identified by int32_t ids (0 = the root, pre-order, see
 * tree.h), valid for the tree handle they came from. Paths are written
 * "llm/pretrain"; the root's path is "".
 *
 * Thread safety: a tree handle is immutable once parsed and may be read from
 * any number of threads. An order handle may be read concurrently, but
 * budget_order_compute() must not run concurrently with anything else on the
 * same handle. A handle must not be destroyed while in use.
 */
#ifndef SLURM_BUDGET_LIBBUDGET_BUDGET_C_H_
#define SLURM_BUDGET_LIBBUDGET_BUDGET_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BUDGET_NO_TREE_NODE (-1)
/* The rank of a node that holds no jobs (order.h: kNoRank). */
#define BUDGET_NO_RANK UINT32_C(0xFFFFFFFF)

typedef struct budget_tree_t budget_tree_t;
typedef struct budget_order_t budget_order_t;

/* Frees any malloc()ed string this API returned (errptr messages, texts). */
void budget_free(void* ptr);

/* --- allocation tree ------------------------------------------------------ */

/* Parses a JSON tree document of `len` bytes; `source_name` (a file name or
 * URL) prefixes every message. Returns NULL on error, with *errptr holding
 * one line per error ('\n'-separated). If warnings is non-NULL, *warnings is
 * set to the malloc()ed warning lines (unknown keys), or NULL if none; this
 * happens on failure too, so free it either way. */
budget_tree_t* budget_tree_parse(const char* data, size_t len, const char* source_name,
                                 char** warnings, char** errptr);
/* The same, reading the file `filename`. */
budget_tree_t* budget_tree_parse_file(const char* filename, char** warnings, char** errptr);
void budget_tree_destroy(budget_tree_t* tree);

/* Number of nodes (0 for NULL). Ids run from 0 to size - 1. */
size_t budget_tree_size(const budget_tree_t* tree);
/* The node with this path ("" = the root), or BUDGET_NO_TREE_NODE. */
int32_t budget_tree_find(const budget_tree_t* tree, const char* path);
/* The node a job of (account, user) is charged to: the node bound to `user`
 * inside `account`'s subtree, else the account's node; BUDGET_NO_TREE_NODE if
 * the account is bound nowhere. `user` may be NULL or "". */
int32_t budget_tree_node_for(const budget_tree_t* tree, const char* account, const char* user);
/* The i-th child of `node` in document order, or BUDGET_NO_TREE_NODE. */
int32_t budget_tree_child(const budget_tree_t* tree, int32_t node, uint32_t i);

typedef struct {
  const char* name;
  const char* path;         /* "" for the root: the ledger's key */
  const char* display_path; /* the root's name for the root */
  double share;             /* as written; 0 for the root */
  double normalized_share;  /* share / sum of sibling shares; 1 for the root */
  double entitlement;       /* product of normalized shares along the path */
  int32_t parent;           /* BUDGET_NO_TREE_NODE for the root */
  uint32_t depth;           /* root 0 */
  uint32_t child_count;
  const char* account;      /* "" if none */
  const char* user;         /* "" if none */
  unsigned char holds_jobs; /* bound to an account or inside one's subtree */
} budget_tree_node_info_t;

/* Fills *info; its strings live as long as the tree handle. */
void budget_tree_node_info(const budget_tree_t* tree, int32_t node,
                           budget_tree_node_info_t* info, char** errptr);

/* The changes from `before` to `after`, one line per node in path order
 * ("llm/pretrain: share 70 -> 60, entitlement 0.35 -> 0.3"); "" if none.
 * NULL on error. */
char* budget_tree_diff(const budget_tree_t* before, const budget_tree_t* after, char** errptr);
/* 1 if `user` may make every change from `before` to `after` (tree_diff.h),
 * 0 if not (then *violations, if non-NULL, holds one line per violation) or
 * on error (with *errptr set). *violations is set to NULL when allowed. */
unsigned char budget_tree_check_edit(const budget_tree_t* before, const budget_tree_t* after,
                                     const char* user, char** violations, char** errptr);

/* --- fair-share order ----------------------------------------------------- */

budget_order_t* budget_order_create(void);
void budget_order_destroy(budget_order_t* order);

/* Recomputes the order of `tree` (order.h). direct_usage[i]: allocated
 * GPU-seconds charged to node i itself within the window; demand[i] > 0
 * when node i itself has running or pending work; count must equal the tree's
 * size. On error the previous order is kept. */
void budget_order_compute(budget_order_t* order, const budget_tree_t* tree,
                          const double* direct_usage, const double* demand, size_t count,
                          double capacity_gpus, int64_t window_seconds, char** errptr);
/* Number of nodes that hold a rank (0 before the first compute). */
uint32_t budget_order_ranked_count(const budget_order_t* order);

typedef struct {
  uint32_t rank;          /* 0 = served first; BUDGET_NO_RANK if no jobs here */
  double usage_ratio;     /* window usage / (entitlement x capacity x window) */
  double entitlement;
  double window_usage;    /* allocated GPU-seconds of the subtree */
  double sibling_ratio;   /* (usage / siblings' usage) / normalized share */
  uint32_t sibling_position; /* 0 = first among its siblings */
  unsigned char has_demand;  /* somewhere in its subtree */
} budget_node_standing_t;

void budget_order_standing(const budget_order_t* order, int32_t node,
                           budget_node_standing_t* standing, char** errptr);

typedef struct {
  uint32_t job_id;
  int32_t node;             /* tree node, e.g. from budget_tree_node_for */
  unsigned char allocated;  /* min-runtime > 0 */
  uint32_t user_priority;
  int64_t submit_time;
} budget_pending_job_t;

typedef struct {
  double fairshare;         /* 1 - rank / ranked count; 0 without a rank */
  uint32_t rank;
  uint32_t user_priority;
  unsigned char allocated;
} budget_priority_factors_t;

/* The job's 32-bit Slurm priority (never 0; see order.h for the encoding),
 * and its factors if `factors` is non-NULL. 0 on error. */
uint32_t budget_order_job_priority(const budget_order_t* order, const budget_pending_job_t* job,
                                   budget_priority_factors_t* factors, char** errptr);
/* Sorts jobs[0..count) into the job order (allocated first, node rank, user
 * priority within a node, submit time, job id). */
void budget_order_sort_jobs(const budget_order_t* order, budget_pending_job_t* jobs,
                            size_t count, char** errptr);

#ifdef __cplusplus
}  /* extern "C" */

/* For the other C APIs of the library (ledger_c.h, placement_c.h), which may
 * take these handles: the C++ objects behind them (NULL for NULL). */
namespace budget {
class AllocationTree;
class FairShareOrder;
const AllocationTree* TreeFromHandle(const budget_tree_t* tree);
const FairShareOrder* OrderFromHandle(const budget_order_t* order);
}  // namespace budget
#endif

#endif  /* SLURM_BUDGET_LIBBUDGET_BUDGET_C_H_ */
