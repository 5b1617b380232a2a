# Shell shared by the controller benchmarks (priority_budget_bench.sh,
# ctld_scale_bench.sh): slurmctld's CPU from /proc, per thread. Sourced;
# needs CLUSTER_DIR (the cluster scripts/cluster.sh started).

ctld_pid() { cat "$CLUSTER_DIR/run/slurmctld.mypid"; }
# slurmctld's utime + stime in seconds.
cpu_seconds() { awk -v tck="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / tck }' "/proc/$(ctld_pid)/stat"; }
# thread_cpu: "tid name ticks on_cpu_ns wakeups" for every thread of
# slurmctld: utime + stime in clock ticks (what the process total counts,
# charged a tick at a time), the scheduler's exact on-CPU time
# (schedstat), and the voluntary context switches (times it slept and woke).
thread_cpu() {
  local task
  for task in /proc/"$(ctld_pid)"/task/*; do
    { cat "$task/stat"; cat "$task/schedstat"; grep '^voluntary_ctxt_switches' "$task/status"; } 2>/dev/null |
      awk -v tid="${task##*/}" '
        NR == 1 { match($0, /\(.*\)/); name = substr($0, RSTART + 1, RLENGTH - 2)
                  split(substr($0, RSTART + RLENGTH + 1), f, " "); ticks = f[12] + f[13]; next }
        NR == 2 { oncpu = $1; next }
        NR == 3 { print tid, name, ticks, oncpu, $2 }'
  done | sort -n | awk -v pid="$(ctld_pid)" '
    # slurmctld names few of its threads: the others carry its own name.
    # Tell them apart by creation order (the main thread, then #1, #2...),
    # which is the same from one start to the next.
    $2 == "slurmctld" { $2 = ($1 == pid ? "slurmctld-main" : "slurmctld#" ++unnamed) } { print }'
}
# thread_delta LABEL BEFORE: per thread name, what each thread alive in the
# snapshot BEFORE (thread_cpu's output) used since, as "LABEL thread NAME
# SECONDS ON_CPU_SECONDS WAKEUPS" lines (threads that used nothing left out).
thread_delta() {
  { echo "$2" | sed 's/^/0 /'; thread_cpu | sed 's/^/1 /'; } |
    awk -v tck="$(getconf CLK_TCK)" -v label="$1" '
      $1 == 0 { t0[$2] = $4; c0[$2] = $5; w0[$2] = $6; next }
      ($2 in t0) { used[$3] += $4 - t0[$2]; oncpu[$3] += $5 - c0[$2]; woke[$3] += $6 - w0[$2] }
      END { for (n in used) if (used[n] > 0 || oncpu[n] > 1e7)
              printf "%s thread %s %.2f %.4f %d\n", label, n, used[n] / tck, oncpu[n] / 1e9, woke[n] }'
}
