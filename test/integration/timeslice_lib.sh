# Shared by test_timeslice.sh and test_timeslice_convergence.sh: the cluster
# settings (sched/backfill, preempt/timeslice, priority/budget, time-compressed:
# a 10-minute window of 5-s buckets, a priority pass, a time-slicing pass and a
# backfill pass every 2 s), the 50/50 tree of teama and teamb, and the helpers
# both use.
# Source it after lib.sh. JobRequeue=1 as in etc/slurm.conf.example: a job
# that is not resumable has Slurm's Requeue=1 too, and the suite's
# preemption must still cancel it by its contract (test_timeslice.sh, a2).

export PRIORITY_TYPE=priority/budget
export PREEMPT_TYPE=preempt/timeslice
export SCHEDULER_TYPE=sched/backfill
export SLURM_CONF_EXTRA="PreemptMode=REQUEUE
JobRequeue=1
SchedulerParameters=bf_interval=2,bf_resolution=1,bf_continue"
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
# The suite's notes on a job: its SystemComment (libbudget/policy/job_notes.h).
notes_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *SystemComment=//p'; }
notes_have() { local c; c=$(notes_of "$1"); contains "$2" "$c"; }
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
# node_state NODE: sinfo's state of NODE, from the whole node list. Not
# `sinfo -n NODE`: slurmctld answers a one-node query from the allocation
# figures of the last whole-list query (proc_req.c, the refresh is #if 0'd
# out), and 23.02+ clients derive MIXED from those figures
# (src/api/node_info.c), so on 24.11 a node emptied since then reads
# "draining" until some client asks for every node.
node_state() { sinfo -h -N -o '%N %T' | awk -v n="$1" '$1 == n { print $2; exit }'; }
node_state_is() { local s; s=$(node_state "$1"); [ "$s" = "$2" ] || { echo "node $1 is $s, want $2"; return 1; }; }
snapshot_fresh() { [ -s "$STATE/budget_report.json" ]; }

