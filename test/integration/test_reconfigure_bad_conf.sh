#!/usr/bin/env bash
# A bad budget.conf at `scontrol reconfigure` never stops slurmctld, on
# either supported Slurm version, with all four plugins that read it
# (job_submit/contract, priority/budget, preempt/timeslice, select/topo):
#   - every plugin that loads budget.conf keeps a copy of it as
#     StateSaveLocation/budget.conf.last_good (libbudget/config_last_good.h);
#   - Slurm 23.11+ runs a reconfigure by re-executing slurmctld, so each
#     plugin's init() reads the bad file: each falls back to that copy and
#     logs the file's error (file, line, key) as an error;
#   - Slurm 22.05 calls the reconfigure hooks instead, which keep the values
#     in memory and say so;
#   - either way the controller answers, the settings in force are the last
#     good ones (MaxMinRuntime stays 8 h), and the fixed file applies at the
#     next reconfigure.
. "$(dirname "$0")/lib.sh"

export PRIORITY_TYPE=priority/budget PREEMPT_TYPE=preempt/timeslice SELECT_TYPE=select/topo
cluster_start -n 1

conf=$CLUSTER_DIR/etc/budget.conf
saved=$CLUSTER_DIR/state/budget.conf.last_good
log=$CLUSTER_DIR/log/slurmctld.log
good=$(cat "$conf")
cp "$conf" "$CLUSTER_DIR/budget.conf.good"

# Jobs of an account of the tree (etc/budget-tree.json.example).
refused() {  # refused EXPECTED ARGS...: sbatch refuses the job, printing EXPECTED
  local expected=$1 out; shift
  if out=$(sbatch -A robotics "$@" 2>&1); then scancel "${out##* }" 2>/dev/null; echo "accepted: $out"; return 1; fi
  contains "$expected" "$out"
}
accepted() { local out; out=$(sbatch -A robotics --parsable "$@" 2>&1) || { echo "refused: $out"; return 1; }; scancel "${out%%;*}"; }
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
log_has() { grep -qF -- "$1" "$log"; }
# Seconds a reconfigure takes to settle: 23.11+ re-executes slurmctld.
settled() { ctld_up && [ "$(grep -c "$1" "$log")" -gt "$2" ]; }

check "every plugin loaded budget.conf" bash -c "grep -q 'priority/budget: loaded' '$log' &&
  grep -q 'job_submit/contract: loaded' '$log' && grep -q 'preempt/timeslice: loaded' '$log' &&
  grep -q 'select/topo: packing GPUs' '$log'"
check "the last good budget.conf is kept in StateSaveLocation" bash -c "[ \"\$(cat '$saved')\" = \"\$(cat '$conf')\" ]"
check "MaxMinRuntime=8:00:00 is in force: --min-runtime=9:00:00 is refused" \
  refused "exceeds MaxMinRuntime=08:00:00" --min-runtime=9:00:00 --wrap true

# --- a bad edit, then scontrol reconfigure ---------------------------------------
# MaxMinRuntime lowered to 1 h, and a misspelt key: the whole file is refused.
fixed=$(printf '%s\n' "$good" | sed 's/^MaxMinRuntime=.*/MaxMinRuntime=1:00:00/')
printf '%s\nMaxMinRuntme=2:00:00\n' "$fixed" > "$conf"
bad_line=$(grep -n '^MaxMinRuntme' "$conf" | cut -d: -f1)
bad="$conf:$bad_line: unknown key \"MaxMinRuntme\""
starts=$(grep -c 'slurmctld version .* started' "$log")
check "scontrol reconfigure with the bad budget.conf" scontrol reconfigure
if [ "$SLURM_SERIES" -ge 2311 ]; then
  check "slurmctld re-executes and comes back up" poll 60 settled 'slurmctld version .* started' "$starts"
  for plugin in priority/budget job_submit/contract preempt/timeslice select/topo; do
    check "$plugin logs the bad file's error and uses the last good configuration" \
      poll 20 log_has "error: $plugin: $bad; using the last good configuration ($saved, as $conf) until $conf is fixed"
  done
else
  check "select/topo keeps the previous values, naming file, line and key" \
    poll 20 log_has "select/topo: $bad; keeping the previous values"
fi
check "slurmctld still answers" poll 20 ctld_up
check "the last good settings stay in force: --min-runtime=2:00:00 is accepted" accepted --min-runtime=2:00:00 --wrap true
check "... and --min-runtime=9:00:00 is still refused naming MaxMinRuntime=08:00:00" \
  refused "exceeds MaxMinRuntime=08:00:00" --min-runtime=9:00:00 --wrap true
check "the bad file did not replace the kept copy" cmp "$saved" "$CLUSTER_DIR/budget.conf.good"
check "priority/budget still computes priorities" \
  poll 60 bash -c "[ \$(grep -c 'priority/budget: pass [0-9]*:' '$log') -gt 0 ]"

# --- the fixed file applies at the next reconfigure --------------------------------
printf '%s\n' "$fixed" > "$conf"
starts=$(grep -c 'slurmctld version .* started' "$log")
check "scontrol reconfigure with the fixed budget.conf" scontrol reconfigure
[ "$SLURM_SERIES" -ge 2311 ] && check "slurmctld re-executes again" poll 60 settled 'slurmctld version .* started' "$starts"
check "the fixed MaxMinRuntime=1:00:00 applies: --min-runtime=2:00:00 is refused" \
  poll 20 refused "exceeds MaxMinRuntime=01:00:00" --min-runtime=2:00:00 --wrap true
check "... and becomes the kept copy" poll 20 bash -c "grep -qx 'MaxMinRuntime=1:00:00' '$saved'"

# --- a bad file at a real start still stops slurmctld -----------------------------
printf 'MaxMinRuntme=2:00:00\n' > "$conf"
check "a restart (not a reconfigure) with a bad budget.conf is refused" bash -c "! '$CLUSTER' restart-ctld >/dev/null 2>&1"
check "... with one fatal line naming file, line and key" grep -q "fatal: .*$conf:1: unknown key \"MaxMinRuntme\"" "$log"
printf '%s\n' "$good" > "$conf"
finish
