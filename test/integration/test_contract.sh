#!/usr/bin/env bash
# The job contract end to end on a real cluster: spank/contract gives sbatch,
# srun and salloc --min-runtime and --resumable; job_submit/contract admits,
# refuses (with the message on the user's terminal) and records the contract
# in AdminComment; a job's owner cannot change the contract once it runs, an
# operator can. sbatch's own --requeue is --resumable, --no-requeue declares
# a job not resumable, and Slurm's Requeue flag keeps Slurm's meaning, so an
# admin's `scontrol requeue` works on a job that is not resumable
# (src/libbudget/policy/requeue_request.h). This cluster sets no JobRequeue:
# Slurm's default, 1.
. "$(dirname "$0")/lib.sh"

USER_NAME=${CONTRACT_TEST_USER:-budgetuser}

# A non-zero DefaultMinRuntime, so that the default is seen to apply.
# Partitions with a default or only a maximum time, for jobs that give no --time.
export SLURM_CONF_EXTRA='PartitionName=short Nodes=ALL DefaultTime=5 MaxTime=60 State=UP
PartitionName=capped Nodes=ALL MaxTime=10 State=UP'
export BUDGET_CONF='# budget.conf of test_contract
MaxMinRuntime=8:00:00
DefaultMinRuntime=0:30'

cluster_start -n 2

# sbatch_out ARGS...: sbatch's whole output (stdout and stderr) and status.
sbatch_out() { sbatch "$@" 2>&1; }
# refused EXPECTED ARGS...: sbatch refuses the job and prints EXPECTED.
refused() {
  local expected=$1; shift
  local out
  if out=$(sbatch_out "$@"); then
    echo "sbatch $* was accepted: $out"
    return 1
  fi
  contains "$expected" "$out"
}
field_is() {
  local got; got=$(job_field "$1" "$2")
  [ "$got" = "$3" ] || { echo "job $1: $2=$got, want $3"; return 1; }
}
is_job_id() { [[ $1 =~ ^[0-9]+$ ]] || { echo "not a job id: $1"; return 1; }; }
as_user() { su -s /bin/bash "$USER_NAME" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1"; }

# --- the plugins are loaded ------------------------------------------------------
check "slurmctld runs job_submit/contract" \
  bash -c 'scontrol show config | grep -Eq "^JobSubmitPlugins *= contract$"'
check "job_submit/contract read budget.conf (DefaultMinRuntime=00:00:30)" \
  grep -q 'job_submit/contract: loaded; MaxMinRuntime=08:00:00 DefaultMinRuntime=00:00:30' \
  "$CLUSTER_DIR/log/slurmctld.log"
help=$(sbatch --help 2>&1)
check "sbatch --help lists --min-runtime=time" contains "--min-runtime=time" "$help"
check "sbatch --help lists --resumable" contains "--resumable" "$help"
check "srun --help lists --min-runtime" contains "--min-runtime" "$(srun --help 2>&1)"
check "salloc --help lists --resumable" contains "--resumable" "$(salloc --help 2>&1)"
check "sbatch --help says --resumable is --requeue" contains "Requeue (not cancel) when preempted, as --requeue" "$help"

# --- accepted contracts --------------------------------------------------------------
out=$CLUSTER_DIR/env.out
# The batch script, a step of it, and a step that gives --min-runtime=abc.
id=$(submit -o "$out" --min-runtime=15 --resumable --wrap 'sleep 1; echo "MR=$SLURM_SPANK_MIN_RUNTIME R=$SLURM_SPANK_RESUMABLE"
srun bash -c "echo step MR=\$SLURM_SPANK_MIN_RUNTIME R=\$SLURM_SPANK_RESUMABLE"
srun --min-runtime=abc true; echo "abc rc=$?"') \
  || fail_now "sbatch --min-runtime=15 --resumable is accepted"
check "sbatch --min-runtime=15 --resumable is accepted and runs to completion" wait_state "$id" COMPLETED 30
# 15 min = 900 s.
check "the contract is recorded in AdminComment" \
  field_is "$id" AdminComment "contract:min_runtime=900,resumable=1,declared=1"
check "--resumable makes the job requeueable (Requeue=1)" field_is "$id" Requeue 1
# SLURM_SPANK_MIN_RUNTIME holds seconds: 15 min = 900.
check "the batch job sees SLURM_SPANK_MIN_RUNTIME=900 (seconds) and SLURM_SPANK_RESUMABLE=1" grep -qx 'MR=900 R=1' "$out"
check "... and so does a step of it" grep -qx 'step MR=900 R=1' "$out"
check "srun --min-runtime=abc inside the allocation fails with sbatch's message" \
  bash -c "grep -q 'srun: error: --min-runtime=abc: invalid time \"abc\"' '$out' && grep -qx 'abc rc=1' '$out'"

id=$(submit -o /dev/null --min-runtime=0:20 --wrap 'true') || fail_now "sbatch --min-runtime=0:20"
check "a job without --resumable completes" wait_state "$id" COMPLETED 30
check "a job without --resumable has a record that says resumable=0" \
  field_is "$id" AdminComment "contract:min_runtime=20,resumable=0,declared=1"
check "... and keeps Slurm's Requeue flag as JobRequeue gives it (default 1)" field_is "$id" Requeue 1
id=$(submit -o /dev/null --hold --min-runtime=0:20 --no-requeue --wrap 'true') || fail_now "sbatch --no-requeue"
check "--no-requeue: not resumable, and Requeue=0" \
  bash -c "[ \"\$(scontrol show job $id | grep -Eo '(AdminComment|Requeue)=[^ ]*' | tr '\n' ' ')\" = 'Requeue=0 AdminComment=contract:min_runtime=20,resumable=0,declared=1 ' ]"
scancel "$id"
check "--resumable with --no-requeue is refused as a contradiction" \
  refused "sbatch: error: --resumable and --no-requeue contradict each other (--resumable is the same as --requeue): give one" \
  --resumable --no-requeue --wrap true

out_default=$CLUSTER_DIR/env-default.out
id=$(submit -o "$out_default" --requeue --wrap 'echo "MR=$SLURM_SPANK_MIN_RUNTIME R=$SLURM_SPANK_RESUMABLE"') \
  || fail_now "sbatch without --min-runtime"
# DefaultMinRuntime=0:30 = 30 s, not declared; --requeue is --resumable.
check "no --min-runtime gets DefaultMinRuntime (30 s, declared=0); --requeue makes it resumable" \
  field_is "$id" AdminComment "contract:min_runtime=30,resumable=1,declared=0"
check "--requeue without --resumable gives Requeue=1" field_is "$id" Requeue 1
check "the job without a contract runs to completion" wait_state "$id" COMPLETED 30
check "... and sees the default in seconds, resumable (SLURM_SPANK_MIN_RUNTIME=30, RESUMABLE=1)" grep -qx 'MR=30 R=1' "$out_default"
check "sbatch tells a job without --min-runtime which contract it got, in one line on stderr" \
  bash -c '[ "$(sbatch -o /dev/null --hold --wrap true 2>&1 >/dev/null)" = "sbatch: no --min-runtime given: the default contract applies (protected for 00:00:30, cancelled if preempted)" ]'
# The host's plugstack.conf turns the notice off for its commands (notice=no).
stack=$CLUSTER_DIR/etc/plugstack.conf.d/contract.conf
cp "$stack" "$stack.shipped"
sed -i 's|^required .*spank_contract.so$|& notice=no|' "$stack"
check "with notice=no in plugstack.conf, sbatch says nothing of the default contract" \
  bash -c "grep -q 'spank_contract.so notice=no\$' '$stack' && [ \"\$(sbatch -o /dev/null --hold --wrap true 2>&1 >/dev/null)\" = '' ]"
sed -i 's|notice=no$|notice=maybe|' "$stack"
check "a plugstack.conf argument the plugin does not know stops sbatch, naming it" \
  refused 'spank/contract: unknown argument "notice=maybe" in plugstack.conf (known: notice=yes, notice=no)' --wrap true
mv "$stack.shipped" "$stack"
scancel --quiet --state=PENDING --user=root 2>/dev/null
check "... and says nothing when the job declares one" \
  bash -c '! sbatch -o /dev/null --min-runtime=0:10 --wrap true 2>&1 | grep -q "no --min-runtime given"'

id=$(submit -o /dev/null --time=1:00:00 --min-runtime=1:00:00 --wrap 'true') || fail_now "min-runtime = time limit"
check "--min-runtime equal to --time is accepted and completes" wait_state "$id" COMPLETED 30

srun_id=$(srun --min-runtime=0:05 bash -c 'echo $SLURM_JOB_ID' 2>&1)
check "srun --min-runtime=0:05 true works" is_job_id "$srun_id"
check "the srun job's contract is recorded (5 s)" \
  field_is "$srun_id" AdminComment "contract:min_runtime=5,resumable=0,declared=1"
# show_mr: prints SLURM_SPANK_MIN_RUNTIME of the shell, then of an srun step.
show_mr=$CLUSTER_DIR/show_mr.sh
printf '%s\n' 'echo "MR=$SLURM_SPANK_MIN_RUNTIME"' 'srun bash -c '"'"'echo "step MR=$SLURM_SPANK_MIN_RUNTIME"'"'"'' > "$show_mr"
check "an srun job sees its contract in seconds (--min-runtime=0:05: 5)" \
  contains "MR=5" "$(srun --min-runtime=0:05 bash -c 'echo "MR=$SLURM_SPANK_MIN_RUNTIME"' 2>/dev/null)"
check "... and the default when it declares none (30)" \
  contains "MR=30" "$(srun bash -c 'echo "MR=$SLURM_SPANK_MIN_RUNTIME"' 2>/dev/null)"
check "salloc --min-runtime=0:10 --resumable true works" \
  bash -c 'salloc --min-runtime=0:10 --resumable true 2>&1 | grep -q "Granted job allocation"'
salloc_out=$(salloc --min-runtime=0:10 bash "$show_mr" 2>/dev/null)
check "salloc's shell sees 10 (seconds)" contains "MR=10" "$salloc_out"
check "... and so do its steps" contains "step MR=10" "$salloc_out"

# --- refused contracts, with the message on the terminal -------------------------------
check "--min-runtime=9:00:00 is refused naming MaxMinRuntime=08:00:00" \
  refused "sbatch: error: --min-runtime=9:00:00 exceeds MaxMinRuntime=08:00:00" --min-runtime=9:00:00 --wrap true
check "--min-runtime=abc is refused naming abc" \
  refused 'sbatch: error: --min-runtime=abc: invalid time "abc"' --min-runtime=abc --wrap true
check "--min-runtime=2:00:00 --time=1:00:00 is refused naming both" \
  refused "--min-runtime=2:00:00 is longer than the job's time limit (01:00:00)" \
  --min-runtime=2:00:00 --time=1:00:00 --wrap true
check "without --time the partition's DefaultTime (5 min) bounds --min-runtime" \
  refused "--min-runtime=10 is longer than the job's time limit (00:05:00)" -p short --min-runtime=10 --wrap true
check "without --time and DefaultTime the partition's MaxTime (10 min) bounds it" \
  refused "--min-runtime=11 is longer than the job's time limit (00:10:00)" -p capped --min-runtime=11 --wrap true
id=$(submit -o /dev/null --hold -p short --time=20 --min-runtime=10 --wrap true) || fail_now "sbatch -p short --time=20"
check "... and with --time=20 (within MaxTime=60) --min-runtime=10 is accepted" \
  field_is "$id" AdminComment "contract:min_runtime=600,resumable=0,declared=1"
check "--min-runtime= (empty) is refused" refused 'invalid time ""' --min-runtime= --wrap true
check "a refusal also says why the submission failed" \
  refused "Batch job submission failed: Invalid time specified" --min-runtime=-1 --wrap true
check "srun --min-runtime=9:00:00 is refused on the terminal" \
  bash -c 'out=$(srun --min-runtime=9:00:00 true 2>&1); rc=$?; [ $rc -ne 0 ] && grep -q "exceeds MaxMinRuntime=08:00:00" <<<"$out" || { echo "rc=$rc: $out"; exit 1; }'

# --- a user cannot change the contract of a running job; an operator can ----------------
ensure_test_user "$USER_NAME"
# The user must reach munged; the socket's directory holds only the socket and the key (0600).
chmod 0711 "$CLUSTER_DIR/munge"

# user_refused EXPECTED COMMAND: COMMAND, run as the user, fails and prints EXPECTED.
user_refused() {
  local out
  if out=$(as_user "$2" 2>&1); then echo "accepted: $2: $out"; return 1; fi
  contains "$1" "$out"
}
# AdminComment has a line of its own in `scontrol show job` and may hold spaces.
admin_comment_is() {
  # 22.05's scontrol ends the line with a space, 26.05's does not.
  local got; got=$(scontrol show job "$1" | sed -n 's/^ *AdminComment=\(.*\)$/\1/p' | sed 's/ $//')
  [ "$got" = "$2" ] || { echo "job $1: AdminComment='$got', want '$2'"; return 1; }
}
contract_is() { field_is "$1" Requeue "$2" && field_is "$1" AdminComment "$3"; }

uid_job=$(as_user "sbatch --parsable -o /dev/null --time=5 --min-runtime=3 --resumable --wrap 'sleep 300'" 2>&1)
check "the user submits a job" is_job_id "$uid_job"
check "the user's job runs" wait_state "$uid_job" RUNNING 30
check "the user cannot turn off requeue of the running job (Access/permission denied)" \
  user_refused "Access/permission denied" "scontrol update jobid=$uid_job requeue=0"
check "... its contract is unchanged (Requeue=1, resumable=1)" \
  contract_is "$uid_job" 1 "contract:min_runtime=180,resumable=1,declared=1"
# scontrol said only "Access/permission denied" (22.05's job_modify has no
# message): the reason is on the job, where sbudget explain shows it.
refusal_shown() {
  local out; out=$(as_user "COLUMNS=1000 $BUILD_DIR/src/sbudget/sbudget explain $uid_job" 2>&1)
  contains "refused     a contract change at " "$out" &&
    contains "the job has started: its contract (--min-runtime=00:03:00, --resumable) can no longer be changed by its owner; ask an operator" "$out"
}
check "sbudget explain shows the user why the change was refused" refusal_shown
check "... from the job's SystemComment" \
  bash -c "scontrol show job $uid_job | grep -q '^ *SystemComment=contract change refused at .*: the job has started'"
# Slurm keeps time limits in whole minutes: 2 min < the 3-minute min-runtime.
check "the user cannot cut the time limit below the min-runtime (2 < 3 min)" \
  user_refused "Requested time limit is invalid" "scontrol update jobid=$uid_job timelimit=2"
check "... the time limit is unchanged (5 min)" field_is "$uid_job" TimeLimit 00:05:00
check "a user cannot forge the record: Slurm refuses them an AdminComment" \
  user_refused "Access/permission denied" "scontrol update jobid=$uid_job admincomment=contract:min_runtime=0,resumable=1"
check "the user may restate the contract (requeue=1)" as_user "scontrol update jobid=$uid_job requeue=1"
check "the user may cut the time limit down to the min-runtime (3 min)" \
  as_user "scontrol update jobid=$uid_job timelimit=3"
check "root can turn off requeue of the running job" scontrol update jobid="$uid_job" requeue=0
check "... then Requeue=0 and the record says resumable=0" \
  contract_is "$uid_job" 0 "contract:min_runtime=180,resumable=0,declared=1"
check "root replaces AdminComment and the record survives" \
  scontrol update jobid="$uid_job" admincomment=repair-ticket-7
check "... AdminComment holds both" admin_comment_is "$uid_job" \
  "repair-ticket-7 contract:min_runtime=180,resumable=0,declared=1"
scancel "$uid_job"

# --- an admin requeues a job that is not resumable ---------------------------------------
# What an admin does to move a job off a failing node. The job's contract
# says resumable=0; Slurm's flag (JobRequeue's 1) lets the admin requeue it,
# and the requeue changes no contract.
plain=$(as_user "sbatch --parsable -o /dev/null --time=5 --min-runtime=0:20 --wrap 'sleep 300'" 2>&1)
check "the user submits a job without --resumable" is_job_id "$plain"
check "... and it runs" wait_state "$plain" RUNNING 30
check "root's scontrol requeue of it succeeds" scontrol requeue "$plain"
requeued_once() {
  local restarts; restarts=$(job_field "$plain" Restarts)
  [ "$restarts" = 1 ] || { echo "job $plain: Restarts=$restarts, want 1"; return 1; }
  # Back in the queue: PENDING (or already started again).
  case $(job_state "$plain") in PENDING | RUNNING | CONFIGURING) ;; *) echo "job $plain is $(job_state "$plain")"; return 1 ;; esac
}
check "... the job is requeued (Restarts=1) and waits to run again" poll 15 requeued_once
check "... and its contract is unchanged (Requeue=1, resumable=0)" \
  contract_is "$plain" 1 "contract:min_runtime=20,resumable=0,declared=1"
scancel "$plain"
# As in plain Slurm, --no-requeue is the user's word: an admin must update
# Requeue first (which makes the job resumable).
noreq=$(as_user "sbatch --parsable -o /dev/null --time=5 --min-runtime=0:20 --no-requeue --wrap 'sleep 300'" 2>&1)
check "a job sent --no-requeue runs" wait_state "$noreq" RUNNING 30
check "... root's scontrol requeue of it is refused, as in plain Slurm" \
  bash -c "out=\$(scontrol requeue $noreq 2>&1) && { echo \"accepted: \$out\"; exit 1; }; grep -q 'Requested operation is presently disabled' <<<\"\$out\" || { echo \"\$out\"; exit 1; }"
check "... until root sets Requeue=1, and the record follows (resumable=1)" \
  bash -c "scontrol update jobid=$noreq requeue=1 && scontrol show job $noreq | grep -q 'AdminComment=contract:min_runtime=20,resumable=1,declared=1'"
check "... then the requeue succeeds" scontrol requeue "$noreq"
scancel "$noreq"

held=$(as_user "sbatch --parsable -o /dev/null --hold --min-runtime=0:20 --resumable --wrap true" 2>&1)
check "the user may change the contract of a pending job" as_user "scontrol update jobid=$held requeue=0"
check "... and the record follows (resumable=0)" \
  field_is "$held" AdminComment "contract:min_runtime=20,resumable=0,declared=1"
scancel "$held"

check "slurmctld survived every request" bash -c 'scontrol ping | grep -q "is UP"'

# --- an edited budget.conf applies after scontrol reconfigure -----------------------------
conf_dir=$CLUSTER_DIR/etc
printf '# budget.conf of test_contract, edited\nMaxMinRuntime=1:00:00\nDefaultMinRuntime=0:30\nDefaultContractNotice=no\n' > "$conf_dir/budget.conf"
check "scontrol reconfigure after lowering MaxMinRuntime to 1:00:00" scontrol reconfigure
check "the new MaxMinRuntime is enforced: --min-runtime=2:00:00 is refused naming MaxMinRuntime=01:00:00" \
  refused "--min-runtime=2:00:00 exceeds MaxMinRuntime=01:00:00" --min-runtime=2:00:00 --wrap true
# 23.11+ runs a reconfigure by re-executing slurmctld: init() reads it again.
reread="job_submit/contract: re-read $conf_dir/budget.conf; MaxMinRuntime=01:00:00"
[ "$SLURM_SERIES" -ge 2311 ] && reread="job_submit/contract: loaded; MaxMinRuntime=01:00:00"
check "... and the log says budget.conf was re-read" grep -q "$reread" "$CLUSTER_DIR/log/slurmctld.log"
check "DefaultContractNotice=no: sbatch says nothing of the default contract" \
  bash -c '[ "$(sbatch -o /dev/null --hold --wrap true 2>&1 >/dev/null)" = "" ]'
scancel --quiet --state=PENDING --user=root 2>/dev/null
printf 'MaxMinRuntime=1:00:00\nMaxMinRuntme=2:00:00\n' > "$conf_dir/budget.conf"
check "a broken edit keeps the settings in force (--min-runtime=2:00:00 still refused)" \
  refused "exceeds MaxMinRuntime=01:00:00" --min-runtime=2:00:00 --wrap true
check "... and the log names file, line and key of the broken edit" \
  grep -q "job_submit/contract: $conf_dir/budget.conf:2: unknown key \"MaxMinRuntme\"; keeping the settings in force" \
  "$CLUSTER_DIR/log/slurmctld.log"

# --- budget.conf: missing means defaults, bad means slurmctld refuses to start --------
rm -f "$conf_dir/budget.conf"
check "without budget.conf slurmctld restarts" "$CLUSTER" restart-ctld
check "the recorded contract survives the restart" \
  admin_comment_is "$uid_job" "repair-ticket-7 contract:min_runtime=180,resumable=0,declared=1"
check "... and logs one line saying the defaults apply" \
  grep -q "job_submit/contract: $conf_dir/budget.conf not found, using the defaults" "$CLUSTER_DIR/log/slurmctld.log"
check "... DefaultMinRuntime is then 0" \
  field_is "$(submit -o /dev/null --hold --wrap true)" AdminComment "contract:min_runtime=0,resumable=0,declared=0"
printf '# bad\nMaxMinRuntime=soon\n' > "$conf_dir/budget.conf"
check "a bad budget.conf stops slurmctld from starting" bash -c '! "$0" restart-ctld' "$CLUSTER"
check "... and the log names file, line and key" \
  grep -q "job_submit/contract: $conf_dir/budget.conf:2: key MaxMinRuntime: invalid time \"soon\"" \
  "$CLUSTER_DIR/log/slurmctld.log"
finish
