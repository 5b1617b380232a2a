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

title "2. A local cluster: 4 nodes x 8 GPUs, with the suite's plugins"
"$repo/scripts/cluster.sh" stop >/dev/null 2>&1 || true
"$repo/scripts/cluster.sh" start -n 4 -g 8
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
try sbatch --min-runtime=9:00:00 --wrap true
try sbatch --min-runtime=abc --wrap true
try sbatch --min-runtime=2:00:00 --time=1:00:00 --wrap true

title "5. Outcome"
for j in $a $b $c; do wait_done "$j" 60; done
show squeue -t all -o '%.6i %.18j %.10a %.10T %.12M %R'
echo
echo "Demo done. Logs: $CLUSTER_DIR/log.  Keep a cluster to play with: scripts/demo.sh --keep; then"
echo "  export SLURM_CONF=$SLURM_CONF"
