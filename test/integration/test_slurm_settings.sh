#!/usr/bin/env bash
# What slurmctld says about the suite's configuration at start, on the
# whole suite as etc/slurm.conf.example activates it:
#   - slurm.conf settings that work against the suite (PreemptMode=OFF,
#     PriorityType other than priority/budget, PreemptExemptTime) draw one
#     warning each, naming the key (src/libbudget/config/slurm_settings.h);
#   - a typo in budget.conf stops slurmctld, and the last line of its log is
#     the one fatal line naming budget.conf, the line and the key.
. "$(dirname "$0")/lib.sh"

export SUITE_CONF=$REPO/etc/slurm.conf.example
unset SELECT_TYPE PRIORITY_TYPE SCHEDULER_TYPE PREEMPT_TYPE
export SLURM_CONF_EXTRA='PreemptMode=OFF
PriorityType=priority/multifactor
PreemptExemptTime=00:10:00'
unset BUDGET_CONF
LOG=$CLUSTER_DIR/log/slurmctld.log

cluster_start -n 1 -g 8

# once PATTERN: exactly one line of the log matches.
once() {
  local n; n=$(grep -c -- "$1" "$LOG")
  [ "$n" -eq 1 ] || { echo "$n lines match '$1' in $LOG"; grep -- "$1" "$LOG"; return 1; }
}
check "PreemptMode=OFF draws one warning naming the key" \
  once "preempt/timeslice: WARNING: PreemptMode=OFF: "
check "... and says that budget.conf TimeSlicing=yes time-slices with it (the key is unset here)" \
  once "WARNING: PreemptMode=OFF: .*set TimeSlicing=yes in budget.conf"
check "preempt/timeslice says time slicing is off" \
  once "preempt/timeslice: loaded; a pass every .* (drain at contract end, time slicing off)"
check "PriorityType=priority/multifactor draws one warning naming the key and the standings file" \
  once "preempt/timeslice: WARNING: PriorityType=priority/multifactor: .*budget_standings.json"
check "PreemptExemptTime draws one warning naming the key" \
  once "preempt/timeslice: WARNING: PreemptExemptTime=00:10:00: "

# --- a typo in budget.conf --------------------------------------------------------
conf_dir=$CLUSTER_DIR/etc
printf '# budget.conf with a typo\nMaxMinRuntme=8:00:00\n' > "$conf_dir/budget.conf"
lines_before=$(wc -l < "$LOG")
check "a typo in budget.conf stops slurmctld from starting" bash -c '! "$0" restart-ctld' "$CLUSTER"
# The log of the controller started by restart-ctld: from its "started" line.
# (The controller being stopped may see the new file first and say, once,
# that it keeps its previous values; that is its own, correct, line.)
since_restart() {
  tail -n +"$((lines_before + 1))" "$LOG" | awk '/slurmctld version .* started/ { n = NR } { l[NR] = $0 }
    END { for (i = n ? n : 1; i <= NR; i++) print l[i] }'
}
last_error_names_budget_conf() {
  local last; last=$(since_restart | grep -E 'error|fatal' | tail -n 1)
  contains "fatal: " "$last" && contains "$conf_dir/budget.conf:2: unknown key \"MaxMinRuntme\"" "$last"
}
check "the log's last error is fatal and names budget.conf, the line and the key" last_error_names_budget_conf
check "... and it is the log's last line" \
  bash -c "tail -n 1 '$LOG' | grep -q 'budget.conf:2: unknown key'"
typo_logged_once() {
  local n; n=$(since_restart | grep -c 'MaxMinRuntme')
  [ "$n" -eq 1 ] || { echo "logged $n times:"; since_restart | grep 'MaxMinRuntme'; return 1; }
}
check "... logged once" typo_logged_once
finish
