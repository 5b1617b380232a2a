#!/usr/bin/env bash
# A Debian 13 (trixie, Slurm 24.11) root on a Debian 12 host, to build and
# test the suite against the second supported Slurm version.
#
#   scripts/trixie_root.sh setup        build the root if needed, mount, install
#                                       what scripts/setup.sh installs (idempotent)
#   scripts/trixie_root.sh run CMD...   run CMD inside the root, in the repo
#   scripts/trixie_root.sh umount       unmount what setup/run mounted
#
# The root is cached in TRIXIE_ROOT (default /var/cache/slurm-budget/trixie):
# debootstrap runs once per machine; a second setup does no network work and
# takes seconds. The package mirror is the one this machine's apt sources
# name (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list):
# no host is written here. Inside the root the repo is bind-mounted at the
# same path as on the host, so build trees and PluginDir paths read the
# same on both sides; /proc, /dev, /dev/pts and /sys are mounted too.
# Run as root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${TRIXIE_ROOT:-/var/cache/slurm-budget/trixie}

say() { printf 'trixie-root: %s\n' "$*"; }
die() { printf 'trixie-root: error: %s\n' "$*" >&2; exit 1; }

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
  say "debootstrap trixie into $root (from this machine's mirror)"
  umount_all
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -n 20 "$root.debootstrap.log"; die "debootstrap failed (log: $root.debootstrap.log)"; }
  # The root's apt sources: binary and source packages (the Slurm source
  # comes from the latter) of trixie, from the same mirror.
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # No daemon starts inside the root when a package is installed.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  touch "$root/.bootstrapped"
  say "debootstrap done in $((SECONDS - t0)) s"
}

# is_mounted DIR: DIR is a mount point.
is_mounted() { grep -q " $1 " /proc/mounts; }

mount_all() {
  is_mounted "$root/proc" || mount -t proc proc "$root/proc"
  is_mounted "$root/sys" || mount --rbind /sys "$root/sys"
  is_mounted "$root/dev" || mount --rbind /dev "$root/dev"
  mkdir -p "$root$repo" "$root/tmp"
  is_mounted "$root$repo" || mount --bind "$repo" "$root$repo"
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
    # setup.sh inside the root installs the packages and fetches the 24.11
    # source; its own idempotence makes this seconds on a set-up root.
    in_root bash -c "cd '$repo' && SETUP_ONLY=1 SLURM_SRC_ROOT='${TRIXIE_SLURM_SRC:-$repo/slurm-src-2411}' ./scripts/setup.sh"
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
    die "usage: $0 setup | run CMD... | umount"
    ;;
esac
