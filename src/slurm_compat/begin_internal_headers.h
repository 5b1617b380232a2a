/*
 * Include before Slurm's internal headers, inside the extern "C" block of a
 * plugin's slurm_headers.h; end_internal_headers.h after them.
 *
 * SLURM_BUDGET_SLURM_SERIES (configure.ac) is 2205, 2411, 2511 or 2605. Slurm 23.11 and
 * later's src/common/extra_constraints.h names a struct field `operator`, a
 * C++ keyword: it is renamed for these translation units only (the struct's
 * layout is unchanged, and the plugins never use the field). Their
 * src/slurmd/slurmstepd/slurmstepd_job.h (included by src/interfaces/gres.h)
 * defines _GNU_SOURCE, which g++ already defines: it is set aside meanwhile,
 * once <features.h> has read it (a translation unit whose first include is
 * this one would otherwise lose glibc's POSIX types, e.g. pthread_rwlock_t).
 */
#ifndef SLURM_BUDGET_SLURM_SERIES
#error "SLURM_BUDGET_SLURM_SERIES is not defined: build through configure (src/plugin.am)"
#endif
#if SLURM_BUDGET_SLURM_SERIES >= 2311
#define operator slurm_operator_field
#include <features.h>
#pragma push_macro("_GNU_SOURCE")
#undef _GNU_SOURCE
#endif
