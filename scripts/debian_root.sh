#!/usr/bin/env bash
# A Debian root on a Debian 12 host, to build and test the suite against
# another Slurm series than the host's:
#   trixie (Debian 13): Slurm 24.11, source from the mirror (scripts/trixie_root.sh);
#   sid (Debian unstable): Slurm 26.05 binaries; the mirror serves no 26.05
#     source, so SchedMD's tarball comes from SLURM_SOURCE (scripts/sid_root.sh).
#
#   scripts/debian_root.sh SUITE setup        build the root if needed, mount, install
#                                             what scripts/setup.sh installs (idempotent)
#   scripts/debian_root.sh SUITE run CMD...   run CMD inside the root, in the repo
#   scripts/debian_root.sh SUITE umount       unmount what setup/run mounted
#
# The root is cached in DEBIAN_ROOT (default /var/cache/slurm-budget/SUITE):
# debootstrap runs once per machine; a second setup does no network work and
# takes seconds. The package mirror is the one this machine's apt sources
# name (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list):
# no host is written here. Inside the root the repo is bind-mounted at the
# same path as on the host, so build trees and PluginDir paths read the
# same on both sides; /proc, /dev, /dev/pts and /sys are mounted too, and so
# is /var/cache/slurm-budget/src (unpacked Slurm source trees, kept across
# runs and worktrees), at the same path.
# setup's environment: DEBIAN_ROOT_SLURM_SRC (where setup.sh puts the Slurm
# source, default /var/cache/slurm-budget/src/SUITE), SLURM_SOURCE (a
# SchedMD tarball or unpacked tree, for a series the mirror serves no
# source of: scripts/setup.sh).
# Run as root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-}
case "$suite" in
  trixie | sid) shift ;;
  *) printf 'usage: %s trixie|sid setup | run CMD... | umount\n' "$0" >&2; exit 2 ;;
esac
cache=/var/cache/slurm-budget
root=${DEBIAN_ROOT:-$cache/$suite}
src_cache=$cache/src

say() { printf '%s-root: %s\n' "$suite" "$*"; }
die() { printf '%s-root: error: %s\n' "$suite" "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, mount and chroot need it)"

# mirror_url: the first Debian archive URL of this machine's apt sources.
mirror_url() {
  local url=''
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    url=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
      /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$url" ] && [ -f /etc/apt/sources.list ]; then
    url=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
      /etc/apt/sources.list)
  fi
  [ -n "$url" ] || die "no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
  echo "$url"
}

bootstrap() {
  [ -f "$root/.bootstrapped" ] && return 0
  command -v debootstrap >/dev/null || {
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
      die "apt-get install debootstrap failed"
  }
  local mirror t0=$SECONDS
  mirror=$(mirror_url)
  say "debootstrap $suite into $root (from this machine's mirror)"
  umount_all
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -n 20 "$root.debootstrap.log"; die "debootstrap failed (log: $root.debootstrap.log)"; }
  # The root's apt sources: the suite's binary packages, from the same
  # mirror (setup.sh adds the source entry where it needs one); sid has no
  # -updates suite.
  local suites=$suite
  [ "$suite" = sid ] || suites="$suite $suite-updates"
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # The mirror may be a dated snapshot whose Release files have expired:
  # the root honours the machine's own choice on that (the host's apt
  # settings Check-Valid-Until and Check-Date, copied as they are).
  grep -hs 'Acquire::Check-\(Valid-Until\|Date\)' /etc/apt/apt.conf.d/* /etc/apt/apt.conf \
    >"$root/etc/apt/apt.conf.d/99slurm-budget-host-checks" || true
  # No daemon starts inside the root when a package is installed.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  touch "$root/.bootstrapped"
  say "debootstrap done in $((SECONDS - t0)) s"
}

# is_mounted DIR: DIR is a mount point.
is_mounted() { grep -q " $1 " /proc/mounts; }

# bind_mount DIR: DIR at the same path in the root. A mount already there
# that is not DIR (a clone deleted and made again at the same path leaves
# the root's mount on the deleted directory) is replaced.
bind_mount() {
  if is_mounted "$root$1"; then
    [ "$root$1" -ef "$1" ] && return 0
    umount -l "$root$1"
  fi
  mount --bind "$1" "$root$1"
}

mount_all() {
  is_mounted "$root/proc" || mount -t proc proc "$root/proc"
  is_mounted "$root/sys" || mount --rbind /sys "$root/sys"
  is_mounted "$root/dev" || mount --rbind /dev "$root/dev"
  mkdir -p "$root$repo" "$root/tmp"
  bind_mount "$repo"
  mkdir -p "$src_cache" "$root$src_cache"
  bind_mount "$src_cache"
  # /etc/resolv.conf for apt inside the root.
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

umount_all() {
  local m
  # Deepest first: the recursive /dev and /sys binds carry sub-mounts.
  for m in $(awk -v r="$root" 'index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM="${TERM:-dumb}" LANG=C.UTF-8 "$@"
}

cmd=${1:-setup}
shift || true
case "$cmd" in
  setup)
    bootstrap
    mount_all
    # setup.sh inside the root installs the packages and gets the Slurm
    # source; its own idempotence makes this seconds on a set-up root.
    # SLURM_SOURCE names a host path: it is copied into the source cache,
    # which the root sees at the same path.
    slurm_source=${SLURM_SOURCE:-}
    if [ -n "$slurm_source" ]; then
      [ -e "$slurm_source" ] || die "SLURM_SOURCE=$slurm_source does not exist"
      case "$slurm_source" in
        "$src_cache"/* | "$repo"/*) ;;
        *) [ -f "$slurm_source" ] || die "SLURM_SOURCE: give a tarball, or a tree under $src_cache or $repo"
          mkdir -p "$src_cache/tarballs"
          cmp -s "$slurm_source" "$src_cache/tarballs/${slurm_source##*/}" ||
            cp "$slurm_source" "$src_cache/tarballs/${slurm_source##*/}"
          slurm_source=$src_cache/tarballs/${slurm_source##*/} ;;
      esac
    fi
    in_root bash -c "cd '$repo' && SETUP_ONLY=1 SLURM_SOURCE='$slurm_source' SLURM_SRC_ROOT='${DEBIAN_ROOT_SLURM_SRC:-$src_cache/$suite}' ./scripts/setup.sh"
    ;;
  run)
    [ -f "$root/.bootstrapped" ] || die "no root at $root: run '$0 setup' first"
    mount_all
    # shellcheck disable=SC2016
    in_root bash -c 'cd "$0" && exec "$@"' "$repo" "$@"
    ;;
  umount)
    umount_all
    ;;
  *)
    die "usage: $0 $suite setup | run CMD... | umount"
    ;;
esac
