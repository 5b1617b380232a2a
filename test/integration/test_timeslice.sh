#!/usr/bin/env bash
# sched/timeslice and preempt/timeslice on a real cluster, time-compressed (a
# 10-minute window of 5-s buckets, a priority pass and a timeslice pass every
# 2 s, min-runtimes of 10-20 s), two teams at 50/50 on two 8-GPU nodes:
#   - a protected job is never preempted before its min-runtime, even by a far
#     more under-served team; then it is requeued (resumable) or cancelled
#     (not), and shows who preempted it and by which rule;
#   - a multi-node job is preempted whole, never half;
#   - a requeued job gets a fresh protection window when it starts again;
#   - unallocated work (min-runtime 0) is preempted at once by allocated work;
#   - a drained node running a long job promises when it will be empty and
#     empties right after that job's protection ends; the drain is counted;
#   - convergence (a fresh cluster): team A floods both nodes first, team B
#     floods after; the window shares of the two teams converge toward 50/50
#     within a 150-s run, with at most MAX_PREEMPTIONS preemptions.
#   - each job preempted for is the job Slurm starts on the freed GPUs.
# Runs on stock select/cons_tres; `SELECT_TYPE=select/topo` runs the same
# checks over select/topo (both pass: 38 checks each).
. "$(dirname "$0")/lib.sh"

export PRIORITY_TYPE=priority/budget
export PREEMPT_TYPE=preempt/timeslice
export SCHEDULER_TYPE=sched/timeslice
export SLURM_CONF_EXTRA="PreemptMode=REQUEUE
JobRequeue=0"
TREE=$CLUSTER_DIR/etc/budget-tree.json
LOG=$CLUSTER_DIR/log/slurmctld.log
STATE=$CLUSTER_DIR/state
tree=$(mktemp /tmp/test_timeslice.tree.XXXXXX)
cat > "$tree" <<'JSON'
{ "name": "cluster", "children": [
  { "name": "teama", "share": 50, "account": "teama" },
  { "name": "teamb", "share": 50, "account": "teamb" } ] }
JSON
export BUDGET_TREE_JSON=$tree
export BUDGET_CONF="# budget.conf of test_timeslice
BudgetTree=$TREE
LookbackWindow=10:00
LedgerBucket=0:05
RecalcInterval=2
TimesliceInterval=2
UnknownAccount=unallocated"

# job ACCOUNT MIN_RUNTIME NODES [sbatch args...]: 8 GPUs per node, sleeps 600 s.
job() {
  local account=$1 min=$2 nodes=$3; shift 3
  submit -o /dev/null -A "$account" -N "$nodes" --gres=gpu:8 --min-runtime="$min" "$@" --wrap 'sleep 600'
}
epoch_of() { date -d "$1" +%s; }
start_epoch() { epoch_of "$(job_field "$1" StartTime)"; }
comment_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *Comment=//p'; }
comment_has() { local c; c=$(comment_of "$1"); contains "$2" "$c"; }
restarts() { job_field "$1" Restarts; }
# running_until ID EPOCH: the job stays RUNNING until EPOCH (checked every 0.5 s).
running_until() {
  while [ "$(date +%s)" -lt "$2" ]; do
    state_is "$1" RUNNING || return 1
    sleep 0.5
  done
}
# requeued ID: the job left its nodes and waits to run again.
requeued() {
  local s; s=$(job_state "$1")
  [ "$(restarts "$1")" -ge 1 ] && { [ "$s" = PENDING ] || [ "$s" = REQUEUED ]; } || { echo "job $1: $s, restarts $(restarts "$1")"; return 1; }
}
ended_as() { local s; s=$(job_state "$1"); case " $2 " in *" $s "*) return 0 ;; esac; echo "job $1 is $s, want one of $2"; return 1; }
busy_nodes() { sinfo -h -N -o '%N %t' | awk '$2 ~ /alloc|mix|comp/ {n++} END {print n+0}'; }
busy_nodes_are() { [ "$(busy_nodes)" = "$1" ] || { echo "busy nodes: $(busy_nodes), want $1"; sinfo -N; return 1; }; }
no_jobs_running() { [ -z "$(squeue -h -t R,CG -o %i)" ] || { squeue; return 1; }; }
clear_jobs() { scancel --quiet -A teama; scancel --quiet -A teamb; poll 30 no_jobs_running >/dev/null; }
log_has() { grep -q -- "$1" "$LOG" || { echo "no '$1' in $LOG"; return 1; }; }
count_in_state() { python3 -c "import json,sys; print(json.load(open('$STATE/timeslice_state.json')).get('$1', 0))" 2>/dev/null || echo 0; }
node_reason() { scontrol show node "$1" | sed -n 's/^ *Reason=//p'; }
node_state_is() { local s; s=$(sinfo -h -n "$1" -o %T); [ "$s" = "$2" ] || { echo "node $1 is $s, want $2"; return 1; }; }
snapshot_fresh() { [ -s "$STATE/budget_report.json" ]; }

cluster_start -n 2 -g 8
check "preempt/timeslice is loaded" poll 20 log_has "preempt/timeslice: loaded"
check "sched/timeslice is loaded (builtin scheduling plus a 2-s pass)" poll 20 log_has "sched/timeslice: loaded; builtin scheduling plus a pass every 2 s"
check "priority/budget publishes its standings" poll 20 snapshot_fresh

# --- Protection, then requeue; a multi-node job goes whole -------------------
a1=$(job teama 0:20 2 --resumable) || fail_now "submit a1"
check "teama's 2-node job a1 runs on both nodes" wait_state "$a1" RUNNING 30
a1_end=$(( $(start_epoch "$a1") + 20 ))
# teamb has used nothing: far more under-served than teama.
b1=$(job teamb 0:20 1 --resumable) || fail_now "submit b1"
check "a1 is not preempted before its min-runtime (20 s) by the under-served team" running_until "$a1" $((a1_end - 1))
check "b1 waits while a1 is protected" state_is "$b1" PENDING
check "a1 (resumable) is requeued right after its protection ends" poll 10 requeued "$a1"
check "a1 shows who preempted it and the rule" comment_has "$a1" "preempted by job $b1 at "
check "the rule is the over-served allocation" comment_has "$a1" "(rule: over-served allocation)"
explain_has() { local out; out=$("$BUILD_DIR/src/sbudget/sbudget" explain "$1" 2>&1); contains "$2" "$out"; }
check "sbudget explain names a1's preemptor and rule" \
  explain_has "$a1" "by job $b1, rule \"over-served allocation\"; requeued (resumable)"
check "b1 runs" wait_state "$b1" RUNNING 20
check "a1 left both of its nodes (never half-preempted): one node busy, with b1" poll 10 busy_nodes_are 1
check "the log names preemptor, preemptee, both usage ratios and the rule" \
  poll 5 log_has "preempts job $a1 (teama, usage ratio "
echo "     log| $(grep -m1 "preempts job $a1 " "$LOG" | sed 's/.*\(timeslice: \)/\1/')"

# --- A requeued job starts again with a fresh protection window --------------
scancel "$b1"
check "a1 starts again once b1 is gone" wait_state "$a1" RUNNING 40
a1_end2=$(( $(start_epoch "$a1") + 20 ))
b2=$(job teamb 0:20 1 --resumable) || fail_now "submit b2"
check "restarted a1 is protected again for 20 s from its new start" running_until "$a1" $((a1_end2 - 1))
check "then requeued again" poll 10 requeued "$a1"
clear_jobs

# --- A non-resumable job is cancelled ----------------------------------------
a2=$(job teama 0:15 2) || fail_now "submit a2"
check "teama's non-resumable a2 runs" wait_state "$a2" RUNNING 30
a2_end=$(( $(start_epoch "$a2") + 15 ))
b3=$(job teamb 0:15 1 --resumable) || fail_now "submit b3"
check "a2 is not preempted before its min-runtime (15 s)" running_until "$a2" $((a2_end - 1))
check "a2 (not resumable) is cancelled after it" poll 10 ended_as "$a2" "PREEMPTED CANCELLED"
check "a2 shows who preempted it" comment_has "$a2" "preempted by job $b3 at "
check "b3 runs" wait_state "$b3" RUNNING 20
clear_jobs

# --- Unallocated work is preempted at once -----------------------------------
u1=$(job teamb 0 2 --resumable) || fail_now "submit u1"
check "unallocated u1 (min-runtime 0) runs on both nodes" wait_state "$u1" RUNNING 30
a3=$(job teama 0:10 1 --resumable) || fail_now "submit a3"
t0=$SECONDS
check "u1 is preempted at once by allocated a3 (within 6 s)" poll 6 requeued "$u1"
echo "     u1 preempted $((SECONDS - t0)) s after a3 was submitted"
check "u1's reason names the unallocated rule" comment_has "$u1" "(rule: unallocated)"
check "a3 runs" wait_state "$a3" RUNNING 20
clear_jobs

# --- Drain at contract end ----------------------------------------------------
drains_before=$(count_in_state automated_drains)
d1=$(job teama 0:20 1 --resumable -w n1) || fail_now "submit d1"
check "d1 runs on n1" wait_state "$d1" RUNNING 30
d1_end=$(( $(start_epoch "$d1") + 20 ))
scontrol update nodename=n1 state=drain reason=repair
promise="repair; empty by $(date -d "@$d1_end" +%Y-%m-%dT%H:%M:%S)"
check "n1's reason says when it will be empty ($promise)" poll 6 bash -c "[ \"\$(scontrol show node n1 | sed -n 's/^ *Reason=//p' | sed 's/ \[.*//')\" = '$promise' ] || { scontrol show node n1 | grep Reason; exit 1; }"
check "protected d1 is left alone on the draining node" running_until "$d1" $((d1_end - 1))
check "d1 is requeued right after its protection ends" poll 6 requeued "$d1"
check "d1's reason names the drain" comment_has "$d1" "node n1 is draining (rule: drain at contract end)"
check "n1 is empty (drained)" poll 15 node_state_is n1 drained
check "the automated drain is counted in timeslice_state.json" \
  bash -c "[ \$(python3 -c \"import json; print(json.load(open('$STATE/timeslice_state.json'))['automated_drains'])\") -eq $((drains_before + 1)) ]"
check "the log says the drain is automated and when n1 will be empty" log_has "node n1 will be empty by "
scontrol update nodename=n1 state=resume
clear_jobs

# --- Convergence: two teams at 50/50 flooding two nodes ------------------------
# Bound: a job is preempted only after its protection (10 s) and, between two
# allocated teams, only when the preemptor's team is behind by at least
# 8 GPUs x 10 s (no ping-pong), so over 150 s and 2 nodes at most
# 2 x 150 / 10 = 30 preemptions could ever happen; we require far fewer.
# Measured: 10 in each of 5 runs (both select plugins): about every 30 s the
# team behind takes back both nodes. The bound leaves room for a loaded CI
# machine shifting a turn.
MAX_PREEMPTIONS=14
RUN=150
cluster_stop
cluster_start -n 2 -g 8
log_from=$(($(wc -l < "$LOG") + 1))
check "fresh cluster for the convergence run" poll 20 snapshot_fresh
for i in 1 2 3 4 5 6; do job teama 0:10 1 --resumable >/dev/null || fail_now "flood teama"; done
poll 30 busy_nodes_are 2 >/dev/null
sleep_until=$((SECONDS + 20))
while [ $SECONDS -lt $sleep_until ]; do sleep 1; done  # teama alone for 20 s: 320 GPU-s ahead
for i in 1 2 3 4 5 6; do job teamb 0:10 1 --resumable >/dev/null || fail_now "flood teamb"; done
# GPU-s each team held during the flood: running GPUs x the time until the
# next sample.
ga=0; gb=0; end=$((SECONDS + RUN)); last=$(date +%s)
while [ $SECONDS -lt $end ]; do
  read -r a b < <(squeue -h -t R -o '%a %D' | awk '$1=="teama"{a+=8*$2} $1=="teamb"{b+=8*$2} END{print a+0, b+0}')
  sleep 1
  now=$(date +%s); ga=$((ga + a * (now - last))); gb=$((gb + b * (now - last))); last=$now
done
figures=$(python3 - "$STATE/budget_report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = {x["path"]: x for x in r["nodes"]}
a, b = n["teama"]["window_usage"], n["teamb"]["window_usage"]
print("%.0f %.0f %.3f %.3f %.3f" % (a, b, a / (a + b), n["teama"]["usage_ratio"], n["teamb"]["usage_ratio"]))
PY
)
read -r wa wb share_a ratio_a ratio_b <<<"$figures"
preemptions=$(count_in_state preemptions)
echo "     convergence: flood ${RUN} s on 16 GPUs: teama held $ga GPU-s, teamb $gb GPU-s (sampled about each second)"
echo "     convergence: window usage teama $wa GPU-s, teamb $wb GPU-s: teama's share $share_a (entitled 0.500); usage ratios $ratio_a / $ratio_b"
echo "     convergence: preemptions $preemptions (bound $MAX_PREEMPTIONS)"
check "window shares converge toward 50/50 (teama's share in [0.40, 0.60])" \
  python3 -c "import sys; s=float('$share_a'); sys.exit(0 if 0.40 <= s <= 0.60 else 1)"
check "teamb got more than teama during the flood (it started 320 GPU-s behind)" [ "$gb" -gt "$ga" ]
check "preemptions are bounded (1 <= $preemptions <= $MAX_PREEMPTIONS)" \
  bash -c "[ $preemptions -ge 1 ] && [ $preemptions -le $MAX_PREEMPTIONS ]"
# The job the thread preempts for is the one Slurm starts on the freed GPUs
# (the planner follows the core's job order, as Slurm's scheduler does: a
# requeued job, whose submit time the requeue reset, queues behind its
# team's jobs that never ran). Before that fix half the notes named a job
# that went on waiting. One miss is tolerated: priorities are recomputed
# every 2 s and may flip the two teams between a pass and Slurm's start.
read -r served named < <(tail -n +"$log_from" "$LOG" | awk '
  /sched\/timeslice: job [0-9]+ \(.*\) preempts job/ { match($0, /sched\/timeslice: job [0-9]+/);
    preemptor = substr($0, RSTART + 21, RLENGTH - 21); named++; next }
  /sched: Allocate JobId=/ && preemptor != "" { match($0, /JobId=[0-9]+/);
    if (substr($0, RSTART + 6, RLENGTH - 6) == preemptor) served++; preemptor = "" }
  END { print served + 0, named + 0 }')
echo "     convergence: $served of $named preemptors started on the GPUs freed for them"
check "each preemptor is the job Slurm starts next ($served of $named, at most one miss)" \
  bash -c "[ $named -ge 1 ] && [ $served -ge $((named - 1)) ]"
finish
