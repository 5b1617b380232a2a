#!/usr/bin/env bash
# Sets up a Debian 12 (Slurm 22.05), Debian 13 (Slurm 24.11) or Debian
# unstable (Slurm 26.05) machine to build and run slurm-budget, from nothing:
#   1. installs every Debian package needed (build tools, Slurm daemons and
#      clients, slurmdbd and MariaDB, munge, the dev libraries);
#   2. gets Slurm's source at exactly the installed slurmctld version (for the
#      internal headers the plugins need), through a deb-src entry derived
#      from this machine's own apt sources;
#   3. configures and builds the suite in build/.
# Idempotent: on a machine already set up it does no network work and takes
# seconds. Run as root. Environment: BUILD_DIR (default <repo>/build),
# SLURM_SRC_ROOT (default <repo>/slurm-src), CONFIGURE_FLAGS (extra flags),
# SETUP_ONLY=1 (stop after packages and source: no configure, no build),
# SLURM_SOURCE (SchedMD's tarball of the installed series, or its unpacked
# tree: used instead of the Debian source package; needed where the mirror
# serves no source of the installed version, as for 26.05 on Debian
# unstable).
# SLURM_PREFIX (a Slurm installed under that prefix, e.g. by
# scripts/sid_slurm_build.sh: the suite is built against its headers,
# libslurm and plugin directory instead of the system's).
# Where the mirror serves no Debian source package for the installed version
# (Debian 13's mirror here has only the upstream tarball), the upstream
# tarball alone is fetched (apt-get source --tar-only) and unpacked.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build}
src_root=${SLURM_SRC_ROOT:-$repo/slurm-src}
jobs=$(nproc 2>/dev/null || echo 2)

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and Slurm runs as root in the local cluster)"

packages=(
  # build tools
  build-essential autoconf automake libtool pkg-config dpkg-dev
  # libraries named by the design card
  libjson-c-dev libcurl4-openssl-dev libcmocka-dev libboost-dev
  # Slurm: daemons, clients, public headers; munge for authentication
  slurm-wlm slurmctld slurmd slurm-client libslurm-dev slurm-wlm-basic-plugins-dev
  munge libmunge-dev
  # accounting: a private MariaDB and slurmdbd per cluster
  # (scripts/slurmdbd_env.sh) for test_accounts.sh and the priority bench
  slurmdbd mariadb-server
  # used by the test and demo scripts; python3-prometheus-client's parsers
  # read sbudget metrics' text in test_sbudget.sh
  python3 curl procps jq python3-prometheus-client
  # the fuzz targets (fuzz/): clang and its libFuzzer and sanitizer runtimes
  clang libclang-rt-dev
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # slurm-wlm-emulator must never be installed: its postinst switches
  # /usr/sbin/slurmd to a front-end build.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "packages already installed"
fi

# --- Slurm source at exactly the installed version -----------------------------
# fetch_upstream_tarball: the upstream tarball only, unpacked at $src_dir. The
# internal headers the plugins need are upstream's; Debian's patches do not
# touch them.
fetch_upstream_tarball() {
  say "no Debian source package for $slurm_version: fetching the upstream tarball only"
  rm -rf "${src_root:?}"/*
  (cd "$src_root" && apt-get source -qq --tar-only "slurm-wlm=$slurm_version" >/dev/null) || return 1
  local tarball
  tarball=$(ls "$src_root"/slurm-wlm_"$upstream".orig.tar.* 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || return 1
  mkdir -p "$src_dir"
  tar xf "$tarball" -C "$src_dir" --strip-components=1 || return 1
}
slurm_version=$(dpkg-query -W -f='${Version}' slurmctld)
upstream=${slurm_version%%-*}            # 22.05.8-4+deb12u3 -> 22.05.8
# tree_version DIR: the version in a Slurm tree's META (25.11.7).
tree_version() { sed -n 's/^[[:space:]]*Version:[[:space:]]*//p' "$1/META" 2>/dev/null; }
# from_schedmd: SLURM_SOURCE (a tarball or a tree), unpacked or linked at
# $src_root/slurm-<its version>; configure checks that its series is the
# installed one.
from_schedmd() {
  local v tmp
  if [ -d "$SLURM_SOURCE" ]; then
    v=$(tree_version "$SLURM_SOURCE")
    [ -n "$v" ] || die "SLURM_SOURCE=$SLURM_SOURCE is not a Slurm source tree (no META)"
    src_dir=$(cd "$SLURM_SOURCE" && pwd)
  else
    [ -f "$SLURM_SOURCE" ] || die "SLURM_SOURCE=$SLURM_SOURCE: no such tarball or directory"
    mkdir -p "$src_root"
    tmp=$(mktemp -d "$src_root/unpack.XXXXXX")
    tar xf "$SLURM_SOURCE" -C "$tmp" --strip-components=1 || die "cannot unpack $SLURM_SOURCE"
    v=$(tree_version "$tmp")
    [ -n "$v" ] || die "$SLURM_SOURCE holds no Slurm source tree (no META)"
    src_dir=$src_root/slurm-$v
    rm -rf "$src_dir"
    mv "$tmp" "$src_dir"
  fi
  say "Slurm source $v from $SLURM_SOURCE in $src_dir (installed: $slurm_version)"
}
# A tree an earlier run took from SLURM_SOURCE is used again without it.
if [ -z "${SLURM_SOURCE:-}" ] && [ -f "$src_root/.source" ]; then
  cached=$(sed -n 2p "$src_root/.source")
  [ -f "$cached/src/slurmctld/slurmctld.h" ] && SLURM_SOURCE=$cached
fi
if [ -n "${SLURM_SOURCE:-}" ]; then
  stamp="$src_root/.source"
  want="$SLURM_SOURCE $(stat -c '%s %Y' "$SLURM_SOURCE" 2>/dev/null)"
  src_dir=$(sed -n 2p "$stamp" 2>/dev/null || true)
  if [ -n "$src_dir" ] && [ -f "$src_dir/src/slurmctld/slurmctld.h" ] && [ "$(sed -n 1p "$stamp")" = "$want" ]; then
    say "Slurm source from $SLURM_SOURCE already in $src_dir"
  else
    from_schedmd
    mkdir -p "$src_root"
    printf '%s\n%s\n' "$want" "$src_dir" >"$stamp"
  fi
else
src_dir="$src_root/slurm-wlm-$upstream"
stamp="$src_root/.version"
if [ -f "$src_dir/src/slurmctld/slurmctld.h" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$slurm_version" ]; then
  say "Slurm source $slurm_version already in $src_dir"
else
  say "fetching Slurm source $slurm_version"
  # A deb-src entry derived from the machine's own sources: no host is
  # written here, the machine's configuration names it.
  src_list=/etc/apt/sources.list.d/slurm-budget-deb-src.sources
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    base=/etc/apt/sources.list.d/debian.sources
    if [ -f "$base" ]; then
      sed 's/^Types: deb$/Types: deb-src/' "$base" > "$src_list"
    elif [ -f /etc/apt/sources.list ]; then
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > /etc/apt/sources.list.d/slurm-budget-deb-src.list
    else
      die "no apt sources found to derive a deb-src entry from"
    fi
    apt-get update -qq
  fi
  rm -rf "$src_root"
  mkdir -p "$src_root"
  # Where the mirror serves no source of the installed version (Debian
  # unstable's 26.05), SchedMD's tarball of the same series is the route:
  # it is never skipped silently.
  (cd "$src_root" && apt-get source -qq "slurm-wlm=$slurm_version" >/dev/null 2>&1) ||
    (apt-get update -qq && cd "$src_root" && apt-get source -qq "slurm-wlm=$slurm_version" >/dev/null 2>&1) ||
    fetch_upstream_tarball ||
    die "no source of Slurm $slurm_version from this machine's apt sources (apt-get source, and --tar-only, failed): download SchedMD's tarball of the installed series (https://download.schedmd.com/slurm/slurm-$upstream.tar.bz2) and run again with SLURM_SOURCE=<that file>"
  [ -f "$src_dir/src/slurmctld/slurmctld.h" ] || die "unpacked source not found at $src_dir"
  echo "$slurm_version" > "$stamp"
fi
fi

[ "${SETUP_ONLY:-0}" = 1 ] && { say "packages and source ready (SETUP_ONLY=1: no build)"; exit 0; }

# --- configure and build -------------------------------------------------------
cd "$repo"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
  say "autoreconf"
  autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; die "autoreconf failed"; }
fi
mkdir -p "$build_dir"
cd "$build_dir"
prefix_flags=()
[ -z "${SLURM_PREFIX:-}" ] || prefix_flags=(CPPFLAGS="-I$SLURM_PREFIX/include"
  LDFLAGS="-L$SLURM_PREFIX/lib -Wl,-rpath,$SLURM_PREFIX/lib" --with-slurm-plugindir="$SLURM_PREFIX/lib/slurm")
if [ ! -f Makefile ] || [ "$repo/configure" -nt Makefile ] || ! grep -q "with-slurm-source=$src_dir" config.status 2>/dev/null ||
    { [ -n "${SLURM_PREFIX:-}" ] && ! grep -q -- "-I$SLURM_PREFIX/include" config.status; }; then
  say "configure (build in $build_dir${SLURM_PREFIX:+, against the Slurm in $SLURM_PREFIX})"
  # shellcheck disable=SC2086
  "$repo/configure" -q --with-slurm-source="$src_dir" "${prefix_flags[@]}" ${CONFIGURE_FLAGS:-} ||
    die "configure failed; see $build_dir/config.log"
fi
say "make"
# Compiler output goes to build/make.log; shown only when the build fails.
make -s -j"$jobs" >make.log 2>&1 || { make -j1 >>make.log 2>&1 || { tail -n 40 make.log; die "build failed (full log: $build_dir/make.log)"; }; }
say "ready: build in $build_dir, Slurm source in $src_dir"
