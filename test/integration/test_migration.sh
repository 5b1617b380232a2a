#!/usr/bin/env bash
# Moving a cluster from stock Slurm (priority/multifactor, select/cons_tres,
# sched/backfill, no preemption) to the suite and back, with jobs running and
# queued (doc/admin-guide.md, "Moving from Fair Tree and QOS to the suite,
# and back"). slurm.conf's plugin lines are switched and the daemons
# restarted as the guide says (slurmctld stopped, the slurmd daemons
# restarted, slurmctld started: slurmd loads SelectType too, and one still
# on the old plugin refuses the controller's messages about jobs):
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
set_conf PriorityType=priority/budget SelectType=select/topo PreemptType=preempt/timeslice \
  PreemptMode=REQUEUE JobSubmitPlugins=contract
"$CLUSTER" restart-daemons >/dev/null 2>&1 || fail_now "slurmctld and the slurmd daemons restart with the suite"
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
