#!/usr/bin/env bash
# A notice before preemption (budget.conf PreemptNotice) on a real cluster,
# one 8-GPU node, two teams at 50/50, Slurm's KillWait at its 30-s default:
#   - a victim whose TERM handler takes 40 s to write its checkpoint file
#     writes it with PreemptNotice=45: it keeps the node, RUNNING, after it
#     is told; its note and `sbudget explain` say until when; the waiting
#     job starts only once it has left, and, resumable, it is requeued
#     though it ended by itself (exit 0) in its notice;
#   - a victim that ignores TERM keeps the node for its whole notice and is
#     requeued at its end, within a pass;
#   - with PreemptNotice=0 (budget.conf re-read without a restart) the same
#     40-s handler is cut short: KillWait's 30 s are all a requeue leaves it,
#     and no file is written. So the notice, not KillWait, saved the first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/timeslice_lib.sh"
BUDGET_CONF="$BUDGET_CONF
PreemptNotice=45"
export BUDGET_CONF
# Slurm's default KillWait (the local cluster's is 5 s, for quick tests).
SLURM_CONF_EXTRA="$SLURM_CONF_EXTRA
KillWait=30"
CONF_FILE=$CLUSTER_DIR/etc/budget.conf
work=$(mktemp -d /tmp/test_notice.XXXXXX)
chmod 777 "$work"

# victim.sh FILE HANDLER_SECONDS: sleeps; at SIGTERM, takes HANDLER_SECONDS
# "writing its checkpoint", then writes FILE and exits 0. HANDLER_SECONDS
# "ignore": it ignores TERM.
cat > "$work/victim.sh" <<'SH'
#!/bin/bash
file=$1 handler=$2
if [ "$handler" = ignore ]; then
  trap '' TERM
else
  trap 'sleep "$handler"; echo saved > "$file"; exit 0' TERM
fi
# Only a restarted run (a requeue) finds the file: it then ends at once.
[ -e "$file" ] && exit 0
sleep 600 & wait
while :; do sleep 1; done
SH
chmod 755 "$work/victim.sh"

# victim NAME HANDLER: teama's resumable 8-GPU job, protected 10 s.
victim() {
  submit -o /dev/null -A teama -N 1 --gres=gpu:8 --min-runtime=0:10 --resumable -J "$1" \
    "$work/victim.sh" "$work/$1.ckpt" "$2"
}
now() { date +%s; }
file_written() { [ -s "$work/$1.ckpt" ] || { echo "no $work/$1.ckpt"; return 1; }; }
explain_has() { local out; out=$(COLUMNS=1000 "$BUILD_DIR/src/sbudget/sbudget" explain "$1" 2>&1); contains "$2" "$out"; }
notice_note_of() { notes_of "$1" | sed -n 's/.* with notice until \([0-9T:-]*\).*/\1/p'; }
# requeue_begun ID: Slurm requeued the job (restart count raised); it may
# still be COMPLETING while its processes get KillWait to go.
requeue_begun() {
  local s; s=$(job_state "$1")
  [ "$(restarts "$1")" -ge 1 ] && case $s in PENDING | REQUEUED | COMPLETING) true ;; *) false ;; esac ||
    { echo "job $1: $s, restarts $(restarts "$1")"; return 1; }
}

cluster_start -n 1 -g 8
check "Slurm's KillWait is its 30-s default" bash -c "scontrol show config | grep -qE '^KillWait +\\= 30 sec'"
check "priority/budget publishes its standings" poll 20 snapshot_fresh

# --- 1. A 40-s checkpoint within a 45-s notice ---------------------------------
a1=$(victim a1 40) || fail_now "submit a1"
check "a1 (teama) runs" wait_state "$a1" RUNNING 30
a1_end=$(( $(start_epoch "$a1") + 10 + 1 ))
b1=$(submit -o /dev/null -A teamb -N 1 --gres=gpu:8 --min-runtime=0:10 --wrap 'sleep 600') || fail_now "submit b1"
told_has_note() { notes_have "$a1" "preempted by job $b1 at "; }
check "a1 is told to leave at its protection end (its note names b1)" poll 20 told_has_note
told=$(now)
until_epoch=$(epoch_of "$(notice_note_of "$a1")" 2>/dev/null || echo 0)
check "a1's note gives the notice's end" bash -c "[ ${until_epoch:-0} -gt 0 ]"
check "the notice ends 45 s after a1 was told (a pass after its protection end)" \
  bash -c "[ $until_epoch -ge $((a1_end + 45)) ] && [ $until_epoch -le $((a1_end + 45 + 4)) ]"
check "Slurm's end time for a1 is cut to the notice's end (backfill plans the GPUs free then)" \
  bash -c "[ \"$(epoch_of "$(job_field "$a1" EndTime)")\" = $until_epoch ]"
check "sbudget explain says a1 is leaving and until when" \
  explain_has "$a1" "leaving     told at"
check "a1 keeps the node while it writes its checkpoint (RUNNING 30 s after it was told)" \
  running_until "$a1" $((told + 30))
check "b1 waits meanwhile" state_is "$b1" PENDING
check "a1's 40-s handler wrote its checkpoint file" poll 20 file_written a1
check "a1, resumable, is requeued though it ended by itself in its notice" poll 15 requeued "$a1"
check "the log says a1 left in its notice and was requeued" \
  log_has "preempt/timeslice: job $a1 left in its notice: requeued (resumable)"
left_epoch=$(epoch_of "$(notice_note_of "$a1")" 2>/dev/null || echo 0)
check "a1's note now ends its run when it left, 40 s after it was told, before the notice's end" \
  bash -c "[ $left_epoch -ge $((told + 38)) ] && [ $left_epoch -lt $until_epoch ]"
check "b1 then starts" wait_state "$b1" RUNNING 20
b1_start=$(start_epoch "$b1")
check "b1 started only after a1 left (40 s after it was told or later)" bash -c "[ $b1_start -ge $((told + 38)) ]"
check "sbudget explain says when a1 was told and when it was gone (its note: when it left)" \
  explain_has "$a1" "told then, gone by $(notice_note_of "$a1")"
clear_jobs
scancel --quiet "$a1"

# --- 2. A victim that ignores TERM keeps its GPUs for the whole notice ----------
sed -i 's/^PreemptNotice=.*/PreemptNotice=12/' "$CONF_FILE"
a2=$(victim a2 ignore) || fail_now "submit a2"
check "a2 (ignores TERM) runs" wait_state "$a2" RUNNING 30
b2=$(submit -o /dev/null -A teamb -N 1 --gres=gpu:8 --min-runtime=0:10 --wrap 'sleep 600') || fail_now "submit b2"
told2_has_note() { notes_have "$a2" "preempted by job $b2 at "; }
check "a2 is told to leave (PreemptNotice=12, budget.conf re-read without a restart)" poll 25 told2_has_note
until2=$(epoch_of "$(notice_note_of "$a2")" 2>/dev/null || echo 0)
check "a2 runs until its notice ends" running_until "$a2" $((until2 - 1))
check "a2 is requeued at its notice's end, within a pass" poll 8 requeue_begun "$a2"
check "the log says a2's notice was over" log_has "preempt/timeslice: job $a2 leaves: its notice is over (requeued)"
# The requeue signals TERM again, which a2 ignores too: Slurm's KillWait
# (30 s) passes before its SIGKILL frees the node.
check "b2 starts on the GPUs a2 left, after KillWait" wait_state "$b2" RUNNING 45
clear_jobs
scancel --quiet "$a2"

# --- 3. Without a notice, KillWait's 30 s cut the 40-s handler short ------------
sed -i 's/^PreemptNotice=.*/PreemptNotice=0/' "$CONF_FILE"
a3=$(victim a3 40) || fail_now "submit a3"
check "a3 runs" wait_state "$a3" RUNNING 30
b3=$(submit -o /dev/null -A teamb -N 1 --gres=gpu:8 --min-runtime=0:10 --wrap 'sleep 600') || fail_now "submit b3"
check "a3 is requeued at its protection end, at once (PreemptNotice=0)" poll 25 requeue_begun "$a3"
# The requeue signals TERM, then KILL KillWait (30 s) later: the handler
# would write at 40 s. Wait past that, then look.
sleep 45
check "a3's handler was killed before it wrote its file (KillWait alone is not enough)" \
  bash -c "[ ! -e '$work/a3.ckpt' ]"
clear_jobs
scancel --quiet "$a3"
rm -rf "$work"
finish
