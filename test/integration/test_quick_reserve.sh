#!/usr/bin/env bash
# The quick-start reserve (libbudget/policy/quick_reserve.h): long
# protections never cover the last open nodes, so a debug job starts at
# once on a cluster whose every other GPU is protected. Eight 8-GPU nodes
# (one spare node at most per eight), the suite as in test_timeslice.sh,
# QuickStartGpus=8 and QuickStartReserveNodes=1:
#   - teama submits eight 8-GPU jobs protected 2 h: seven run, the eighth
#     waits, and n1 (the first open node in Slurm's order) stays idle;
#   - teamb's 8-GPU debug job (protected 5 min: a quick start) starts at
#     once on n1, and nothing is preempted;
#   - free work (no contract) may use the reserve: it runs on n1, and the
#     next debug job preempts it there (rule "unallocated") within a few
#     passes;
#   - throughout, teama's eighth job waits: the reserve is not a way in.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/timeslice_lib.sh"
export SELECT_TYPE=select/topo  # keeps long protections off the reserve
export BUDGET_CONF="$BUDGET_CONF
QuickStartGpus=8
QuickStartReserveNodes=1"

node_of() { job_field "$1" NodeList; }
on_node() { local n; n=$(node_of "$1"); [ "$n" = "$2" ] || { echo "job $1 runs on $n, want $2"; return 1; }; }
running_count_is() {
  local n; n=$(squeue -h -t R -A "$1" -o %i | wc -l)
  [ "$n" = "$2" ] || { echo "$1 runs $n jobs, want $2"; squeue; return 1; }
}
never_requeued() { local id; for id in "$@"; do [ "$(restarts "$id")" = 0 ] || { echo "job $id was requeued"; return 1; }; done; }
seconds_to_start() { echo $(( $(start_epoch "$1") - $2 )); }
# reserve_is NAMES: select/topo's published state names these reserve nodes.
reserve_is() {
  local got
  got=$(python3 -c "import json; print(' '.join(json.load(open('$STATE/select_topo_state.json')).get('quick_reserve', ['?'])))")
  [ "$got" = "$1" ] || { echo "published reserve: '$got', want '$1'"; return 1; }
}

cluster_start -n 8 -g 8

long=()
for i in 1 2 3 4 5 6 7 8; do
  id=$(job teama 2:00:00 1 --resumable) || fail_now "submit teama's job $i"
  long+=("$id")
done
check "seven of teama's eight 2-hour jobs start" poll 30 running_count_is teama 7
sleep 6  # three backfill and time-slicing passes
check "the eighth still waits" state_is "${long[7]}" PENDING
check "n1, the reserve, stays idle" node_state_is n1 idle
check "select/topo publishes n1 as the reserve" poll 10 reserve_is n1
check "sbudget metrics counts one reserve node" \
  poll 10 bash -c "$BUILD_DIR/src/sbudget/sbudget metrics | grep -qx 'slurm_budget_quick_reserve_nodes 1'"

submitted=$(date +%s)
d1=$(job teamb 5:00 1) || fail_now "submit teamb's debug job"
check "teamb's 8-GPU debug job starts" wait_state "$d1" RUNNING 20
echo "     the debug job started $(seconds_to_start "$d1" "$submitted") s after its submission"
check "... on n1" on_node "$d1" n1
check "... with nothing preempted" never_requeued "${long[@]:0:7}"
check "teama's eighth job still waits" state_is "${long[7]}" PENDING

scancel --quiet "$d1"
check "the debug job leaves" poll 30 eval '! state_is "$d1" RUNNING >/dev/null'
free=$(submit -o /dev/null -A teama -N 1 --gres=gpu:8 --min-runtime=0 --wrap 'sleep 600') \
  || fail_now "submit free work"
check "free work (no contract) starts on the reserve" wait_state "$free" RUNNING 20
check "... on n1" on_node "$free" n1
submitted=$(date +%s)
d2=$(job teamb 5:00 1) || fail_now "submit the second debug job"
check "the next debug job starts" wait_state "$d2" RUNNING 30
echo "     the debug job started $(seconds_to_start "$d2" "$submitted") s after its submission"
check "... on n1, in place of the free work" on_node "$d2" n1
check "... which it preempted (rule unallocated: free work)" poll 10 notes_have "$free" "(rule: unallocated)"
check "teama's 2-hour jobs still run, none requeued" never_requeued "${long[@]:0:7}"
check "teama's eighth job still waits" state_is "${long[7]}" PENDING

finish
