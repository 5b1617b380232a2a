#!/usr/bin/env bash
# What a user writes cannot steer the contract of another job, forge lines in
# slurmctld.log or flood it; and a burst of submissions loses nothing.
#   - a het job's component without --min-runtime gets the default contract,
#     not the previous component's (spank/contract starts each component
#     from nothing);
#   - a job submitted from inside a job (a batch script, an salloc) declares
#     only what its own command line says, not the enclosing job's
#     --min-runtime;
#   - hostile --min-runtime values (newlines with forged log lines, 120 kB,
#     control characters, unicode) are refused with one short message, and
#     slurmctld.log gets no injected line and no line longer than 1 kB;
#   - 1,000 sbatch with --min-runtime, 8 at a time, through spank/contract
#     and job_submit/contract: 0 lost, with squeue's latency measured during
#     the burst (printed, not asserted: the machine is shared).
. "$(dirname "$0")/lib.sh"

USER_NAME=${CONTRACT_TEST_USER:-budgetuser}
ensure_test_user "$USER_NAME"
LOG=$CLUSTER_DIR/log/slurmctld.log
BURST=${HOSTILE_BURST:-1000}
BURST_LANES=8

# sched/backfill: slurmctld accepts het jobs only under it.
export SCHEDULER_TYPE=sched/backfill
export BUDGET_CONF='# budget.conf of test_hostile_input
MaxMinRuntime=8:00:00
DefaultMinRuntime=0'

cluster_start -n 2 -g 8

field_is() {
  local got; got=$(job_field "$1" "$2")
  [ "$got" = "$3" ] || { echo "job $1: $2=$got, want $3"; return 1; }
}
as_user() { su -s /bin/bash "$USER_NAME" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1"; }
kDefault=contract:min_runtime=0,resumable=0,declared=0

# Every sbatch, srun and salloc loads spank/contract with lazy binding: a
# core symbol it lacks shows only when the code that needs it runs (once, a
# refused --min-runtime: "symbol lookup error").
no_core_symbol_missing() { ! nm -D --undefined-only "$CLUSTER_DIR/plugins/spank_contract.so" | grep -E '_ZN?K?6budget'; }
check "spank_contract.so needs no core symbol from outside" no_core_symbol_missing

# --- het jobs: one contract per component ------------------------------------------
het=$(submit -o /dev/null --hold -A teama --min-runtime=30 --resumable --time=60 --gres=gpu:1 \
  : -A teamb --gres=gpu:1 --time=60 --wrap true) || fail_now "submit a het job"
# 30 min = 1800 s; "N+1" is the second component.
check "het job: the component with --min-runtime=30 --resumable records it" \
  field_is "$het" AdminComment "contract:min_runtime=1800,resumable=1,declared=1"
# resumable=0 in $kDefault: the first one's --resumable does not carry over
# (Slurm's Requeue flag follows JobRequeue there, doc/admin-guide.md "Requeue").
check "het job: the component without options gets the default, not the first one's" \
  field_is "$het+1" AdminComment "$kDefault"
# The default contract's notice: one line per submission, though both
# components declared nothing (slurmctld would print each one's message,
# prefixed "0: ", "1: "); DefaultMinRuntime=0 here.
het_notice_once() {
  local out n; out=$(sbatch -o /dev/null --hold -A teama --time=60 : -A teamb --time=60 --wrap true 2>&1)
  scancel "$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$out")" 2>/dev/null
  n=$(grep -c "no --min-runtime given" <<<"$out")
  [ "$n" -eq 1 ] || { echo "$n notices: $out"; return 1; }
  contains "sbatch: 0: no --min-runtime given: the default contract applies (unallocated work, cancelled if preempted)" "$out"
}
check "a het job that declared nothing is told its default contract once, in one line" het_notice_once
het2=$(submit -o /dev/null --hold -A teama --time=60 --gres=gpu:1 \
  : -A teamb --min-runtime=10 --gres=gpu:1 --time=60 : -A teamb --time=60 --wrap true) ||
  fail_now "submit a het job of three components"
# 10 min = 600 s, on the second component only.
check "het job of three: the first, without options, gets the default" field_is "$het2" AdminComment "$kDefault"
check "... the second records its own --min-runtime=10" \
  field_is "$het2+1" AdminComment "contract:min_runtime=600,resumable=0,declared=1"
check "... the third does not inherit it" field_is "$het2+2" AdminComment "$kDefault"
scancel "$het" "$het2"

# --- nested submissions: the enclosing job's options stay its own ---------------------
ids=$CLUSTER_DIR/nested.ids
rm -f "$ids"
outer=$(submit -o /dev/null --min-runtime=30 --resumable --time=60 --wrap \
  "sbatch --parsable --hold -o /dev/null --wrap true >>$ids; sbatch --parsable --hold -o /dev/null --min-runtime=5 --wrap true >>$ids") ||
  fail_now "submit the outer job"
check "the outer job records its contract" field_is "$outer" AdminComment "contract:min_runtime=1800,resumable=1,declared=1"
check "the outer job submits two jobs and ends" wait_state "$outer" COMPLETED 60
inner=$(sed -n 1p "$ids" 2>/dev/null); inner5=$(sed -n 2p "$ids" 2>/dev/null)
check "a job submitted inside it without --min-runtime gets the default (declared=0)" \
  field_is "${inner:-none}" AdminComment "$kDefault"
# 5 min = 300 s.
check "one with --min-runtime=5 inside it records its own (300 s)" \
  field_is "${inner5:-none}" AdminComment "contract:min_runtime=300,resumable=0,declared=1"
[ -n "$inner$inner5" ] && scancel $inner $inner5
# The same from an salloc shell (its environment carries the allocation's
# options too).
in_salloc=$(salloc -Q --min-runtime=30 --resumable --time=60 sh -c 'sbatch --parsable --hold -o /dev/null --wrap true' 2>/dev/null | tail -n 1)
check "a job submitted from an salloc with --min-runtime=30 gets the default" \
  field_is "${in_salloc:-none}" AdminComment "$kDefault"
[ -n "$in_salloc" ] && scancel "$in_salloc"

# --- hostile --min-runtime values -------------------------------------------------------
forged='error: priority/budget: FORGED LOG LINE'
big=$(head -c 120000 /dev/zero | tr '\0' '9')
big_lines=$(for i in $(seq 1 3000); do printf '\n%s %d' "$forged" "$i"; done | head -c 120000)
hostile=(
  "15"$'\n'"$forged"
  "$big"
  "$big_lines"
  "1"$'\x1b[31m'"5"$'\r\x07\t'"0"
  $'\xef\xbc\x91\xef\xbc\x95'              # "１５", fullwidth digits
  "15"$'\xe2\x80\xae'"00:01"              # a right-to-left override
  $'\xff\xfe'"15"                         # not UTF-8
)
# refused_briefly VALUE: sbatch as a user refuses it with one short message
# naming the option.
refused_briefly() {
  local out rc
  out=$(printf '%s' "$1" | as_user 'v=$(cat); sbatch --hold -o /dev/null --min-runtime="$v" --wrap true' 2>&1)
  rc=$?
  [ "$rc" -ne 0 ] || { echo "accepted: $out"; return 1; }
  [ "${#out}" -lt 1024 ] || { echo "a ${#out}-byte reply: ${out:0:200}..."; return 1; }
  contains "--min-runtime=" "$out" || return 1
  echo "$out"
}
log_lines_before=$(wc -l < "$LOG")
for i in "${!hostile[@]}"; do
  check "hostile --min-runtime #$i (${#hostile[$i]} bytes) is refused with a short message" \
    refused_briefly "${hostile[$i]}"
done
too_long_said() {
  local out
  out=$(sbatch --hold -o /dev/null --min-runtime="$big" --wrap true 2>&1)
  contains "too long: at most 64 bytes are accepted" "${out:0:400}"
}
check "a value over 64 bytes is told it is too long" too_long_said
new_log() { tail -n +"$((log_lines_before + 1))" "$LOG"; }
no_injected_line() {
  # A line of the plugin's own starts with the timestamp; an injected one
  # would start with the forged text (or carry it after a raw newline).
  ! new_log | grep -aE "^(\[[^]]*\] )?$forged" && new_log | grep -aqF '15\x0aerror: priority/budget: FORGED'
}
check "slurmctld.log has no injected line (the newline is logged as \\x0a)" no_injected_line
longest_line() {
  local n; n=$(new_log | LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
  echo "longest new line: $n bytes"
  [ "$n" -lt 1024 ]
}
check "slurmctld.log has no line longer than 1 kB" longest_line
no_raw_control() { ! new_log | grep -aP '[\x00-\x08\x0b-\x1f\x7f]' | head -3 | grep -a .; }
check "slurmctld.log holds none of the control characters" no_raw_control

# --- a burst of submissions ---------------------------------------------------------------
burst_dir=$CLUSTER_DIR/burst
rm -rf "$burst_dir"; mkdir -p "$burst_dir"
touch "$burst_dir/ids" "$burst_dir/failed" "$burst_dir/errors" "$burst_dir/squeue.ms"
# squeue's latency, in ms, once every 0.1 s while the burst runs.
(
  while [ ! -e "$burst_dir/done" ]; do
    t0=$(date +%s%N)
    squeue -h >/dev/null 2>&1 && echo $((($(date +%s%N) - t0) / 1000000)) >>"$burst_dir/squeue.ms"
    sleep 0.1
  done
) &
sampler=$!
burst_start=$SECONDS
seq 1 "$BURST" | xargs -P "$BURST_LANES" -I{} sh -c \
  'if id=$(sbatch --parsable --hold -J burst -o /dev/null --min-runtime=0:{} --time=60 --wrap true 2>>"$1/errors"); then
     echo "$id {}" >>"$1/ids"; else echo "{}" >>"$1/failed"; fi' _ "$burst_dir"
burst_secs=$((SECONDS - burst_start))
touch "$burst_dir/done"
wait "$sampler"
submitted=$(wc -l < "$burst_dir/ids")
refused=$(wc -l < "$burst_dir/failed")
# Each job as the controller holds it: id and contract record. --min-runtime
# 0:N is N seconds (N = 1..1000).
scontrol -o show job | grep -a ' JobName=burst ' |
  sed -n 's/^JobId=\([0-9]*\) .* AdminComment=\([^ ]*\) .*/\1 \2/p' | sort > "$burst_dir/held"
expected_records() { awk '{ printf "%s contract:min_runtime=%d,resumable=0,declared=1\n", $1, $2 }' "$burst_dir/ids" | sort; }
lost=$(expected_records | comm -23 - "$burst_dir/held" | wc -l)
percentile() { sort -n "$burst_dir/squeue.ms" | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p + 0.999); if (i < 1) i = 1; print (NR ? v[i] : "n/a") }'; }
samples=$(wc -l < "$burst_dir/squeue.ms")
echo "     burst: $BURST sbatch, $BURST_LANES at a time, in ${burst_secs} s: $submitted accepted, $refused refused," \
  "$lost lost; squeue during the burst ($samples calls): p50 $(percentile 0.5) ms, p90 $(percentile 0.9) ms"
check "every one of the $BURST submissions is accepted" test "$submitted" -eq "$BURST"
check "0 lost: every accepted job is held by the controller with its own contract" test "$lost" -eq 0
check "squeue answered during the burst" test "$samples" -gt 0
[ -s "$burst_dir/errors" ] && { echo "     sbatch errors:"; sort "$burst_dir/errors" | uniq -c | head -5; }
scancel -n burst
finish
