/*
 * The config.h that Slurm's internal headers include. Slurm is not
 * configured here; these two lines are all its headers need on Debian 12:
 *   USE_ALIAS: slurm_xlator.h renames info(), error(), xstrdup() ... to the
 *     slurm_* names libslurm exports (otherwise error() binds to glibc's).
 *   NDEBUG: Debian builds Slurm with debugging off; match its struct layouts.
 * Only plugin translation units see this directory on their include path.
 */
#define USE_ALIAS 1
#define NDEBUG 1
