#!/usr/bin/env bash
# bench fidelity: how far budget-sim agrees with the real controller on the
# bench case of scenarios/replay_large (227 jobs over 7 trace hours on 4
# nodes x 8 GPUs at ~2.5x demand, two nodes drained and returned), replayed
# by scripts/replay.sh at its default compression (60x: about 20 real
# minutes). Prints
#
#   bench fidelity_start_order: <x> ratio              agreement.start_order
#   bench fidelity_preemptions: <x> ratio              agreement.preemptions
#   bench fidelity_preemptions_by_kind: <x> ratio      agreement.preemptions_by_kind
#   bench fidelity_team_delivered_max_diff: <x> points
#   bench fidelity_team_delivered_max_diff_until_last_submit: <x> points
#   bench fidelity_start_diff_median: <s> s            trace seconds
#   bench fidelity_start_diff_p90: <s> s
#
# (the figures are defined in scripts/replay/compare.py), and the replay's
# own table on stderr. Environment: BUILD_DIR (default: the build tree this
# runs from), CLUSTER_DIR (default /tmp/slurm-budget-bench-replay),
# BENCH_REPLAY_JSON (keep the replay's JSON there). Needs root and the
# plugins built; otherwise prints why and skips.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$(cd .. && pwd)}
export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/slurm-budget-bench-replay}
case=$repo/scenarios/replay_large

skip() { echo "bench fidelity_bench: skipped ($*)"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root for the local cluster"
command -v slurmctld >/dev/null || skip "Slurm is not installed"
[ -f "$BUILD_DIR/src/sched_timeslice/.libs/preempt_timeslice.so" ] || skip "the plugins are not built in $BUILD_DIR"
[ -x "$BUILD_DIR/src/sim/budget-sim" ] || skip "budget-sim is not built in $BUILD_DIR"

work=$(mktemp -d /tmp/fidelity_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=${BENCH_REPLAY_JSON:-$work/out.json}
if ! "$repo/scripts/replay.sh" --generate "$case/scenario.json" --tree "$case/tree.json" \
    --config "$case/budget.conf" --nodes 4 --gpus-per-node 8 \
    --drain n2@2:00:00 --resume n2@3:00:00 --drain n3@5:00:00 --resume n3@5:30:00 \
    --json "$out" >"$work/replay.log" 2>&1; then
  cat "$work/replay.log" >&2
  echo "bench fidelity_bench: FAILED (scripts/replay.sh)" >&2
  exit 1
fi
cat "$work/replay.log" >&2
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, s = d["agreement"], d["start_diff"]
def show(name, v, unit, fmt):
    print("bench fidelity_%s: %s %s" % (name, "null" if v is None else fmt % v, unit))
show("start_order", a["start_order"], "ratio", "%.3f")
show("preemptions", a["preemptions"], "ratio", "%.3f")
show("preemptions_by_kind", a["preemptions_by_kind"], "ratio", "%.3f")
show("team_delivered_max_diff", a["team_delivered_max_diff"], "points", "%.2f")
show("team_delivered_max_diff_until_last_submit", a["team_delivered_max_diff_until_last_submit"], "points", "%.2f")
show("start_diff_median", s["median"], "s", "%.0f")
show("start_diff_p90", s["p90"], "s", "%.0f")
PY
