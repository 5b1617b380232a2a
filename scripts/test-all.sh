#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs every test of the suite:
#   1. `make distcheck`: the release tarball builds and passes every unit
#      test (CMocka: the core, the simulator, sbudget, the adapters), built
#      with AddressSanitizer + UndefinedBehaviorSanitizer;
#   2. a link-time-optimised build that fails on any violation of C++'s
#      one-definition rule (-Werror=odr);
#   3. the benchmark programs (bench/) build;
#   4. the fuzz smoke: every fuzz target (fuzz/, built with clang and
#      libFuzzer) for a few seconds (FUZZ_SMOKE_SECONDS, 3) on its seeds;
#   5. the integration tests on real local clusters (test/integration/),
#      three at a time, against the plugins of the plain build;
#   6. Slurm 24.11, in a Debian 13 root (scripts/trixie_root.sh): the build
#      and the unit tests;
#   7. Slurm 25.11, in a Debian unstable root (scripts/sid_root.sh), against
#      its tree's headers (no 25.11 binaries exist): the build (no program
#      linked with libslurm: there is no 25.11 libslurm) and the unit tests;
#   8. Slurm 26.05, in the same root: the build, the unit tests and
#      integration tests. With SchedMD's 26.05.3 tree (what CI has; the
#      root's slurmctld is Debian's 26.05.5, whose job records the plugins
#      of another micro release misread: configure.ac) Slurm 26.05.3's own
#      daemons and clients are built from its tarball in the root
#      (scripts/sid_slurm_build.sh: a lean build, minutes the first time,
#      cached after), in the background at idle priority while steps 1-5
#      run; the suite is built and unit-tested against them, and the
#      integration tests run on their clusters: by default a CI subset
#      (ci_tests_2605 below: each plugin and each behaviour 26.05 changed),
#      TESTS_2605=all all of them, TESTS_2605="a b" those, TESTS_2605=none
#      none (the build and unit tests only, against the installed 26.05.5's
#      public headers). With a 26.05.5 tree they run on the root's own
#      slurmctld, with no build of Slurm.
# The roots are built with debootstrap the first time and cached in
# /var/cache/slurm-budget after, with the Slurm trees. The first run needs
# SchedMD's tarballs of 25.11 and 26.05, which the mirror does not serve:
# SLURM_SOURCE_2511=<file> SLURM_SOURCE_2605=<file>.
# Ends with one line "N passed, N failed" over every series and exits
# non-zero on any failure. Each step prints its wall time. Run as root on
# Debian 12. SKIP_DISTCHECK=1 runs the unit tests in the plain build
# instead of step 1. SKIP_2411=1, SKIP_2511=1, SKIP_2605=1 leave a series
# out; SKIP_HOST=1 leaves out steps 1-5. Steps 6-8 build and unit-test a
# CI subset by default (the plugins, sbudget and their unit tests;
# FULL_2411=1, FULL_2511=1, FULL_2605=1: everything); TESTS_2605 chooses
# the integration tests on 26.05 (above). The 25.11 and 24.11 builds and
# unit tests are made in the same background preparation, after 26.05's:
# steps 6 and 7 report them. PREPARE_2605_EARLY=0 makes all of it in steps
# 6-8 instead;
# TESTS_2411="a b" (or all) runs these on 24.11 too.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0

step_name='' step_start=0
# step NAME: ends the previous step (prints its wall time) and starts NAME.
step() {
  [ -n "$step_name" ] && echo "($step_name: $((SECONDS - step_start)) s)"
  step_name=$1 step_start=$SECONDS
  [ -n "$step_name" ] && printf '\n=== %s\n' "$step_name"
  return 0
}

# count_cmocka DIR: adds the CMocka cases of every unit-test log under DIR.
count_cmocka() {
  local p f
  p=$(cat "$1"/src/*/*_test.log 2>/dev/null | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  f=$(cat "$1"/src/*/*_test.log 2>/dev/null | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p))
  failed=$((failed + f))
  echo "$2: $p passed, $f failed"
}

# count_programs OUT LABEL: adds the test programs automake's harness
# reported in OUT ("# PASS:  N" / "# FAIL:  N" / "# ERROR: N" per directory).
count_programs() {
  local p f
  p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^# \(FAIL\|ERROR\|XPASS\): *\([0-9]*\)$/\2/p' "$1" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p))
  failed=$((failed + f))
  echo "$2: $p passed, $f failed"
}

# count_integration LOG LABEL: adds run.sh's last line ("integration: N
# passed, N failed").
count_integration() {
  local line p f
  line=$(tail -n 1 "$1")
  p=$(echo "$line" | sed -n 's/^integration: \([0-9]*\) passed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
  [ -n "$p" ] || { echo "$2 integration tests printed no summary"; f=$(( ${f:-0} + 1 )); }
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
}

# build_in_root ROOT_SH BUILD SLURM_TREE LABEL FULL [CPPFLAGS [FLAGS [VARS [EXTRA]]]]: configures
# (once) and builds the suite in BUILD inside the root, then runs unit
# tests; the output goes to BUILD/unit-tests.out. FULL=1: everything, as
# on the host. Otherwise (the CI subset) only what the Slurm series
# changes: the core library, the five Slurm adapters and sbudget, with the
# adapters' own tests (plugin_support is built, not tested: it needs no
# Slurm; the core's, the simulator's and the fuzz targets' tests do not
# depend on Slurm and ran in step 1). The root's automake differs from
# the host's: configure and the Makefile.in files are the host's (set-up
# above), never regenerated. EXTRA: more directories the CI subset builds
# (not tests), for the integration tests that follow (src/sim: budget-sim).
# A BUILD configured with other CPPFLAGS is configured again.
build_in_root() {
  build_in_root_run "$@"
  build_in_root_report "$4" "$2/unit-tests.out" $?
}

# build_in_root_run (build_in_root's arguments): the build and the unit
# tests alone, counted by nobody; returns non-zero on a failure.
build_in_root_run() {
  local root_sh=$1 b=$2 tree=$3 label=$4 full=$5 cppflags=${6:-} flags=${7:-} vars=${8:-} extra=${9:-} make_cmd
  local out=$b/unit-tests.out
  if [ "$full" = 1 ]; then
    make_cmd="make -s -j$jobs $vars >make.log 2>&1 && make -s -j$jobs $vars check"
  else
    local dirs="src/spank_contract src/job_submit_contract src/priority_budget src/sched_timeslice src/select_topo src/sbudget"
    # src/libbudget builds its layers' libraries (its subfolders) and their
    # union; src/plugin_support is what the plugins link besides.
    make_cmd="make -s -j$jobs -C src/libbudget >make.log 2>&1 &&
      for d in src/plugin_support $dirs; do make -s -j$jobs -C \$d $vars >>make.log 2>&1 || exit 1; done &&
      for d in $dirs; do make -s -j$jobs -C \$d $vars check || exit 1; done"
    [ -z "$extra" ] || make_cmd="$make_cmd && for d in $extra; do make -s -j$jobs -C \$d $vars >>make.log 2>&1 || exit 1; done"
    echo "($label CI subset: the plugins, sbudget and their unit tests)"
  fi
  # Without the series' libslurm (25.11) no program that links it can be
  # linked: VARS is then bin_PROGRAMS= (no programs), and sbudget's
  # libslurm calls are compiled, not linked.
  [ -z "$vars" ] || make_cmd="$make_cmd && make -s -C src/sbudget slurm_api.o sbudget_main.o"
  mkdir -p "$b"
  "$root_sh" run bash -c "cd '$b' &&
      { { [ -f Makefile ] && { [ -z '$cppflags' ] || grep -qF -- '$cppflags' config.status; }; } ||
        '$repo/configure' -q --with-slurm-source='$tree' $flags ${cppflags:+CPPFLAGS='$cppflags'}; } &&
      $make_cmd" >"$out" 2>&1
}

# build_in_root_report LABEL OUT RC: counts a build_in_root_run whose
# output is OUT and status RC; returns RC.
build_in_root_report() {
  local label=$1 out=$2 rc=$3
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1)); echo "$label build: ok"
  else
    tail -n 30 "$out"; failed=$((failed + 1)); echo "$label build or unit tests: FAILED (log: $out)"
  fi
  count_programs "$out" "$label unit (programs)"
  return "$rc"
}

# integration_in_root ROOT_SH BUILD LABEL TEST...: run.sh inside the root
# (no TEST: every test), on the clusters of the Slurm in SLURM_PREFIX when
# set (scripts/cluster.sh).
integration_in_root() {
  local root_sh=$1 b=$2 label=$3 log
  shift 3
  log=$(mktemp)
  "$root_sh" run env BUILD_DIR="$b" CLUSTER_DIR="/tmp/slurm-budget-$label" SLURM_PREFIX="${SLURM_PREFIX:-}" \
    INTEGRATION_JOBS="${INTEGRATION_JOBS:-}" "$repo/test/integration/run.sh" "$@" 2>&1 | tee "$log"
  count_integration "$log" "$label"
  rm -f "$log"
}

step "set-up"
"$repo/scripts/setup.sh" || { echo "set-up failed"; echo "0 passed, 1 failed"; exit 1; }

host_series=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\)\..*/\1\2/p')
src_cache=/var/cache/slurm-budget/src

# The integration tests run on 26.05 when TESTS_2605 is unset: at least one
# per plugin and per behaviour 26.05 changed, chosen by their run time on
# 26.05.3's own daemons so that, three at a time, they take about as long
# as the longest. Longest first (run.sh starts them in the order given):
# select/topo's packing and hero hold (~220 s), time slicing with requeue
# (~145 s), priority/budget with sprio (~70 s), the contract options
# through SPANK into job_submit with sbatch, srun and salloc (~40 s),
# slurmdbd accounts, sacctmgr and squeue --start (~40 s), forged notes in
# the fields 26.05's scontrol prints differently (~35 s), sbudget's report,
# explain and metrics (~15 s), a bad budget.conf at scontrol reconfigure,
# which re-executes slurmctld on 26.05 (~10 s), the plugins as installed
# for a user other than root (~10 s), and slurmctld's warnings on the
# suite's slurm.conf (~10 s).
ci_tests_2605="test_select_topo test_timeslice test_priority_budget test_contract test_accounts test_forged_notes
  test_sbudget test_reconfigure_bad_conf test_plugin_install test_slurm_settings"
# shellcheck disable=SC2116,SC2086
tests_2605=$(echo ${TESTS_2605-$ci_tests_2605})
[ "$tests_2605" != none ] || tests_2605=''

# prepare_2605 OUT: the Debian unstable root (scripts/sid_root.sh setup);
# then, when its 26.05 tree is another micro release than the root's
# slurmctld and integration tests are wanted on 26.05, Slurm's own daemons
# of the tree's release, built in the root from its tarball
# (scripts/sid_slurm_build.sh: minutes the first time, cached after).
# With them, the suite is built against them and unit-tested in
# build-2605-prefix (build_in_root_run: its output in unit-tests.out there;
# step 8 counts it). Writes its findings to OUT as shell assignments
# (root_ok; tree, tree_version, installed; daemons: ok, failed, no-tarball
# or none; prefix; suite: the build's status, empty if none; and when each
# part ended), last, so that OUT exists only once all is done.
prepare_2605() {
  local out=$1 root_ok=0 tree='' tree_version='' installed='' daemons=none prefix='' tarball='' suite=''
  local started=$SECONDS root_at='' daemons_at=''
  rm -f "$out"
  if SLURM_SOURCE=${SLURM_SOURCE_2605:-} DEBIAN_ROOT_SLURM_SRC=$src_cache/sid "$repo/scripts/sid_root.sh" setup; then
    root_ok=1 root_at=$SECONDS
    tree=$(sed -n 2p "$src_cache/sid/.source" 2>/dev/null)
    tree_version=$(sed -n 's/^[[:space:]]*Version:[[:space:]]*//p' "$tree/META" 2>/dev/null)
    installed=$("$repo/scripts/sid_root.sh" run dpkg-query -W -f='${Version}' slurmctld 2>/dev/null)
    installed=${installed%%-*}
    if [ "$tree_version" != "$installed" ] && [ -n "$tests_2605" ] && [ "${SKIP_2605:-0}" != 1 ]; then
      # The tarball the tree came from: set-up keeps a copy (scripts/debian_root.sh).
      tarball=$(ls "$src_cache"/tarballs/slurm-"$tree_version".tar.* 2>/dev/null | head -n 1)
      if [ -z "$tarball" ]; then
        daemons=no-tarball
      elif prefix=$("$repo/scripts/sid_slurm_build.sh" "$tarball" | tail -n 1) && [ -n "$prefix" ]; then
        daemons=ok
      else
        daemons=failed prefix=''
      fi
      daemons_at=$SECONDS
    fi
    if [ "$daemons" = ok ]; then
      # The plugins must be built against the running slurmctld's own tree
      # to be loaded (configure.ac says why): here its slurm_version.h,
      # libslurm and plugin directory. src/sim: budget-sim, which
      # test_accounts runs.
      build_in_root_run "$repo/scripts/sid_root.sh" "$repo/build-2605-prefix" "$tree" 26.05 "${FULL_2605:-0}" \
        "-I$prefix/include" "LDFLAGS='-L$prefix/lib -Wl,-rpath,$prefix/lib' --with-slurm-plugindir='$prefix/lib/slurm'" "" src/sim
      suite=$?
    fi
  fi
  printf 'root_ok=%q tree=%q tree_version=%q installed=%q daemons=%q prefix=%q tarball=%q suite=%q\n' \
    "$root_ok" "$tree" "$tree_version" "$installed" "$daemons" "$prefix" "$tarball" "$suite" >"$out.tmp"
  printf 'prepared_from=%q root_at=%q daemons_at=%q prepared_at=%q\n' "$started" "$root_at" "$daemons_at" "$SECONDS" >>"$out.tmp"
  mv "$out.tmp" "$out"
}

# prepare_2411 OUT: the Debian 13 root (scripts/trixie_root.sh setup) and
# the suite's build and unit tests in it (build_in_root_run: its output in
# build-2411/unit-tests.out). Writes root_ok_2411 and rc_2411 to OUT, last.
prepare_2411() {
  local out=$1 root_ok_2411=0 rc_2411=1 tree_2411=''
  rm -f "$out"
  if DEBIAN_ROOT_SLURM_SRC=$src_cache/trixie "$repo/scripts/trixie_root.sh" setup; then
    root_ok_2411=1
    tree_2411=$(ls -d "$src_cache"/trixie/slurm-wlm-*/ 2>/dev/null | head -n 1)
    build_in_root_run "$repo/scripts/trixie_root.sh" "$repo/build-2411" "${tree_2411%/}" 24.11 "${FULL_2411:-0}"
    rc_2411=$?
  fi
  printf 'root_ok_2411=%q rc_2411=%q\n' "$root_ok_2411" "$rc_2411" >"$out.tmp"
  mv "$out.tmp" "$out"
}

# prepare_2511 OUT: the suite's build and unit tests against SchedMD's
# 25.11 tree (its public headers from the tree: no 25.11 binaries exist) in
# the Debian unstable root, which must be set up. Writes tree_2511 (empty:
# no tree) and rc_2511 to OUT, last.
prepare_2511() {
  local out=$1 tree_2511='' rc_2511=1 v
  rm -f "$out"
  tree_2511=$(ls -d "$src_cache"/2511/slurm-25.11.*/ 2>/dev/null | head -n 1)
  if [ -z "$tree_2511" ] && [ -n "${SLURM_SOURCE_2511:-}" ]; then
    rm -rf "$src_cache/2511/unpack"
    mkdir -p "$src_cache/2511/unpack" &&
      tar xf "$SLURM_SOURCE_2511" -C "$src_cache/2511/unpack" --strip-components=1 &&
      v=$(sed -n 's/^[[:space:]]*Version:[[:space:]]*//p' "$src_cache/2511/unpack/META") &&
      mv "$src_cache/2511/unpack" "$src_cache/2511/slurm-$v" &&
      tree_2511=$src_cache/2511/slurm-$v
  fi
  if [ -n "$tree_2511" ]; then
    tree_2511=${tree_2511%/}
    "$repo/scripts/slurm_public_headers.sh" "$tree_2511" "$src_cache/2511/include" >/dev/null
    build_in_root_run "$repo/scripts/sid_root.sh" "$repo/build-2511" "$tree_2511" 25.11 "${FULL_2511:-0}" \
      "-I$src_cache/2511/include" "" "bin_PROGRAMS="
    rc_2511=$?
  fi
  printf 'tree_2511=%q rc_2511=%q\n' "$tree_2511" "$rc_2511" >"$out.tmp"
  mv "$out.tmp" "$out"
}

# The root and the daemons are prepared while the host's steps run, in the
# background and at idle priority (SCHED_IDLE: the CPU time the steps leave
# unused, which is most of it during the host's integration tests: they
# wait on Slurm). PREPARE_2605_EARLY=0 prepares them in step 8 instead.
# So are, after them, the builds and unit tests of 25.11 (in the same root)
# and 24.11 (in the Debian 13 root): steps 6-8 then only report them.
prep_2605=$build/prepare-2605 prep_2411=$build/prepare-2411 prep_2511=$build/prepare-2511
prep_2605_pid='' prep_others=0
rm -f "$prep_2411" "$prep_2511"
if [ "${host_series:-0}" -lt 2605 ] && [ "${SKIP_2605:-0}" != 1 ] && [ -n "$tests_2605" ] &&
    [ "${SKIP_HOST:-0}" != 1 ] && [ "${PREPARE_2605_EARLY:-1}" = 1 ]; then
  echo "(Slurm 26.05: the Debian unstable root and Slurm's own 26.05 daemons are prepared in the background, at idle priority, then the 25.11 and 24.11 builds; log: $prep_2605.log)"
  prep_others=1
  (chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 || renice -n 19 -p "$BASHPID" >/dev/null 2>&1
   prepare_2605 "$prep_2605"
   if [ "${SKIP_2511:-0}" != 1 ] && grep -q '^root_ok=1' "$prep_2605" 2>/dev/null; then
     prepare_2511 "$prep_2511"
   fi
   "$repo/scripts/sid_root.sh" umount
   if [ "${host_series:-0}" -lt 2411 ] && [ "${SKIP_2411:-0}" != 1 ]; then
     prepare_2411 "$prep_2411"
     "$repo/scripts/trixie_root.sh" umount
   fi) >"$prep_2605.log" 2>&1 </dev/null &
  prep_2605_pid=$!
fi

# SKIP_HOST=1: only set-up and the other series (steps 6-8).
if [ "${SKIP_HOST:-0}" != 1 ]; then
# The unit tests run once, inside make distcheck, built from the release
# tarball with AddressSanitizer + UndefinedBehaviorSanitizer (leaks too):
# one build checks the tarball and every unit test sanitized (the core, the
# simulator, sbudget, and the adapters over their Slurm fakes). The plugins
# the integration tests load come from the plain build of set-up.
if [ "${SKIP_DISTCHECK:-0}" != 1 ]; then
  step "unit tests, sanitized, in make distcheck"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 make -C "$build" -s -j"$jobs" distcheck \
      DISTCHECK_CONFIGURE_FLAGS="--enable-sanitizers CXXFLAGS='-O1 -g' CFLAGS='-O1 -g'" \
      >"$build/distcheck.out" 2>&1; then
    distcheck_ok=1
  else
    distcheck_ok=0
  fi
  count_programs "$build/distcheck.out" "unit (sanitized, programs)"
  if [ "$distcheck_ok" = 1 ]; then
    passed=$((passed + 1)); echo "distcheck: ok"
  else
    # The failed tree is left in place: show the failing tests' own words.
    grep -h -B2 -A12 -E 'ERROR: AddressSanitizer|runtime error|\[  FAILED  \]' \
      "$build"/slurm-budget-*/_build/sub/src/*/*_test.log 2>/dev/null | head -60
    tail -n 30 "$build/distcheck.out"; failed=$((failed + 1)); echo "distcheck: FAILED"
  fi
else
  step "unit tests (SKIP_DISTCHECK=1: plain build, not sanitized)"
  if make -C "$build" -s -j"$jobs" check >/dev/null 2>&1; then :; else
    grep -h -A3 -E '^FAIL|\[  FAILED  \]|ERROR' "$build"/src/*/test-suite.log 2>/dev/null | head -40
    failed=$((failed + 1))
  fi
  count_cmocka "$build" "unit"
fi

# One definition rule: two different types of one name linked into one
# program (the core once had two budget::RunningJob) are undefined
# behaviour that no unit test sees; a link-time-optimised build reports
# them, and -Werror=odr makes that a failure.
step "one-definition-rule check (an LTO build with -Werror=odr)"
odr_build=$build-odr
mkdir -p "$odr_build"
if (cd "$odr_build" && { [ -f Makefile ] || "$repo/configure" -q --with-slurm-source="$(sed -n 's/^SLURM_SOURCE_DIR = //p' "$build/Makefile")" \
      CXXFLAGS="-O1 -flto=auto -Wodr -Werror=odr" CFLAGS="-O1 -flto=auto" LDFLAGS="-flto=auto"; } &&
    make -s -j"$jobs") >"$odr_build.log" 2>&1; then
  passed=$((passed + 1)); echo "odr: ok"
else
  grep -E "One Definition Rule|error" "$odr_build.log" | head -20
  failed=$((failed + 1)); echo "odr: FAILED (log: $odr_build.log)"
fi

# The benchmark programs (bench/Makefile.am) are built, not run: `make
# bench` is run by hand, and its programs must still compile in between.
step "benchmark programs build (make -C bench bench-programs)"
if make -C "$build/bench" -s -j"$jobs" bench-programs >"$build/bench-programs.log" 2>&1; then
  passed=$((passed + 1)); echo "bench programs: ok"
else
  grep -E "error" "$build/bench-programs.log" | head -20
  failed=$((failed + 1)); echo "bench programs: FAILED (log: $build/bench-programs.log)"
fi

# The fuzz targets (fuzz/Makefile.am) for a few seconds each: one line per
# target, each counted; a build failure counts once. The long runs are
# `make fuzz FUZZ_RUNS=10000000` (doc/fuzzing.md).
step "fuzz smoke (every fuzz target for ${FUZZ_SMOKE_SECONDS:-3} s)"
fuzz_out=$build/fuzz-smoke.out
make -C "$build" -s -j"$jobs" fuzz FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-3}" >"$fuzz_out" 2>&1
p=$(grep -c '^fuzz .*: ok$' "$fuzz_out")
f=$(grep -c '^fuzz .*: FAILED' "$fuzz_out")
grep -A3 '^fuzz .*: FAILED' "$fuzz_out"
if [ "$p" = 0 ] && [ "$f" = 0 ]; then
  tail -n 20 "$fuzz_out"; f=1; echo "fuzz: the targets did not build (log: $fuzz_out)"
fi
passed=$((passed + p))
failed=$((failed + f))
echo "fuzz smoke: $p passed, $f failed"

step "integration tests on real local clusters"
integration_log=$(mktemp)
BUILD_DIR=$build "$repo/test/integration/run.sh" 2>&1 | tee "$integration_log"
line=$(tail -n 1 "$integration_log")
rm -f "$integration_log"
p=$(echo "$line" | sed -n 's/^integration: \([0-9]*\) passed.*/\1/p')
f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
[ -n "$p" ] || { echo "integration tests printed no summary"; f=$(( ${f:-0} + 1 )); }
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
fi

# --- the other Slurm series, in Debian roots -------------------------------------
# 24.11 in a Debian 13 root (scripts/trixie_root.sh), 25.11 and 26.05 in a
# Debian unstable root (scripts/sid_root.sh: Slurm 26.05.5 binaries). The
# roots are built with debootstrap the first time and cached in
# /var/cache/slurm-budget, and so are the unpacked Slurm trees. The
# mirror serves no 25.11 or 26.05 source: SchedMD's tarballs come from
# SLURM_SOURCE_2511 and SLURM_SOURCE_2605 the first time (a missing one is
# a failure that says so, never a silent skip).

# The 24.11 root: build and unit tests (FULL_2411=1: everything); its
# integration tests only on request (TESTS_2411="a b", or all). 26.05 is
# the series whose integration CI runs besides the host's.
# The background preparation (above) made the 25.11 and 24.11 builds:
# wait for it here (it does 26.05 first).
if [ -n "$prep_2605_pid" ]; then
  step "Slurm 26.05, 25.11 and 24.11: the roots, Slurm's own 26.05 daemons and the builds (prepared in the background)"
  wait "$prep_2605_pid"
  prep_2605_pid=''
  [ ! -f "$prep_2605" ] || sed -n 's/^prepared_from=\([0-9]*\) .*prepared_at=\([0-9]*\)$/(26.05 prepared from \1 s to \2 s of this run)/p' "$prep_2605"
fi

if [ "${host_series:-0}" -lt 2411 ] && [ "${SKIP_2411:-0}" != 1 ]; then
  root_sh=$repo/scripts/trixie_root.sh
  if [ "$prep_others" = 1 ]; then
    step "Slurm 24.11: the Debian 13 root, build and unit tests (made in the background)"
    root_ok_2411=0 rc_2411=1
    # shellcheck disable=SC1090
    [ -f "$prep_2411" ] && . "$prep_2411"
  else
    step "Slurm 24.11: the Debian 13 root (packages and source)"
    prepare_2411 "$prep_2411"
    # shellcheck disable=SC1090
    . "$prep_2411"
  fi
  if [ "$root_ok_2411" != 1 ]; then
    failed=$((failed + 1)); echo "24.11 root: set-up FAILED"
  else
    [ "$prep_others" = 1 ] || step "Slurm 24.11: build and unit tests in the root"
    [ "$prep_others" != 1 ] || grep -h '^(24.11 CI subset' "$prep_2605.log"
    build_in_root_report 24.11 "$repo/build-2411/unit-tests.out" "$rc_2411"
    if [ -n "${TESTS_2411:-}" ]; then
      step "Slurm 24.11: integration tests in the root"
      tests=()
      [ "$TESTS_2411" = all ] || read -r -a tests <<<"$TESTS_2411"
      integration_in_root "$root_sh" "$repo/build-2411" 2411 "${tests[@]}"
    fi
  fi
  "$root_sh" umount
fi

# The Debian unstable root: 25.11 (build and unit tests, against 25.11's
# public and internal headers from its tree: no 25.11 binaries exist) and
# 26.05 (build, unit tests, and integration tests: on Slurm 26.05.3's own
# daemons when the tree is SchedMD's 26.05.3, on the root's slurmctld
# 26.05.5 when the tree is 26.05.5's).
if [ "${host_series:-0}" -lt 2605 ] && { [ "${SKIP_2511:-0}" != 1 ] || [ "${SKIP_2605:-0}" != 1 ]; }; then
  root_sh=$repo/scripts/sid_root.sh
  root_ok=0 tree='' tree_version='' installed='' daemons=none prefix='' tarball='' suite=''
  prepared_from='' root_at='' daemons_at='' prepared_at=''
  if [ "$prep_others" = 1 ]; then
    step "Slurm 26.05: the Debian unstable root and Slurm's own 26.05 daemons (prepared in the background)"
  else
    step "Slurm 26.05: the Debian unstable root (packages and source), and Slurm's own 26.05 daemons when needed"
    prepare_2605 "$prep_2605" >"$prep_2605.log" 2>&1
  fi
  # shellcheck disable=SC1090
  [ -f "$prep_2605" ] && . "$prep_2605"
  grep -E '^(sid-root|sid-slurm|setup):' "$prep_2605.log" 2>/dev/null | tail -n 8
  [ -z "$prepared_at" ] || echo "(prepared from $prepared_from s to $prepared_at s of this run: the root ready at ${root_at:-?} s${daemons_at:+, the 26.05 daemons at $daemons_at s}${suite:+, the suite built and unit-tested against them at $prepared_at s})"
  if [ "$root_ok" != 1 ]; then
    tail -n 20 "$prep_2605.log"
    failed=$((failed + 1))
    echo "26.05 root: set-up FAILED (the first run needs SLURM_SOURCE_2605=<SchedMD's tarball of 26.05>; log: $prep_2605.log)"
  else
    if [ "${SKIP_2511:-0}" != 1 ]; then
      tree_2511='' rc_2511=1
      if [ "$prep_others" = 1 ]; then
        step "Slurm 25.11: build and unit tests in the root (made in the background)"
      else
        step "Slurm 25.11: build and unit tests in the root"
        prepare_2511 "$prep_2511"
      fi
      # shellcheck disable=SC1090
      [ -f "$prep_2511" ] && . "$prep_2511"
      if [ -z "$tree_2511" ]; then
        failed=$((failed + 1))
        echo "25.11: FAILED: no 25.11 tree in $src_cache/2511: give SLURM_SOURCE_2511=<SchedMD's tarball of 25.11> once"
      else
        [ "$prep_others" != 1 ] || grep -h '^(25.11 CI subset' "$prep_2605.log"
        build_in_root_report 25.11 "$repo/build-2511/unit-tests.out" "$rc_2511"
      fi
    fi
    if [ "${SKIP_2605:-0}" != 1 ]; then
      tests=()
      [ "$tests_2605" = all ] || read -r -a tests <<<"$tests_2605"
      if [ "$daemons" = ok ]; then
        # Slurm's own daemons of the tree's release: the suite was built and
        # unit-tested against them in prepare_2605, and is
        # integration-tested on their clusters here.
        step "Slurm $tree_version: build and unit tests in the root, against its own build in $prefix (run in the preparation above)"
        b=$repo/build-2605-prefix
        grep -h '^(26.05 CI subset' "$prep_2605.log"
        if build_in_root_report 26.05 "$b/unit-tests.out" "${suite:-1}"; then
          step "Slurm $tree_version: integration tests in the root, on its own daemons (${TESTS_2605:-the CI subset: ${#tests[@]} tests; TESTS_2605=all: all})"
          SLURM_PREFIX=$prefix integration_in_root "$root_sh" "$b" 2605 "${tests[@]}"
        fi
      else
        step "Slurm 26.05: build and unit tests in the root"
        # The plugins must be built against the installed micro release's
        # tree to be loaded (configure.ac says why); another micro release of
        # the series builds and unit-tests only, unless its own daemons are
        # built (above).
        mismatch=''
        [ "$tree_version" = "$installed" ] || mismatch=--enable-slurm-micro-mismatch
        build_in_root "$root_sh" "$repo/build-2605" "$tree" 26.05 "${FULL_2605:-0}" "" "$mismatch"
        if [ -z "$mismatch" ]; then
          if [ -n "$tests_2605" ]; then
            step "Slurm 26.05: integration tests in the root"
            integration_in_root "$root_sh" "$repo/build-2605" 2605 "${tests[@]}"
          fi
        elif [ -z "$tests_2605" ]; then
          step ""
          echo "26.05 integration tests: NOT RUN (TESTS_2605=none): the tree is Slurm $tree_version and slurmctld is"
          echo "  $installed, so they would run on Slurm $tree_version's own daemons, built from its tarball in the root."
        else
          step ""
          failed=$((failed + 1))
          echo "26.05 integration tests: NOT RUN, counted as a failure: the tree is Slurm $tree_version and slurmctld is"
          echo "  $installed (plugins built from another micro release misread slurmctld's records: configure.ac),"
          if [ "$daemons" = no-tarball ]; then
            echo "  and there is no tarball of Slurm $tree_version in $src_cache/tarballs to build its own daemons"
            echo "  from: give SLURM_SOURCE_2605=<SchedMD's slurm-$tree_version tarball> once (or TESTS_2605=none)."
          else
            echo "  and the build of Slurm $tree_version's own daemons FAILED (log: $prep_2605.log)."
          fi
        fi
      fi
    fi
  fi
  "$root_sh" umount
fi

step ""
echo "(all: $SECONDS s)"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
