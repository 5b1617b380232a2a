#!/usr/bin/env bash
# A Debian 13 (trixie, Slurm 24.11) root on a Debian 12 host, cached in
# /var/cache/slurm-budget/trixie: scripts/debian_root.sh says how.
#   scripts/trixie_root.sh setup | run CMD... | umount
# TRIXIE_ROOT and TRIXIE_SLURM_SRC: where the root and the 24.11 source go.
set -euo pipefail
[ -z "${TRIXIE_ROOT:-}" ] || export DEBIAN_ROOT=$TRIXIE_ROOT
[ -z "${TRIXIE_SLURM_SRC:-}" ] || export DEBIAN_ROOT_SLURM_SRC=$TRIXIE_SLURM_SRC
exec "$(dirname "$0")/debian_root.sh" trixie "$@"
