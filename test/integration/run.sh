#!/usr/bin/env bash
# Runs every integration test (test/integration/test_*.sh) on real local
# clusters and prints the total "N passed, N failed".
# Usage: test/integration/run.sh [test_name ...]
#
# INTEGRATION_JOBS tests run at once (default 3). Each test has its own
# cluster directory, ports and munged (lib.sh, scripts/cluster.sh), so they
# do not see each other; they mostly wait on Slurm (polls, protections of
# seconds), so three share 2 cores well and cut the wall time to the
# longest test's. A test's output is printed whole when it ends, with its
# duration. The longest tests start first; those in ALONE (below) run last,
# each on its own.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lanes=${INTEGRATION_JOBS:-3}
CLUSTER_PORT_BASE=${CLUSTER_PORT:-20000}
# Tests that run on their own, after the others: test_replay measures how
# closely the controller's sub-second timing follows the simulator's, which
# two tests beside it on 2 cores disturb (its preemption agreement: 0.56 and
# 0.58 beside them, 0.81 and 0.85 alone).
ALONE="test_replay"
passed=0 failed=0 broken=()

if [ $# -gt 0 ]; then
  tests=()
  for t in "$@"; do [ -f "$t" ] && tests+=("$t") || tests+=("$here/${t%.sh}.sh"); done
else
  # Longest first (measured durations, in this order), then any new test.
  tests=()
  for name in test_select_topo test_timeslice_convergence test_timeslice test_scheduling test_faults test_cluster \
      test_priority_budget test_hostile_input test_contract test_sbudget; do
    [ -f "$here/$name.sh" ] && tests+=("$here/$name.sh")
  done
  for t in "$here"/test_*.sh; do
    case " ${tests[*]} $ALONE " in *" $t "*|*" $(basename "$t" .sh) "*) ;; *) tests+=("$t") ;; esac
  done
  for name in $ALONE; do [ -f "$here/$name.sh" ] && tests+=("$here/$name.sh"); done
fi

work=$(mktemp -d /tmp/integration-run.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run_one INDEX TEST: runs TEST, its output in $work/INDEX.log, then its exit
# status and duration in $work/INDEX.done (written last: the done marker).
# Each test gets its own block of 100 ports from its index: ports derived
# from the cluster directory (scripts/cluster.sh) can coincide for two
# tests, and two tests running at once on one port fail to start
# ("Address already in use"). A CLUSTER_PORT given by the caller is where
# the blocks start (ports stay below 32768, where ephemeral ports begin).
run_one() {
  local start=$SECONDS rc
  export CLUSTER_PORT=$((${CLUSTER_PORT_BASE:-20000} + $1 * 100))
  # A CLUSTER_DIR given by the caller becomes one directory per test.
  if [ -n "${CLUSTER_DIR:-}" ]; then
    CLUSTER_DIR="$CLUSTER_DIR-$(basename "$2" .sh)" bash "$2" >"$work/$1.log" 2>&1
  else
    bash "$2" >"$work/$1.log" 2>&1
  fi
  rc=$?
  echo "$rc $((SECONDS - start))" >"$work/$1.done.tmp" && mv "$work/$1.done.tmp" "$work/$1.done"
}

# report INDEX TEST: prints a finished test's output and adds its counts.
report() {
  local log=$work/$1.log rc secs line p f
  read -r rc secs <"$work/$1.done"
  cat "$log"
  line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); broken+=("$(basename "$2")"); fi
  echo "($(basename "$2" .sh): ${secs} s)"
}

next=0 running=0 alone_at=-1
declare -A reported=()
while [ ${#reported[@]} -lt ${#tests[@]} ]; do
  while [ $next -lt ${#tests[@]} ]; do
    [ "$alone_at" -ge 0 ] && [ -z "${reported[$alone_at]:-}" ] && break  # one test on its own runs
    alone=0
    case " $ALONE " in *" $(basename "${tests[$next]}" .sh) "*) alone=1 ;; esac
    if [ $alone = 1 ]; then [ $running -eq 0 ] || break; elif [ $running -ge "$lanes" ]; then break; fi
    run_one "$next" "${tests[$next]}" &
    [ $alone = 1 ] && alone_at=$next
    next=$((next + 1)) running=$((running + 1))
    [ $alone = 1 ] && break
  done
  for ((i = 0; i < next; i++)); do
    if [ -z "${reported[$i]:-}" ] && [ -f "$work/$i.done" ]; then
      report "$i" "${tests[$i]}"
      reported[$i]=1
      running=$((running - 1))
    fi
  done
  sleep 1
done
wait

[ ${#broken[@]} -gt 0 ] && echo "integration: exited non-zero without a summary: ${broken[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
