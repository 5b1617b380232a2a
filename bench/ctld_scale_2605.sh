#!/usr/bin/env bash
# bench ctld_scale on Slurm 26.05: ctld_scale_bench.sh (the suite against
# stock Slurm at cluster scale) on Slurm 26.05.3's own daemons, clients and
# libslurm, built from SchedMD's tarball inside the Debian unstable root
# (scripts/sid_slurm_build.sh; cached in the root after the first build),
# with the suite built against them in BUILD_DIR as scripts/test-all.sh
# builds it for TESTS_2605. `make bench-ctld-2605` runs it; as root on the
# host:
#
#   bench/ctld_scale_2605.sh                      # the arms suite, stock
#   BENCH_ARMS="suite suite_off stock" BENCH_RUNS=6 bench/ctld_scale_2605.sh
#
# Prints ctld_scale_bench.sh's `bench ctld_scale_*` lines. Environment:
# every BENCH_* variable is passed to ctld_scale_bench.sh (the root starts
# with an empty environment); BUILD_DIR (default <repo>/build-2605-prefix);
# SLURM_SOURCE_2605 (SchedMD's tarball, needed the first time only).
# Skips, saying why, where it cannot run (not root, no tarball).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-2605-prefix}
skip() { echo "bench ctld_scale_2605: skipped ($*)"; exit 0; }
say() { printf 'ctld_scale_2605: %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root (the Debian unstable root, the local cluster)"
# The prefix (the build is cached: a second call takes a second).
prefix=$("$repo/scripts/sid_slurm_build.sh" ${SLURM_SOURCE_2605:+"$SLURM_SOURCE_2605"} | tail -n 1) && [ -n "$prefix" ] ||
  skip "no Slurm 26.05 built in the root (the first run needs SLURM_SOURCE_2605=<SchedMD's tarball>)"

# The suite against that prefix. configure is generated on the host: the
# root's automake is another version (scripts/test-all.sh, build_in_root).
if [ ! -x "$repo/configure" ] || [ "$repo/configure.ac" -nt "$repo/configure" ]; then
  (cd "$repo" && autoreconf -fi >/dev/null 2>&1) || skip "autoreconf failed"
fi
mkdir -p "$build"
say "building the suite against $prefix in $build (nice -n 19; log: $build/setup.out)"
nice -n 19 "$repo/scripts/sid_root.sh" run env SLURM_PREFIX="$prefix" BUILD_DIR="$build" \
  SLURM_SRC_ROOT=/var/cache/slurm-budget/src/sid nice -n 19 "$repo/scripts/setup.sh" >"$build/setup.out" 2>&1 ||
  { tail -n 20 "$build/setup.out" >&2; echo "bench ctld_scale_2605: the build against $prefix FAILED" >&2; exit 1; }

mapfile -t bench_env < <(env | grep '^BENCH_' || true)
exec "$repo/scripts/sid_root.sh" run env SLURM_PREFIX="$prefix" BUILD_DIR="$build" "${bench_env[@]}" \
  ${CLUSTER_DIR:+CLUSTER_DIR="$CLUSTER_DIR"} "$repo/bench/ctld_scale_bench.sh"
