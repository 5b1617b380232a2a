// sprio factors: the list slurmctld sends to `sprio`, built from the last
// published order (no recomputation, no ledger access).
//
// What each column shows (see doc/admin-guide.md, "priority/budget"):
//   PRIORITY   the job's priority, exactly as squeue -o %Q shows it (sent as
//              the "direct" priority so that sprio does not re-add factors)
//   FAIRSHARE  the fair-share position of the job's tree node:
//              1 - rank / ranked nodes (1 = served first, 0 = no rank:
//              unknown account), times PriorityWeightFairshare (1000 when
//              that is unset, so that `sprio -l` shows 0..1000);
//              `sprio -n` shows the 0..1 position when the weight is set
//   ASSOC      the within-team (user) priority, 10000 - the job's nice
//              (job_view.h): it only reorders jobs of the same tree node
//   QOS        1 for allocated work (min-runtime > 0), 0 for unallocated
//              work (times PriorityWeightQOS, 1 when unset)
//   NICE       always 0: sprio prints 0 for a job whose priority is sent as
//              the direct priority, hence ASSOC above
// Held jobs (priority 0) are not listed, as with priority/multifactor.
//
// REQUIRES: called from slurmctld's RPC thread without locks; takes the job
// read lock itself.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_SPRIO_FACTORS_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_SPRIO_FACTORS_H_

#include <sys/types.h>

#include "priority_budget/priority_pass.h"

namespace budget_prio {

// Returns a Slurm List of priority_factors_object_t (as void*: the List type
// stays out of this header), or null when no job matches. `request` is a
// priority_factors_request_msg_t*.
void* BuildPriorityFactorsList(const void* request, uid_t uid, const OrderView* view);

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_SPRIO_FACTORS_H_
