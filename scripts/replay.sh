#!/usr/bin/env bash
# NAME
#   replay.sh - replay a workload on a real local cluster running the whole
#   suite and in budget-sim, and measure how far the two agree
#
# SYNOPSIS
#   scripts/replay.sh (--trace FILE [--format native|philly|swf|sacct] | --generate SPEC.json)
#       --tree FILE [--config budget.conf] --nodes N [--gpus-per-node G]
#       [--compress F] [--time-limit-factor X] [--drain nK@T ...] [--resume nK@T ...]
#       [--scheduler-parameters S] [--deadline SECONDS] [--work DIR] --json OUT
#       [--assert-start-order X] [--assert-preemptions Y]
#       [--assert-preemptions-by-kind Y] [--assert-team-diff Z]
#       [--hero-min-gpus G] [--assert-debug-p90 R [--debug-p90-slack S]]
#       [--assert-hero-p90 R]
#
# DESCRIPTION
#   1. The workload is normalised by budget-sim (--write-trace: the core's
#      reading rules, ids 1..n in submit order), or drawn from a generator
#      spec, then time-compressed by F (scripts/replay/compress.py states
#      the whole mapping): submit times, durations and min-runtimes / F,
#      time limits / F rounded up to whole minutes (>= 1), LookbackWindow,
#      LedgerBucket, HeroWait, MaxMinRuntime, DefaultMinRuntime / F;
#      RecalcInterval, TimesliceInterval, sched_interval, bf_interval and
#      bf_resolution max(1, round(x / F)) seconds, bf_window max(1,
#      ceil(x / F)) minutes. A job without a time limit gets budget-sim's:
#      its work x --time-limit-factor (default 2), in whole minutes.
#   2. A real cluster of N nodes x G GPUs starts (scripts/cluster.sh) with
#      priority/budget, preempt/timeslice (its time-slicing thread),
#      sched/backfill (SCHEDULER_TYPE below), select/topo,
#      PreemptMode=REQUEUE, JobRequeue=0, the compressed SchedulerParameters
#      and budget.conf, and a jobcomp/filetxt log of every run.
#   3. budget-sim (policy budget) runs the same compressed trace with the
#      same budget.conf, SchedulerParameters, requeue delay (the cluster's
#      cred_expire + 1) and drains, and writes every run (--events-json).
#   4. scripts/replay/driver.py submits the trace on schedule (sbatch, one
#      job name trace-<id> per trace job, `sleep`-style work that resumes
#      from a checkpoint when resumable), applies the drains and resumes,
#      resubmits cancelled (preempted non-resumable) jobs whole at once, and
#      waits for every job to end (a deadline derived from the trace).
#   5. scripts/replay/collect.py reads every run from the jobcomp log and
#      each preemptor from the controller log; scripts/replay/compare.py
#      writes OUT and prints a table: agreement.start_order (tie tolerance
#      2 compressed seconds), agreement.preemptions (Jaccard of (victim,
#      preemptor) pairs), agreement.preemptions_by_kind (the same over
#      (preemptor, victim's team, its GPUs), compare.py says why),
#      agreement.team_delivered_max_diff (points),
#      start_diff.median/p90, and per side occupancy, debug_wait_p90
#      (over all debug jobs, per team and the largest team's) and
#      hero_wait_p90 (jobs of at least --hero-min-gpus GPUs, default
#      HeroMinNodes x G); times in trace seconds.
#   Everything started is stopped on exit, error or Ctrl-C.
#
# OPTIONS
#   --compress F    default 60. Slurm records times in whole seconds and
#                   time limits in whole minutes: at 60 a trace minute is one
#                   compressed second, so a trace of whole minutes loses
#                   nothing to the controller's clock, and a time limit
#                   keeps a resolution of a trace hour (one compressed
#                   minute). A 15-minute contract becomes 15 s, well above
#                   the 1-2 s passes. A larger F squeezes contracts towards
#                   those passes and coarsens limits further; a smaller one
#                   makes the replay longer (it lasts the trace's span / F).
#   --time-limit-factor X   passed to budget-sim when it normalises the trace
#   --drain nK@T, --resume nK@T   node nK (n1..nN) drained / returned to
#                   service T after the first submission (trace time, Slurm
#                   time format: 90 = 90 minutes, 1:30:00)
#   --deadline S    fail if jobs are still out S compressed seconds after
#                   the first submission (default: scripts/replay/driver.py)
#   --work DIR      keep the intermediate files there (default: a temporary
#                   directory, removed at exit)
#   --assert-*      exit 1, with one line per figure, when start_order,
#                   preemptions or preemptions_by_kind is below X / Y, or
#                   the team difference above Z points, or the largest
#                   team debug p90s (hero p90s) of the two sides are more
#                   than R x apart and, for debug, more than S trace
#                   seconds (default 30); scripts/replay/compare.py
#
# ENVIRONMENT
#   BUILD_DIR (default <repo>/build), CLUSTER_DIR (default
#   /tmp/slurm-budget-replay), as scripts/cluster.sh reads them.
#
# EXIT STATUS
#   0 the replay completed (whatever the agreement); 1 a threshold missed or
#   a step failed; 2 bad options or input; 3 the deadline passed.
set -euo pipefail

# The SchedulerType production runs: Slurm's own backfill; the suite's
# time-slicing thread runs inside preempt/timeslice.
SCHEDULER_TYPE=sched/backfill

repo=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$repo/build}
export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/slurm-budget-replay}
sim=$BUILD_DIR/src/sim/budget-sim
lib=$repo/scripts/replay

say() { printf 'replay: %s\n' "$*"; }
die() { printf 'replay: error: %s\n' "$1" >&2; exit "${2:-1}"; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "$1"; }

# All of it in one function, read whole before it runs: a checkout or an
# edit of this file during a replay (which lasts minutes) cannot change what
# the running replay does next.
main() {
  trace='' format=native spec='' tree='' config='' nodes='' gpn=8 factor=60 sched_params=''
  deadline='' work='' out='' asserts=() node_events=() limit_factor=()
  while [ $# -gt 0 ]; do
    case $1 in --help | -h) usage 0 ;; esac
    [ $# -ge 2 ] || die "$1: needs a value (see --help)" 2
    case $1 in
      --trace) trace=$2 ;;
      --format) format=$2 ;;
      --generate) spec=$2 ;;
      --tree) tree=$2 ;;
      --config) config=$2 ;;
      --nodes) nodes=$2 ;;
      --gpus-per-node) gpn=$2 ;;
      --compress) factor=$2 ;;
      --time-limit-factor) limit_factor=(--time-limit-factor "$2") ;;
      --drain | --resume) node_events+=("$1" "$2") ;;
      --scheduler-parameters) sched_params=$2 ;;
      --deadline) deadline=$2 ;;
      --work) work=$2 ;;
      --json) out=$2 ;;
      --assert-start-order | --assert-preemptions | --assert-preemptions-by-kind | --assert-team-diff | \
        --assert-debug-p90 | --debug-p90-slack | --assert-hero-p90 | --hero-min-gpus) asserts+=("$1" "$2") ;;
      *) die "$1: unknown option (see --help)" 2 ;;
    esac
    shift 2
  done
  { [ -n "$trace" ] && [ -z "$spec" ]; } || { [ -z "$trace" ] && [ -n "$spec" ]; } ||
    die "give exactly one of --trace FILE and --generate SPEC.json" 2
  [ -n "$tree" ] && [ -f "$tree" ] || die "--tree FILE is required (an existing allocation tree)" 2
  [ -z "$config" ] || [ -f "$config" ] || die "--config $config: no such file" 2
  [ -n "$out" ] || die "--json OUT is required" 2
  [[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] || die "--nodes N is required (1..64)" 2
  [[ $gpn =~ ^[0-9]+$ ]] && [ "$gpn" -ge 1 ] || die "--gpus-per-node: expected a whole number >= 1" 2
  [[ $factor =~ ^[0-9]+$ ]] && [ "$factor" -ge 1 ] || die "--compress: expected a whole number >= 1" 2
  [ -z "$deadline" ] || [[ $deadline =~ ^[0-9]+$ ]] || die "--deadline: expected whole seconds" 2
  [ -x "$sim" ] || die "$sim not built (BUILD_DIR=$BUILD_DIR): run scripts/setup.sh"
  [ "$(id -u)" = 0 ] || die "run as root (it starts a local Slurm cluster)"
  tree=$(realpath "$tree")
  [ -z "$config" ] || config=$(realpath "$config")

  # --- clean-up: everything this script starts is stopped, whatever happens ---
  keep_work=1 cluster_started=0 driver_pid=''
  if [ -z "$work" ]; then work=$(mktemp -d /tmp/replay-work.XXXXXX); keep_work=0; fi
  mkdir -p "$work"
  work=$(realpath "$work")
  cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$driver_pid" ] && kill -0 "$driver_pid" 2>/dev/null; then
      kill "$driver_pid" 2>/dev/null || true
      wait "$driver_pid" 2>/dev/null || true
    fi
    [ "$cluster_started" = 1 ] && "$repo/scripts/cluster.sh" stop >/dev/null 2>&1 || true
    [ "$keep_work" = 1 ] || rm -rf "$work"
    exit "$rc"
  }
  trap cleanup EXIT
  trap 'say "interrupted: stopping what this replay started"; exit 130' INT
  trap 'say "terminated: stopping what this replay started"; exit 143' TERM

  # --- 1. normalise and compress -----------------------------------------------
  started=$SECONDS
  if [ -n "$spec" ]; then
    "$sim" --generate "$spec" --write-trace "$work/trace.csv" --policy fifo --horizon 0 --no-progress \
      --nodes "$nodes" --gpus-per-node "$gpn" "${limit_factor[@]}" >/dev/null || die "budget-sim could not draw $spec" 2
  else
    "$sim" --trace "$trace" --format "$format" --write-trace "$work/trace.csv" --policy fifo --horizon 0 \
      --no-progress --nodes "$nodes" --gpus-per-node "$gpn" "${limit_factor[@]}" >/dev/null ||
      die "budget-sim could not read $trace" 2
  fi
  ev_args=()
  for ((i = 0; i < ${#node_events[@]}; i += 2)); do ev_args+=("${node_events[i]}=${node_events[i + 1]}"); done
  limits_from="the trace's; else work x ${limit_factor[1]:-2} (budget-sim --time-limit-factor), in whole minutes"
  python3 "$lib/compress.py" --trace "$work/trace.csv" --tree "$tree" ${config:+--config "$config"} \
    --factor "$factor" --nodes "$nodes" --gpus-per-node "$gpn" --scheduler-parameters "$sched_params" \
    --cluster-tree "$CLUSTER_DIR/etc/budget-tree.json" --out-dir "$work/compressed" "${ev_args[@]}" \
    --time-limits "$limits_from" || exit 2
  c=$work/compressed
  compressed_sched=$(sed -n 's/^--scheduler-parameters=//p' "$c/sim_args")
  say "$(($(wc -l <"$c/trace.csv") - 1)) jobs, compressed ${factor}x; SchedulerParameters=$compressed_sched"

  # --- 2. the real cluster -------------------------------------------------------
  export PRIORITY_TYPE=priority/budget PREEMPT_TYPE=preempt/timeslice SCHEDULER_TYPE SELECT_TYPE=select/topo
  export JOB_COMP_TYPE=jobcomp/filetxt JOB_COMP_LOC=$CLUSTER_DIR/log/jobcomp.txt
  SLURM_CONF_EXTRA=$(printf '%s\n' PreemptMode=REQUEUE JobRequeue=0 "SchedulerParameters=$compressed_sched")
  export SLURM_CONF_EXTRA
  export BUDGET_CONF=$(cat "$c/budget.conf")
  export BUDGET_TREE_JSON=$tree
  export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
  # Never take over (or stop) a cluster this script did not start.
  if "$repo/scripts/cluster.sh" status 2>/dev/null | grep -q '^slurmctld: running'; then
    die "a cluster is already running in $CLUSTER_DIR: stop it, or set CLUSTER_DIR"
  fi
  cluster_started=1
  "$repo/scripts/cluster.sh" start -n "$nodes" -g "$gpn" || die "the local cluster did not start"
  cred_expire=$(sed -n 's/^AuthInfo=.*cred_expire=\([0-9]*\).*/\1/p' "$SLURM_CONF")
  requeue_delay=$((${cred_expire:-120} + 1))
  mkdir -p "$CLUSTER_DIR/replay/checkpoints" "$CLUSTER_DIR/replay/output"

  # --- 3. the simulator, first: bad inputs stop the replay before it waits ------
  mapfile -t sim_args <"$c/sim_args"
  "$sim" --trace "$c/trace.csv" --format native --tree "$tree" --config "$c/budget.conf" \
    --nodes "$nodes" --gpus-per-node "$gpn" --policy budget "${sim_args[@]}" --requeue-delay "$requeue_delay" \
    --events-json "$work/sim-events.json" --json "$work/sim.json" --no-progress >"$work/sim.txt" ||
    die "budget-sim failed on the compressed trace (inputs in $work; --work DIR keeps them)"

  # --- 4. the real replay --------------------------------------------------------
  say "replaying on $nodes x $gpn GPUs ($SCHEDULER_TYPE, requeue delay $requeue_delay s)"
  python3 "$lib/driver.py" --plan "$c/plan.json" --job-script "$lib/job.sh" \
    --checkpoints "$CLUSTER_DIR/replay/checkpoints" --output-dir "$CLUSTER_DIR/replay/output" \
    --requeue-delay "$requeue_delay" ${deadline:+--deadline "$deadline"} --out "$work/driver.json" &
  driver_pid=$!
  rc=0
  wait "$driver_pid" || rc=$?
  driver_pid=''
  [ "$rc" -eq 0 ] || die "the driver stopped (exit $rc); controller log: $CLUSTER_DIR/log/slurmctld.log" "$rc"
  replay_seconds=$((SECONDS - started))

  # --- 5. what happened, compared ------------------------------------------------
  python3 "$lib/collect.py" --plan "$c/plan.json" --driver "$work/driver.json" --jobcomp "$JOB_COMP_LOC" \
    --log "$CLUSTER_DIR/log/slurmctld.log" --out "$work/real-events.json" || exit 1
  "$repo/scripts/cluster.sh" stop >/dev/null 2>&1 || true
  cluster_started=0
  source_name=${trace:-$spec}
  python3 "$lib/compare.py" --real "$work/real-events.json" --sim "$work/sim-events.json" --factor "$factor" \
    --plan "$c/plan.json" --input "trace=$source_name" --input "tree=$tree" --input "config=${config:-defaults}" \
    --input "scheduler_type=$SCHEDULER_TYPE" --input "requeue_delay_s=$requeue_delay" \
    --input "real_seconds=$replay_seconds" --out "$out" "${asserts[@]}"
}

main "$@"
exit
