#!/usr/bin/env bash
# A Debian unstable (sid, Slurm 26.05 binaries) root on a Debian 12 host,
# cached in /var/cache/slurm-budget/sid: scripts/debian_root.sh says how.
#   scripts/sid_root.sh setup | run CMD... | umount
# The mirror serves no 26.05 source: setup needs SchedMD's tarball of the
# 26.05 series (SLURM_SOURCE=path, e.g. slurm-26.05.5.tar.bz2 from
# SchedMD's downloads) the first time; its unpacked tree is cached in
# /var/cache/slurm-budget/src/sid after. SID_ROOT and SID_SLURM_SRC: where
# the root and the unpacked source go.
set -euo pipefail
[ -z "${SID_ROOT:-}" ] || export DEBIAN_ROOT=$SID_ROOT
[ -z "${SID_SLURM_SRC:-}" ] || export DEBIAN_ROOT_SLURM_SRC=$SID_SLURM_SRC
exec "$(dirname "$0")/debian_root.sh" sid "$@"
