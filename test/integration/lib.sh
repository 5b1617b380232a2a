# Shared helpers of the integration tests (bash). Source it from a test:
#
#   . "$(dirname "$0")/lib.sh"
#   cluster_start -n 2          # a real cluster; stopped on exit
#   check "a job runs" wait_state "$id" COMPLETED 30
#   finish                       # prints "N passed, N failed"; exit status
#
# Every check prints one line. Nothing sleeps a fixed time: poll with a
# deadline. Tests run as root; the cluster lives in $CLUSTER_DIR.

set -uo pipefail

TEST_NAME=$(basename "$0" .sh)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$REPO/build}
export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/slurm-budget-test-$TEST_NAME}
export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
# SLURM_PREFIX: the Slurm of that prefix, not the system's (scripts/cluster.sh).
[ -z "${SLURM_PREFIX:-}" ] || export PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
CLUSTER=$REPO/scripts/cluster.sh
# The tests time their checks to the rules, on 1-4 nodes, in compressed
# time, unless a test's budget.conf sets these keys itself:
#   - a victim leaves when told: no notice before preemption (budget.conf
#     PreemptNotice, 30 s by default; test_notice.sh sets its own);
#   - short contracts of several GPUs rank like any other: quick start for
#     1-GPU jobs only and no spare nodes (QuickStartGpus=8 and
#     QuickStartReserveNodes=4 by default; test_quick_reserve.sh sets its
#     own), since every test contract of 15 minutes or less would
#     otherwise be a quick start.
export BUDGET_CONF_FALLBACK=${BUDGET_CONF_FALLBACK-"PreemptNotice=0
QuickStartGpus=1
QuickStartReserveNodes=0"}
PASSED=0
FAILED=0

# slurm_series: the installed Slurm's major.minor as a number (2205, 2411),
# for the few checks whose expected output differs between the supported
# versions (doc/admin-guide.md, "Slurm versions").
slurm_series() { slurmctld -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\)\..*/\1\2/p'; }
SLURM_SERIES=$(slurm_series)
SLURM_SERIES=${SLURM_SERIES:-0}

# check DESCRIPTION COMMAND...: runs COMMAND; passes when it exits 0.
check() {
  local what=$1; shift
  local out
  if out=$("$@" 2>&1); then
    PASSED=$((PASSED + 1))
    printf 'ok   %s: %s\n' "$TEST_NAME" "$what"
  else
    FAILED=$((FAILED + 1))
    printf 'FAIL %s: %s\n' "$TEST_NAME" "$what"
    [ -n "$out" ] && printf '%s\n' "$out" | tail -n 15 | sed 's/^/     | /'
  fi
  return 0
}

# fail_now DESCRIPTION: records a failure that stops the test (setup broke).
fail_now() {
  FAILED=$((FAILED + 1))
  printf 'FAIL %s: %s\n' "$TEST_NAME" "$1"
  finish
}

# ensure_test_user NAME: the unprivileged user a test submits as, created
# (no home) on a machine that has none; every test that runs `su NAME` calls
# it, since tests run in any order and alone.
ensure_test_user() {
  id -u "$1" >/dev/null 2>&1 || useradd --no-create-home --shell /bin/bash "$1" || fail_now "create the test user $1"
}

# poll SECONDS COMMAND...: retries COMMAND every 0.25 s until it succeeds or
# the deadline passes (then prints the last output and fails).
poll() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit)) out
  while :; do
    if out=$("$@" 2>&1); then return 0; fi
    if [ $SECONDS -ge $deadline ]; then
      printf 'gave up after %ss: %s\n%s\n' "$limit" "$*" "$out"
      return 1
    fi
    sleep 0.25
  done
}

# job_state ID: the job's state (PENDING, RUNNING, COMPLETED, ...).
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
# job_field ID KEY: one Key=Value of `scontrol show job`.
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
state_is() { [ "$(job_state "$1")" = "$2" ] || { echo "job $1 is $(job_state "$1"), want $2"; return 1; }; }
# wait_state ID STATE SECONDS
wait_state() { poll "$3" state_is "$1" "$2"; }

# contains NEEDLE TEXT: passes when TEXT contains NEEDLE (prints both if not).
contains() {
  case $2 in *"$1"*) return 0 ;; esac
  printf 'expected to find: %s\nin: %s\n' "$1" "$2"
  return 1
}

# submit ARGS...: sbatch --parsable; prints the job id (fails the test if none).
# sbatch's stderr (errors, and job_submit/contract's note on the default
# contract) goes to the test's stderr.
submit() {
  local out
  out=$(sbatch --parsable "$@") || { echo "sbatch $*: failed (its message is above)" >&2; return 1; }
  echo "${out%%;*}"
}

cluster_start() {
  if ! "$CLUSTER" start "$@"; then
    fail_now "the local cluster starts"
  fi
  trap cluster_stop EXIT
}

# The cluster first (slurmctld may still send slurmdbd records), then the
# accounting daemons if accounting_start started them.
cluster_stop() {
  "$CLUSTER" stop >/dev/null 2>&1 || true
  [ "$ACCOUNTING_STARTED" = 1 ] && accounting_stop
  return 0
}

# accounting_start ENFORCE: a private MariaDB and slurmdbd for this cluster
# (scripts/slurmdbd_env.sh, shared with the priority bench), and slurm.conf
# pointed at them with AccountingStorageEnforce=ENFORCE (empty: the key is
# not set). Call it after cluster_start (slurmdbd authenticates through the
# cluster's munged). The database starts empty: add the cluster, accounts
# and users with sacctmgr, then `"$CLUSTER" restart-ctld` so that slurmctld
# registers with slurmdbd. finish stops both after the cluster. Fails the
# test when they cannot be installed or started.
ACCOUNTING_STARTED=0
accounting_start() {
  . "$REPO/scripts/slurmdbd_env.sh"
  say() { printf '%s: %s\n' "$TEST_NAME" "$*" >&2; }
  dbd_ready || fail_now "MariaDB and slurmdbd are installed (scripts/setup.sh installs them)"
  ACCOUNTING_STARTED=1
  dbd_start "$CLUSTER_DIR/accounting" || fail_now "MariaDB and slurmdbd start"
  sed -i '/^AccountingStorage\(Type\|Host\|Port\|Pass\|Enforce\)=/d' "$SLURM_CONF"
  { dbd_slurm_conf; [ -z "${1:-}" ] || echo "AccountingStorageEnforce=$1"; } >> "$SLURM_CONF"
  # slurmctld saved a cluster id of its own when it first ran without
  # accounting; the new database gives the cluster another one when sacctmgr
  # adds it, and slurmctld 23.11+ refuses to start on the mismatch ("CLUSTER
  # ID MISMATCH"). The file holds nothing else: the restart takes the
  # database's id, as a site adding accounting to a cluster does.
  rm -f "$CLUSTER_DIR/state/clustername"
}

# accounting_stop: slurmdbd, then MariaDB (only the pids accounting_start
# started); the database files go, the logs stay in $CLUSTER_DIR/accounting.
accounting_stop() {
  dbd_stop
  ACCOUNTING_STARTED=0
  rm -rf "$CLUSTER_DIR/accounting/mariadb"
}

# two_team_tree FILE: writes the allocation tree of the priority tests:
# teama (share 70) and teamb (share 30), each bound to the account of its
# name. Give FILE to the cluster as BUDGET_TREE_JSON.
two_team_tree() {
  cat > "$1" <<'JSON'
{ "name": "cluster", "children": [
  { "name": "teama", "share": 70, "account": "teama" },
  { "name": "teamb", "share": 30, "account": "teamb" } ] }
JSON
}

# budget_conf_text KEY=VALUE...: the text of a budget.conf for this test,
# one key a line after a comment naming the test, then the keys of
# BUDGET_CONF_FALLBACK it does not set (for BUDGET_CONF, and for a
# budget.conf a test rewrites while the cluster runs).
budget_conf_text() {
  printf '%s\n' "# budget.conf of $TEST_NAME" "$@"
  local line
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    printf '%s\n' "$@" | grep -qi "^${line%%=*}=" || printf '%s\n' "$line"
  done <<<"${BUDGET_CONF_FALLBACK:-}"
}

# finish: the summary line, and the exit status (non-zero on any failure).
finish() {
  trap - EXIT
  cluster_stop
  printf '%s: %d passed, %d failed\n' "$TEST_NAME" "$PASSED" "$FAILED"
  [ "$FAILED" -eq 0 ] && exit 0
  [ -n "${CLUSTER_DIR:-}" ] && [ -f "$CLUSTER_DIR/log/slurmctld.log" ] && {
    echo "--- last lines of $CLUSTER_DIR/log/slurmctld.log"
    tail -n 30 "$CLUSTER_DIR/log/slurmctld.log"
  }
  exit 1
}
