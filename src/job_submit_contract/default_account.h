// The default account slurmdbd gives a user, as slurmctld will use it for
// a job sent without -A (job_mgr.c _job_create, through
// assoc_mgr_fill_in_assoc) and as Slurm's own job_submit/lua reads it
// (`job_desc.default_account`): the user record in slurmctld's association
// manager cache. job_submit plugins run before slurmctld fills in the
// account, so this is how job_submit/contract learns which account a job
// without -A will be charged to (libbudget/policy/charged_account.h).
//
// REQUIRES: called in slurmctld (job_submit), with no assoc_mgr lock held;
// slurmctld's own locks may be held (job_mgr.c takes the assoc_mgr locks
// inside them too).
#ifndef SLURM_BUDGET_JOB_SUBMIT_CONTRACT_DEFAULT_ACCOUNT_H_
#define SLURM_BUDGET_JOB_SUBMIT_CONTRACT_DEFAULT_ACCOUNT_H_

#include <cstdint>
#include <string>

namespace budget_submit {

// Whether slurmctld talks to slurmdbd (AccountingStorageType=
// accounting_storage/slurmdbd): without it no user has a default account.
bool WithSlurmdbd();

// The default account of user `uid`, or "" when there is none (no slurmdbd,
// the user unknown to it, or no default set).
std::string UserDefaultAccount(uint32_t uid);

}  // namespace budget_submit

#endif  // SLURM_BUDGET_JOB_SUBMIT_CONTRACT_DEFAULT_ACCOUNT_H_
