#!/usr/bin/env bash
# priority/budget on a real cluster, time-compressed (a 10-minute window of
# 5-s buckets, a recompute every 2 s): two teams at 70/30 on one 8-GPU node,
# so that jobs queue.
#   - the team with less usage relative to its share is ordered, and starts,
#     first; after usage shifts, the order flips (twice);
#   - a user's nice reorders jobs only within a team;
#   - unallocated work (min-runtime 0) and unknown accounts come after all
#     allocated work;
#   - sprio -l shows the fair-share position (FAIRSHARE) and the within-team
#     priority (ASSOC); squeue %Q the priority;
#   - a malformed tree written at run time is refused, the log says why, the
#     order stays; a tree served over HTTP loads (libcurl is loaded only
#     then), and the URL no longer answering changes nothing;
#   - slurmctld killed with -9 and restarted keeps the usage: the order after
#     the restart's first pass matches the order before (with the ledger
#     lost, the 70% team would come first: equal zero usage ties on share);
#   - without preempt/timeslice, no standings file is
#     written, and a stale one is removed;
#   - UnknownAccount=reject: job_submit/contract refuses an account the tree
#     does not bind, naming it.
. "$(dirname "$0")/lib.sh"

export PRIORITY_TYPE=priority/budget
TREE=$CLUSTER_DIR/etc/budget-tree.json
LOG=$CLUSTER_DIR/log/slurmctld.log
good_tree=$(mktemp /tmp/test_priority_budget.tree.XXXXXX)
two_team_tree "$good_tree"
export BUDGET_TREE_JSON=$good_tree
budget_conf() {  # budget_conf TREE_SOURCE UNKNOWN_ACCOUNT
  budget_conf_text "BudgetTree=$1" "LookbackWindow=10:00" \
    "LedgerBucket=0:05" "RecalcInterval=2" "BudgetRefresh=0:10" "UnknownAccount=$2"
}
export BUDGET_CONF=$(budget_conf "$TREE" unallocated)

cluster_start -n 1 -g 8

prio() { squeue -h -j "$1" -o %Q 2>/dev/null; }
# higher A B: job A's priority is above job B's.
higher() {
  local a b; a=$(prio "$1"); b=$(prio "$2")
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt "$b" ] || { echo "priority($1)=$a is not above priority($2)=$b"; return 1; }
}
sprio_field() { sprio -h -j "$1" -o "$2" 2>/dev/null | tr -d ' '; }
field_is() { local got; got=$(sprio_field "$1" "$2"); [ "$got" = "$3" ] || { echo "sprio $2 of job $1 is '$got', want '$3'"; return 1; }; }
# The pending jobs, highest priority first (Slurm breaks ties by id).
pending_order() { squeue -h -t PD -o '%Q %i' | sort -k1,1nr -k2,2n | awk '{print $2}' | tr '\n' ' '; }
order_is() { local got; got=$(pending_order); [ "$got" = "$1" ] || { echo "order '$got', want '$1'"; return 1; }; }
# next_pass: returns after the plugin finished a pass (it saves the ledger at
# the end of each one) that started after this call.
ledger=$CLUSTER_DIR/state/budget_ledger.dat
ledger_stamp() { stat -c %y "$ledger" 2>/dev/null; }
stamp_changed() { [ "$(ledger_stamp)" != "$1" ]; }
next_pass() { local i; for i in 1 2; do poll 20 stamp_changed "$(ledger_stamp)" || return 1; done; }
# order_after_pass: the pending order, after a full pass, is still $before.
order_after_pass() { next_pass && order_is "$before"; }
log_count() { grep -c -- "$1" "$LOG" 2>/dev/null || true; }
log_has() { grep -q -- "$1" "$LOG" || { echo "no '$1' in $LOG"; return 1; }; }
log_count_above() { [ "$(log_count "$1")" -gt "$2" ] || { echo "'$1' seen $(log_count "$1") times, want > $2"; return 1; }; }
job() {  # job ACCOUNT MIN_RUNTIME [sbatch args...]
  local account=$1 min=$2; shift 2
  submit -o /dev/null -A "$account" --gres=gpu:8 --min-runtime="$min" "$@" --wrap 'sleep 600'
}

check "priority/budget is loaded with the tree (3 nodes)" \
  poll 20 log_has "priority/budget: loaded the allocation tree from $TREE: 3 nodes"

# --- 70/30: the less-served team first ----------------------------------------
blocker=$(job teama 1) || fail_now "submit the blocker"
check "teama's first job runs" wait_state "$blocker" RUNNING 30
a1=$(job teama 1) || fail_now "submit a1"
b1=$(job teamb 1) || fail_now "submit b1"
# teama used 8 GPUs since the blocker started, teamb nothing: teamb is under-served.
check "teamb (no usage) is ordered before teama (all the usage)" poll 20 higher "$b1" "$a1"
check "sprio -l shows the fair-share position: teamb first (1000)" field_is "$b1" %F 1000
# 2 ranked nodes: teama second, 1 - 1/2 = 0.5 -> 500.
check "sprio -l shows the fair-share position: teama second (500)" field_is "$a1" %F 500
if [ "$SLURM_SERIES" -ge 2311 ]; then
  # 23.11+ sprio prints 0 in every factor column of a job sent with a direct
  # priority, so the factors are sent and sprio sums them itself: PRIORITY is
  # ASSOC + FAIRSHARE + QOS, not the scheduling priority (doc/admin-guide.md,
  # "sprio on each version"). For b1: 10000 + 1000 + 1.
  check "sprio's PRIORITY is the sum of the factor columns (23.11+)" field_is "$b1" %Y 11001
else
  check "squeue %Q is the priority sprio shows" bash -c "[ \"\$(sprio -h -j $b1 -o %Y | tr -d ' ')\" = \"\$(squeue -h -j $b1 -o %Q)\" ]"
fi
sprio -l | sed 's/^/     sprio| /'
check "the report snapshot for sbudget is written in StateSaveLocation" \
  poll 20 test -s "$CLUSTER_DIR/state/budget_report.json"
# No timeslice plugin here reads the standings: they are not written.
check "no standings file without preempt/timeslice" \
  test ! -e "$CLUSTER_DIR/state/budget_standings.json"
scancel "$blocker"
check "the under-served team's job starts first (teamb)" wait_state "$b1" RUNNING 30
check "... while teama's waits" state_is "$a1" PENDING

# --- after usage shifts, the order flips -------------------------------------
b2=$(job teamb 1) || fail_now "submit b2"
# teamb now runs 8 GPUs: once its usage / 30% passes teama's / 70%, teama leads.
check "after teamb's usage grows, teama is ordered first (the flip)" poll 60 higher "$a1" "$b2"
scancel "$b1"
check "teama's job starts next" wait_state "$a1" RUNNING 30

# --- user priority (nice) only within a team; unallocated last ----------------
a_nice=$(job teama 1 --nice=100) || fail_now "submit a_nice"
a_plain=$(job teama 1) || fail_now "submit a_plain"
a_boost=$(job teama 1 --nice=-5000) || fail_now "submit a_boost"
a_free=$(job teama 0) || fail_now "submit a_free"
other=$(job nobody 1) || fail_now "submit an unknown account's job"
teamb_first() { higher "$b2" "$a_boost"; }
check "teama runs again until teamb is back in front, even of teama's nice -5000 job" poll 90 teamb_first
check "within teama, nice -5000 is ahead of nice 0" higher "$a_boost" "$a_plain"
check "within teama, nice 0 is ahead of nice 100" higher "$a_plain" "$a_nice"
# Within-team priority = 10000 - nice: 10000 + 5000 and 10000 - 100.
check "sprio -l shows the within-team priority in ASSOC (15000 for nice -5000)" field_is "$a_boost" %B 15000
check "... and 9900 for nice 100" field_is "$a_nice" %B 9900
check "allocated work of the team behind is ahead of unallocated work" higher "$a_nice" "$a_free"
check "an unknown account (UnknownAccount=unallocated) comes after the tree's unallocated work" \
  higher "$a_free" "$other"
check "... at the lowest priority, 1" bash -c "[ \"\$(squeue -h -j $other -o %Q)\" = 1 ]"
sprio -l | sed 's/^/     sprio| /'

# --- freeze the usage: drain the node, nothing runs --------------------------
scontrol update nodename=n1 state=drain reason=priority_budget_test
scancel "$a1"
check "nothing runs any more" poll 30 bash -c '[ -z "$(squeue -h -t R,CG)" ]'
# Usage is frozen: two passes later the order no longer moves.
check "a pass completes with the node drained" next_pass
before=$(pending_order)
echo "     order with the node drained: $before"
check "the order is stable" order_after_pass

# --- a malformed tree is refused; the order stays ----------------------------
refused_before=$(log_count "refused the tree from $TREE")
printf '{ "name": "cluster", "children": [ { "name": "teama", "share": -5, "account": "teama" } ] }\n' > "$TREE"
check "a malformed tree is refused" poll 20 log_count_above "refused the tree from $TREE" "$refused_before"
check "the log says why (JSON path and reason)" log_has 'refused tree: .*\$\.children\[0\]\.share'
check "the log says the last good tree is kept" log_has "keeping the last good tree (3 nodes"
check "the order stays" order_after_pass
cp "$good_tree" "$TREE"

# --- a tree served over HTTP; then the URL stops answering ------------------
# libcurl (and the 28 libraries it brings) is loaded at the first URL fetch,
# not with the plugin.
ctld_maps_file() { echo "/proc/$(cat "$CLUSTER_DIR/run/slurmctld.mypid")/maps"; }
# (grep reads the file itself: `cat maps | grep -q` fails under pipefail
# when grep stops early.)
maps_grep() { local maps; maps=$(ctld_maps_file); [ -r "$maps" ] || { echo "cannot read $maps"; return 2; }; grep -q "$1" "$maps"; }
no_libcurl() { maps_grep libcurl; [ $? = 1 ] || { echo "slurmctld maps libcurl (or its maps are unreadable)"; return 1; }; }
has_libcurl() { maps_grep 'libcurl\.so\.4' || { echo "slurmctld does not map libcurl.so.4"; return 1; }; }
check "slurmctld has not loaded libcurl while BudgetTree is a file" no_libcurl
www=$(mktemp -d /tmp/test_priority_budget.www.XXXXXX)
cp "$good_tree" "$www/tree.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
url="http://127.0.0.1:$port/tree.json"
# timeout: the server cannot outlive a test that stops early.
timeout 300 python3 -m http.server --bind 127.0.0.1 --directory "$www" "$port" > /dev/null 2>&1 &
server=$!
check "the test's HTTP server serves the tree" poll 20 curl -sf -o /dev/null "$url"
budget_conf "$url" unallocated > "$CLUSTER_DIR/etc/budget.conf"
scontrol reconfigure
check "a tree served over HTTP is loaded" poll 30 log_has "loaded the allocation tree from $url: 3 nodes"
check "... through libcurl, loaded for the URL" has_libcurl
check "the order stays (the same tree)" order_after_pass
refused_before=$(log_count "refused the tree from $url")
kill "$server"; wait "$server" 2>/dev/null
rm -rf "$www"
scontrol reconfigure
check "an unreachable URL is refused, naming the URL" \
  poll 30 log_count_above "refused the tree from $url" "$refused_before"
check "the log gives curl's reason" log_has "refused tree: $url: "
# 23.11+ re-executes slurmctld at the reconfigure: the tree in memory is the
# one the new process loaded from the saved copy, and the log names that.
kept_from=$url
[ "$SLURM_SERIES" -ge 2311 ] && kept_from=$CLUSTER_DIR/state/budget_tree.last_good.json
check "the log says the last good tree (from the URL) is kept" log_has "keeping the last good tree (3 nodes, from $kept_from)"
check "the order stays with the URL down" order_after_pass
budget_conf "$TREE" unallocated > "$CLUSTER_DIR/etc/budget.conf"
scontrol reconfigure

# --- kill -9 and restart: the usage survives ---------------------------------
saved_after() { [ -f "$ledger" ] && [ "$(stat -c %Y "$ledger")" -gt "$1" ]; }
check "the ledger is saved every pass" poll 20 saved_after "$(date +%s)"
first_passes=$(log_count "priority/budget: pass 1:")
# A standings file left by another configuration: removed at the first pass.
echo '{}' > "$CLUSTER_DIR/state/budget_standings.json"
"$CLUSTER" restart-ctld --kill > /dev/null || fail_now "slurmctld restarts after kill -9"
check "the restarted plugin loads the ledger" poll 30 log_has "loaded the ledger from $ledger: 2 paths"
check "the restarted plugin completes a pass" poll 30 log_count_above "priority/budget: pass 1:" "$first_passes"
check "the order after kill -9 + restart matches the order before" order_after_pass
check "teamb still ahead of teama after the restart" higher "$b2" "$a_boost"
check "a stale standings file is removed, and the log says why" \
  bash -c "[ ! -e '$CLUSTER_DIR/state/budget_standings.json' ] && grep -q 'removed $CLUSTER_DIR/state/budget_standings.json: preempt/timeslice is not configured' '$LOG'"

# --- UnknownAccount=reject ----------------------------------------------------
"$CLUSTER" stop > /dev/null
export BUDGET_CONF=$(budget_conf "$TREE" reject)
cluster_start -n 1 -g 8
check "the plugin saved the last good tree for job_submit" \
  poll 20 test -f "$CLUSTER_DIR/state/budget_tree.last_good.json"
out=$(sbatch -o /dev/null -A nobody --min-runtime=1 --wrap true 2>&1)
check "UnknownAccount=reject refuses an account the tree does not bind" \
  contains "account nobody has no allocation in the budget tree (UnknownAccount=reject)" "$out"
check "... and accepts one it binds" submit -o /dev/null -A teama --min-runtime=1 --wrap true
out=$(sbatch -o /dev/null -A nobody --min-runtime=abc --wrap true 2>&1)
check "a refusal gives every reason at once: the account ..." \
  contains "account nobody has no allocation in the budget tree (UnknownAccount=reject)" "$out"
check "... and the contract" contains 'invalid time "abc"' "$out"

# --- a relative BudgetTree; no tree at all --------------------------------------
"$CLUSTER" stop > /dev/null
export BUDGET_CONF=$(budget_conf budget-tree.json reject)
cluster_start -n 1 -g 8
check "a relative BudgetTree names the file beside budget.conf" \
  poll 20 log_has "priority/budget: loaded the allocation tree from $TREE: 3 nodes"
"$CLUSTER" stop > /dev/null
export BUDGET_CONF=$(budget_conf no-such-tree.json reject)
cluster_start -n 1 -g 8
check "with no tree loaded, every pass says so (3 passes)" \
  poll 30 log_count_above "priority/budget: no allocation tree has loaded yet from" 2
out=$(sbatch -o /dev/null -A teama --min-runtime=1 --wrap true 2>&1)
check "... and UnknownAccount=reject refuses every job, saying why" \
  contains "account teama cannot be checked: no allocation tree has loaded yet (UnknownAccount=reject)" "$out"

rm -f "$good_tree"
finish
