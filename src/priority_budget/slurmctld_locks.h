/*
 * slurmctld's lock helpers for priority/budget, as plain C functions.
 * slurmctld_lock_t is initialised with designated initialisers, which C++17
 * lacks, so the lock calls live in slurmctld_locks.c (compiled as C).
 *
 * Lock sets (in slurmctld's order conf, job, node, part, fed):
 *   jobs read:  job READ, node READ, part READ  (snapshots, sprio)
 *   jobs write: job WRITE, node READ, part READ  (applying priorities; what
 *               multifactor's decay thread takes)
 * REQUIRES: never called with one of the plugin's own mutexes held (the
 * plugin's mutexes nest inside slurmctld's locks, never around them).
 */
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_SLURMCTLD_LOCKS_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_SLURMCTLD_LOCKS_H_

#ifdef __cplusplus
extern "C" {
#endif

void budget_lock_jobs_read(void);
void budget_unlock_jobs_read(void);
void budget_lock_jobs_write(void);
void budget_unlock_jobs_write(void);

#ifdef __cplusplus
}
#endif

#endif /* SLURM_BUDGET_PRIORITY_BUDGET_SLURMCTLD_LOCKS_H_ */
