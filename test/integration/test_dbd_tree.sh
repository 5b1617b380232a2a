#!/usr/bin/env bash
# BudgetTree=slurmdbd: the allocation tree is Slurm's own account hierarchy,
# read from slurmctld's copy of slurmdbd's associations
# (src/priority_budget/association_reader.h), on the suite as
# etc/slurm.conf.example activates it, with a private slurmdbd:
#   - before slurmdbd, there is no tree, and the log says why;
#   - with the accounts sacctmgr made (parents, Fairshare=), the tree is
#     theirs: parent accounts inner nodes, Fairshare the shares, users of an
#     account its leaves, the coordinators the owners;
#   - a coordinator's `sacctmgr modify` of a share reaches the standings
#     without a restart (BudgetRefresh);
#   - an account moved under another parent (`set parent=`, its path
#     changes) keeps its window's usage, and the log says so;
#   - job_submit/contract checks -A against the same tree.
. "$(dirname "$0")/lib.sh"

export SUITE_CONF=$REPO/etc/slurm.conf.example
unset SELECT_TYPE PRIORITY_TYPE SCHEDULER_TYPE PREEMPT_TYPE SLURM_CONF_EXTRA
export BUDGET_CONF=$(budget_conf_text BudgetTree=slurmdbd BudgetRefresh=0:02 RecalcInterval=2 LookbackWindow=10:00 \
  LedgerBucket=0:05 TimesliceInterval=2 UnknownAccount=reject)
LOG=$CLUSTER_DIR/log/slurmctld.log
REPORT=$CLUSTER_DIR/state/budget_report.json
COORD=${DBD_TREE_COORDINATOR:-budgetpi}

cluster_start -n 1 -g 8
ensure_test_user "$COORD"
log_has() { grep -q -- "$1" "$LOG" || { echo "no '$1' in $LOG"; return 1; }; }
check "without slurmdbd there is no tree, and the log says why" \
  poll 20 log_has "slurmdbd: slurmctld keeps no associations (AccountingStorageType is not accounting_storage/slurmdbd)"

accounting_start ""
cluster_name=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF")
set_up_associations() {
  sacctmgr -i add cluster "$cluster_name" &&
    sacctmgr -i add account llm Fairshare=50 &&
    sacctmgr -i add account science Fairshare=20 &&
    sacctmgr -i add account robotics Fairshare=30 &&
    sacctmgr -i add account pretrain parent=llm Fairshare=70 &&
    sacctmgr -i add account posttrain parent=llm Fairshare=30 &&
    sacctmgr -i add user root account=pretrain &&
    sacctmgr -i add user root account=robotics &&
    sacctmgr -i add user "$COORD" account=llm &&
    sacctmgr -i add coordinator account=llm names="$COORD"
}
check "sacctmgr makes the accounts, their parents and shares, and a coordinator of llm" set_up_associations
"$CLUSTER" restart-ctld >/dev/null || fail_now "slurmctld restarts with slurmdbd"

# node PATH FIELD: a node's field in the report snapshot.
node() { jq -r --arg p "$1" ".nodes[] | select(.path == \$p) | .$2" "$REPORT" 2>/dev/null; }
node_is() { local v; v=$(node "$1" "$2"); [ "$v" = "$3" ] || { echo "$1 $2: ${v:-none}, want $3"; return 1; }; }
check "the tree loads from slurmdbd" poll 30 log_has "priority/budget: loaded the allocation tree from slurmdbd"
check "llm is an inner node of share 50" poll 10 node_is llm share 50
pretrain_under_llm() { node_is llm/pretrain share 70 && node_is llm/pretrain account pretrain; }
check "pretrain, under llm, has share 70 and binds account pretrain" pretrain_under_llm
top_level() { node_is science share 20 && node_is robotics share 30; }
check "science (20) and robotics (30) are top-level" top_level
check "root's user association in pretrain is a leaf of it" node_is llm/pretrain/root user root
owners_are() { local v; v=$(jq -rc --arg p "$1" '.nodes[] | select(.path == $p) | .owners' "$REPORT"); [ "$v" = "$2" ] || { echo "$1 owners: $v, want $2"; return 1; }; }
check "llm's coordinator is its owner" owners_are llm "[\"$COORD\"]"
shows_owner() { "$BUILD_DIR/src/sbudget/sbudget" -l | grep -qE "^ *llm +$COORD " || { "$BUILD_DIR/src/sbudget/sbudget" -l; return 1; }; }
check "sbudget shows the tree with its owner" shows_owner

# --- a coordinator's edit reaches the standings ----------------------------------
as_coord() { su -s /bin/bash "$COORD" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1" 2>&1; }
coord_edit() { as_coord "sacctmgr -i modify account where name=pretrain set Fairshare=10"; }
check "llm's coordinator sets pretrain's Fairshare to 10 with sacctmgr" coord_edit
# llm's children: pretrain 10, posttrain 30, and the coordinator's own
# user association (share 1).
check "... and the tree follows without a restart: pretrain's share is 10 (10/41 of llm)" \
  poll 20 node_is llm/pretrain share 10

# --- a moved account keeps its usage ---------------------------------------------
job=$(submit -o /dev/null -A robotics --gres=gpu:8 --min-runtime=0:30 --wrap 'sleep 600') || fail_now "submit in robotics"
check "a job of robotics runs" wait_state "$job" RUNNING 30
sleep 8
used() { node "$1" window_usage; }
used_some() { local u; u=$(used "$1"); awk -v u="${u:-0}" 'BEGIN { exit !(u > 0) }' || { echo "$1 window_usage: ${u:-none}"; return 1; }; }
check "robotics has used GPU time" poll 10 used_some robotics
scancel --quiet "$job"
sleep 3
before=$(used robotics)
check "sacctmgr moves robotics under llm" sacctmgr -i modify account where name=robotics set parent=llm
check "the tree follows: robotics is now llm/robotics" poll 20 node_is llm/robotics account robotics
# root's job in robotics was charged to root's own node there (a user
# association with a share of its own).
check "the log says its usage moved with it" \
  log_has "priority/budget: the usage of robotics/root moved with it to llm/robotics/root"
kept_usage() {
  local now; now=$(used llm/robotics)
  awk -v b="${before:-0}" -v n="${now:-0}" 'BEGIN { exit !(b > 0 && n >= b * 0.99) }' ||
    { echo "robotics used ${before:-none} before the move, llm/robotics ${now:-none} after"; return 1; }
}
check "llm/robotics keeps the usage robotics had (at least what it was)" kept_usage

# --- job_submit/contract checks -A against the same tree -------------------------
reply=$(sbatch --parsable -o /dev/null -A nosuch --min-runtime=1 --wrap true 2>&1)
check "an account outside slurmdbd's tree is refused by its name" contains "nosuch" "$reply"
finish
