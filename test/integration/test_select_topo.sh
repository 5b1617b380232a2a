#!/usr/bin/env bash
# select/topo on real clusters of 8-GPU nodes:
#   1. packing: a sequence where best fit by free GPUs and cons_tres's own
#      choice differ (free CPUs and free GPUs point different ways); the job
#      needing most of a node, then a whole-node job, start at once under
#      select/topo. The same sequence runs under stock select/cons_tres on a
#      second cluster, and both outcomes and fragmentation figures are
#      printed side by side.
#   2. what cons_tres did still works under the wrapper: CUDA_VISIBLE_DEVICES,
#      preemption (partition priority), sinfo/squeue/scontrol, a slurmctld
#      restart with running jobs.
#   3. topology: multi-node jobs take whole nodes from the fewest switches
#      of topology.conf; equal best fits go to the fuller switch.
#   4. hero job: a whole-cluster job starts within a bounded time while a
#      stream of small protected jobs keeps arriving (HeroWait=0:10,
#      HeroMinNodes=2); the
#      same under stock cons_tres is printed beside it. Then a quick-start
#      job lands on a held node before the hero's promised start, though its
#      protection outlasts the planned start; the planned start moves, the
#      promise does not.
. "$(dirname "$0")/lib.sh"

BASE_DIR=$CLUSTER_DIR
ALL_DIRS=()

# use_cluster NAME: points the Slurm commands (and lib.sh) at a cluster of
# its own directory, so several clusters never share ports or state.
use_cluster() {
  export CLUSTER_DIR=$BASE_DIR-$1
  export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
  ALL_DIRS+=("$CLUSTER_DIR")
}
stop_all() {
  local d
  for d in "${ALL_DIRS[@]}"; do CLUSTER_DIR=$d "$CLUSTER" stop >/dev/null 2>&1 || true; done
}
# start_cluster SELECT_TYPE ARGS...: a cluster with that select plugin.
start_cluster() {
  local select=$1; shift
  SELECT_TYPE=$select cluster_start "$@"
  trap stop_all EXIT
}

node_of() { job_field "$1" NodeList; }
node_is() { [ "$(node_of "$1")" = "$2" ] || { echo "job $1 on '$(node_of "$1")', want $2"; return 1; }; }
running() { wait_state "$1" RUNNING "${2:-15}"; }
# runs_on JOB NODE / runs_not_on JOB NODE: JOB starts within 10 s, on / not on NODE.
runs_on() { running "$1" 10 && node_is "$1" "$2"; }
runs_not_on() { running "$1" 10 && ! node_is "$1" "$2" >/dev/null; }
# runs_beside JOB OTHER: JOB runs, on the node OTHER runs on.
runs_beside() { running "$1" && node_is "$1" "$(node_of "$2")"; }
# free_gpus: "n1=7 n2=0 ..." from sinfo (total minus used), for printing.
free_gpus() {
  sinfo -h -N -p gpu -O 'NodeList:10,Gres:20,GresUsed:40' | awk '{
    split($2, t, ":"); total = t[2] + 0; used = 0
    if (match($3, /gpu:[0-9]+/)) used = substr($3, RSTART + 4, RLENGTH - 4) + 0
    printf "%s=%d ", $1, total - used }'
}
# fragmentation_of "n1=7 n2=0 ...": free GPUs on partially free nodes / all
# free GPUs, as the core defines it (packing.h), for the stock plugin which
# publishes nothing.
fragmentation_of() {
  echo "$1" | tr ' ' '\n' | awk -F= 'NF == 2 { free += $2; if ($2 > 0 && $2 < 8) part += $2 }
    END { if (free == 0) printf "0.00 (0 of 0)"; else printf "%.2f (%d of %d)", part / free, part, free }'
}
state_field() { sed -n "s/^  \"$1\":\([^,]*\),*$/\1/p" "$CLUSTER_DIR/state/select_topo_state.json"; }

# The packing sequence; prints "C=<node> D=<state>@<node> E=<state>@<node> frag=<...>".
# A takes 1 GPU and 12 CPUs of n1, B 6 GPUs and 1 CPU of n2: n1 has more
# free GPUs (7) but fewer free CPUs (4); n3 is empty. C (2 GPUs, 2 CPUs):
# best fit by GPUs is n2 (2 free); cons_tres prefers n1. D needs 7 GPUs, E
# a whole node.
run_sequence() {
  local a b c d e
  a=$(submit -w n1 --gres=gpu:1 -c 12 -t 10 --wrap 'sleep 600') || return 1
  b=$(submit -w n2 --gres=gpu:6 -c 1 -t 10 --wrap 'sleep 600') || return 1
  running "$a" >/dev/null && running "$b" >/dev/null || return 1
  c=$(submit --gres=gpu:2 -c 2 -t 10 --wrap 'sleep 600') || return 1
  running "$c" >/dev/null || return 1
  d=$(submit --gres=gpu:7 -c 2 -t 10 --wrap 'sleep 600') || return 1
  poll 10 state_is "$d" RUNNING >/dev/null
  local free_after_d; free_after_d=$(free_gpus)
  e=$(submit --gres=gpu:8 -c 2 -t 10 --wrap 'sleep 600') || return 1
  poll 10 state_is "$e" RUNNING >/dev/null
  echo "$a $b $c $d $e" > "$CLUSTER_DIR/sequence.jobs"
  echo "C=$(node_of "$c") D=$(job_state "$d")@$(node_of "$d") E=$(job_state "$e")@$(node_of "$e")" \
    "frag_after_D=$(fragmentation_of "$free_after_d") free_after_D=[${free_after_d% }]"
}

# --- 1. packing, select/topo then stock cons_tres ---------------------------------
use_cluster topo
export SLURM_CONF_EXTRA='PreemptType=preempt/partition_prio
PreemptMode=CANCEL
PartitionName=urgent Nodes=ALL PriorityTier=10 State=UP'
start_cluster select/topo -n 3
check "select/topo is the select plugin" grep -Eq '^SelectType *= select/topo' <<<"$(scontrol show config)"
check "select/topo loaded cons_tres (slurmctld log)" \
  grep -q 'select/topo: packing GPUs over select/cons_tres' "$CLUSTER_DIR/log/slurmctld.log"
check "the slurmds load it too but log nothing of it" \
  bash -c "! cat $CLUSTER_DIR/log/slurmd.n*.log | grep -q 'select/topo:'"

topo_out=$(run_sequence)
topo_jobs=$(cat "$CLUSTER_DIR/sequence.jobs")
topo_frag=$(state_field fragmentation)
check "C goes to the best fit by GPUs (n2), not the node with more free GPUs" contains "C=n2 " "$topo_out"
check "D (7 GPUs) starts at once on n1, leaving n3 whole" contains "D=RUNNING@n1 " "$topo_out"
check "E (a whole node) starts at once on n3" contains "E=RUNNING@n3 " "$topo_out"
check "the state file has the fragmentation figure" test -n "$topo_frag"
check "the log has the fragmentation figure" \
  grep -Eq 'select/topo: fragmentation [0-9.]+ \([0-9]+ of [0-9]+ free GPUs cannot host a whole-node job\)' \
  "$CLUSTER_DIR/log/slurmctld.log"

# --- 2. cons_tres's behaviour under the wrapper (same cluster) -----------------------
scancel $topo_jobs
poll 30 bash -c '[ -z "$(squeue -h -t R,CG)" ]' >/dev/null
check "the state file shows all 24 GPUs free again" poll 10 bash -c "grep -q '\"free_gpus\":24,' $CLUSTER_DIR/state/select_topo_state.json"
out=$CLUSTER_DIR/cvd.out
id=$(submit --gres=gpu:3 -o "$out" --wrap 'echo "CVD=$CUDA_VISIBLE_DEVICES"') || fail_now "sbatch a GPU job"
check "a 3-GPU job completes" wait_state "$id" COMPLETED 30
check "GPU binding: the job sees 3 GPUs in CUDA_VISIBLE_DEVICES" grep -qx 'CVD=0,1,2' "$out"
check "sinfo shows 3 nodes with gpu:8" poll 10 bash -c '[ "$(sinfo -h -N -p gpu -o "%N %G" | grep -c "gpu:8")" -eq 3 ]'

# Fallback: the best fit by GPUs (n1, 2 free) has no free CPU; cons_tres
# refuses it there and the core's next choice is taken, at once.
f=$(submit -w n1 --gres=gpu:6 -c 16 -t 10 --wrap 'sleep 600') || fail_now "sbatch f"
check "a job takes 6 GPUs and all 16 CPUs of n1" running "$f"
g=$(submit --gres=gpu:2 -c 1 -t 10 --wrap 'sleep 600') || fail_now "sbatch g"
check "fallback: a 2-GPU job whose best fit (n1) has no CPU left starts elsewhere at once" runs_not_on "$g" n1
scancel "$f" "$g"
poll 30 bash -c '[ -z "$(squeue -h)" ]' >/dev/null
# Among equal fits (all nodes empty) Slurm's node order decides: Weight.
scontrol update nodename=n[1-2] weight=10
h=$(submit --gres=gpu:2 -t 10 --wrap 'sleep 600') || fail_now "sbatch h"
check "among equal fits the node with the lowest Weight (n3) wins" runs_on "$h" n3
scancel "$h"
poll 30 bash -c '[ -z "$(squeue -h)" ]' >/dev/null
scontrol update nodename=n[1-3] weight=1

low=$(submit -p gpu -N 3 --gres=gpu:8 -t 10 --wrap 'sleep 600') || fail_now "sbatch the low job"
check "a low-priority job takes the whole cluster" running "$low"
# squeue %b: "gres:gpu:8" on 22.05, "gres/gpu:8" on 23.02+ (TRES names).
gres_shown="gres:gpu:8"
[ "$SLURM_SERIES" -ge 2302 ] && gres_shown="gres/gpu:8"
check "squeue lists it with its GPUs" contains "$gres_shown" "$(squeue -h -j "$low" -o '%b')"
check "scontrol shows its GPUs in use on n1" contains "GresUsed=gpu:8" "$(scontrol -d show node n1)"
urgent=$(submit -p urgent --gres=gpu:4 -t 10 --wrap 'sleep 600') || fail_now "sbatch the urgent job"
check "preemption: the urgent job starts" running "$urgent" 40
check "preemption: the low job was cancelled for it" poll 20 bash -c "scontrol show job $low | grep -q 'JobState=\(CANCELLED\|PREEMPTED\)'"

r1=$(submit --gres=gpu:4 -t 10 --wrap 'sleep 600') || fail_now "sbatch r1"
check "a second 4-GPU job runs" running "$r1"
check "best fit: it packs beside the urgent job's 4 GPUs" runs_beside "$r1" "$urgent"
before=$(squeue -h -t R -o '%i %N' | sort)
"$CLUSTER" restart-ctld >/dev/null 2>&1 || fail_now "slurmctld restarts"
check "after a slurmctld restart the jobs still run where they ran" \
  bash -c "[ \"\$(squeue -h -t R -o '%i %N' | sort)\" = '$before' ]"
check "after the restart GPU use is restored (8 of 24 in use)" \
  poll 20 bash -c "grep -q '\"free_gpus\":16,' $CLUSTER_DIR/state/select_topo_state.json"
# Allocations were restored, not forgotten: two more 4-GPU jobs share one
# node and a whole-node job still finds the third.
r2=$(submit --gres=gpu:4 -t 10 --wrap 'sleep 600') || fail_now "sbatch r2"
# A restarted slurmctld schedules once its nodes have answered again: give
# it longer than a job start (15 s was missed once on 2 busy cores).
check "after the restart a new 4-GPU job starts" running "$r2" 45
r3=$(submit --gres=gpu:4 -t 10 --wrap 'sleep 600') || fail_now "sbatch r3"
check "the next 4-GPU job packs beside it" runs_beside "$r3" "$r2"
check "scontrol reconfigure works with select/topo" scontrol reconfigure
w=$(submit --gres=gpu:8 -t 10 --wrap 'sleep 600') || fail_now "sbatch w"
check "after it a whole-node job still starts on the last whole node" running "$w"
check "no node has more than 8 GPUs in use" bash -c "! sinfo -h -N -p gpu -O GresUsed:40 | grep -Eq 'gpu:(9|[1-9][0-9])'"
scancel $urgent $r1 $r2 $r3 $w 2>/dev/null
squeue -h -o %i | xargs -r scancel
cluster_stop

use_cluster cons_tres
start_cluster select/cons_tres -n 3
stock_out=$(run_sequence)
cluster_stop

echo "sequence under select/topo:      $topo_out (state file: $topo_frag)"
echo "sequence under select/cons_tres: $stock_out"
check "under stock cons_tres C went elsewhere (the two choices differ)" bash -c "! grep -q 'C=n2 ' <<<'$stock_out'"

# --- 3. topology groups (switches of topology.conf) ---------------------------------
use_cluster topology
unset SCHEDULER_TYPE BUDGET_CONF
export SLURM_CONF_EXTRA=''
start_cluster select/topo -n 4
# cluster.sh writes no topology.conf: add one and restart slurmctld on it.
printf 'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n' \
  > "$CLUSTER_DIR/etc/topology.conf"
echo 'TopologyPlugin=topology/tree' >> "$SLURM_CONF"
"$CLUSTER" restart-ctld >/dev/null 2>&1 || fail_now "slurmctld restarts with topology.conf"
check "slurmctld sees the two switches" contains "SwitchName=s2 Level=0" "$(scontrol show topology)"
t1=$(submit -w n2 --gres=gpu:1 -t 10 --wrap 'sleep 600') || fail_now "sbatch t1"
check "a 1-GPU job runs on n2 (switch s1)" runs_on "$t1" n2
# Whole free nodes: n1 (s1), n3 and n4 (s2). Two nodes from one switch: s2.
t2=$(submit -N 2 --gres=gpu:8 -t 10 --wrap 'sleep 600') || fail_now "sbatch t2"
check "a 2-node job takes whole nodes from one switch (n[3-4]), not n1 + n3" runs_on "$t2" 'n[3-4]'
scancel "$t1" "$t2"
poll 30 bash -c '[ -z "$(squeue -h)" ]' >/dev/null
# n1 and n3 have 6 free GPUs each; s1 has 6 + 8 free, s2 6 + 0: the tie goes
# to the fuller switch, s2, so n3 (not the lower-indexed n1).
for spec in "n1 2" "n3 2" "n4 8"; do
  set -- $spec
  id=$(submit -w "$1" --gres=gpu:"$2" -t 10 --wrap 'sleep 600') || fail_now "sbatch on $1"
  running "$id" >/dev/null
done
t3=$(submit --gres=gpu:2 -t 10 --wrap 'sleep 600') || fail_now "sbatch t3"
check "equal best fits (n1, n3 with 6 free) go to the fuller switch: n3" runs_on "$t3" n3
cluster_stop

# --- 4. hero job -----------------------------------------------------------------
export SCHEDULER_TYPE=sched/backfill
export SLURM_CONF_EXTRA='SchedulerParameters=bf_interval=1'
# QuickStartMinRuntime=5:00: the stream below (10 min) is not quick-start
# work, which may use held nodes until the hero's promised start (4b).
export BUDGET_CONF='HeroWait=0:10
HeroMinNodes=2
DefaultMinRuntime=10:00
QuickStartMinRuntime=5:00
MaxMinRuntime=8:00:00'

# stream SECONDS: 1-GPU jobs without a time limit, two a second, each
# protected for 10 min (DefaultMinRuntime) though it ends after 6 s: never
# preemptible in time, so only a hold can make room for a big job.
stream() {
  local until=$((SECONDS + $1))
  while [ $SECONDS -lt $until ]; do
    sbatch -Q --gres=gpu:1 -c 1 -o /dev/null --wrap 'sleep 6' >/dev/null 2>&1
    sleep 0.5
  done
}
# hero_run LIMIT: fills the cluster with the stream, submits a whole-cluster
# job and keeps the stream going; prints the hero's id and its wait in
# seconds ("pending" if it had not started after LIMIT s).
hero_run() {
  local limit=$1 hero start stream_pid waited
  stream 8
  start=$SECONDS
  hero=$(submit -N 2 --gres=gpu:8 -c 1 -t 5 -o /dev/null --wrap 'sleep 5') || return 1
  stream $((limit + 5)) &
  stream_pid=$!
  if poll "$limit" state_is "$hero" RUNNING >/dev/null; then waited=$((SECONDS - start)); else waited=pending; fi
  kill "$stream_pid" 2>/dev/null; wait "$stream_pid" 2>/dev/null
  echo "$hero $waited"
}
submitted_after() { scontrol show job -o | sed -n 's/^JobId=\([0-9]*\) .*/\1/p' | awk -v h="$1" '$1 > h' | wc -l; }

# The hero in select/topo's state file while it waits (packing_state.h):
# a copy of the first state that names one, whence sbudget metrics' hero wait.
hero_state=$BASE_DIR-hero-state.json
watch_hero() {
  local file=$CLUSTER_DIR/state/select_topo_state.json
  while :; do
    cp "$file" "$hero_state.tmp" 2>/dev/null && jq -e '.hero != null' "$hero_state.tmp" >/dev/null 2>&1 &&
      { mv "$hero_state.tmp" "$hero_state"; return; }
    sleep 0.5
  done
}
# Its wait counts from when it became eligible: its submission here.
hero_since_submit() {
  local submit; submit=$(date -d "$(scontrol show job "$1" | sed -n 's/.*SubmitTime=\([^ ]*\).*/\1/p')" +%s)
  jq -e --argjson h "$1" --argjson t "$submit" \
    '.hero.job_id == $h and .hero.waiting_since >= $t and .hero.waiting_since <= $t + 2' "$hero_state"
}

use_cluster hero
start_cluster select/topo -n 2
rm -f "$hero_state"
watch_hero &
watcher=$!
read -r hero topo_wait < <(hero_run 45)
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
check "the whole-cluster hero job starts within 45 s while small jobs keep arriving" test "$topo_wait" != pending
check "the stream kept arriving while it waited (>= 10 jobs submitted after it)" test "$(submitted_after "$hero")" -ge 10
check "the log names the nodes held for it" grep -q "select/topo: JobId=$hero has waited .* for whole nodes" "$CLUSTER_DIR/log/slurmctld.log"
check "the hold is released once it starts" poll 20 grep -q "hold for JobId=$hero released" "$CLUSTER_DIR/log/slurmctld.log"
check "the state file named the hero and when it became eligible (its submission)" hero_since_submit "$hero"
grep "select/topo: JobId=$hero\|hold for JobId=$hero" "$CLUSTER_DIR/log/slurmctld.log" | sed 's/^/     | /'

# --- 4b. a quick-start job on the held nodes, until the promise ------------------
# n1 runs an 8-GPU job protected for 3 min: a 2-node hero is planned for
# when that protection ends, and n2 is held for it, idle. A 1-GPU job with
# a min-runtime of 4:30 is a quick start (QuickStartGpus=1,
# QuickStartMinRuntime=5:00); its protection outlasts the planned start,
# which kept it off held nodes before the promise rule
# (libbudget/policy/hero_plan.h). This cluster has no time-slicing pass:
# Slurm's backfill starts it, so its time limit (5 min) ends before the
# hero's start by Slurm's reckoning (the blocker's time limit, 10 min). It
# runs on n2 now; the planned start moves to its protection's end, the
# promised start stays.
scancel --state=PENDING >/dev/null 2>&1; scancel >/dev/null 2>&1
poll 30 bash -c '[ -z "$(squeue -h -t RUNNING,COMPLETING)" ]' >/dev/null
blocker=$(submit -w n1 --gres=gpu:8 -c 1 -t 10 --min-runtime=3:00 -o /dev/null --wrap 'sleep 600') || fail_now "sbatch blocker"
running "$blocker" >/dev/null
hero2=$(submit -N 2 --gres=gpu:8 -c 1 -t 5 --min-runtime=1:00 -o /dev/null --wrap 'sleep 5') || fail_now "sbatch hero"
state_file=$CLUSTER_DIR/state/select_topo_state.json
hero_held() { jq -e --argjson h "$hero2" '.hero.job_id == $h and (.hero.nodes | index("n2")) != null' "$state_file"; }
check "the 2-node job becomes the hero, n2 held for it" poll 30 hero_held
promised=$(jq .hero.promised_start "$state_file")
planned=$(jq .hero.planned_start "$state_file")
check "promised = planned start while nothing moved it ($promised, $planned)" test "$promised" = "$planned"
quick=$(submit --gres=gpu:1 -c 1 -t 5 --min-runtime=4:30 -o /dev/null --wrap 'sleep 300') || fail_now "sbatch quick"
quick_start_s=$SECONDS
on_n2() { running "$quick" 30 && node_is "$quick" n2; }
check "the quick-start job (protected 4:30, past the planned start) runs on held n2 before the promise" on_n2
check "... $((SECONDS - quick_start_s)) s after its submission, the hero still waiting" state_is "$hero2" PENDING
moved() {
  jq -e --argjson p "$promised" '(.hero.promised_start | type) == "number" and .hero.promised_start == $p and .hero.planned_start > $p' "$state_file"
}
check "the planned start moved to its protection's end; the promise did not" poll 10 moved
jq -c '.hero | {job_id, planned_start, promised_start, nodes}' "$state_file" | sed 's/^/     state| /'
cluster_stop

use_cluster hero-cons_tres
start_cluster select/cons_tres -n 2
read -r _ stock_wait < <(hero_run 40)
cluster_stop
echo "hero job wait (whole cluster, HeroWait=10 s): select/topo ${topo_wait}s; stock select/cons_tres ${stock_wait}$( [ "$stock_wait" = pending ] && echo ' after 40 s' || echo s)"

finish
