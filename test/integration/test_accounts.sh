#!/usr/bin/env bash
# Account membership: who may charge a team's budget. The suite charges a
# job to the account its -A names; only Slurm checks that the user belongs to
# it, with slurmdbd and AccountingStorageEnforce=associations
# (doc/admin-guide.md, "Account membership"). On the suite as
# etc/slurm.conf.example activates it:
#   - without slurmdbd, any user's -A is accepted, and priority/budget says
#     so once at start (src/libbudget/config/slurm_settings.h);
#   - with a private slurmdbd and MariaDB (scripts/slurmdbd_env.sh) set up
#     with the admin guide's sacctmgr commands, a user is refused an account
#     it is not associated with, in words that say so, and accepted in its
#     own; added to the account, it is accepted there too; the warning is
#     gone;
#   - a job sent without -A is checked against the account Slurm will
#     charge, the user's default account in slurmdbd, though slurmctld fills
#     it in only after job_submit plugins have run: accepted and charged to
#     it when the tree binds it, refused naming it when not; without
#     slurmdbd there is no default account, and the refusal says to give -A
#     (src/libbudget/policy/charged_account.h);
#   - the history slurmdbd kept is what `budget-sim --format sacct` reads:
#     the export command of doc/simulator.md, run on this cluster, gives
#     back the GPU jobs that ran, with the contracts job_submit/contract
#     recorded, and counts the others by reason; and its associations,
#     through scripts/tree_from_sacctmgr.py, give an allocation tree.
. "$(dirname "$0")/lib.sh"

USER_NAME=${ACCOUNTS_TEST_USER:-budgetmember}
export SUITE_CONF=$REPO/etc/slurm.conf.example
unset SELECT_TYPE PRIORITY_TYPE SCHEDULER_TYPE PREEMPT_TYPE BUDGET_CONF SLURM_CONF_EXTRA
LOG=$CLUSTER_DIR/log/slurmctld.log
WARNING="priority/budget: WARNING: AccountingStorageEnforce=none: any user may charge any account"

cluster_start -n 1 -g 2

ensure_test_user "$USER_NAME"
# as_user COMMAND [USER]: COMMAND as USER (default: the test user), its
# stdout and stderr together.
as_user() { su -s /bin/bash "${2:-$USER_NAME}" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1" 2>&1; }
# user_submits ACCOUNT: the user's sbatch -A ACCOUNT; prints the job id or
# sbatch's words.
user_submits() { as_user "sbatch --parsable -o /dev/null --min-runtime=1 -A $1 --wrap true"; }
is_job_id() { [[ $1 =~ ^[0-9]+$ ]] || { echo "not a job id: $1"; return 1; }; }

# --- without slurmdbd: the hole, and the warning ---------------------------------
warned_once() {
  local n; n=$(grep -c -- "$WARNING" "$LOG")
  [ "$n" -eq 1 ] || { echo "$n lines match '$WARNING'"; grep -- "priority/budget: WARNING" "$LOG"; return 1; }
}
check "without slurmdbd, priority/budget warns once that any user may charge any account" warned_once
# 23.11+ reads AccountingStorageType=accounting_storage/none as unset.
storage_now=accounting_storage/none
[ "$SLURM_SERIES" -ge 2311 ] && storage_now="(unset)"
warning_names() { grep -- "$WARNING" "$LOG" | grep -qF -- "$1"; }
check "... naming what enforces membership" \
  warning_names "AccountingStorageType=accounting_storage/slurmdbd (not $storage_now) and AccountingStorageEnforce=associations"
reply=$(user_submits robotics)
check "... and indeed any user's -A is accepted (robotics)" is_job_id "$reply"
before_slurmdbd_job=$reply
reply=$(user_submits science)
check "... and any other (science)" is_job_id "$reply"
reply=$(as_user "sbatch --parsable -o /dev/null --min-runtime=1 --wrap true")
no_default_without_slurmdbd() {
  ! is_job_id "$reply" >/dev/null || { echo "accepted: job $reply"; return 1; }
  contains "no -A given, and without slurmdbd Slurm has no default account to charge: give -A with an account of the budget tree (UnknownAccount=reject)" "$reply"
}
check "... but without -A a job is refused: without slurmdbd there is no default account" no_default_without_slurmdbd
scancel --quiet --user="$USER_NAME" 2>/dev/null

# --- slurmdbd with AccountingStorageEnforce=associations -------------------------
t0=$SECONDS
accounting_start associations
# GPUs in sacct's AllocTRES, as the admin guide recommends (the sacct
# trace below reads them there).
echo "AccountingStorageTRES=gres/gpu" >> "$SLURM_CONF"
# The admin guide's commands, for the example tree's accounts
# (etc/budget-tree.json.example) and one user in pretrain.
cluster_name=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF")
set_up_associations() {
  sacctmgr -i add cluster "$cluster_name" &&
    sacctmgr -i add account pretrain,posttrain,robotics,science Description=budget-tree Organization=budget &&
    sacctmgr -i add user "$USER_NAME" account=pretrain
}
check "sacctmgr adds the cluster, the tree's accounts and the user" set_up_associations
"$CLUSTER" restart-ctld >/dev/null || fail_now "slurmctld restarts with slurmdbd"
echo "accounting up and slurmctld restarted in $((SECONDS - t0)) s" >&2

# The log of the controller started by restart-ctld: from its "started" line.
since_restart() {
  awk '/slurmctld version .* started/ { n = NR } { l[NR] = $0 } END { for (i = n ? n : 1; i <= NR; i++) print l[i] }' "$LOG"
}
not_warned_since_restart() {
  local lines; lines=$(since_restart | grep -- 'any user may charge any account')
  [ -z "$lines" ] || { echo "$lines"; return 1; }
}
check "with AccountingStorageEnforce=associations, priority/budget does not warn" not_warned_since_restart

# slurmctld loads the associations from slurmdbd as it starts: the first
# submission may come before; poll for the member's own account.
member_accepted() { local out; out=$(user_submits pretrain); is_job_id "$out" && echo "$out" > "$CLUSTER_DIR/member_job"; }
check "a member's -A pretrain is accepted" poll 30 member_accepted
job=$(cat "$CLUSTER_DIR/member_job" 2>/dev/null)
charged_to_pretrain() {
  wait_state "$job" COMPLETED 60 || return 1
  [ "$(job_field "$job" Account)" = pretrain ] || { echo "job $job: Account=$(job_field "$job" Account)"; return 1; }
}
check "... and its job runs to completion, charged to pretrain" charged_to_pretrain

reply=$(user_submits robotics)
refused_in_words() {
  ! is_job_id "$reply" >/dev/null || { echo "accepted: job $reply"; return 1; }
  contains "Batch job submission failed: Invalid account or account/partition combination specified" "$reply"
}
check "a user not associated with robotics is refused -A robotics, in words that say why" refused_in_words
# Ended jobs stay listed (MinJobAge): the one accepted before slurmdbd is.
no_new_robotics_job() {
  local jobs; jobs=$(squeue -h -t all -u "$USER_NAME" -A robotics -o %i | grep -vx "$before_slurmdbd_job")
  [ -z "$jobs" ] || { echo "jobs of $USER_NAME in robotics: $jobs"; return 1; }
}
check "... and no new job of the user's, pending, running or ended, is in robotics" no_new_robotics_job
reply=$(user_submits science)
check "... nor -A science" refused_in_words
# nobody: a user with no association at all, naming an account of the tree
# (so that job_submit/contract's UnknownAccount check passes it).
reply=$(as_user "sbatch --parsable -o /dev/null --min-runtime=1 -A pretrain --wrap true" nobody)
check "a user with no association at all is refused -A pretrain" refused_in_words

# --- no -A: the user's default account ---------------------------------------
# The user's first account, pretrain, is its default (sacctmgr add user).
default_accepted() { local out; out=$(as_user "sbatch --parsable -o /dev/null --min-runtime=1 --wrap true"); is_job_id "$out" && echo "$out" > "$CLUSTER_DIR/default_job"; }
check "without -A, a job of a user whose default account (pretrain) is in the tree is accepted" default_accepted
job=$(cat "$CLUSTER_DIR/default_job" 2>/dev/null)
check "... and runs to completion, charged to pretrain" charged_to_pretrain
# A second user whose default account, outside, is a Slurm account but no
# account of the tree (etc/budget-tree.json.example binds pretrain,
# posttrain, robotics, science).
OUTSIDER=${ACCOUNTS_TEST_OUTSIDER:-budgetoutsider}
ensure_test_user "$OUTSIDER"
check "sacctmgr adds account outside and a user whose default account it is" \
  bash -c "sacctmgr -i add account outside Description=not-in-tree Organization=elsewhere && sacctmgr -i add user $OUTSIDER account=outside"
# Refused by the plugin, not by Slurm: the user is associated with outside.
outsider_refused() {
  local out; out=$(as_user "sbatch --parsable -o /dev/null --min-runtime=1 --wrap true" "$OUTSIDER")
  ! is_job_id "$out" >/dev/null || { echo "accepted: job $out"; scancel "$out"; return 1; }
  contains "no -A given, and your default account outside has no allocation in the budget tree (UnknownAccount=reject)" "$out"
}
# slurmdbd pushes the new user to slurmctld: until then the user has no
# default account and the refusal says so; poll for the one naming outside.
check "without -A, a user whose default account (outside) is not in the tree is refused, naming it" \
  poll 30 outsider_refused

check "sacctmgr adds the user to robotics" sacctmgr -i add user "$USER_NAME" account=robotics
# slurmdbd pushes the new association to slurmctld: poll for it.
added_accepted() { local out; out=$(user_submits robotics); is_job_id "$out"; }
check "... then the user's -A robotics is accepted" poll 30 added_accepted

# --- the history slurmdbd kept, read by budget-sim --format sacct -------------
# Two GPU jobs that run to completion (one with a contract of 1 minute,
# resumable; one without: the DefaultMinRuntime=0 recorded), one that runs
# and is cancelled, and one cancelled while it waits behind that one (it
# never ran). The jobs above ran without GPUs.
# gpu_job SBATCH_OPTIONS [COMMAND]: the job id, sbatch's last line
# (job_submit/contract's note on the default contract comes before it).
gpu_job() {
  local out; out=$(as_user "sbatch --parsable -o /dev/null -A pretrain --time=5 $1 --wrap '${2:-true}'")
  echo "${out##*$'\n'}"
}
gpu_job_runs() {
  local out; out=$(gpu_job "$1")
  is_job_id "$out" || return 1
  wait_state "$out" COMPLETED 60 || return 1
  echo "$out" >> "$CLUSTER_DIR/gpu_jobs"
}
check "a 2-GPU job with a contract runs" gpu_job_runs "--gres=gpu:2 --min-runtime=1 --resumable"
check "a 1-GPU job without one runs" gpu_job_runs "--gres=gpu:1"
running=$(gpu_job "--gres=gpu:2 --min-runtime=1" "sleep 300")
waiting=$(gpu_job "--gres=gpu:1")
# A pending job reaches slurmdbd once slurmctld sends it: wait for its row,
# so that its cancellation is recorded too.
pending_in_sacct() {
  [ "$(sacct -n -X -P -j "$waiting" -o State 2>/dev/null)" = PENDING ] ||
    { echo "sacct -j $waiting: $(sacct -n -X -P -j "$waiting" -o State 2>&1)"; return 1; }
}
both_cancelled() {
  wait_state "$running" RUNNING 30 && state_is "$waiting" PENDING && poll 60 pending_in_sacct &&
    scancel "$waiting" "$running"
}
check "a running GPU job and one waiting behind it are cancelled" both_cancelled
HISTORY=$CLUSTER_DIR/history.sacct
export_history() {
  TZ=UTC SLURM_TIME_FORMAT=standard sacct -a -X -P --starttime now-3600 \
    --format=JobID,Account,User,Submit,Start,Elapsed,Timelimit,AllocTRES,State,AdminComment > "$HISTORY" || return 1
  # slurmdbd records a job's end after slurmctld: wait for every GPU job's.
  local id
  for id in $(cat "$CLUSTER_DIR/gpu_jobs") "$running" "$waiting"; do
    grep -Eq "^$id\|.*\|(COMPLETED|CANCELLED)" "$HISTORY" || { echo "job $id not ended in:"; cat "$HISTORY"; return 1; }
  done
}
check "sacct exports the cluster's history with the documented command" poll 30 export_history
SIM_OUT=$CLUSTER_DIR/history.sim
sim_reads_history() {
  "$BUILD_DIR/src/sim/budget-sim" --trace "$HISTORY" --format sacct --nodes 1 --gpus-per-node 2 \
    --policy budget --no-progress --write-trace "$CLUSTER_DIR/history.csv" > "$SIM_OUT" 2>&1 ||
    { cat "$SIM_OUT"; return 1; }
}
check "budget-sim --format sacct reads it" sim_reads_history
# submit,account,user,gpus,duration,min_runtime,resumable,priority,time_limit:
# the 2-GPU job (60 s contract, resumable), the 1-GPU one (the recorded
# DefaultMinRuntime=0, not resumable) and the cancelled 2-GPU run (60 s,
# not resumable), all with --time=5 (300 s), in submission order; the jobs
# without GPUs and the one that never ran are not replayed.
replayed_gpu_jobs() {
  local got; got=$(tail -n +2 "$CLUSTER_DIR/history.csv" | cut -d, -f2-4,6,7,9)
  local want; want=$(printf '%s\n' "pretrain,$USER_NAME,2,60,1,300" "pretrain,$USER_NAME,1,0,0,300" \
    "pretrain,$USER_NAME,2,60,0,300")
  [ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\nfrom:\n' "$got" "$want"; cat "$HISTORY"; return 1; }
}
check "... as the three GPU jobs that ran, with their recorded contracts and time limits" replayed_gpu_jobs
# Counted from the export's AllocTRES (column 8): empty, the job had no
# allocation: the one cancelled while waiting, and here the two jobs of the
# part without slurmdbd, which sacct shows CANCELLED with a Start and an
# Elapsed but no allocation; without gres/gpu, it ran without GPUs.
counted_not_replayed() {
  local no_alloc no_gpu
  no_alloc=$(tail -n +2 "$HISTORY" | awk -F'|' '$8 == ""' | wc -l)
  no_gpu=$(tail -n +2 "$HISTORY" | awk -F'|' '$8 != "" && $8 !~ /gres\/gpu=/' | wc -l)
  contains "$HISTORY: $no_alloc job(s) never ran and are not replayed" "$(cat "$SIM_OUT")" &&
    contains "$HISTORY: $no_gpu job(s) held no GPUs (no gres/gpu in AllocTRES) and are not replayed" "$(cat "$SIM_OUT")"
}
check "... and counts the jobs without GPUs and those that never ran" counted_not_replayed

# --- the allocation tree from Slurm's associations ------------------------------
# scripts/tree_from_sacctmgr.py on this cluster's associations (every
# Fairshare the default 1): a tree budget-sim loads, one node per account
# under root and one per user of each, bound to them.
TREE=$CLUSTER_DIR/from_sacctmgr.json
tree_nodes() {
  python3 -c 'import json, sys
def walk(n, path):
    for c in n.get("children", []):
        p = path + c["name"]
        b = "account=" + c["account"] if "account" in c else "user=" + c["user"]
        print(p, c["share"], b)
        walk(c, p + "/")
walk(json.load(open(sys.argv[1])), "")' "$TREE"
}
tree_from_associations() {
  sacctmgr -n -P show assoc where cluster="$cluster_name" format=Account,ParentName,User,Fairshare |
    python3 "$REPO/scripts/tree_from_sacctmgr.py" > "$TREE" || return 1
  "$BUILD_DIR/src/sim/budget-sim" --trace "$HISTORY" --format sacct --tree "$TREE" --nodes 1 --gpus-per-node 2 \
    --policy budget --no-progress > "$CLUSTER_DIR/tree_check.out" 2>&1 || { cat "$CLUSTER_DIR/tree_check.out"; return 1; }
  local want; want=$(printf '%s\n' "outside 1 account=outside" "outside/$OUTSIDER 1 user=$OUTSIDER" \
    "posttrain 1 account=posttrain" "pretrain 1 account=pretrain" "pretrain/$USER_NAME 1 user=$USER_NAME" \
    "robotics 1 account=robotics" "robotics/$USER_NAME 1 user=$USER_NAME" "science 1 account=science")
  local got; got=$(tree_nodes)
  [ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; return 1; }
}
check "scripts/tree_from_sacctmgr.py writes the associations as a tree budget-sim loads" tree_from_associations

finish
