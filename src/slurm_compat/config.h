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

/*
 * HAVE_STRLCPY: glibc 2.38 and later (Debian 13) declare strlcpy() in
 * <string.h>; without this, slurm_xlator.h renames strlcpy to slurm_strlcpy
 * and src/common/strlcpy.h redeclares it, which clashes with glibc's
 * declaration. Debian 12's glibc (2.36) has none, so 22.05 builds as before.
 */
#include <features.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 38))
#define HAVE_STRLCPY 1
#endif
