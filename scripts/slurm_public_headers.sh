#!/usr/bin/env bash
# Slurm's public headers (slurm/slurm.h, spank.h, ... and slurm_version.h)
# from an unpacked Slurm source tree, for a build against a series whose
# binaries are not installed (no libslurm-dev of it: 25.11 here):
#
#   scripts/slurm_public_headers.sh TREE OUT
#   configure CPPFLAGS=-IOUT --with-slurm-source=TREE
#
# The tree has only slurm_version.h.in; its SLURM_VERSION_NUMBER is written
# from the tree's META, as Slurm's own configure does. Plugins built this
# way are stamped with the tree's version: they build and unit-test, but
# load only in a slurmctld of exactly that version.
set -euo pipefail
tree=${1:?usage: $0 TREE OUT}
out=${2:?usage: $0 TREE OUT}
meta() { sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" "$tree/META"; }
major=$(meta Major) minor=$(meta Minor) micro=$(meta Micro)
[ -n "$major" ] && [ -f "$tree/slurm/slurm_version.h.in" ] || { echo "$tree is not a Slurm source tree" >&2; exit 1; }
mkdir -p "$out/slurm"
cp "$tree"/slurm/*.h "$out/slurm/"
number=$(printf '0x%02x%02x%02x' "$((10#$major))" "$((10#$minor))" "$((10#$micro))")
sed "s/^#undef SLURM_VERSION_NUMBER\$/#define SLURM_VERSION_NUMBER $number/" \
  "$tree/slurm/slurm_version.h.in" >"$out/slurm/slurm_version.h"
grep -q "define SLURM_VERSION_NUMBER $number" "$out/slurm/slurm_version.h" ||
  { echo "cannot write SLURM_VERSION_NUMBER into $out/slurm/slurm_version.h" >&2; exit 1; }
echo "$out/slurm: public headers of Slurm $major.$minor.$micro ($number)"
