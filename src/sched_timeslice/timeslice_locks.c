/* slurmctld lock helpers: see timeslice_locks.h. */
#include "sched_timeslice/timeslice_locks.h"

#include "src/common/slurm_xlator.h"
#include "src/slurmctld/locks.h"

static const slurmctld_lock_t read_locks = {.job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK};
static const slurmctld_lock_t write_locks = {
    .job = WRITE_LOCK, .node = WRITE_LOCK, .part = READ_LOCK, .fed = READ_LOCK};

void timeslice_lock_read(void) { lock_slurmctld(read_locks); }
void timeslice_unlock_read(void) { unlock_slurmctld(read_locks); }
void timeslice_lock_write(void) { lock_slurmctld(write_locks); }
void timeslice_unlock_write(void) { unlock_slurmctld(write_locks); }
