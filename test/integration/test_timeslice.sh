#!/usr/bin/env bash
# preempt/timeslice's time slicing under sched/backfill on a real cluster, time-compressed (a
# 10-minute window of 5-s buckets, a priority pass and a timeslice pass every
# 2 s, min-runtimes of 10-20 s), two teams at 50/50 on two 8-GPU nodes:
#   - a protected job is never preempted before its min-runtime, even by a far
#     more under-served team; then it is requeued (resumable) or cancelled
#     (not), and shows who preempted it and by which rule;
#   - a multi-node job is preempted whole, never half;
#   - a requeued job gets a fresh protection window when it starts again;
#   - unallocated work (min-runtime 0) is preempted at once by allocated work;
#   - sbudget explain's estimate from time slicing for a waiting job is the
#     protection end it waits for, and the job starts within a pass of it;
#   - a drained node running a long job promises when it will be empty and
#     empties right after that job's protection ends; the drain is counted
#     (and its departure under its rule, which sbudget metrics shows);
#   - a pass follows a change (of a node, of the standings): with
#     TimesliceInterval=300 a drain is acted on within seconds;
#   - with PreemptMode=OFF in slurm.conf (Slurm 25.05+ then searches no
#     preemption candidates) and TimeSlicing=yes in budget.conf, time
#     slicing still preempts; TimeSlicing=no stops it, without a restart.
# The convergence of a 50/50 flood is test_timeslice_convergence.sh.
# Runs on stock select/cons_tres; `SELECT_TYPE=select/topo` runs the same
# checks over select/topo.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/timeslice_lib.sh"
# At debug level the time-slicing pass logs its duration (doc/admin-guide.md
# "Reading the plugins' pass lines").
SLURM_CONF_EXTRA="$SLURM_CONF_EXTRA
SlurmctldDebug=debug"
log_matches() { grep -qE -- "$1" "$LOG" || { echo "no line matching '$1' in $LOG"; return 1; }; }

cluster_start -n 2 -g 8
check "preempt/timeslice is loaded, with a 2-s pass beside Slurm's schedulers" \
  poll 20 log_has "preempt/timeslice: loaded; a pass every 2 s (drain at contract end, time slicing on); Slurm's schedulers never preempt"
check "priority/budget publishes its standings" poll 20 snapshot_fresh
check "each time-slicing pass logs its duration at debug level" \
  poll 10 log_matches 'debug: +preempt/timeslice: pass: [0-9]+\.[0-9]{3} ms, [0-9]+ waiting job\(s\) tried, [0-9]+ preemption\(s\)$'
check "each priority pass logs its duration at debug level" \
  poll 10 log_matches 'debug: +priority/budget: pass [0-9]+: [0-9]+\.[0-9]{3} ms \(snapshot '

# --- Protection, then requeue; a multi-node job goes whole -------------------
a1=$(job teama 0:20 2 --resumable) || fail_now "submit a1"
check "teama's 2-node job a1 runs on both nodes" wait_state "$a1" RUNNING 30
# Protected through start + 20, free from the next second (src/libbudget/policy/contract.h).
a1_end=$(( $(start_epoch "$a1") + 20 + 1 ))
# teamb has used nothing: far more under-served than teama.
b1_submitted=$(date +%s)
b1=$(job teamb 0:20 1 --resumable) || fail_now "submit b1"
# sbudget explain's own estimate while b1 waits at the head of the queue:
# a1 ranks behind it and is protected, so time slicing can start b1 at a1's
# protection end (libbudget/report/start_estimate.h); b1's real start is
# checked against it below.
timeslice_start_of() {
  "$BUILD_DIR/src/sbudget/sbudget" explain "$1" --json 2>/dev/null | jq -er '.[0].timeslice_start // empty'
}
# The report snapshot is written every pass (2 s): one written before a1
# started lists no running job, and explain then says b1 can start at once;
# the next one lists a1.
estimate_is() {
  local got; got=$(timeslice_start_of "$b1")
  [ "$got" = "$1" ] || { echo "sbudget explain's estimate for b1: ${got:-none}, expected $1"; return 1; }
}
check "sbudget explain gives b1 the first second after a1's protection (start + 21 s) while it waits" \
  poll 10 estimate_is "$a1_end"
b1_estimate=$a1_end
check "a1 is not preempted before its min-runtime (20 s) by the under-served team" running_until "$a1" $((a1_end - 1))
check "b1 waits while a1 is protected" state_is "$b1" PENDING
# Backfill stamps a cycle only when a job waits. The stamp, not sdiag's
# "Total cycles": slurmctld zeroes those counters at midnight, and backfill
# runs again only after a change, so a test that straddles midnight would
# read 0 from a scheduler that ran.
backfill_last_cycle() { sdiag | sed -n '/^Backfilling stats/,$p' | sed -n 's/^[[:space:]]*Last cycle when: .*(\([0-9]*\))$/\1/p' | head -n 1; }
backfill_ran() {
  local when; when=$(backfill_last_cycle)
  [ "${when:-0}" -ge "$b1_submitted" ] 2>/dev/null ||
    { echo "backfill's last cycle: ${when:-none} (b1 submitted at $b1_submitted)"; return 1; }
}
check "Slurm's backfill scheduler runs beside the time slicing (sdiag stamps its last cycle)" poll 10 backfill_ran
check "a1 (resumable) is requeued right after its protection ends" poll 10 requeued "$a1"
check "a1 shows who preempted it and the rule" notes_have "$a1" "preempted by job $b1 at "
check "the rule is the over-served allocation" notes_have "$a1" "(rule: over-served allocation)"
# (COLUMNS: a terminal wide enough that explain's lines are not wrapped.)
explain_has() { local out; out=$(COLUMNS=1000 "$BUILD_DIR/src/sbudget/sbudget" explain "$1" 2>&1); contains "$2" "$out"; }
check "sbudget explain names a1's preemptor and rule" \
  explain_has "$a1" "by job $b1, rule \"over-served allocation\"; requeued (resumable)"
check "b1 runs" wait_state "$b1" RUNNING 20
# Within one pass (2 s) of the estimate, and a second for a1 to leave.
within_a_pass() {
  local started; started=$(start_epoch "$b1")
  [ "$started" -ge "${b1_estimate:-0}" ] && [ "$started" -le $(( ${b1_estimate:-0} + 2 + 1 )) ] ||
    { echo "b1 started at $started, estimated $b1_estimate"; return 1; }
}
check "b1 started within one pass of sbudget explain's estimate" within_a_pass
check "a1 left both of its nodes (never half-preempted): one node busy, with b1" poll 10 busy_nodes_are 1
check "the log names preemptor, preemptee, both usage ratios and the rule" \
  poll 5 log_has "preempts job $a1 (teama, usage ratio "
echo "     log| $(grep -m1 "preempts job $a1 " "$LOG" | sed 's/.*\(timeslice: \)/\1/')"

# --- A requeued job starts again with a fresh protection window --------------
scancel "$b1"
check "a1 starts again once b1 is gone" wait_state "$a1" RUNNING 40
# Protected through start + 20, free from the next second (src/libbudget/policy/contract.h).
a1_end2=$(( $(start_epoch "$a1") + 20 + 1 ))
b2=$(job teamb 0:20 1 --resumable) || fail_now "submit b2"
check "restarted a1 is protected again for 20 s from its new start" running_until "$a1" $((a1_end2 - 1))
check "then requeued again" poll 10 requeued "$a1"
clear_jobs

# --- A non-resumable job is cancelled ----------------------------------------
# ... though Slurm may requeue it (JobRequeue=1 gives it Requeue=1): the
# contract decides (doc/admin-guide.md, "Requeue").
a2=$(job teama 0:15 2) || fail_now "submit a2"
check "teama's non-resumable a2 runs" wait_state "$a2" RUNNING 30
a2_end=$(( $(start_epoch "$a2") + 15 ))
b3=$(job teamb 0:15 1 --resumable) || fail_now "submit b3"
check "a2 is not preempted before its min-runtime (15 s)" running_until "$a2" $((a2_end - 1))
check "a2 (not resumable) is cancelled after it" poll 10 ended_as "$a2" "PREEMPTED CANCELLED"
check "a2 shows who preempted it" notes_have "$a2" "preempted by job $b3 at "
check "sbudget explain says a2 ended, not that it was requeued" \
  explain_has "$a2" "by job $b3, rule \"over-served allocation\"; not requeued: it ended (JobState=PREEMPTED; not resumable, Requeue=1)"
check "b3 runs" wait_state "$b3" RUNNING 20
clear_jobs

# --- Unallocated work is preempted at once -----------------------------------
# unallocated_preempted U A WHEN: unallocated job U (teamb, min-runtime 0,
# both nodes) runs, allocated job A (teama, 1 GPU) is submitted, and U is
# requeued within 6 s (the checks say WHEN), by the unallocated rule.
unallocated_preempted() {
  local u_name=$1 a_name=$2 when=$3 u a t0
  u=$(job teamb 0 2 --resumable) || fail_now "submit $u_name"
  check "unallocated $u_name (min-runtime 0) runs on both nodes" wait_state "$u" RUNNING 30
  a=$(job teama 0:10 1 --resumable) || fail_now "submit $a_name"
  t0=$SECONDS
  check "$u_name is preempted by allocated $a_name$when (within 6 s)" poll 6 requeued "$u"
  echo "     $u_name preempted $((SECONDS - t0)) s after $a_name was submitted"
  check "$u_name's reason names the unallocated rule" notes_have "$u" "(rule: unallocated)"
  check "$a_name runs" wait_state "$a" RUNNING 20
  clear_jobs
}
unallocated_preempted u1 a3 " at once"

# --- Drain at contract end ----------------------------------------------------
drains_before=$(count_in_state automated_drains)
# Preemptions under the drain's rule so far (libbudget/policy/timeslice_counts.h).
drain_rule_count() {
  python3 -c "import json; print(json.load(open('$STATE/timeslice_state.json')).get('preemptions_by_rule', {}).get('drain at contract end', 0))" 2>/dev/null || echo 0
}
drain_rule_before=$(drain_rule_count)
d1=$(job teama 0:20 1 --resumable -w n1) || fail_now "submit d1"
check "d1 runs on n1" wait_state "$d1" RUNNING 30
# Protected through start + 20, free from the next second (src/libbudget/policy/contract.h).
d1_end=$(( $(start_epoch "$d1") + 20 + 1 ))
scontrol update nodename=n1 state=drain reason=repair
promise="repair; empty by $(date -d "@$d1_end" +%Y-%m-%dT%H:%M:%S)"
check "n1's reason says when it will be empty ($promise)" poll 6 bash -c "[ \"\$(scontrol show node n1 | sed -n 's/^ *Reason=//p' | sed 's/ \[.*//')\" = '$promise' ] || { scontrol show node n1 | grep Reason; exit 1; }"
check "protected d1 is left alone on the draining node" running_until "$d1" $((d1_end - 1))
check "d1 is requeued right after its protection ends" poll 6 requeued "$d1"
check "d1's reason names the drain" notes_have "$d1" "node n1 is draining (rule: drain at contract end)"
check "sbudget explain gives d1's drain, not 'neither records a preemption'" \
  explain_has "$d1" "left node n1 at "
check "n1 is empty (drained)" poll 15 node_state_is n1 drained
check "the automated drain is counted in timeslice_state.json" \
  bash -c "[ \$(python3 -c \"import json; print(json.load(open('$STATE/timeslice_state.json'))['automated_drains'])\") -eq $((drains_before + 1)) ]"
drain_rule_counted() { [ "$(drain_rule_count)" -eq $((drain_rule_before + 1)) ]; }
check "d1's departure is counted under its rule in timeslice_state.json" drain_rule_counted
metrics_has() { "$BUILD_DIR/src/sbudget/sbudget" metrics 2>/dev/null | grep -qxF "$1"; }
drain_counters() {
  metrics_has "slurm_budget_preemptions_total{rule=\"drain at contract end\"} $((drain_rule_before + 1))" &&
    metrics_has "slurm_budget_automated_drains_total $((drains_before + 1))"
}
check "sbudget metrics gives both counters" drain_counters
check "the log says the drain is automated and when n1 will be empty" log_has "node n1 will be empty by "
scontrol update nodename=n1 state=resume
clear_jobs

# --- A pass follows a node change, not only the interval ----------------------
# With TimesliceInterval=300 a drain is still acted on within seconds: the
# thread passes within 100 ms of any change of a node's state (and of new
# standings, every 2 s here).
sed -i 's/^TimesliceInterval=.*/TimesliceInterval=300/' "$CLUSTER_DIR/etc/budget.conf"
grep -q '^TimesliceInterval=300' "$CLUSTER_DIR/etc/budget.conf" || echo 'TimesliceInterval=300' >>"$CLUSTER_DIR/etc/budget.conf"
check "the thread re-reads budget.conf: a pass every 300 s" poll 10 log_has "TimesliceInterval=300 s"
in_service() { ! node_state "$1" | grep -q drain || { node_state "$1"; return 1; }; }
check "n1 is back in service" poll 15 in_service n1
u2=$(job teamb 0 1 --resumable -w n1) || fail_now "submit u2"
check "unallocated u2 runs on n1" wait_state "$u2" RUNNING 30
# The interval's pass is due 300 s after the last one: only a pass that
# follows a change can requeue u2 within 10 s.
scontrol update nodename=n1 state=drain reason=repair2
t0=$SECONDS
check "u2 leaves draining n1 within 10 s, though TimesliceInterval=300" poll 10 requeued "$u2"
echo "     u2 requeued $((SECONDS - t0)) s after the drain"
scontrol update nodename=n1 state=resume
clear_jobs

# --- PreemptMode=OFF with budget.conf TimeSlicing=yes ----------------------------
# The switch in budget.conf (libbudget/config/slurm_settings.h, TimeSlicingOn):
# slurm.conf says OFF, so Slurm's own schedulers search no preemption
# candidates, and the suite's thread still time-slices.
sed -i -e 's/^TimesliceInterval=.*/TimesliceInterval=2/' -e '/^TimeSlicing=/d' "$CLUSTER_DIR/etc/budget.conf"
echo 'TimeSlicing=yes' >>"$CLUSTER_DIR/etc/budget.conf"
sed -i 's/^PreemptMode=.*/PreemptMode=OFF/' "$CLUSTER_DIR/etc/slurm.conf"
lines_before=$(wc -l < "$LOG")
check "slurmctld restarts with PreemptMode=OFF and TimeSlicing=yes" "$CLUSTER" restart-ctld
since_restart_has() { tail -n +"$((lines_before + 1))" "$LOG" | grep -q -- "$1" || { echo "no '$1' since the restart"; return 1; }; }
check "preempt/timeslice says time slicing is on" \
  poll 20 since_restart_has "preempt/timeslice: loaded; a pass every 2 s (drain at contract end, time slicing on)"
check "... and draws no PreemptMode=OFF warning (the key says yes)" \
  bash -c "! tail -n +$((lines_before + 1)) '$LOG' | grep -q 'WARNING: PreemptMode=OFF'"
check "Slurm reads PreemptMode=OFF" bash -c "[ \"\$(scontrol show config | sed -n 's/^PreemptMode *= *//p')\" = OFF ]"
unallocated_preempted u3 a4 " though PreemptMode=OFF"
# TimeSlicing=no, re-read at the next pass: nothing is time sliced.
sed -i 's/^TimeSlicing=.*/TimeSlicing=no/' "$CLUSTER_DIR/etc/budget.conf"
check "the thread re-reads budget.conf: time slicing off" poll 10 since_restart_has "re-read: time slicing off"
u4=$(job teamb 0 2 --resumable) || fail_now "submit u4"
check "unallocated u4 runs on both nodes" wait_state "$u4" RUNNING 30
a5=$(job teama 0:10 1 --resumable) || fail_now "submit a5"
check "with TimeSlicing=no, u4 keeps its GPUs while a5 waits (8 s, four passes)" running_until "$u4" $(( $(date +%s) + 8 ))
check "... and a5 waits" state_is "$a5" PENDING
clear_jobs

finish
