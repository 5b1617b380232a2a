#!/usr/bin/env python3
"""Where a replay's two sides part: the first preemptions made on one side
only, each with what both sides did around it (scripts/replay.sh --work).

  differences.py --real real-events.json --sim sim-events.json
                 [--sim-policy P] [--first N] [--around S]

Both files are budget-sim's --events-json format (compressed seconds, as
compare.py reads them). For each of the first N (default 3) (victim,
preemptor) pairs found on one side only, in time order, it prints the
submissions, starts and ends of both sides within S (default 3) compressed
seconds of that preemption. The first difference is usually the one to
read: a replay is a chain of decisions, and every later one follows from
the cluster the earlier ones left. Exit 0, 2 on bad input.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import InputError, load_side  # noqa: E402


def preemption_times(jobs):
    """(victim, preemptor or "drain") -> the time the run ended."""
    out = {}
    for i, j in jobs.items():
        for r in j["runs"]:
            if r["ended"] == "drained":
                out[(i, "drain")] = r["end"]
            elif r["ended"] == "preempted":
                out[(i, r["preempted_by"])] = r["end"]
    return out


def events_near(jobs, t, around):
    """(time, what, job id, account, GPUs, nodes) of every submission,
    start and end within `around` of t, in time order (submissions first)."""
    out = []
    for i, j in jobs.items():
        if abs(j["submit"] - t) <= around:
            out.append((j["submit"], 0, "submitted", i, j["account"], j["gpus"], ""))
        for r in j["runs"]:
            nodes = ",".join(r["nodes"])
            if abs(r["start"] - t) <= around:
                out.append((r["start"], 1, "started", i, j["account"], j["gpus"], nodes))
            if abs(r["end"] - t) <= around:
                why = r["ended"] + (" by %s" % r["preempted_by"] if r.get("preempted_by") else "")
                out.append((r["end"], 1, "ended (%s)" % why, i, j["account"], j["gpus"], nodes))
    return sorted(out)


def differences(real, sim, first, around):
    """The report's lines."""
    on_real, on_sim = preemption_times(real), preemption_times(sim)
    one_side = sorted((t, pair, "real") for pair, t in on_real.items() if pair not in on_sim)
    one_side += sorted((t, pair, "sim") for pair, t in on_sim.items() if pair not in on_real)
    one_side.sort(key=lambda x: (x[0], x[2]))
    lines = ["%d preemption pairs on both sides, %d on the real side only, %d in the simulator only"
             % (len(set(on_real) & set(on_sim)), len(set(on_real) - set(on_sim)), len(set(on_sim) - set(on_real)))]
    for t, (victim, by), side in one_side[:first]:
        lines.append("")
        lines.append("at %s: job %s preempted by %s on the %s side only" % (t, victim, by, side))
        for name, jobs in (("real", real), ("sim", sim)):
            lines.append("  %s:" % name)
            for when, _, what, i, account, gpus, nodes in events_near(jobs, t, around):
                lines.append("    %6s  job %-4s %-22s %-10s %2d GPUs %s" % (when, i, what, account, gpus, nodes))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--sim-policy", default=None, help="the policy to read from --sim (default: its only one)")
    ap.add_argument("--first", type=int, default=3)
    ap.add_argument("--around", type=float, default=3.0, help="compressed seconds (default 3)")
    a = ap.parse_args(argv)
    try:
        _, real = load_side(a.real)
        _, sim = load_side(a.sim, a.sim_policy)
    except (OSError, ValueError, InputError) as e:
        print("differences: error: %s" % e, file=sys.stderr)
        return 2
    print("\n".join(differences(real, sim, a.first, a.around)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
