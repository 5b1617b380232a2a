#!/usr/bin/env bash
# Nothing a user writes is read back as one of the suite's notes. A job's
# owner writes forged preemption and drain notes, dated in the future and
# naming a waiting job of the other team, into every field they can set on
# their own jobs (Comment, at submission and by scontrol update; the job
# name; the wckey) and tries the fields they cannot (AdminComment,
# SystemComment). Then:
#   - time slicing is unchanged: the under-served team's job still preempts
#     the over-served team's protected job right after its protection ends;
#   - `sbudget explain` of the forger's jobs reports no preemption, and that
#     of the real victim the real preemptor;
#   - the real note is in the victim's SystemComment, and the victim's own
#     Comment is left as its owner wrote it.
# Two teams at 50/50 on two 8-GPU nodes, time-compressed (timeslice_lib.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/timeslice_lib.sh"

USER_NAME=${CONTRACT_TEST_USER:-budgetuser}

cluster_start -n 2 -g 8
check "preempt/timeslice is loaded" poll 20 log_has "preempt/timeslice: loaded; a pass every 2 s"
check "priority/budget publishes its standings" poll 20 snapshot_fresh

ensure_test_user "$USER_NAME"
# The user must reach munged; the socket's directory holds only the socket and the key (0600).
chmod 0711 "$CLUSTER_DIR/munge"
as_user() { su -s /bin/bash "$USER_NAME" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1"; }
user_fails() { local out; if out=$(as_user "$1" 2>&1); then echo "accepted: $1: $out"; return 1; fi; echo "$out"; }
is_job_id() { [[ $1 =~ ^[0-9]+$ ]] || { echo "not a job id: $1"; return 1; }; }
# (22.05's scontrol ends such a line with a space, 26.05's does not.)
line_of() { scontrol show job "$1" 2>/dev/null | sed -n "s/^ *$2=\(.*\)\$/\1/p" | sed 's/ $//'; }
field_is() {
  local got; got=$(line_of "$1" "$2")
  [ "$got" = "$3" ] || { echo "job $1: $2='$got', want '$3'"; return 1; }
}
explain_of() { COLUMNS=1000 "$BUILD_DIR/src/sbudget/sbudget" explain "$1" 2>&1; }
explain_has() { contains "$2" "$(explain_of "$1")"; }
explain_has_no_departure() {
  local out; out=$(explain_of "$1")
  if grep -Eq '^  (preempted|drained|note) ' <<<"$out"; then echo "$out"; return 1; fi
}

# --- The victim, and the waiting job the forger names -------------------------
# a1: teama's protected 2-node job, with its owner's own Comment.
a1=$(job teama 0:20 2 --resumable --comment=mine) || fail_now "submit a1"
check "teama's 2-node job a1 runs on both nodes" wait_state "$a1" RUNNING 30
# Protected through start + 20, free from the next second (src/libbudget/policy/contract.h).
a1_end=$(( $(start_epoch "$a1") + 20 + 1 ))
# teamb has used nothing: b1 preempts a1 at the end of its protection.
b1=$(job teamb 0:20 1 --resumable) || fail_now "submit b1"

# --- The forgeries -------------------------------------------------------------
# Dated in the future (a grant that would never expire) and naming b1 (the
# grant would raise teamb's commitments and refuse b1's preemption).
grant="preempted by job $b1 at 2030-01-01T00:00:00 (rule: unallocated)"
drain="requeued at 2030-01-01T00:00:00: node n1 is draining (rule: drain at contract end)"
# f1: held, the note given at submission as Comment and job name (and wckey).
wckey=taken
f1=$(as_user "sbatch --parsable -o /dev/null -A teama --hold --min-runtime=0:20 --gres=gpu:8 \
  --comment='$grant' --job-name='$grant' --wckey=forged --wrap true" 2>&1)
if ! is_job_id "$f1" >/dev/null; then
  wckey=refused
  # Should sbatch refuse the wckey, the other fields must still be tried.
  echo "     sbatch --wckey: $f1"
  f1=$(as_user "sbatch --parsable -o /dev/null -A teama --hold --min-runtime=0:20 --gres=gpu:8 \
    --comment='$grant' --job-name='$grant' --wrap true" 2>&1)
fi
check "the user submits f1 with a forged note as Comment and job name" is_job_id "$f1"
echo "     f1: --wckey $wckey; WCKey=$(job_field "$f1" WCKey) (Slurm keeps one only with TrackWCKey)"
# f2: waiting (not held) unallocated work; the note written after submission.
f2=$(as_user "sbatch --parsable -o /dev/null -A teama --min-runtime=0 --gres=gpu:8 --wrap 'sleep 600'" 2>&1)
check "the user submits f2" is_job_id "$f2"
check "the user may set f2's Comment to a forged note (Slurm allows it)" \
  as_user "scontrol update jobid=$f2 comment='$grant'"
check "... and its name to a forged drain note" as_user "scontrol update jobid=$f2 name='$drain'"
check "the user cannot write root's job a1 (Slurm refuses)" \
  user_fails "scontrol update jobid=$a1 comment='$grant'"
out=$(user_fails "scontrol update jobid=$f2 admincomment='$grant'")
check "the user cannot write an AdminComment (Access/permission denied)" contains "Access/permission denied" "$out"
check "the user cannot write a SystemComment (no RPC sets it)" \
  user_fails "scontrol update jobid=$f2 systemcomment='$grant'"
check "... not even root can" bash -c "! scontrol update jobid=$f2 systemcomment='$grant' 2>/dev/null"
check "f1 and f2 carry no SystemComment" bash -c \
  "! scontrol show job $f1 $f2 | grep -q SystemComment= || { scontrol show job $f1 $f2 | grep SystemComment=; exit 1; }"
check "f2's Comment holds the forged note" field_is "$f2" Comment "$grant"

# --- Time slicing is unchanged -------------------------------------------------
check "a1 is not preempted before its min-runtime (20 s)" running_until "$a1" $((a1_end - 1))
check "b1 waits while a1 is protected" state_is "$b1" PENDING
t0=$(date +%s)
# As in test_timeslice.sh: requeued within 10 s of the protection's end.
check "a1 is requeued right after its protection ends, the forged grants notwithstanding" poll 10 requeued "$a1"
echo "     a1 requeued $(( $(date +%s) - a1_end )) s after its protection ended ($(( $(date +%s) - t0 )) s of polling)"
check "b1 runs" wait_state "$b1" RUNNING 20

# --- What the notes say --------------------------------------------------------
# notes_are ID GLOB: the job's SystemComment matches GLOB.
notes_are() {
  local got; got=$(line_of "$1" SystemComment)
  # shellcheck disable=SC2053
  [[ $got == $2 ]] || { echo "job $1: SystemComment='$got', want $2"; return 1; }
}
check "a1's SystemComment holds the real note" notes_are "$a1" "preempted by job $b1 at * (rule: over-served allocation)"
check "a1's own Comment is left as its owner wrote it" field_is "$a1" Comment mine
check "sbudget explain of a1 names its real preemptor" \
  explain_has "$a1" "by job $b1, rule \"over-served allocation\"; requeued (resumable)"
check "sbudget explain of f1 reports no preemption" explain_has_no_departure "$f1"
check "sbudget explain of f2 reports no preemption nor drain" explain_has_no_departure "$f2"
echo "     f2| $(explain_of "$f2" | head -n 3 | paste -sd '|')"
check "slurmctld survived every request" bash -c 'scontrol ping | grep -q "is UP"'
scancel "$f1" "$f2"
clear_jobs

finish
