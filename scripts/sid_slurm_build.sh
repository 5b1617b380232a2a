#!/usr/bin/env bash
# Slurm's own daemons and clients, built from SchedMD's tarball inside the
# Debian unstable root (scripts/sid_root.sh), for the integration tests of
# a series whose binaries the mirror serves only at another micro release:
# Debian unstable ships slurmctld 26.05.5, the source at hand is 26.05.3,
# and plugins built from one misread the other's job_record_t (configure.ac
# says why). Built from the tarball they are built against, daemons and
# plugins agree.
#
#   scripts/sid_slurm_build.sh [TARBALL]    prints the prefix on its last line
#
# TARBALL (or SLURM_SOURCE, or the tarball an earlier run copied into
# /var/cache/slurm-budget/src/tarballs): SchedMD's slurm-X.Y.Z.tar.*. It is
# installed in the root under /opt/slurm-X.Y.Z (the prefix;
# SLURM_BUILD_PREFIX: elsewhere) with what the suite's clusters use: munge
# authentication, several slurmd on one host (--enable-multiple-slurmd, as
# Debian builds it), and slurmdbd with accounting_storage/mysql (MariaDB's
# client library is installed in the root for it).
#
# The build is lean (SLURM_BUILD_FULL=1: the whole tarball): only what the
# suite's clusters, tests, demo and benchmarks run is built and installed:
# sbin/slurmctld, slurmd, slurmstepd, slurmdbd; bin/sbatch, srun, salloc,
# squeue, scontrol, scancel, sinfo, sprio, sacct, sacctmgr, sshare, sdiag;
# libslurm; include/slurm/*.h of X.Y.Z; and 25 of the 86 stock plugins in
# lib/slurm (the list below). It leaves out the other clients, slurmrestd,
# sackd, sview, the man pages, the static libraries and -ggdb3. Measured on
# a 2-core machine shared with other work (CPU time, the steadier figure):
# with Slurm's default flags the full build took 1095 s of CPU (13 to 21
# minutes of wall time), the lean one 723 s; with the flags below the
# lean one takes 539 s (7 to 10 minutes; 9 minutes at idle priority
# beside the host's integration tests), measured before prep/script,
# mpi/pmi2, certgen/script, compress/none and url_parser/internal were
# added (small ones).
#
# The root is cached in /var/cache/slurm-budget/sid and the install in it:
# the build runs once per tarball, configure options and list of what is
# built (a stamp in the prefix holds them); a second run checks the stamp
# and takes a second. The compile runs under `nice -n 19`.
# The suite's plugins are then built against the prefix (CPPFLAGS
# -I<prefix>/include: their plugin_version is X.Y.Z) and the clusters run
# its daemons with SLURM_PREFIX=<prefix> (scripts/cluster.sh).
# Run as root on the host.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/slurm-budget
root=${SID_ROOT:-$cache/sid}
src_cache=$cache/src

say() { printf 'sid-slurm: %s\n' "$*" >&2; }
die() { printf 'sid-slurm: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root"

tarball=${1:-${SLURM_SOURCE:-}}
if [ -z "$tarball" ]; then
  tarball=$(ls "$src_cache"/tarballs/slurm-[0-9]*.tar.* 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$tarball" ] || die "give SchedMD's tarball: $0 /path/to/slurm-X.Y.Z.tar.xz"
fi
[ -f "$tarball" ] || die "$tarball: no such file"
name=${tarball##*/}
version=$(printf '%s' "$name" | sed -n 's/^slurm-\([0-9]*\.[0-9]*\.[0-9]*\)\.tar\..*/\1/p')
[ -n "$version" ] || die "$name: not named slurm-X.Y.Z.tar.*"
prefix=${SLURM_BUILD_PREFIX:-/opt/slurm-$version}

# What a build depends on: the tarball's bytes, these options and what is
# built (below). Changing any rebuilds.
# --disable-debug CFLAGS=-O1: no -ggdb3 (macro debug information in every
# object); -O1 is the optimisation Slurm's default debug build ends with.
# --disable-static: libtool compiles each file once, not once more for a
# static archive nobody links. None of them changes a structure's layout
# (NDEBUG is defined either way). Measured on 2 cores (lean build): 723 s
# of CPU with Slurm's defaults, 539 s with these.
options="--prefix=$prefix --sysconfdir=$prefix/etc --enable-multiple-slurmd --with-munge
  --with-mysql_config=/usr/bin --disable-slurmrestd --disable-x11 --disable-sview
  --disable-debug CFLAGS=-O1 --disable-static"

# The lean build (the default): only the directories of what the suite's
# clusters, tests, demo and benchmarks run, each built and installed on its
# own (`make -C DIR`; libslurm's Makefile builds the libraries it links,
# src/common and src/interfaces among them). SLURM_BUILD_FULL=1 builds and
# installs the whole tarball instead (about twice the time).
# - the daemons, and the libraries they and the clients link;
lean_dirs="src/common src/interfaces src/conmgr src/database src/stepmgr src/api
  src/slurmctld src/slurmd src/slurmdbd"
# - the client commands the tests, scripts/ and bench/ call;
lean_dirs="$lean_dirs src/sbatch src/srun src/salloc src/squeue src/scontrol src/scancel
  src/sinfo src/sprio src/sacct src/sacctmgr src/sshare src/sdiag"
# - the stock plugins a cluster of scripts/cluster.sh loads (its slurm.conf
#   and the tests' variations of it: munge, cons_tres, builtin and
#   backfill, basic and multifactor, partition_prio, topology/tree,
#   filetxt, slurmdbd with MariaDB), and those the daemons load at start
#   whatever slurm.conf says (the default topology/flat; prep/script and
#   an MPI plugin, mpi/pmi2: slurmctld stops without them; certgen/script:
#   scontrol and the other clients stop without it; compress/none: srun
#   does; url_parser/internal: without it srun warns on stderr, which a
#   test reads; tls/none, the hash plugins of the credentials, gpu/generic under
#   gres/gpu; accounting_storage/ctld_relay: slurmd stops without it when
#   slurmdbd stores the accounting); a <type>/common directory is the
#   library its plugins link.
lean_plugins="accounting_storage/common accounting_storage/slurmdbd accounting_storage/mysql
  accounting_storage/ctld_relay
  auth/common auth/munge cred/common cred/munge gres/common gres/gpu gpu/common gpu/generic
  hash/common_xkcp hash/k12 jobcomp/common jobcomp/filetxt priority/basic priority/multifactor
  sched/backfill sched/builtin select/cons_tres preempt/partition_prio proctrack/linuxproc
  topology/common topology/tree topology/flat tls/none prep/script mpi/pmi2 certgen/script compress/none
  url_parser/internal"
if [ "${SLURM_BUILD_FULL:-0}" = 1 ]; then
  what=full
else
  what="lean: $(echo $lean_dirs) $(echo $lean_plugins)"
fi
stamp_want="$(sha256sum "$tarball" | cut -d' ' -f1) $(echo $options) ($what)"
stamp=$root$prefix/.slurm-budget-build
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ] && [ -x "$root$prefix/sbin/slurmctld" ]; then
  say "Slurm $version already built in the root at $prefix"
  echo "$prefix"
  exit 0
fi

# The root and the tarball's copy in the source cache, which the root sees
# at the same path (scripts/debian_root.sh).
SLURM_SOURCE=$tarball "$repo/scripts/sid_root.sh" setup >&2
in_cache=$src_cache/tarballs/$name
[ -f "$in_cache" ] || { mkdir -p "$src_cache/tarballs"; cp "$tarball" "$in_cache"; }

# MariaDB's client library for slurmdbd's accounting_storage/mysql; the rest
# (compiler, munge, json-c) scripts/setup.sh installed.
"$repo/scripts/sid_root.sh" run bash -c '
  dpkg-query -W -f="\${Status}" libmariadb-dev-compat 2>/dev/null | grep -q "install ok installed" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        libmariadb-dev libmariadb-dev-compat >/dev/null; }' >&2 ||
  die "apt-get install libmariadb-dev libmariadb-dev-compat in the root failed"

say "building Slurm $version (${what%%:*}) in the root (prefix $prefix; nice -n 19; log: $root$prefix.build.log)"
t0=$SECONDS
build=/var/tmp/${prefix##*/}-build
dirs=''
[ "$what" = full ] || dirs="$(echo $lean_dirs) $(for p in $lean_plugins; do printf 'src/plugins/%s ' "$p"; done)"
# shellcheck disable=SC2016
if ! "$repo/scripts/sid_root.sh" run bash -c '
    set -e
    build=$1 tarball=$2 prefix=$3 dirs=$4; shift 4
    rm -rf "$build" "$prefix"
    mkdir -p "$build"
    tar xf "$tarball" -C "$build" --strip-components=1
    cd "$build"
    nice -n 19 ./configure -q "$@"
    if [ -z "$dirs" ]; then
      nice -n 19 make -s -j"$(nproc)"
      nice -n 19 make -s install
    else
      for d in $dirs; do echo "== $SECONDS s: make -C $d"; nice -n 19 make -s -j"$(nproc)" -C "$d"; done
      for d in $dirs; do nice -n 19 make -s -C "$d" install; done
      nice -n 19 make -s install-pkgincludeHEADERS
    fi' _ \
    "$build" "$in_cache" "$prefix" "$dirs" $options >"$root$prefix.build.log" 2>&1; then
  tail -n 30 "$root$prefix.build.log" >&2
  die "the build of Slurm $version failed (log: $root$prefix.build.log)"
fi
rm -rf "${root:?}$build"

# What the suite's clusters load: a missing one is a failed build.
missing=''
for p in auth_munge cred_munge gres_gpu select_cons_tres sched_backfill sched_builtin \
    priority_basic priority_multifactor jobcomp_filetxt accounting_storage_slurmdbd \
    accounting_storage_mysql accounting_storage_ctld_relay proctrack_linuxproc prep_script topology_flat mpi_pmi2 \
    certgen_script compress_none url_parser_internal; do
  [ -f "$root$prefix/lib/slurm/$p.so" ] || missing="$missing $p"
done
for b in sbin/slurmctld sbin/slurmd sbin/slurmstepd sbin/slurmdbd bin/sbatch bin/srun bin/squeue \
    bin/scontrol bin/sprio bin/sacct bin/sacctmgr bin/sshare bin/sinfo bin/scancel; do
  [ -x "$root$prefix/$b" ] || missing="$missing $b"
done
[ -z "$missing" ] || die "Slurm $version built, but these are missing in $prefix:$missing (log: $root$prefix.build.log)"
echo "$stamp_want" >"$stamp"
say "Slurm $version built and installed in the root at $prefix in $((SECONDS - t0)) s"
echo "$prefix"
