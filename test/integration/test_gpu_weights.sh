#!/usr/bin/env bash
# GPU types have different worth (libbudget/policy/gpu_worth.h): with
# GpuTypeWeights=b200:2.0 on scripts/cluster.sh's mixed fleet (n1, n2 B200;
# n3, n4 H100; 8 GPUs each), priority/budget charges weighted GPU-seconds:
#   - the same 4-GPU untyped job is charged 4 x 2 a second on a B200 node
#     (teama, n1) and 4 x 1 on an H100 node (teamb, n3): twice as much;
#   - a typed request (--gres=gpu:b200:2, teamc) is charged at its type's
#     weight: 2 x 2 a second;
#   - the capacity is 2 x 8 x 2 + 2 x 8 x 1 = 48 weighted GPUs; the report
#     snapshot records the weights, and `sbudget -l` says its unit is
#     weighted GPU-hours, with the weights;
#   - a change of the weights at `scontrol reconfigure` is logged once and
#     rescales nothing already charged; the capacity follows at once
#     (b200:3: 2 x 8 x 3 + 16 = 64); without weights sbudget says GPU-hours.
# Time-compressed: a pass every 2 s, a 10-minute window of 5-s buckets.
. "$(dirname "$0")/lib.sh"
SBUDGET=$BUILD_DIR/src/sbudget/sbudget
[ -x "$SBUDGET" ] || fail_now "sbudget is built in $BUILD_DIR"
TREE=$CLUSTER_DIR/etc/budget-tree.json
CONF=$CLUSTER_DIR/etc/budget.conf
LOG=$CLUSTER_DIR/log/slurmctld.log
REPORT=$CLUSTER_DIR/state/budget_report.json
tree=$(mktemp /tmp/test_gpu_weights.tree.XXXXXX)
cat > "$tree" <<'JSON'
{ "name": "cluster", "children": [
  { "name": "teama", "share": 40, "account": "teama" },
  { "name": "teamb", "share": 40, "account": "teamb" },
  { "name": "teamc", "share": 20, "account": "teamc" } ] }
JSON
export BUDGET_TREE_JSON=$tree
export PRIORITY_TYPE=priority/budget
export GPU_TYPES="b200 b200 h100 h100"
conf_with() {
  budget_conf_text "BudgetTree=$TREE" LookbackWindow=10:00 LedgerBucket=0:05 RecalcInterval=2 \
    UnknownAccount=unallocated "$@"
}
export BUDGET_CONF=$(conf_with GpuTypeWeights=b200:2.0)
cluster_start -n 4 -g 8
rm -f "$tree"

# report_value JQ: one value of the report snapshot.
report_value() { jq -r "$1" "$REPORT" 2>/dev/null; }
usage_of() { report_value ".nodes[] | select(.path == \"$1\") | .window_usage"; }
elapsed() { echo $(( $(date -d "$(job_field "$1" EndTime)" +%s) - $(date -d "$(job_field "$1" StartTime)" +%s) )); }
# charged_at ACCOUNT JOB RATE: the report shows ACCOUNT charged RATE
# weighted GPUs x the seconds JOB ran.
charged_at() {
  local want=$(( $3 * $(elapsed "$2") )) got; got=$(usage_of "$1")
  awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g == w) }' || { echo "$1: $got GPU-s, want $want"; return 1; }
}
equals() { [ "$1" = "$2" ] || { echo "got '$1', want '$2'"; return 1; }; }
log_count() { grep -c -- "$1" "$LOG"; }
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
# reconfigure_with KEY=VALUE...: a new budget.conf, and `scontrol
# reconfigure` (Slurm 23.11+ re-executes slurmctld: wait for it).
reconfigure_with() {
  conf_with "$@" > "$CONF"
  scontrol reconfigure || return 1
  sleep 1
  poll 60 ctld_up
}

check "the weights in force are logged at start" \
  poll 20 grep -q 'priority/budget: GpuTypeWeights changed at start from none (every GPU 1.0) to b200:2' "$LOG"

# --- the same job on a B200 and on an H100 node; a typed one -------------------
a=$(submit -o /dev/null -A teama -w n1 --gres=gpu:4 --min-runtime=1 --wrap 'sleep 10') || fail_now "submit teama's job"
b=$(submit -o /dev/null -A teamb -w n3 --gres=gpu:4 --min-runtime=1 --wrap 'sleep 10') || fail_now "submit teamb's job"
c=$(submit -o /dev/null -A teamc --gres=gpu:b200:2 --min-runtime=1 --wrap 'sleep 10') || fail_now "submit teamc's job"
for id in $a $b $c; do check "job $id runs and ends" wait_state "$id" COMPLETED 60; done
echo "     ran: teama $(elapsed "$a") s on n1, teamb $(elapsed "$b") s on n3, teamc $(elapsed "$c") s on $(job_field "$c" NodeList)"
check "teama's 4 untyped GPUs on a B200 node: charged 4 x 2 GPU-s a second" poll 20 charged_at teama "$a" 8
check "teamb's same job on an H100 node: 4 x 1 a second, half of it" poll 20 charged_at teamb "$b" 4
check "teamc's --gres=gpu:b200:2: 2 x 2 a second" poll 20 charged_at teamc "$c" 4
check "the capacity is 48 weighted GPUs (2 x 16 + 2 x 8)" equals "$(report_value .capacity_gpus)" 48
check "the report snapshot records the weights" equals "$(jq -c .gpu_weights "$REPORT")" '{"b200":2}'
long=$("$SBUDGET" -l)
printf '%s\n' "$long" | head -n 3 | sed 's/^/     sbudget -l| /'
check "sbudget -l names its unit: weighted GPU-hours, with the weights" \
  contains "GPU time in weighted GPU-hours (GpuTypeWeights=b200:2; other types 1)" "$long"
check "sbudget -l shows the weighted capacity" contains "capacity 48 weighted GPUs" "$long"
check "sbudget --json says the unit" contains '"unit": "weighted GPU-hours"' "$("$SBUDGET" --json)"

# --- a change of the weights: logged once, history not rescaled ----------------
usage_a=$(usage_of teama)
check "reconfigure with GpuTypeWeights=b200:3" reconfigure_with GpuTypeWeights=b200:3
check "the change is logged" \
  poll 20 grep -Eq 'priority/budget: GpuTypeWeights changed at (reconfigure|start) from b200:2 to b200:3' "$LOG"
check "the capacity is in the new weights at once: 64 (2 x 24 + 2 x 8)" poll 20 bash -c "[ \"\$(jq -r .capacity_gpus '$REPORT')\" = 64 ]"
check "teama's usage is not rescaled (still $usage_a GPU-s)" equals "$(usage_of teama)" "$usage_a"
sleep 4  # two more passes
check "the change was logged once" equals "$(log_count 'GpuTypeWeights changed at .* to b200:3')" 1
check "reconfigure without weights" reconfigure_with
check "sbudget -l then says GPU-hours" poll 20 bash -c "'$SBUDGET' -l | grep -q '^GPU time in GPU-hours\$'"
check "and the plain capacity of 32 GPUs" poll 20 bash -c "'$SBUDGET' -l | grep -q 'capacity 32 GPUs'"
finish
