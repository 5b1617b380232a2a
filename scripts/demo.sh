#!/usr/bin/env bash
# The main job: sets everything up (scripts/setup.sh), starts a local cluster
# of 4 nodes x 8 GPUs with the suite's plugins, submits a sample workload
# with `sbatch --min-runtime`, and prints what happened.
#   scripts/demo.sh [--keep]     --keep leaves the cluster running afterwards
# Run as root on Debian 12.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[ "${1:-}" = --keep ] && keep=1
export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/slurm-budget-demo}
export BUILD_DIR=${BUILD_DIR:-$repo/build}
export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
# SLURM_PREFIX: the Slurm of that prefix, not the system's (scripts/cluster.sh).
[ -z "${SLURM_PREFIX:-}" ] || export PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH

title() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@" 2>&1 | sed 's/^/  /'; }
# try CMD...: shows a command that is expected to be refused, and its message.
try() { printf '$ %s\n' "$*"; if "$@" >/tmp/demo.$$ 2>&1; then sed 's/^/  (accepted) /' /tmp/demo.$$; else sed 's/^/  /' /tmp/demo.$$; fi; rm -f /tmp/demo.$$; }
wait_done() {
  local deadline=$((SECONDS + ${2:-60}))
  while [ $SECONDS -lt $deadline ]; do
    case $(scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p') in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|"") return 0 ;;
    esac
    sleep 0.5
  done
}

title "1. Set up (packages, Slurm source, build)"
"$repo/scripts/setup.sh"

title "2. A local cluster: 4 nodes x 8 GPUs, with every plugin of the suite"
# The suite as etc/slurm.conf.example activates it. Time is compressed so
# that the demo takes minutes: a 10-minute fair-share window of 5-second
# buckets, a recompute, a time-slicing pass and a backfill pass every 2 s,
# protections of 20 s, and quick start for debug jobs protected 5 s at
# most (QuickStartMinRuntime, 15 minutes on a real cluster: uncompressed,
# every 20-s job here would be a debug job).
export SUITE_CONF=$repo/etc/slurm.conf.example
export SLURM_CONF_EXTRA="SchedulerParameters=bf_continue,bf_interval=2,bf_resolution=1"
export BUDGET_TREE_JSON=$repo/etc/budget-tree.json.example
export BUDGET_CONF="BudgetTree=$CLUSTER_DIR/etc/budget-tree.json
LookbackWindow=10:00
LedgerBucket=0:05
RecalcInterval=2
TimesliceInterval=2
PreemptNotice=5
QuickStartMinRuntime=0:05
MaxMinRuntime=8:00:00
DefaultMinRuntime=0"
"$repo/scripts/cluster.sh" stop >/dev/null 2>&1 || true
"$repo/scripts/cluster.sh" start -n 4 -g 8
echo "  allocation tree ($BUDGET_TREE_JSON): llm 50% (pretrain 70%, posttrain 30%), robotics 30%, science 20%"
[ $keep = 1 ] || trap '"$repo/scripts/cluster.sh" stop >/dev/null' EXIT
show sinfo -N -o '%N %G %T'
show bash -c "scontrol show config | grep -E '^(JobSubmitPlugins|PriorityType|SchedulerType|SelectType|PreemptType) '"

title "3. Jobs declare a contract: a protected minimum runtime, and whether they can be resumed"
echo '$ sbatch --help   (the part the suite adds)'
sbatch --help | sed -n '/Options provided by plugins/,/^ *$/p' | sed 's/^/  /'
a=$(sbatch --parsable -A pretrain --gres=gpu:8 --min-runtime=15 --resumable -J train --wrap 'sleep 3')
b=$(sbatch --parsable -A science --gres=gpu:2 --min-runtime=0 -J sweep --wrap 'sleep 2')
c=$(sbatch --parsable -A robotics --gres=gpu:1 -J default-contract -o "$CLUSTER_DIR/default-contract.out" \
  --wrap 'echo "GPUs: $CUDA_VISIBLE_DEVICES"')
echo "  submitted: $a (train, 15 min protected, resumable)  $b (sweep, unallocated)  $c (no --min-runtime: DefaultMinRuntime)"
for j in $a $b $c; do
  scontrol show job "$j" | tr ' ' '\n' | grep -E '^(JobId|JobName|AdminComment|Requeue)=' | paste -sd ' ' | sed 's/^/  /'
done

title "4. Bad contracts are refused at submission, with a message that says why"
# A valid account each time (robotics is in the tree), so that each job is
# refused for its contract alone.
try sbatch -A robotics --min-runtime=9:00:00 --wrap true
try sbatch -A robotics --min-runtime=abc --wrap true
try sbatch -A robotics --min-runtime=2:00:00 --time=1:00:00 --wrap true
try sbatch -A nosuch --min-runtime=15 --wrap true

for j in $a $b $c; do wait_done "$j" 60; done

title "5. Fair share: robotics fills the cluster; who goes next?"
job() { sbatch --parsable -A "$1" -N "${3:-1}" --gres=gpu:8 --min-runtime="$2" --resumable -J "$1" -o /dev/null --wrap 'sleep 600'; }
r=()
for i in 1 2 3 4; do r+=("$(job robotics 0:20)"); done
wait_running() { local deadline=$((SECONDS + ${2:-60})); while [ $SECONDS -lt $deadline ]; do [ "$(squeue -h -j "$1" -o %T)" = RUNNING ] && return 0; sleep 0.5; done; return 1; }
for j in "${r[@]}"; do wait_running "$j" 60; done
echo "  robotics runs 4 x 8 GPUs, protected for 20 s. Now pretrain, science and robotics each queue a whole-node job:"
p=$(job pretrain 0:20); s=$(job science 0:20); q=$(job robotics 0:20)
sleep 5   # two recompute passes
show squeue -t PD -S -p -o '%.6i %.10a %.12Q %.10T %R'
show sprio -l
echo "  robotics used its share and more: its job is last. pretrain and science have used nothing."

title "6. Time slicing at contract end: after 20 s, over-served robotics yields to the waiting teams"
echo "  (Slurm's own scheduler and backfill start the jobs; the suite's time-slicing pass, every 2 s here,"
echo "   preempts at contract ends and hands the freed GPUs to the job they were freed for. Each victim"
echo "   gets SIGTERM and PreemptNotice=5 s to write a checkpoint before its GPUs go.)"
wait_running "$p" 90 && wait_running "$s" 30
show squeue -t all -o '%.6i %.10a %.10T %.10M %R' -S i
victim=$(for j in "${r[@]}"; do [ "$(scontrol show job "$j" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')" -ge 1 ] && echo "$j" && break; done)
if [ -n "$victim" ]; then
  echo "  robotics job $victim was requeued (it is --resumable); it says why:"
  scontrol show job "$victim" | grep -E '^ *SystemComment=' | sed 's/^ */  /'
fi

title "7. Drain at contract end: a node marked for repair empties itself as protections end"
node=$(squeue -h -j "$p" -o %N)
show scontrol update nodename="$node" state=drain reason=repair
sleep 3
scontrol show node "$node" | grep -E '^ *Reason=' | sed 's/^ */  /'
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ] && [ -n "$(squeue -h -w "$node" -t R)" ]; do sleep 1; done
show sinfo -N -o '%N %.8t %E'

title "8. The budget report for managers, and why a job waits"
SBUDGET=$BUILD_DIR/src/sbudget/sbudget
sleep 3
show "$SBUDGET" -l
pending=$(squeue -h -t PD -o %i | head -n 1)
[ -n "$pending" ] && show "$SBUDGET" explain "$pending"
[ -n "$victim" ] && show "$SBUDGET" explain "$victim"

title "9. The policy simulator: the Ai2 debug-vs-training case under four policies"
show "$BUILD_DIR/src/sim/budget-sim" --generate "$repo/scenarios/debug_vs_training/scenario.json" \
  --tree "$repo/scenarios/debug_vs_training/tree.json" --config "$repo/scenarios/debug_vs_training/budget.conf" \
  --nodes 16 --horizon 7-0 --policy budget,fairtree,priority,fifo
echo
echo "Demo done. Logs: $CLUSTER_DIR/log.  Keep a cluster to play with: scripts/demo.sh --keep; then"
echo "  export SLURM_CONF=$SLURM_CONF"
