#!/bin/bash
# The work of one trace job in a replay (scripts/replay.sh): it sleeps for
# the work it still needs, as budget-sim's jobs do.
#
#   job.sh TRACE_ID WORK_SECONDS RESUMABLE(0|1) CHECKPOINT_DIR
#
# Work is counted from the run's start as slurmctld recorded it (whole
# seconds, the clock budget-sim's runs use), not from when this script got
# going, so a run that is not preempted ends WORK after its start on both
# sides. A resumable job keeps its progress (milliseconds of work done) in
# CHECKPOINT_DIR/TRACE_ID: every second, and at SIGTERM (Slurm's first
# signal when it preempts), so a requeued run needs only what is left, like
# budget-sim's resumable jobs. A non-resumable job starts from nothing every
# time (scripts/replay/driver.py resubmits it whole when it is cancelled).
set -u
id=$1 work_ms=$(($2 * 1000)) resumable=$3 dir=$4
ckpt=$dir/$id
now_ms() { echo $(($(date +%s%N) / 1000000)); }

done_ms=0
if [ "$resumable" = 1 ] && [ -s "$ckpt" ]; then read -r done_ms <"$ckpt"; fi
start_ms=
if start=$(squeue -h -j "${SLURM_JOB_ID:-0}" -o %S 2>/dev/null) && epoch=$(date -d "$start" +%s 2>/dev/null); then
  start_ms=$((epoch * 1000))
fi
[ -n "$start_ms" ] || start_ms=$(now_ms)
end_ms=$((start_ms + work_ms - done_ms))

# save: the work done so far, written atomically (tmp + rename). Whole
# seconds of this run: slurmctld records the run's end as a whole second
# (the moment it preempts; SIGTERM arrives a little later) and budget-sim
# charges a preempted run end - start, so counting the fraction too would
# make the next run a second shorter than the simulator's.
save() {
  [ "$resumable" = 1 ] || return 0
  local total=$((done_ms + ($(now_ms) - start_ms) / 1000 * 1000))
  [ "$total" -le "$work_ms" ] || total=$work_ms
  echo "$total" >"$ckpt.tmp.$$" && mv -f "$ckpt.tmp.$$" "$ckpt"
}
trap 'save; kill "${nap:-0}" 2>/dev/null; exit 143' TERM

while :; do
  left=$((end_ms - $(now_ms)))
  [ "$left" -gt 0 ] || break
  [ "$left" -le 1000 ] || left=1000
  # In the background, so that SIGTERM is handled at once, not after sleep.
  sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))" &
  nap=$!
  wait "$nap"
  save
done
save
