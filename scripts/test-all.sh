#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs every test of the suite:
#   1. the unit tests (CMocka) of the core and the adapters: `make check`;
#   2. the core's unit tests under AddressSanitizer + UBSan (build-asan/);
#   3. `make distcheck` (the tarball builds and passes its tests);
#   4. the integration tests on real local clusters (test/integration/).
# Ends with one line "N passed, N failed" and exits non-zero on any failure.
# Run as root on Debian 12. SKIP_DISTCHECK=1 skips step 3.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
asan_build=$repo/build-asan
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

step "set-up"
"$repo/scripts/setup.sh" || { echo "set-up failed"; echo "0 passed, 1 failed"; exit 1; }

step "unit tests"
if make -C "$build" -s -j"$jobs" check >/dev/null 2>&1; then :; else
  grep -h -A3 -E '^FAIL|\[  FAILED  \]|ERROR' "$build"/src/*/test-suite.log 2>/dev/null | head -40
  failed=$((failed + 1))
fi
count_cmocka "$build" "unit"

step "unit tests under AddressSanitizer and UndefinedBehaviorSanitizer"
mkdir -p "$asan_build"
if [ ! -f "$asan_build/Makefile" ] || [ "$repo/configure" -nt "$asan_build/Makefile" ]; then
  (cd "$asan_build" && "$repo/configure" -q --enable-sanitizers CXXFLAGS="-O1 -g" CFLAGS="-O1 -g") >/dev/null ||
    { echo "configure --enable-sanitizers failed"; failed=$((failed + 1)); }
fi
# The core holds every rule: its tests are the ones run sanitized.
if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 make -C "$asan_build/src/libbudget" -s -j"$jobs" check >/dev/null 2>&1; then :; else
  grep -h -B2 -A12 -E 'ERROR: AddressSanitizer|runtime error|\[  FAILED  \]' "$asan_build"/src/*/*_test.log 2>/dev/null | head -60
  failed=$((failed + 1))
fi
count_cmocka "$asan_build" "sanitized unit"

if [ "${SKIP_DISTCHECK:-0}" != 1 ]; then
  step "make distcheck"
  if make -C "$build" -s -j"$jobs" distcheck >"$build/distcheck.out" 2>&1; then
    passed=$((passed + 1)); echo "distcheck: ok"
  else
    tail -n 30 "$build/distcheck.out"; failed=$((failed + 1)); echo "distcheck: FAILED"
  fi
fi

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

step ""
echo "(all: $SECONDS s)"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
