#!/usr/bin/env bash
# bench replay_family: does the real controller give the outcomes budget-sim
# gives on a lab mix nobody tuned for? scenarios/replay_family is mix 23 of
# the family scenarios/family/family.json (seed 1: 20 nodes x 8 GPUs, 24
# accounts in 10 teams, debug streams of 1-8 GPUs) over its first 6 trace
# hours: 249 jobs, replayed by scripts/replay.sh at its default compression
# (60x: about 25 real minutes). Prints
#
#   bench replay_family_team_delivered_max_diff: <x> points   agreement.team_delivered_max_diff
#   bench replay_family_debug_p90_real: <s> s        the largest of the teams' debug p90s,
#   bench replay_family_debug_p90_sim: <s> s         real/sim.debug_wait_p90_max_team
#   bench replay_family_hero_p90_real: <s> s         real/sim.hero_wait_p90 (null: no hero
#   bench replay_family_hero_p90_sim: <s> s          job, hero_jobs says how many)
#   bench replay_family_team_bound: yes|no bool      team difference <= 3 points
#   bench replay_family_debug_p90_bound: yes|no bool within 2x or 30 s
#   bench replay_family_hero_p90_bound: yes|no bool  within 2x (yes when neither side has one)
#   bench replay_family_start_order: <x> ratio       for context: agreement.start_order
#   bench replay_family_preemptions_by_kind: <x> ratio                 .preemptions_by_kind
#
# (times in trace seconds; the figures and the bounds are
# scripts/replay/compare.py's: `within`), and the replay's own table, with
# each team's delivered share and debug p90 on both sides, on stderr. A
# bound that misses is reported, not failed: the bench measures. Environment:
# BUILD_DIR (default: the build tree this runs from), CLUSTER_DIR (default
# /tmp/slurm-budget-bench-family), BENCH_REPLAY_JSON (keep the replay's JSON
# there), BENCH_REPLAY_WORK (keep its work directory there, for
# scripts/replay/differences.py). Needs root and the plugins built;
# otherwise prints why and skips.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$(cd .. && pwd)}
export CLUSTER_DIR=${CLUSTER_DIR:-/tmp/slurm-budget-bench-family}
case=$repo/scenarios/replay_family
# The requirement the case checks (scenarios/replay_family/README.md).
TEAM_POINTS=3 DEBUG_RATIO=2 DEBUG_SLACK=30 HERO_RATIO=2

skip() { echo "bench replay_family_bench: skipped ($*)"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root for the local cluster"
command -v slurmctld >/dev/null || skip "Slurm is not installed"
[ -f "$BUILD_DIR/src/sched_timeslice/.libs/preempt_timeslice.so" ] || skip "the plugins are not built in $BUILD_DIR"
[ -x "$BUILD_DIR/src/sim/budget-sim" ] || skip "budget-sim is not built in $BUILD_DIR"

tmp=$(mktemp -d /tmp/replay_family_bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
out=${BENCH_REPLAY_JSON:-$tmp/out.json}
work=${BENCH_REPLAY_WORK:-$tmp/work}
if ! "$repo/scripts/replay.sh" --generate "$case/scenario.json" --tree "$case/tree.json" \
    --nodes 20 --gpus-per-node 8 --work "$work" --json "$out" >"$tmp/replay.log" 2>&1; then
  cat "$tmp/replay.log" >&2
  echo "bench replay_family_bench: FAILED (scripts/replay.sh)" >&2
  exit 1
fi
cat "$tmp/replay.log" >&2
python3 - "$repo/scripts/replay" "$out" "$TEAM_POINTS" "$DEBUG_RATIO" "$DEBUG_SLACK" "$HERO_RATIO" <<'PY'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from compare import within
d = json.load(open(sys.argv[2]))
team_points, debug_ratio, debug_slack, hero_ratio = map(float, sys.argv[3:7])
a, r, s = d["agreement"], d["real"], d["sim"]
def show(name, v, unit, fmt):
    print("bench replay_family_%s: %s %s" % (name, "null" if v is None else fmt % v, unit))
def yes(b):
    return "yes" if b else "no"
show("team_delivered_max_diff", a["team_delivered_max_diff"], "points", "%.2f")
show("debug_p90_real", r["debug_wait_p90_max_team"], "s", "%.0f")
show("debug_p90_sim", s["debug_wait_p90_max_team"], "s", "%.0f")
show("hero_p90_real", r["hero_wait_p90"], "s", "%.0f")
show("hero_p90_sim", s["hero_wait_p90"], "s", "%.0f")
show("team_bound", yes(a["team_delivered_max_diff"] <= team_points), "bool", "%s")
show("debug_p90_bound", yes(within(r["debug_wait_p90_max_team"], s["debug_wait_p90_max_team"],
                                   debug_ratio, debug_slack)), "bool", "%s")
show("hero_p90_bound", yes(within(r["hero_wait_p90"], s["hero_wait_p90"], hero_ratio)), "bool", "%s")
show("start_order", a["start_order"], "ratio", "%.3f")
show("preemptions_by_kind", a["preemptions_by_kind"], "ratio", "%.3f")
PY
