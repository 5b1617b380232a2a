#!/usr/bin/env bash
# A real Slurm cluster on this machine, for the demo and the integration
# tests: munged, one slurmctld and N slurmd (default 4 nodes x 8 fake GPUs),
# in a private directory with non-default ports, with the suite's plugins
# copied from the build tree. The SPANK plugin is on the plugin stack as the
# docs install it: plugstack.conf includes plugstack.conf.d/*.conf (Debian's
# layout), and plugstack.conf.d/contract.conf is etc/plugstack.conf.d/contract.conf
# with the cluster's plugin path.
#
#   scripts/cluster.sh start [-n NODES] [-g GPUS_PER_NODE]
#   scripts/cluster.sh stop
#   scripts/cluster.sh restart-ctld [--kill]   (restart slurmctld and wait for the
#                        slurmds to register; --kill: kill -9 it first)
#   scripts/cluster.sh restart-daemons   (slurmctld stopped, every slurmd
#                        restarted, slurmctld started: what a change of
#                        SelectType needs, since slurmd loads it too; jobs
#                        keep running)
#   scripts/cluster.sh status
#   scripts/cluster.sh env       (prints: export SLURM_CONF=...)
#
# Environment (all optional):
#   CLUSTER_DIR        private directory (default /tmp/slurm-budget-cluster)
#   BUILD_DIR          build tree with the plugins (default <repo>/build)
#   CLUSTER_PORT       slurmctld port (default: derived from CLUSTER_DIR, in
#                      20000-32500); slurmd ports follow at +1, +2, ...
#   SUITE_CONF         a slurm.conf fragment activating the suite (e.g.
#                      etc/slurm.conf.example): its lines are used as
#                      shipped instead of the five plugin variables below,
#                      but for PlugStackConfig (the cluster's own) and any
#                      key SLURM_CONF_EXTRA sets again
#   SLURMCTLD_DEBUG    slurmctld's log level (default info; debug adds,
#                      among others, the jobs each time-slicing pass gave
#                      the top priority)
#   SELECT_TYPE        default select/cons_tres
#   PRIORITY_TYPE      default priority/basic
#   SCHEDULER_TYPE     default sched/builtin
#   PREEMPT_TYPE       default preempt/none (none on 23.11+, which removed it:
#                      no PreemptType line)
#   JOB_SUBMIT_PLUGINS default contract
#   JOB_COMP_TYPE      default jobcomp/none; jobcomp/filetxt writes one record
#                      per run (requeued runs too) to JOB_COMP_LOC
#   JOB_COMP_LOC       JobCompLoc (written only when set)
#   SLURM_CONF_EXTRA   more slurm.conf lines, appended verbatim (a key given
#                      here is dropped from the lines above it)
#   GPU_TYPES          one GPU type per node, in node order (e.g. "b200 b200
#                      h100 h100"): node nI gets Gres=gpu:TYPE:GPUS and the
#                      node feature TYPE (a mixed fleet); default untyped
#   BUDGET_CONF        contents of budget.conf (default: the sample one)
#   BUDGET_TREE_JSON   path of the allocation tree to copy beside it
#   BUDGET_CONF_FALLBACK  KEY=VALUE lines, one per line: each is added to
#                      budget.conf unless the file sets KEY itself (the
#                      integration tests pin the keys whose defaults are
#                      tuned for real clusters: test/integration/lib.sh)
#   SLURM_PREFIX       a Slurm installed under this prefix instead of the
#                      system's (scripts/sid_slurm_build.sh): its sbin and
#                      bin come first in PATH and its lib/slurm is the stock
#                      plugin directory (its programs find its libslurm by
#                      their rpath)
#
# Stop kills only what start started (by pid), then any slurmstepd that still
# holds files of this cluster open. Nothing is left behind.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${CLUSTER_DIR:-/tmp/slurm-budget-cluster}
build=${BUILD_DIR:-$repo/build}
# Each cluster directory gets its own block of 100 ports from 20000 up, so
# that clusters in different directories rarely collide (the suite's own
# directories, the demo's and the benchmark's do not). The blocks end below
# 32768, where Linux starts handing out ephemeral ports: a slurmctld on
# port 38700 once failed to start in CI ("Address already in use") with no
# other cluster running, most likely because a client connection had been
# given that port.
default_port=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 126 * 100))
port=${CLUSTER_PORT:-$default_port}
host=$(hostname -s)

say() { printf 'cluster: %s\n' "$*"; }
die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }

conf="$dir/etc/slurm.conf"
export SLURM_CONF="$conf"
[ -z "${SLURM_PREFIX:-}" ] || export PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
read_pid() { cat "$1" 2>/dev/null || true; }

# wait_for DESCRIPTION SECONDS COMMAND... : polls COMMAND until it succeeds.
wait_for() {
  local what=$1 limit=$2; shift 2
  local deadline=$((SECONDS + limit))
  local rc
  until "$@" >/dev/null 2>&1; do
    rc=$?
    [ $rc -ne 2 ] || return 1   # 2: will never succeed
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

stock_plugindir() {
  local d
  if [ -n "${SLURM_PREFIX:-}" ]; then
    [ -f "$SLURM_PREFIX/lib/slurm/priority_basic.so" ] || die "SLURM_PREFIX=$SLURM_PREFIX has no lib/slurm/priority_basic.so"
    echo "$SLURM_PREFIX/lib/slurm"
    return
  fi
  for d in /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
    [ -f "$d/priority_basic.so" ] && { echo "$d"; return; }
  done
  die "Slurm's plugin directory was not found (is slurm-wlm installed?)"
}

# Copies every plugin of the suite built in $build into $dir/plugins, which
# comes first in PluginDir. Copies, not links: the clients run by users other
# than root (sbatch, srun, salloc load spank_contract.so) must reach them
# wherever the build tree lives, e.g. under /root (0700).
stage_plugins() {
  mkdir -p "$dir/plugins"
  chmod 0755 "$dir" "$dir/plugins"
  rm -f "$dir/plugins"/*.so
  local so
  while IFS= read -r so; do
    install -m 0755 "$so" "$dir/plugins/$(basename "$so")"
  done < <(find "$build/src" -path '*/.libs/*.so' \( -name 'priority_*' -o -name 'sched_*' \
             -o -name 'select_*' -o -name 'preempt_*' -o -name 'job_submit_*' -o -name 'spank_*' \) 2>/dev/null)
}

# The installed Slurm's major.minor series as a number (2205, 2411).
slurm_series() {
  local v
  v=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\)\..*/\1\2/p')
  echo "${v:-0}"
}

# preempt/none is gone in 23.11: there no PreemptType line means no preemption.
preempt_line() {
  local type=${PREEMPT_TYPE:-preempt/none}
  if [ "$type" = preempt/none ] && [ "$(slurm_series)" -ge 2311 ]; then return 0; fi
  echo "PreemptType=$type"
}

# node_lines N GPUS NODES PORTS FIRST_PORT: the NodeName lines: one for
# all nodes, or with GPU_TYPES one per node with its type as Gres and feature.
node_lines() {
  local n=$1 gpus=$2 nodes=$3 ports=$4 first_port=$5 common
  common="NodeHostname=$host NodeAddr=127.0.0.1 CPUs=16 RealMemory=64000 State=UNKNOWN"
  if [ -z "${GPU_TYPES:-}" ]; then
    echo "NodeName=$nodes Port=$ports $common Gres=gpu:$gpus"
    return
  fi
  local types=($GPU_TYPES) i
  [ "${#types[@]}" -eq "$n" ] || die "GPU_TYPES names ${#types[@]} types for $n nodes"
  for ((i = 1; i <= n; i++)); do
    echo "NodeName=n$i Port=$((first_port + i - 1)) $common Gres=gpu:${types[i - 1]}:$gpus Feature=${types[i - 1]}"
  done
}

write_config() {
  local n=$1 gpus=$2
  mkdir -p "$dir"/{etc,state,spool,log,run,dev,munge}
  local i
  for ((i = 0; i < gpus; i++)); do ln -sf /dev/null "$dir/dev/nvidia$i"; done
  local last=$((gpus - 1)) first_port=$((port + 1)) last_port=$((port + n))
  local nodes="n[1-$n]"; [ "$n" -eq 1 ] && nodes="n1"
  local ports="[$first_port-$last_port]"; [ "$n" -eq 1 ] && ports="$first_port"

  cat > "$conf.base" <<CONF
# Written by scripts/cluster.sh: a private cluster on one machine.
ClusterName=budget
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$first_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=${SLURMCTLD_DEBUG:-info}
SlurmdDebug=info
PluginDir=$dir/plugins:$(stock_plugindir)
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=${JOB_COMP_TYPE:-jobcomp/none}
$([ -n "${JOB_COMP_LOC:-}" ] && echo "JobCompLoc=$JOB_COMP_LOC")
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
InactiveLimit=0
KillWait=5
GresTypes=gpu
CONF
  if [ -n "${SUITE_CONF:-}" ]; then
    [ -f "$SUITE_CONF" ] || die "SUITE_CONF=$SUITE_CONF: no such file"
    printf '# The suite, as %s activates it:\n' "$SUITE_CONF" >> "$conf.base"
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SUITE_CONF" | grep -vi '^PlugStackConfig=' >> "$conf.base"
  else
    cat >> "$conf.base" <<CONF
SelectType=${SELECT_TYPE:-select/cons_tres}
SelectTypeParameters=CR_Core
PriorityType=${PRIORITY_TYPE:-priority/basic}
SchedulerType=${SCHEDULER_TYPE:-sched/builtin}
$(preempt_line)
$([ -n "${JOB_SUBMIT_PLUGINS-contract}" ] && echo "JobSubmitPlugins=${JOB_SUBMIT_PLUGINS-contract}")
CONF
  fi
  cat >> "$conf.base" <<CONF
$(node_lines "$n" "$gpus" "$nodes" "$ports" "$first_port")
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  # One line per key: a key of SLURM_CONF_EXTRA, or a later one of the
  # suite's, replaces an earlier line (Slurm would refuse some repeats and
  # silently take the last of others).
  printf '%s\n' "${SLURM_CONF_EXTRA:-}" >> "$conf.base"
  awk -F= '
    /^[[:space:]]*#/ || !/=/ || /^(NodeName|PartitionName)=/ { lines[++n] = $0; next }
    { key = tolower($1); if (key in at) lines[at[key]] = ""; lines[++n] = $0; at[key] = n }
    END { for (i = 1; i <= n; i++) if (lines[i] != "" || i == 1) print lines[i] }' "$conf.base" > "$conf"
  rm -f "$conf.base"

  # slurmd 24.05+ needs a cgroup plugin or this line: a chroot (the Debian 13
  # root of scripts/trixie_root.sh) has no cgroup file system to give it.
  # CgroupPlugin=disabled exists since 24.05; 22.05 reads no cgroup.conf
  # with these plugins (proctrack/linuxproc, task/none).
  if [ "$(slurm_series)" -ge 2405 ]; then
    echo "CgroupPlugin=disabled" > "$dir/etc/cgroup.conf"
  else
    rm -f "$dir/etc/cgroup.conf"
  fi

  local files="$dir/dev/nvidia[0-$last]"; [ "$gpus" -eq 1 ] && files="$dir/dev/nvidia0"
  if [ -n "${GPU_TYPES:-}" ]; then
    local i=1 type
    echo "AutoDetect=off" > "$dir/etc/gres.conf"
    for type in $GPU_TYPES; do
      echo "NodeName=n$i Name=gpu Type=$type File=$files" >> "$dir/etc/gres.conf"
      i=$((i + 1))
    done
  else
    printf 'AutoDetect=off\nName=gpu File=%s\n' "$files" > "$dir/etc/gres.conf"
  fi

  # Debian's plugstack.conf, and the suite's file in plugstack.conf.d.
  mkdir -p "$dir/etc/plugstack.conf.d"
  echo "include $dir/etc/plugstack.conf.d/*.conf" > "$dir/etc/plugstack.conf"
  local spank="$dir/plugins/spank_contract.so"
  if [ -e "$spank" ]; then
    sed "s|^required .*/spank_contract.so\$|required $spank|" "$repo/etc/plugstack.conf.d/contract.conf" \
      > "$dir/etc/plugstack.conf.d/contract.conf"
    grep -qx "required $spank" "$dir/etc/plugstack.conf.d/contract.conf" \
      || die "etc/plugstack.conf.d/contract.conf has no 'required .../spank_contract.so' line"
  fi

  if [ -n "${BUDGET_TREE_JSON:-}" ]; then
    cp "$BUDGET_TREE_JSON" "$dir/etc/budget-tree.json"
  elif [ -f "$repo/etc/budget-tree.json.example" ]; then
    cp "$repo/etc/budget-tree.json.example" "$dir/etc/budget-tree.json"
  fi
  if [ -n "${BUDGET_CONF+set}" ]; then
    printf '%s\n' "$BUDGET_CONF" > "$dir/etc/budget.conf"
  else
    cat > "$dir/etc/budget.conf" <<CONF
# budget.conf of the local cluster (see budget.conf(5))
BudgetTree=$dir/etc/budget-tree.json
LookbackWindow=7-0
MaxMinRuntime=8:00:00
DefaultMinRuntime=0
CONF
  fi
  local line
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    grep -qi "^[[:space:]]*${line%%=*}[[:space:]]*=" "$dir/etc/budget.conf" || echo "$line" >> "$dir/etc/budget.conf"
  done <<<"${BUDGET_CONF_FALLBACK:-}"
}

start_munge() {
  local key="$dir/munge/munge.key"
  [ -f "$key" ] || mungekey -c -k "$key" >/dev/null 2>&1 || die "mungekey failed"
  chmod 0600 "$key"
  # 0711: users other than root reach the socket (the key inside is 0600).
  chmod 0711 "$dir/munge"
  pid_alive "$(read_pid "$dir/run/munged.pid")" && return
  munged --force --socket="$dir/munge/munge.socket.2" --key-file="$key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" || die "munged failed to start: see $dir/log/munged.log"
  wait_for munged 10 test -S "$dir/munge/munge.socket.2" || die "munged socket did not appear"
}

# Up when it answers; fails at once if the process died (a bad plugin, say).
ctld_up() {
  pid_alive "$(read_pid "$dir/run/slurmctld.mypid")" || return 2
  scontrol ping 2>/dev/null | grep -q 'is UP'
}

start_slurmctld() {
  # slurmctld -D in the background under setsid: we keep its pid ourselves.
  setsid slurmctld -D -f "$conf" >>"$dir/log/slurmctld.stdout" 2>&1 < /dev/null &
  echo $! > "$dir/run/slurmctld.mypid"
  if ! wait_for slurmctld 30 ctld_up; then
    grep -E 'error|fatal' "$dir/log/slurmctld.stdout" 2>/dev/null | tail -n 5 >&2 || true
    die "slurmctld did not come up; log: $dir/log/slurmctld.log"
  fi
}

start_slurmds() {
  local n=$1 i
  for ((i = 1; i <= n; i++)); do
    mkdir -p "$dir/spool/n$i"
    setsid slurmd -D -N "n$i" -f "$conf" >>"$dir/log/slurmd.n$i.stdout" 2>&1 < /dev/null &
    echo $! > "$dir/run/slurmd.n$i.mypid"
  done
}

nodes_idle() {
  local n=$1
  [ "$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)" -eq "$n" ]
}

cmd_start() {
  local n=4 gpus=8
  while [ $# -gt 0 ]; do
    case $1 in
      -n) n=$2; shift 2 ;;
      -g) gpus=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ "$n" -ge 1 ] && [ "$n" -le 64 ] || die "-n must be 1..64"
  [ "$(id -u)" = 0 ] || die "run as root"
  command -v slurmctld >/dev/null || die "slurmctld not installed: run scripts/setup.sh"
  if pid_alive "$(read_pid "$dir/run/slurmctld.mypid")"; then
    die "a cluster is already running in $dir: scripts/cluster.sh stop first"
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  stage_plugins
  write_config "$n" "$gpus"
  echo "$n" > "$dir/run/nodes"
  start_munge
  start_slurmctld
  start_slurmds "$n"
  if ! wait_for "nodes" 60 nodes_idle "$n"; then
    sinfo -N >&2 || true
    die "the $n nodes did not become idle within 60 s; logs in $dir/log"
  fi
  say "up: $n nodes x $gpus GPUs in $dir"
  say "use it with: export SLURM_CONF=$conf"
}

kill_pidfile() {
  local f=$1 pid
  pid=$(read_pid "$f")
  if pid_alive "$pid"; then
    kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 15))
    while pid_alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    pid_alive "$pid" && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

# slurmstepd processes outlive a killed slurmd and may ignore SIGTERM: find
# the ones holding a file of this cluster open and kill them.
kill_stray_stepds() {
  local pid
  for pid in $(pgrep -x slurmstepd 2>/dev/null || true); do
    if ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -- "$dir/"; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
}

cmd_stop() {
  [ -d "$dir/run" ] || { say "no cluster in $dir"; return 0; }
  if pid_alive "$(read_pid "$dir/run/slurmctld.mypid")"; then
    scancel --quiet --user=root 2>/dev/null || true
    scancel --quiet --state=PENDING 2>/dev/null || true
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
  fi
  local f
  for f in "$dir"/run/slurmd.*.mypid; do [ -e "$f" ] && kill_pidfile "$f"; done
  kill_pidfile "$dir/run/slurmctld.mypid"
  kill_stray_stepds
  kill_pidfile "$dir/run/munged.pid"
  say "stopped the cluster in $dir"
}

cmd_restart_ctld() {
  local f="$dir/run/slurmctld.mypid"
  if [ "${1:-}" = --kill ]; then
    local pid; pid=$(read_pid "$f")
    pid_alive "$pid" && kill -9 "$pid"
    while pid_alive "$pid"; do sleep 0.1; done
    rm -f "$f"
  else
    kill_pidfile "$f"
  fi
  start_slurmctld
  # Until each slurmd registers again its node is UNKNOWN and no job starts
  # there; a job sent meanwhile may wait for the next backfill cycle (30 s).
  # A node that stays down (a test's doing) is said, not fatal.
  wait_for "nodes" 60 nodes_responding ||
    say >&2 "slurmctld restarted, but not every node registered within 60 s: $(sinfo -h -N -o '%N %T' 2>/dev/null | tr '\n' ' ')"
  say "slurmctld restarted"
}

# No node is down or not responding ('*'): every slurmd has registered.
nodes_responding() {
  local states; states=$(sinfo -h -N -o '%T' 2>/dev/null) || return 1
  [ -n "$states" ] && ! grep -qiE '[*]|down|unknown' <<<"$states"
}

cmd_restart_daemons() {
  kill_pidfile "$dir/run/slurmctld.mypid"
  local f
  for f in "$dir"/run/slurmd.*.mypid; do [ -e "$f" ] && kill_pidfile "$f"; done
  start_slurmds "$(cat "$dir/run/nodes")"
  start_slurmctld
  wait_for "nodes" 60 nodes_responding || die "the slurmd daemons did not register within 60 s; logs in $dir/log"
  say "slurmctld and every slurmd restarted"
}

cmd_status() {
  local name f
  for f in "$dir"/run/*.mypid "$dir"/run/munged.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f"); name=${name%.mypid}; name=${name%.pid}
    if pid_alive "$(read_pid "$f")"; then echo "$name: running (pid $(read_pid "$f"))"; else echo "$name: not running"; fi
  done
}

case ${1:-} in
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  restart-ctld) shift; cmd_restart_ctld "$@" ;;
  restart-daemons) cmd_restart_daemons ;;
  status) cmd_status ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
