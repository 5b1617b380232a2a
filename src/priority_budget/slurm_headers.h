// Slurm's internal headers for the C++ files of priority/budget, in one
// place: they are C without __cplusplus guards, so they are included inside
// extern "C", and they trip a g++ warning of their own. Only the files that
// talk to slurmctld include this (job_snapshot.cc, sprio_factors.cc,
// recalc_thread.cc, priority_budget.cc).
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_SLURM_HEADERS_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_SLURM_HEADERS_H_

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "slurm_compat/begin_internal_headers.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"
#include "slurm_compat/end_internal_headers.h"
}
#pragma GCC diagnostic pop

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_SLURM_HEADERS_H_
