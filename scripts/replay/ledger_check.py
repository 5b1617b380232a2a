#!/usr/bin/env python3
"""Checks that priority/budget charged every run the real cluster made: its
report (budget_report.json, written by the plugin) against the runs read back
from the controller (real-events.json, scripts/replay/collect.py).

  ledger_check.py --events real-events.json --report budget_report.json
                  --t0 EPOCH

For each account of the report's tree, the GPU-seconds of allocated work
(min-runtime > 0) and of unallocated work that the runs held up to the
report's generated_at, against the report's window_usage and unallocated.
The window must hold the whole replay (a compressed window does: days / F
against minutes). The ledger may lag a run's end by at most one second
(the preemption note and the pass count whole seconds), so each run that
ended before the report is allowed its GPUs x 1 s of difference; anything
more is charging lost (or charged twice).
Exit 0 when every account is within its allowance, 1 otherwise (one line
per account either way), 2 on bad input.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shape import held_gpus  # noqa: E402


def run_usage(jobs, gpus_per_node, until):
    """{account: [allocated GPU-s, unallocated GPU-s, allowance GPU-s]}."""
    usage = {}
    for j in jobs:
        gpus = held_gpus(j["gpus"], gpus_per_node)
        row = usage.setdefault(j["account"], [0.0, 0.0, 0.0])
        for r in j["runs"]:
            end = min(r["end"], until)
            if end <= r["start"]:
                continue
            row[0 if j["min_runtime"] > 0 else 1] += gpus * (end - r["start"])
            if r["end"] <= until:
                row[2] += gpus
    return usage


def check(usage, nodes):
    """(every account within its allowance, one line per account); nodes:
    {account: report node}."""
    ok, lines = True, []
    for account in sorted(usage):
        allocated, unallocated, allowance = usage[account]
        node = nodes.get(account)
        if node is None:
            lines.append("  %-12s not in the report's tree" % account)
            ok = False
            continue
        diff = max(abs(node["window_usage"] - allocated), abs(node["unallocated"] - unallocated))
        good = diff <= allowance
        ok = ok and good
        lines.append("  %-12s allocated %8.0f runs / %8.0f ledger; unallocated %8.0f / %8.0f; off by %.0f "
                     "(allowed %.0f)%s" % (account, allocated, node["window_usage"], unallocated, node["unallocated"],
                                            diff, allowance, "" if good else "  <- charging lost or doubled"))
    return ok, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--t0", type=int, required=True, help="the replay's time 0 (epoch seconds)")
    a = ap.parse_args()
    try:
        with open(a.events) as f:
            events = json.load(f)
        with open(a.report) as f:
            report = json.load(f)
        (policy,) = events["policies"].values()
        until = report["generated_at"] - a.t0
        usage = run_usage(policy["jobs"], events["gpus_per_node"], until)
        nodes = {n["account"]: n for n in report["nodes"] if n.get("account")}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("ledger_check: cannot read the inputs: %s" % e, file=sys.stderr)
        return 2
    ok, lines = check(usage, nodes)
    print("ledger_check: runs up to %d s (the report's time) against the ledger, GPU-seconds" % until)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
