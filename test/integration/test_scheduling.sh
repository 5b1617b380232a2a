#!/usr/bin/env bash
# The whole suite as etc/slurm.conf.example activates it, as shipped (only
# the node and partition lines are the cluster's), on 4 nodes x 8 GPUs:
# Slurm's own backfill runs under the suite's time slicing.
#   - head of line: team alpha holds three 8-GPU nodes and half of the
#     fourth with protected jobs; team beta, which ranks first, waits for a
#     whole node. 1-GPU jobs of both teams start within one backfill
#     interval in the 4 free GPUs (sched/builtin would leave them waiting
#     behind beta's job); beta's job stays pending with an expected start;
#   - a heterogeneous job is accepted (slurmctld takes them only under
#     sched/backfill) and runs;
#   - 1-GPU jobs pack onto one node (the example's DefMemPerCPU keeps a job
#     from taking a node's whole memory).
. "$(dirname "$0")/lib.sh"

export SUITE_CONF=$REPO/etc/slurm.conf.example
unset SLURM_CONF_EXTRA SELECT_TYPE PRIORITY_TYPE SCHEDULER_TYPE PREEMPT_TYPE
TREE=$CLUSTER_DIR/etc/budget-tree.json
LOG=$CLUSTER_DIR/log/slurmctld.log
tree=$(mktemp /tmp/test_scheduling.tree.XXXXXX)
cat > "$tree" <<'JSON'
{ "name": "cluster", "children": [
  { "name": "alpha", "share": 50, "account": "alpha" },
  { "name": "beta", "share": 50, "account": "beta" } ] }
JSON
export BUDGET_TREE_JSON=$tree
export BUDGET_CONF="# budget.conf of test_scheduling
BudgetTree=$TREE
LookbackWindow=1:00:00
LedgerBucket=0:10
RecalcInterval=2
TimesliceInterval=2"
# The example's bf_interval, read from the file as shipped.
BF_INTERVAL=$(sed -n 's/^SchedulerParameters=.*bf_interval=\([0-9]*\).*/\1/p' "$SUITE_CONF")

cluster_start -n 4 -g 8
rm -f "$tree"
conf_has() { grep -qx "$1" "$SLURM_CONF" || { echo "no line '$1' in $SLURM_CONF"; return 1; }; }
check "slurm.conf holds the example's SchedulerType=sched/backfill" conf_has "SchedulerType=sched/backfill"
# The README's activation block is the example, line for line.
readme_block() { sed -n '/^`slurm.conf`: these lines/,/^`\/etc\/slurm\/plugstack.conf.d\/contract.conf`/p' "$REPO/README.md" | sed -n 's/^    //p' | grep -v '^$'; }
same_as_example() { diff <(readme_block) <(grep -v '^$' "$SUITE_CONF"); }
check "the README's activation block is etc/slurm.conf.example" same_as_example
check "and PreemptType=preempt/timeslice, PriorityType=priority/budget, SelectType=select/topo" \
  bash -c "grep -qx 'PreemptType=preempt/timeslice' '$SLURM_CONF' && grep -qx 'PriorityType=priority/budget' '$SLURM_CONF' && grep -qx 'SelectType=select/topo' '$SLURM_CONF'"
log_has() { grep -q -- "$1" "$LOG" || { echo "no '$1' in $LOG"; return 1; }; }
check "the time-slicing thread runs in preempt/timeslice" poll 20 log_has "preempt/timeslice: loaded; a pass every 2 s"
check "the example as shipped draws no warning from preempt/timeslice (test_slurm_settings.sh)" \
  bash -c "! grep 'preempt/timeslice: WARNING' '$LOG'"

# sleep_job ACCOUNT GPUS MINUTES MIN_RUNTIME [sbatch args...]
sleep_job() {
  local account=$1 gpus=$2 minutes=$3 min=$4; shift 4
  submit -o /dev/null -A "$account" --gres=gpu:"$gpus" --time="$minutes" --min-runtime="$min" "$@" --wrap 'sleep 3000'
}
running() { wait_state "$1" RUNNING "${2:-30}"; }

# --- Packing: 1-GPU jobs share a node -----------------------------------------
p1=$(sleep_job alpha 1 10 1) || fail_now "submit p1"
p2=$(sleep_job alpha 1 10 1) || fail_now "submit p2"
both_running() { running "$1" "$3" && running "$2" "$3"; }
check "two 1-GPU jobs run" both_running "$p1" "$p2" 30
check "they share one node (packing; memory is not the whole node's)" \
  bash -c "[ \"\$(squeue -h -j $p1 -o %N)\" = \"\$(squeue -h -j $p2 -o %N)\" ]"
scancel "$p1" "$p2"
poll 30 bash -c "[ -z \"\$(squeue -h -t R,CG -o %i)\" ]" >/dev/null

# --- Head of line ---------------------------------------------------------------
# alpha: three whole nodes and 4 GPUs of the fourth, protected for 30 min;
# time limits 60 min (8-GPU jobs) and 120 min (the 4-GPU job).
a=()
for i in 1 2 3; do a+=("$(sleep_job alpha 8 60 30)") || fail_now "submit alpha $i"; done
a+=("$(sleep_job alpha 4 120 30)") || fail_now "submit alpha 4"
for id in "${a[@]}"; do check "alpha's job $id runs" running "$id"; done
# beta has used nothing: once priority/budget's pass charged alpha, beta's
# jobs rank first.
big=$(sleep_job beta 8 60 10) || fail_now "submit beta's 8-GPU job"
check "beta's 8-GPU job is pending (alpha's jobs are protected)" bash -c "sleep 3; [ \"\$(squeue -h -j $big -o %T)\" = PENDING ]"
t0=$SECONDS
da=$(sleep_job alpha 1 10 5) || fail_now "submit alpha's 1-GPU job"
db=$(sleep_job beta 1 10 5) || fail_now "submit beta's 1-GPU job"
limit=$((BF_INTERVAL + 10))
check "both 1-GPU jobs start within one backfill interval ($BF_INTERVAL s, +10 s of slack)" \
  both_running "$da" "$db" "$limit"
echo "     1-GPU jobs running $((SECONDS - t0)) s after submission"
check "beta's 8-GPU job is still pending" bash -c "[ \"\$(squeue -h -j $big -o %T)\" = PENDING ]"
start_of() { squeue --start -h -j "$1" -o %S; }
has_start() { local s; s=$(start_of "$1"); case $s in N/A | "" ) echo "no start estimate: '$s'"; return 1 ;; esac; echo "expected start $s"; }
check "beta's 8-GPU job has an expected start (squeue --start)" poll $((BF_INTERVAL + 10)) has_start "$big"
echo "     $(has_start "$big")"

# --- A heterogeneous job ---------------------------------------------------------
# On a free cluster: Slurm's backfill reserves a whole node for each planned
# component, so two components never start together on one node's last
# GPUs (stock Slurm does the same).
scancel --quiet -A alpha; scancel --quiet -A beta
poll 30 bash -c "[ -z \"\$(squeue -h -o %i)\" ]" >/dev/null
het=$(submit -o /dev/null -A beta --gres=gpu:1 --time=5 --min-runtime=2 : -A beta --gres=gpu:1 --time=5 --wrap 'sleep 20') ||
  fail_now "submit a heterogeneous job"
check "a heterogeneous job is accepted ($het)" test -n "$het"
het_running() { [ "$(squeue -h -j "$het" -o %T | sort -u)" = RUNNING ] || { squeue -j "$het"; return 1; }; }
check "and runs (both components)" poll $((BF_INTERVAL + 20)) het_running
finish
