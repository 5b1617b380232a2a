#!/usr/bin/env bash
# Moving a cluster from stock Slurm (priority/multifactor, select/cons_tres,
# sched/backfill, no preemption) to the suite and back, with jobs running and
# queued (doc/admin-guide.md, "Moving from Fair Tree and QOS to the suite,
# and back"). slurm.conf's plugin lines are switched and the daemons
# restarted as the guide says (slurmctld stopped, the slurmd daemons
# restarted, slurmctld started: slurmd loads SelectType too, and one still
# on the old plugin refuses the controller's messages about jobs):
#   - seeding (doc/admin-guide.md's cutover step): with accounting in
#     slurmdbd, `sbudget seed-ledger` refuses while slurmctld runs; with it
#     stopped it charges the cluster's own sacct history into the ledger
#     (a finished job of teamb, the running jobs of both teams), refuses to
#     overwrite that ledger without --force, and after the cutover the report
#     snapshot shows teamb's seeded usage (its finished job, which the plugin
#     never saw run);
#   - cutover: the running jobs keep running on their nodes; the queued ones
#     stay queued and get priority/budget's priorities (no contract record:
#     DefaultMinRuntime, allocated work when it is > 0), a held one stays
#     held; new jobs get a contract record; a job of the team ranked first
#     preempts a job of before the cutover once its DefaultMinRuntime has
#     run, and that job is requeued, as Slurm's Requeue flag (JobRequeue=1)
#     says, not cancelled;
#   - rollback: the running jobs keep running, the queued ones get
#     priority/multifactor's priorities again, and jobs are accepted without
#     job_submit/contract.
. "$(dirname "$0")/lib.sh"

export SELECT_TYPE=select/cons_tres PRIORITY_TYPE=priority/multifactor SCHEDULER_TYPE=sched/backfill
export PREEMPT_TYPE=preempt/none JOB_SUBMIT_PLUGINS=""
unset SUITE_CONF SLURM_CONF_EXTRA
tree=$(mktemp /tmp/test_migration.tree.XXXXXX)
two_team_tree "$tree"
export BUDGET_TREE_JSON=$tree
# DefaultMinRuntime=0:20: the jobs of before the cutover are protected 20 s
# and count as allocated work.
export BUDGET_CONF=$(budget_conf_text "BudgetTree=$CLUSTER_DIR/etc/budget-tree.json" "LookbackWindow=1:00:00" \
  "LedgerBucket=0:05" "RecalcInterval=2" "TimesliceInterval=2" "DefaultMinRuntime=0:20")

cluster_start -n 2 -g 2
rm -f "$tree"
SBUDGET=$BUILD_DIR/src/sbudget/sbudget
[ -x "$SBUDGET" ] || fail_now "sbudget is built in $BUILD_DIR"

# Accounting, so that sacct knows the history seed-ledger reads; GPUs in
# AllocTRES, as the admin guide recommends.
accounting_start
echo "AccountingStorageTRES=gres/gpu" >> "$SLURM_CONF"
cluster_name=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF")
set_up_associations() {
  sacctmgr -i add cluster "$cluster_name" &&
    sacctmgr -i add account teama,teamb Description=budget-tree Organization=budget &&
    sacctmgr -i add user root account=teama &&
    sacctmgr -i add user root account=teamb
}
check "sacctmgr adds the cluster, the tree's accounts and root in both" set_up_associations
"$CLUSTER" restart-ctld >/dev/null || fail_now "slurmctld restarts with slurmdbd"

# History for the seed: teamb's finished job, 2 GPUs for 20 s (40 GPU-s),
# before the jobs below.
done_job=$(submit -A teamb --gres=gpu:2 -N1 -o /dev/null --wrap "sleep 20")
check "a job of teamb runs to its end on stock Slurm" wait_state "$done_job" COMPLETED 60

# set_conf KEY=VALUE...: slurm.conf's line of each KEY replaced (or added).
set_conf() {
  local kv
  for kv in "$@"; do
    sed -i "/^${kv%%=*}=/d" "$SLURM_CONF"
    echo "$kv" >> "$SLURM_CONF"
  done
}
prio() { squeue -h -j "$1" -o %Q 2>/dev/null; }
# allocated_key ID: the priority has bit 31 set, priority/budget's mark of
# allocated work (a multifactor priority here is far below it).
allocated_key() { local p; p=$(prio "$1"); [ -n "$p" ] && [ "$p" -ge 2147483648 ] || { echo "job $1: priority '$p'"; return 1; }; }
multifactor_key() { local p; p=$(prio "$1"); [ -n "$p" ] && [ "$p" -gt 0 ] && [ "$p" -lt 2147483648 ] || { echo "job $1: priority '$p'"; return 1; }; }
nodes_of() { job_field "$1" NodeList; }

# --- before: stock Slurm, two teams' jobs running and queued ---------------------
r1=$(submit -A teama --gres=gpu:2 -N1 -o /dev/null --wrap "sleep 600")
r2=$(submit -A teamb --gres=gpu:2 -N1 -o /dev/null --wrap "sleep 600")
both_run() { wait_state "$r1" RUNNING 30 && wait_state "$r2" RUNNING 30; }
check "before: a job of each team runs on stock Slurm" both_run
p1=$(submit -A teama --gres=gpu:2 -N1 -o /dev/null --wrap "sleep 600")
p2=$(submit -A teamb --gres=gpu:2 -N1 -o /dev/null --wrap "sleep 600")
held=$(submit -A teamb --hold --gres=gpu:1 -o /dev/null --wrap true)
wait_with_multifactor() {
  state_is "$p1" PENDING && state_is "$p2" PENDING && multifactor_key "$p1" && multifactor_key "$p2"
}
check "... and one of each waits, with multifactor's priorities" wait_with_multifactor
r1_nodes=$(nodes_of "$r1") r2_nodes=$(nodes_of "$r2")

# --- cutover ---------------------------------------------------------------------
# --- seeding: the ledger from sacct, with slurmctld stopped -------------------
LEDGER=$CLUSTER_DIR/state/budget_ledger.dat
# slurmdbd has the finished job, and both running jobs, once slurmctld has
# sent their records.
sacct_knows() {
  local out; out=$(sacct -n -X -P -a -o JobID,State --starttime now-1hour)
  contains "$done_job|COMPLETED" "$out" && contains "$r1|RUNNING" "$out" && contains "$r2|RUNNING" "$out"
}
check "sacct knows the finished and the running jobs" poll 30 sacct_knows
refused_while_running() {
  local out
  if out=$("$SBUDGET" seed-ledger --since 1:00:00 2>&1); then echo "seeded while slurmctld runs: $out"; return 1; fi
  contains "slurmctld is running" "$out" && [ ! -e "$LEDGER" ] || { echo "$out"; ls -l "$LEDGER"; return 1; }
}
check "seed-ledger refuses while slurmctld runs, and writes nothing" refused_while_running
kill "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")"
ctld_gone() { ! scontrol ping 2>/dev/null | grep -q UP && ! pgrep -F "$CLUSTER_DIR/run/slurmctld.mypid" >/dev/null; }
check "slurmctld stops" poll 30 ctld_gone
seed_out=$("$SBUDGET" seed-ledger --since 1:00:00 2>&1)
seed_rc=$?
printf '%s\n' "$seed_out" | sed 's/^/     seed-ledger| /'
# teamb: its finished job (2 GPUs x 20 s) and its running job; teama: its
# running job.
seeded() {
  [ "$seed_rc" = 0 ] && [ -s "$LEDGER" ] && contains "wrote $LEDGER" "$seed_out" &&
    contains "runs charged:  3 (of 3 jobs)" "$seed_out"
}
check "with slurmctld stopped, seed-ledger charges the cluster's sacct into the ledger" seeded
ledger_sum=$(md5sum < "$LEDGER")
refused_overwrite() {
  local out
  if out=$("$SBUDGET" seed-ledger --since 1:00:00 2>&1); then echo "overwrote: $out"; return 1; fi
  contains "already holds usage of 2 allocation(s): --force replaces it" "$out" &&
    [ "$(md5sum < "$LEDGER")" = "$ledger_sum" ]
}
check "... and refuses to overwrite that ledger without --force" refused_overwrite

set_conf PriorityType=priority/budget SelectType=select/topo PreemptType=preempt/timeslice \
  PreemptMode=REQUEUE JobSubmitPlugins=contract
"$CLUSTER" restart-daemons >/dev/null 2>&1 || fail_now "slurmctld and the slurmd daemons restart with the suite"
# The report snapshot: teamb's usage exceeds teama's by its finished job's
# 40 GPU-s (both running jobs hold 2 GPUs each since about the same second;
# allow 10 GPU-s for their start times).
usage_of() {
  python3 -c 'import json,sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    if n["path"] == sys.argv[2]: print(int(n["window_usage"]))' "$CLUSTER_DIR/state/budget_report.json" "$1" 2>/dev/null
}
seeded_usage_shows() {
  local a b; a=$(usage_of teama) b=$(usage_of teamb)
  [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge 30 ] || { echo "window usage: teama '$a', teamb '$b' GPU-s"; return 1; }
}
check "after the cutover, the report shows teamb's seeded usage (its finished job)" poll 30 seeded_usage_shows
kept_running() {
  state_is "$1" RUNNING && [ "$(nodes_of "$1")" = "$2" ] || { echo "job $1 on '$(nodes_of "$1")', was on '$2'"; return 1; }
}
both_kept() { kept_running "$1" "$2" && kept_running "$3" "$4"; }
check "cutover: the running jobs keep running on their nodes" both_kept "$r1" "$r1_nodes" "$r2" "$r2_nodes"
both_allocated() { allocated_key "$p1" && allocated_key "$p2"; }
check "... the queued ones get priority/budget's priorities (DefaultMinRuntime > 0: allocated work)" \
  poll 30 both_allocated
still_held() { [ "$(prio "$held")" = 0 ] && state_is "$held" PENDING || { echo "job $held: priority '$(prio "$held")'"; return 1; }; }
check "... a held job stays held" still_held
new=$(submit -A teama --gres=gpu:1 --min-runtime=0:30 --hold -o /dev/null --wrap true)
check "... a new job gets a contract record" contains "contract:min_runtime=30,resumable=0,declared=1" "$(job_field "$new" AdminComment)"
scancel "$new" "$held"
# teama (share 70) ranks first; teamb's running job, submitted before the
# cutover, is protected DefaultMinRuntime (20 s) and then preemptible; its
# Requeue flag is JobRequeue's (1), so it is requeued.
requeued_for_teama() {
  state_is "$p1" RUNNING && [ "$(job_field "$r2" Restarts)" = 1 ] && state_is "$r2" PENDING
}
check "... teamb's job of before is preempted for teama's after its DefaultMinRuntime, and requeued" \
  poll 90 requeued_for_teama
check "... and teama's first job still runs" state_is "$r1" RUNNING

# --- rollback --------------------------------------------------------------------
r1_nodes=$(nodes_of "$r1") p1_nodes=$(nodes_of "$p1")
set_conf PriorityType=priority/multifactor SelectType=select/cons_tres PreemptMode=OFF
# What cluster.sh wrote before: preempt/none, or no line on 23.11+, which
# removed that plugin.
sed -i '/^PreemptType=/d' "$SLURM_CONF"
[ "$SLURM_SERIES" -ge 2311 ] || set_conf PreemptType=preempt/none
sed -i '/^JobSubmitPlugins=/d' "$SLURM_CONF"
rm -f "$CLUSTER_DIR/etc/plugstack.conf.d/contract.conf"
"$CLUSTER" restart-daemons >/dev/null 2>&1 || fail_now "slurmctld and the slurmd daemons restart on stock Slurm again"
check "rollback: the running jobs keep running on their nodes" both_kept "$r1" "$r1_nodes" "$p1" "$p1_nodes"
both_multifactor() { multifactor_key "$p2" && multifactor_key "$r2"; }
check "... the queued ones get multifactor's priorities again" poll 60 both_multifactor
plain=$(submit -A teamb --gres=gpu:1 --hold -o /dev/null --wrap true)
no_record() { local c; c=$(job_field "$plain" AdminComment); [ -z "$c" ] || [ "$c" = "(null)" ] || { echo "AdminComment=$c"; return 1; }; }
check "... and a new job is accepted without job_submit/contract, with no contract record" no_record
scancel "$plain"
no_malformed_rpc() {
  local lines; lines=$(grep -h "Malformed RPC" "$CLUSTER_DIR"/log/slurmd.*.log)
  [ -z "$lines" ] || { echo "$lines"; return 1; }
}
check "no slurmd refused a message of the controller's on either side" no_malformed_rpc

finish
