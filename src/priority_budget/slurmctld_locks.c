/* slurmctld lock helpers: see slurmctld_locks.h. */
#include "priority_budget/slurmctld_locks.h"

#include "src/common/slurm_xlator.h"
#include "src/slurmctld/locks.h"

static const slurmctld_lock_t jobs_read = {.job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK};
static const slurmctld_lock_t jobs_write = {.job = WRITE_LOCK, .node = READ_LOCK, .part = READ_LOCK};

void budget_lock_jobs_read(void) { lock_slurmctld(jobs_read); }
void budget_unlock_jobs_read(void) { unlock_slurmctld(jobs_read); }
void budget_lock_jobs_write(void) { lock_slurmctld(jobs_write); }
void budget_unlock_jobs_write(void) { unlock_slurmctld(jobs_write); }
