/*
 * slurmctld's lock helpers for preempt/timeslice's thread, as plain C functions:
 * slurmctld_lock_t is initialised with designated initialisers, which C++17
 * lacks, so the lock calls live in timeslice_locks.c (compiled as C).
 *
 * Lock sets (slurmctld's order: conf, job, node, part, fed):
 *   read:  job READ, node READ, part READ          (the pass's snapshot)
 *   write: job WRITE, node WRITE, part READ, fed READ  (job_requeue,
 *          job_signal, node reasons: what job_requeue's callers hold)
 * REQUIRES: never called with one of the plugin's own mutexes held.
 */
#ifndef SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_LOCKS_H_
#define SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_LOCKS_H_

#ifdef __cplusplus
extern "C" {
#endif

void timeslice_lock_read(void);
void timeslice_unlock_read(void);
void timeslice_lock_write(void);
void timeslice_unlock_write(void);

#ifdef __cplusplus
}
#endif

#endif /* SLURM_BUDGET_SCHED_TIMESLICE_TIMESLICE_LOCKS_H_ */
