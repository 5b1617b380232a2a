#!/usr/bin/env bash
# bench ctld_scale: what the whole suite costs slurmctld at cluster scale,
# against stock Slurm, on a real local cluster of BENCH_NODES nodes x 8 GPUs
# (default 32) with BENCH_JOBS (5,000) sleep jobs queued.
#
# Arms, alternated suite, stock, suite, stock (BENCH_RUNS, default 4):
#   suite  etc/slurm.conf.example as shipped (priority/budget, sched/backfill,
#          preempt/timeslice, select/topo, job_submit/contract) with
#          etc/budget.conf.example's values over a tree of 20 accounts,
#          quick start off (one user submits every job; see run());
#   stock  the same file with priority/multifactor, select/cons_tres,
#          no PreemptType (no preemption; preempt/none is gone in 23.11),
#          PreemptMode=OFF, no job_submit plugin: the same
#          SchedulerParameters, SelectTypeParameters and memory defaults.
# and, when BENCH_ARMS names it (BENCH_ARMS="suite suite_off stock"):
#   suite_off  the suite with PreemptMode=OFF in slurm.conf and
#          TimeSlicing=yes in budget.conf: the same time slicing, but Slurm
#          25.05+ no longer searches preemption candidates for every job
#          its schedulers test (doc/admin-guide.md, "Slurm versions").
# Stock multifactor runs without slurmdbd here (it then skips fair share):
# the configuration a new site tries first. priority_budget_bench.sh
# measures priority/budget against multifactor with slurmdbd.
#
# Each run starts a fresh cluster, submits the same jobs (fixed seed: account
# 1 of 20, 1-16 GPUs, 9-16 on two nodes, sleep 30-600 s, min-runtime
# BENCH_MIN_RUNTIME, default 20-60 s) through libslurm (one RPC per job, each timed), waits
# BENCH_WARMUP s, then measures one window of BENCH_WINDOW s (default 180)
# in which the first jobs end, their protections expire and, in the suite,
# time slicing preempts (the window's preemptions are counted from the
# log): slurmctld CPU from /proc, each thread's on-CPU time (schedstat),
# sdiag's main and backfill cycles (reset at the window's start), resident
# memory at its end.
#
# Prints (suite over stock, summed over the runs of each arm; _min/_max:
# the ratio within each round of runs (one run of each arm), its spread):
#   bench ctld_scale_cpu_ratio: <x> x             slurmctld CPU in the windows
#   bench ctld_scale_cpu_per_start_ratio: <x> x   the same per job started
#   bench ctld_scale_backfill_cycle_ratio: <x> x  sdiag backfill mean cycle
#   bench ctld_scale_main_cycle_ratio: <x> x      sdiag main-scheduler mean cycle
#   bench ctld_scale_submit_rpc_ratio: <x> x      mean submit RPC (what sbatch sends)
#   bench ctld_scale_submit_growth: <x> x         suite: the last 1,000 submits' mean
#                                                 over the first 1,000's
#   bench ctld_scale_submit_growth_stock: <x> x   the same for stock
#   bench ctld_scale_rss_mb: <MB> MB              suite slurmctld's resident memory
#   bench ctld_scale_rss_mb_stock: <MB> MB        (largest at a window's end)
# and, with the suite_off arm, the first four again for suite_off over stock
# (ctld_scale_off_*) and for suite_off over suite (ctld_scale_off_vs_suite_*);
# on stderr each run's figures and a per-thread table (every arm).
#
# Run time: about 4 x (BENCH_WINDOW + BENCH_WARMUP + 80 s): measured 19
# minutes at the defaults (32 nodes), 24 at 64 nodes, on a shared 2-core
# machine.
#
# Environment: BUILD_DIR (default: the build tree this runs from),
# SLURM_PREFIX (a Slurm installed under that prefix, as scripts/cluster.sh
# takes it: its daemons, clients and libslurm; e.g. Slurm 26.05.3 in the
# Debian unstable root: `make bench-ctld-2605` from the host),
# BENCH_ARMS ("suite stock", the order of each round; "suite suite_off
# stock" adds the PreemptMode=OFF arm),
# BENCH_NODES (32, at most 64), BENCH_JOBS (5000), BENCH_RUNS (4: a
# multiple of the number of arms),
# BENCH_WINDOW (180), BENCH_WARMUP (20), BENCH_SEED (25),
# BENCH_MIN_RUNTIME (LO-HI seconds, 20-60: protections expire within the
# window, so time slicing acts at its most; a range above the jobs' time
# limits, e.g. 1800-3600, protects every job for all of its run, as
# contracts of hours do at the scale of the window: jobs end and start, and
# nothing is preempted), CLUSTER_DIR (prefix
# of each arm's cluster directory, default /tmp/slurm-budget-bench-scale:
# <prefix>-suite and <prefix>-stock, run one after the other). Needs root and
# the plugins built with --with-slurm-source; otherwise prints why and skips.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$(cd .. && pwd)}
NODES=${BENCH_NODES:-32}
JOBS=${BENCH_JOBS:-5000}
RUNS=${BENCH_RUNS:-4}
WINDOW=${BENCH_WINDOW:-180}
WARMUP=${BENCH_WARMUP:-20}
SEED=${BENCH_SEED:-25}
PROTECT=${BENCH_MIN_RUNTIME:-20-60}
prefix=${CLUSTER_DIR:-/tmp/slurm-budget-bench-scale}
cluster=$repo/scripts/cluster.sh
read -r -a arms <<<"${BENCH_ARMS:-suite stock}"
[ -z "${SLURM_PREFIX:-}" ] || export PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH

say() { printf 'ctld_scale_bench: %s\n' "$*" >&2; }
skip() { echo "bench ctld_scale_bench: skipped ($*)"; exit 0; }
case $NODES$JOBS$RUNS$WINDOW$WARMUP$SEED in *[!0-9]*) skip "the BENCH_* values must be numbers" ;; esac
[[ $PROTECT =~ ^[0-9]+-[0-9]+$ ]] && [ "${PROTECT%-*}" -le "${PROTECT#*-}" ] ||
  skip "BENCH_MIN_RUNTIME must be LO-HI seconds, LO <= HI (got $PROTECT)"
case " ${arms[*]} " in *" suite "*" stock "* | *" stock "*" suite "*) ;; *) skip "BENCH_ARMS must name suite and stock (got ${arms[*]})" ;; esac
for a in "${arms[@]}"; do case $a in suite | suite_off | stock) ;; *) skip "unknown arm $a in BENCH_ARMS" ;; esac; done
[ "$RUNS" -ge "${#arms[@]}" ] && [ $((RUNS % ${#arms[@]})) = 0 ] ||
  skip "BENCH_RUNS must be a multiple of the ${#arms[@]} arms (got $RUNS)"
[ "$NODES" -ge 2 ] && [ "$NODES" -le 64 ] || skip "BENCH_NODES must be 2..64 (got $NODES)"
[ "$JOBS" -ge 2000 ] || skip "BENCH_JOBS must be at least 2000 (the growth compares two 1,000s)"
for so in priority_budget preempt_timeslice select_topo job_submit_contract; do
  [ -n "$(find "$BUILD_DIR/src" -path "*/.libs/$so.so" 2>/dev/null)" ] || skip "$so.so not built in $BUILD_DIR"
done
[ "$(id -u)" = 0 ] || skip "needs root for the local cluster"
command -v slurmctld >/dev/null || skip "Slurm is not installed"

work=$(mktemp -d /tmp/ctld_scale_bench.XXXXXX)
cleanup() { [ -n "${CLUSTER_DIR:-}" ] && "$cluster" stop >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

# The tree: 20 accounts of equal share.
awk 'BEGIN { printf "{ \"name\": \"cluster\", \"children\": ["
             for (a = 0; a < 20; a++) printf "%s\n  { \"name\": \"acct%02d\", \"share\": 1, \"account\": \"acct%02d\" }", (a ? "," : ""), a, a
             printf " ] }\n" }' > "$work/tree.json"
# The arms' slurm.conf fragments. Stock has no PreemptType line: no
# preemption on every series (22.05's default is preempt/none, which 23.11
# removed).
cp "$repo/etc/slurm.conf.example" "$work/suite.conf"
sed -e 's|^PreemptMode=.*|PreemptMode=OFF|' "$repo/etc/slurm.conf.example" > "$work/suite_off.conf"
sed -e 's|^PriorityType=.*|PriorityType=priority/multifactor|' -e 's|^SelectType=.*|SelectType=select/cons_tres|' \
    -e '/^PreemptType=/d' -e 's|^PreemptMode=.*|PreemptMode=OFF|' \
    -e '/^JobSubmitPlugins=/d' "$repo/etc/slurm.conf.example" > "$work/stock.conf"

cat > "$work/submit.c" <<'C'
/* Submits N sleep jobs with a fixed seed; writes each submit RPC's time
 * (ms) to a line of OUT; min-runtimes are drawn from LO..HI seconds.
 * Usage: submit N SEED OUT LO HI */
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  int jobs = atoi(argv[1]), failed = 0, lo = atoi(argv[4]), hi = atoi(argv[5]);
  srand((unsigned)atoi(argv[2]));
  slurm_init(NULL); /* 23.11+: every API call is fatal before it */
  FILE *out = fopen(argv[3], "w");
  if (!out) return 2;
  char *env[] = {"PATH=/usr/bin:/bin", NULL};
  for (int i = 0; i < jobs; i++) {
    int account = rand() % 20, gpus = 1 + rand() % 16, sleep_s = 30 + rand() % 571, protect = lo + rand() % (hi - lo + 1);
    int nodes = gpus > 8 ? 2 : 1;
    char acct[16], script[64], gres[32], min_runtime[48];
    char *spank_env[] = {min_runtime, NULL};
    snprintf(acct, sizeof acct, "acct%02d", account);
    snprintf(script, sizeof script, "#!/bin/sh\nsleep %d\n", sleep_s);
    snprintf(gres, sizeof gres, "gres:gpu:%d", (gpus + nodes - 1) / nodes);
    int time_limit = sleep_s / 60 + 2;  /* minutes */
    /* A job is never protected for longer than it may run (the contract's
     * rule): a longer range protects each job for all of its run. */
    if (protect > time_limit * 60) protect = time_limit * 60;
    snprintf(min_runtime, sizeof min_runtime, "MIN_RUNTIME_OPTION=%d:%02d:%02d", protect / 3600,
             protect / 60 % 60, protect % 60);
    job_desc_msg_t desc;
    submit_response_msg_t *resp = NULL;
    slurm_init_job_desc_msg(&desc);
    desc.account = acct;
    desc.name = "scale";
    desc.script = script;
    desc.std_out = "/dev/null";
    desc.std_err = "/dev/null";
    desc.work_dir = "/tmp";
    desc.environment = env;
    desc.env_size = 1;
    desc.spank_job_env = spank_env;
    desc.spank_job_env_size = 1;
    desc.user_id = getuid();
    desc.group_id = getgid();
    desc.tres_per_node = gres;
    desc.min_nodes = nodes;
    desc.max_nodes = nodes;
    desc.time_limit = time_limit;
    double t0 = now_ms();
    int rc = slurm_submit_batch_job(&desc, &resp);
    double ms = now_ms() - t0;
    if (rc == SLURM_SUCCESS) {
      fprintf(out, "%.3f\n", ms);
    } else {
      if (failed++ < 3) fprintf(stderr, "job %d: %s\n", i, slurm_strerror(errno));
    }
    if (resp) slurm_free_submit_response_response_msg(resp);
  }
  fclose(out);
  printf("%d\n", jobs - failed);
  return failed ? 1 : 0;
}
C
prefix_flags=()
[ -z "${SLURM_PREFIX:-}" ] ||
  prefix_flags=(-I"$SLURM_PREFIX/include" -L"$SLURM_PREFIX/lib" -Wl,-rpath,"$SLURM_PREFIX/lib")
cc -O2 "${prefix_flags[@]}" -o "$work/submit" "$work/submit.c" -lslurm || skip "cannot build the submitter (libslurm-dev missing?)"

. "$repo/bench/ctld_bench_lib.sh"  # ctld_pid, cpu_seconds, thread_cpu, thread_delta

# sdiag_mean SECTION: the "Mean cycle" (microseconds) of sdiag's main
# scheduler ("Main") or backfill ("Backfilling") section; 0 when none ran.
sdiag_mean() {
  sdiag 2>/dev/null | awk -v section="$1" '
    /^Main schedule statistics/ { in_s = (section == "Main") }
    /^Backfilling stats/ { in_s = (section == "Backfilling") }
    /^(Latency|Remote|Pending RPC|Server thread)/ { in_s = 0 }
    in_s && /^[[:space:]]*Mean cycle:/ { v = $3 }
    in_s && /^[[:space:]]*Total cycles:/ { n = $3 }
    END { print (n > 0 ? v : 0), (n > 0 ? n : 0) }'
}

# run ARM INDEX: one fresh cluster, its submissions and its window.
# Appends "INDEX ARM cpu S main_us US main_n N bf_us US bf_n N rss_kb KB
# pending_start P pending_end P preemptions K" to $work/runs, the
# submit times to $work/rpc.INDEX, and thread lines to $work/threads.
run() {
  local arm=$1 index=$2
  export CLUSTER_DIR=$prefix-$arm SUITE_CONF=$work/$arm.conf BUDGET_TREE_JSON=$work/tree.json
  export BUDGET_CONF
  BUDGET_CONF=$(sed "s|^BudgetTree=.*|BudgetTree=$CLUSTER_DIR/etc/budget-tree.json|" "$repo/etc/budget.conf.example")
  # Quick start off: one user (root) submits every job, and its one-node
  # jobs of <= 8 GPUs with contracts of <= 15 min would all be quick-start
  # jobs under that user's bound (QuickStartUserGpus), so the pass would
  # serve 8 GPUs of them at a time and time-slice nothing else.
  BUDGET_CONF=$(printf '%s\nQuickStartGpus=0\n' "$(sed '/^QuickStartGpus=/d' <<<"$BUDGET_CONF")")
  # suite_off: time slicing by budget.conf's switch, PreemptMode=OFF.
  [ "$arm" != suite_off ] || BUDGET_CONF=$(printf '%s\nTimeSlicing=yes\n' "$(sed '/^TimeSlicing=/d' <<<"$BUDGET_CONF")")
  export SLURM_CONF_EXTRA="MaxJobCount=100000"
  local t0=$SECONDS
  "$cluster" start -n "$NODES" -g 8 >/dev/null || { echo "bench ctld_scale_bench: the $arm cluster did not start" >&2; return 1; }
  export SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf
  local log=$CLUSTER_DIR/log/slurmctld.log
  say "run $index ($arm): $NODES nodes up after $((SECONDS - t0)) s"
  t0=$SECONDS
  local submitted
  submitted=$("$work/submit" "$JOBS" "$SEED" "$work/rpc.$index" "${PROTECT%-*}" "${PROTECT#*-}") || say "run $index: some submissions failed"
  say "run $index ($arm): ${submitted:-0} of $JOBS jobs submitted in $((SECONDS - t0)) s"
  [ "${submitted:-0}" -ge $((JOBS * 9 / 10)) ] || { echo "bench ctld_scale_bench: $arm accepted ${submitted:-0} of $JOBS jobs" >&2; return 1; }
  sleep "$WARMUP"
  local before first start end pend0 pend1 main bf rss preempted
  sdiag -r >/dev/null 2>&1
  pend0=$(squeue -h -t PD -o %i | wc -l)
  first=$(wc -l < "$log")
  before=$(thread_cpu)
  start=$(cpu_seconds)
  sleep "$WINDOW"
  end=$(cpu_seconds)
  thread_delta "$arm" "$before" >> "$work/threads"
  main=$(sdiag_mean Main)
  bf=$(sdiag_mean Backfilling)
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$(ctld_pid)/status")
  pend1=$(squeue -h -t PD -o %i | wc -l)
  preempted=$(tail -n +"$((first + 1))" "$log" | grep -c 'preempt/timeslice: .*preempts job')
  echo "$index $arm cpu $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') main_us ${main% *} main_n ${main#* }" \
       "bf_us ${bf% *} bf_n ${bf#* } rss_kb $rss pending_start $pend0 pending_end $pend1 preemptions $preempted" >> "$work/runs"
  say "run $index ($arm): $(tail -n 1 "$work/runs" | cut -d' ' -f3-)"
  # The plugins' own summary of the window, where they logged one.
  tail -n +"$((first + 1))" "$log" | grep -E '(preempt/timeslice|select/topo|priority/budget): [0-9]+ (passes|job_test calls) in' |
    sed "s/^/ctld_scale_bench: run $index log| /" >&2
  "$cluster" stop >/dev/null 2>&1
  unset CLUSTER_DIR
}

uptime_before=$(uptime)
say "load before: $uptime_before"
: > "$work/runs"
: > "$work/threads"
# arm_of INDEX: the arm of run INDEX (1-based), round after round.
arm_of() { echo "${arms[($1 - 1) % ${#arms[@]}]}"; }
for ((i = 1; i <= RUNS; i++)); do
  run "$(arm_of "$i")" "$i" || exit 1
done
say "load after: $(uptime)"

# Each thread's on-CPU seconds over the windows, side by side.
awk -v arms="${arms[*]}" '$2 == "thread" { oncpu[$3, $1] += $5; woke[$3, $1] += $6; names[$3] = 1 }
     END { na = split(arms, arm, " ")
           for (n in names) {
             line = sprintf("ctld_scale_bench: thread %-20s", n)
             for (a = 1; a <= na; a++)
               line = line sprintf("  %s %8.3f s (%6d wakeups)", arm[a], oncpu[n, arm[a]], woke[n, arm[a]])
             print line } }' "$work/threads" |
  sort -k5 -n -r >&2

# ratio FIELD NAME [ARM [BASE]]: ARM (suite) over BASE (stock) of FIELD
# summed over the runs, and its spread within each round of runs (one run
# of each arm).
ratio() {
  awk -v field="$1" -v name="$2" -v arm="${3:-suite}" -v base="${4:-stock}" -v narms="${#arms[@]}" '
    { for (i = 3; i < NF; i += 2) if ($i == field) v = $(i + 1)
      sum[$2] += v; pair = int(($1 - 1) / narms); p[pair, $2] = v; pairs[pair] = 1 }
    END { printf "bench %s: %.2f x\n", name, (sum[base] > 0 ? sum[arm] / sum[base] : 0)
          for (k in pairs) if (p[k, base] > 0) {
            r = p[k, arm] / p[k, base]
            if (n++ == 0 || r < lo) lo = r
            if (n == 1 || r > hi) hi = r }
          if (n > 1) printf "bench %s_min: %.2f x\nbench %s_max: %.2f x\n", name, lo, name, hi }' "$work/runs"
}
ratio cpu ctld_scale_cpu_ratio
# The arms do not start the same number of jobs in a window (the suite's
# order and packing start more; its preemptions end more): slurmctld CPU
# per job started, suite over stock. Bench jobs are not resumable, so a
# job started in the window leaves the queue for good.
# per_start NAME [ARM [BASE]]: that ratio, ARM (suite) over BASE (stock).
per_start() {
  awk -v name="$1" -v arm="${2:-suite}" -v base="${3:-stock}" '
    { for (i = 3; i < NF; i += 2) { if ($i == "cpu") c = $(i + 1); if ($i == "pending_start") a = $(i + 1); if ($i == "pending_end") b = $(i + 1) }
       cpu[$2] += c; started[$2] += a - b }
     END { if (started[arm] > 0 && started[base] > 0 && cpu[base] > 0)
             printf "bench %s: %.2f x\n", name, (cpu[arm] / started[arm]) / (cpu[base] / started[base]) }' "$work/runs"
}
per_start ctld_scale_cpu_per_start_ratio
ratio bf_us ctld_scale_backfill_cycle_ratio
ratio main_us ctld_scale_main_cycle_ratio

# Submit RPCs: the mean over all of an arm's runs, and the growth from the
# first 1,000 to the last 1,000 of each run (the mean over its runs).
for ((i = 1; i <= RUNS; i++)); do
  arm=$(arm_of "$i")
  awk -v arm="$arm" '{ v[NR] = $1; s += $1 }
       END { for (i = 1; i <= 1000; i++) { a += v[i]; b += v[NR - 1000 + i] }
             printf "%s %.4f %.4f %.4f\n", arm, s / NR, a / 1000, b / 1000 }' "$work/rpc.$i"
done > "$work/submits"
awk '{ n[$1]++; mean[$1] += $2; first[$1] += $3; last[$1] += $4 }
     END { for (a in n) printf "ctld_scale_bench: %s submit RPC: mean %.3f ms, first 1,000 %.3f ms, last 1,000 %.3f ms (over %d runs)\n",
                             a, mean[a] / n[a], first[a] / n[a], last[a] / n[a], n[a] }' "$work/submits" >&2
awk '{ n[$1]++; mean[$1] += $2; g[$1] += $4 / $3 }
     END { printf "bench ctld_scale_submit_rpc_ratio: %.2f x\n", mean["suite"] / mean["stock"]
           printf "bench ctld_scale_submit_growth: %.2f x\n", g["suite"] / n["suite"]
           printf "bench ctld_scale_submit_growth_stock: %.2f x\n", g["stock"] / n["stock"] }' "$work/submits"
awk '{ for (i = 3; i < NF; i += 2) if ($i == "rss_kb") v = $(i + 1); if (v > m[$2]) m[$2] = v }
     END { printf "bench ctld_scale_rss_mb: %.0f MB\nbench ctld_scale_rss_mb_stock: %.0f MB\n", m["suite"] / 1024, m["stock"] / 1024 }' "$work/runs"
# The PreemptMode=OFF arm: over stock, and over the suite with REQUEUE.
if [[ " ${arms[*]} " == *" suite_off "* ]]; then
  ratio cpu ctld_scale_off_cpu_ratio suite_off stock
  per_start ctld_scale_off_cpu_per_start_ratio suite_off stock
  ratio bf_us ctld_scale_off_backfill_cycle_ratio suite_off stock
  ratio main_us ctld_scale_off_main_cycle_ratio suite_off stock
  ratio cpu ctld_scale_off_vs_suite_cpu_ratio suite_off suite
  per_start ctld_scale_off_vs_suite_cpu_per_start_ratio suite_off suite
  ratio bf_us ctld_scale_off_vs_suite_backfill_cycle_ratio suite_off suite
  ratio main_us ctld_scale_off_vs_suite_main_cycle_ratio suite_off suite
fi
