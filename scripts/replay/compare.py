#!/usr/bin/env python3
"""Compares what a real cluster did with what budget-sim did on the same
compressed inputs (scripts/replay.sh), and says how far they agree.

  compare.py --real real-events.json --sim sim-events.json --factor F
             [--tie 2] [--plan plan.json] [--input KEY=VALUE ...] --out OUT.json
             [--assert-start-order X] [--assert-preemptions Y]
             [--assert-preemptions-by-kind Y] [--assert-team-diff Z]

Both files are in budget-sim's --events-json format (src/sim/events_json.h),
times in compressed seconds; every figure that is a time is reported in
trace seconds (x F). The figures:

  agreement.start_order   over the pairs of trace jobs that started on both
      sides, the fraction whose first starts are in the same order. A pair
      whose starts lie within --tie compressed seconds of each other on
      either side agrees whatever its order there: Slurm records whole
      seconds, and its schedulers and the suite's passes run 1-2 s apart in
      a compressed replay, so closer starts are one decision, not an order.
      null without a pair.
  agreement.preemptions   the Jaccard index |R & S| / |R | S| of the sets of
      (victim trace id, preemptor trace id) pairs, a drain departure
      counting as (victim, "drain"); 1.0 when both sets are empty.
  agreement.preemptions_by_kind   the same over multisets of (preemptor
      trace id or "drain", victim's account, GPUs the victim held): which
      waiting job took how much of which team's work. Of two running jobs of
      one team and one size, which one sat on the node the preemptor got
      follows from which of them started there first, an order the start
      order figure already judges; this figure counts such a decision once,
      not as two one-sided pairs.
  agreement.team_delivered_max_diff   the largest difference, in percentage
      points, of an account's share of all GPU time delivered (every run,
      GPUs held x its length); ..._until_last_submit: the same over the
      runs' parts before the last submission, while the cluster is
      contended (over the whole run every job completes on both sides, so
      only work lost to cancellations can move the shares).
  start_diff.median, .p90   |first start real - first start sim| per job
      started on both sides (trace seconds, nearest rank).
  real/sim.occupancy   busy GPU-seconds / (capacity x (last end - first
      submission)).
  real/sim.debug_wait_p90   debug jobs: allocated (min-runtime > 0), with a
      min-runtime of at most 15 trace minutes and at most 8 GPUs (budget-sim's
      definition, doc/simulator.md); wait = first start - submit; nearest
      rank; jobs that never started are left out (and counted).
Exit 0, or 1 when an --assert-* threshold is missed (one line per miss),
2 on bad input.
"""

import argparse
import collections
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shape import held_gpus  # noqa: E402

DEBUG_MAX_MIN_RUNTIME = 900  # trace seconds
DEBUG_MAX_GPUS = 8


class InputError(Exception):
    pass


def load_side(path, policy=None):
    """(header, jobs by id) of one side: the named policy, or the only one."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("version") != 1:
        raise InputError("%s: expected an events file of version 1" % path)
    policies = doc.get("policies", {})
    if policy is None:
        if len(policies) != 1:
            raise InputError("%s: holds %d policies (%s); name one" % (path, len(policies), ", ".join(policies)))
        policy = next(iter(policies))
    if policy not in policies:
        raise InputError("%s: no policy %s (has %s)" % (path, policy, ", ".join(policies)))
    jobs = {j["id"]: j for j in policies[policy]["jobs"]}
    return doc, jobs


def nearest_rank(values, p):
    if not values:
        return None
    v = sorted(values)
    return v[max(1, int(math.ceil(p * len(v)))) - 1]


def first_starts(jobs):
    return {i: min(r["start"] for r in j["runs"]) for i, j in jobs.items() if j["runs"]}


def start_order(real, sim, tie):
    """(fraction agreeing or None, pairs)."""
    both = sorted(set(real) & set(sim))
    agree = pairs = 0
    for a in range(len(both)):
        for b in range(a + 1, len(both)):
            i, j = both[a], both[b]
            dr, ds = real[i] - real[j], sim[i] - sim[j]
            pairs += 1
            if abs(dr) <= tie or abs(ds) <= tie or (dr > 0) == (ds > 0):
                agree += 1
    return (agree / pairs if pairs else None), pairs


def preemption_pairs(jobs):
    pairs = set()
    for i, j in jobs.items():
        for r in j["runs"]:
            if r["ended"] == "drained":
                pairs.add((i, "drain"))
            elif r["ended"] == "preempted":
                pairs.add((i, r["preempted_by"]))
    return pairs


def preemption_kinds(jobs, gpus_per_node):
    """Counter of (preemptor or "drain", victim account, victim GPUs held)."""
    kinds = collections.Counter()
    for j in jobs.values():
        for r in j["runs"]:
            if r["ended"] in ("drained", "preempted"):
                by = "drain" if r["ended"] == "drained" else r["preempted_by"]
                kinds[(by, j["account"], held_gpus(j["gpus"], gpus_per_node))] += 1
    return kinds


def jaccard(a, b):
    """Of two sets, or of two multisets (collections.Counter)."""
    if isinstance(a, collections.Counter):
        common, union = sum((a & b).values()), sum((a | b).values())
    else:
        common, union = len(a & b), len(a | b)
    return common / union if union else 1.0


def delivered_shares(jobs, gpus_per_node, until=None):
    """{account: share of the GPU-seconds delivered} (up to `until` if given)."""
    by_account = {}
    for j in jobs.values():
        gpus = held_gpus(j["gpus"], gpus_per_node)
        for r in j["runs"]:
            end = r["end"] if until is None else min(r["end"], until)
            if end > r["start"]:
                by_account[j["account"]] = by_account.get(j["account"], 0) + gpus * (end - r["start"])
    total = sum(by_account.values())
    return {a: (v / total if total else 0.0) for a, v in by_account.items()}


def side_figures(header, jobs, factor):
    gpn = header["gpus_per_node"]
    busy = sum(held_gpus(j["gpus"], gpn) * (r["end"] - r["start"]) for j in jobs.values() for r in j["runs"])
    first = min(j["submit"] for j in jobs.values())
    ends = [r["end"] for j in jobs.values() for r in j["runs"]]
    span = (max(ends) - first) if ends else 0
    starts = first_starts(jobs)
    debug = [i for i, j in jobs.items()
             if 0 < j["min_runtime"] * factor <= DEBUG_MAX_MIN_RUNTIME and j["gpus"] <= DEBUG_MAX_GPUS]
    waits = [(starts[i] - jobs[i]["submit"]) * factor for i in debug if i in starts]
    p90 = nearest_rank(waits, 0.9)
    return {
        "occupancy": busy / (header["capacity_gpus"] * span) if span > 0 else None,
        "debug_wait_p90": p90,
        "debug_jobs": len(debug), "debug_jobs_never_started": len(debug) - len(waits),
        "jobs_started": len(starts), "runs": sum(len(j["runs"]) for j in jobs.values()),
        "preemptions": sum(1 for j in jobs.values() for r in j["runs"] if r["ended"] in ("preempted", "drained")),
        "other_endings": sorted({r["ended"] for j in jobs.values() for r in j["runs"]} -
                                {"finished", "preempted", "drained", "timeout", "running"}),
        "delivered_share": delivered_shares(jobs, gpn),
        "end": max(ends) * factor if ends else None,
    }


def max_share_diff(real, sim, gpus_per_node, until=None):
    """(points, account) of the largest difference of delivered shares."""
    r, s = delivered_shares(real, gpus_per_node, until), delivered_shares(sim, gpus_per_node, until)
    diffs = {a: 100 * abs(r.get(a, 0) - s.get(a, 0)) for a in set(r) | set(s)}
    if not diffs:
        return 0.0, None
    # Ties (two accounts always differ alike) go to the first name.
    worst = max(sorted(diffs), key=lambda a: round(diffs[a], 9))
    return diffs[worst], worst


def compare(real_doc, real, sim_doc, sim, factor, tie):
    if set(real) != set(sim):
        raise InputError("the two sides list different jobs (%d real, %d sim)" % (len(real), len(sim)))
    if (real_doc["nodes"], real_doc["gpus_per_node"]) != (sim_doc["nodes"], sim_doc["gpus_per_node"]):
        raise InputError("the two sides ran on different clusters")
    rs, ss = first_starts(real), first_starts(sim)
    order, pairs = start_order(rs, ss, tie)
    rp, sp = preemption_pairs(real), preemption_pairs(sim)
    gpn = real_doc["gpus_per_node"]
    rk, sk = preemption_kinds(real, gpn), preemption_kinds(sim, gpn)
    r_fig, s_fig = side_figures(real_doc, real, factor), side_figures(sim_doc, sim, factor)
    diff, worst = max_share_diff(real, sim, gpn)
    # While jobs still arrive the cluster is contended and the shares are
    # the fair share's doing; over the whole run every job's work is done on
    # both sides, so those shares differ only by work lost to cancellations.
    last_submit = max(j["submit"] for j in real.values())
    window_diff, window_worst = max_share_diff(real, sim, gpn, last_submit)
    start_diffs = [abs(rs[i] - ss[i]) * factor for i in set(rs) & set(ss)]
    return {
        "agreement": {
            "start_order": order, "start_order_pairs": pairs, "tie_tolerance_compressed_s": tie,
            "preemptions": jaccard(rp, sp),
            "preemption_pairs": {"real": len(rp), "sim": len(sp), "common": len(rp & sp)},
            "preemptions_by_kind": jaccard(rk, sk),
            "preemption_kinds": {"real": sum(rk.values()), "sim": sum(sk.values()),
                                 "common": sum((rk & sk).values())},
            "team_delivered_max_diff": diff,
            "team_delivered_max_diff_account": worst,
            "team_delivered_max_diff_until_last_submit": window_diff,
            "team_delivered_max_diff_until_last_submit_account": window_worst,
        },
        "start_diff": {"median": nearest_rank(start_diffs, 0.5), "p90": nearest_rank(start_diffs, 0.9),
                       "jobs": len(start_diffs)},
        "real": r_fig,
        "sim": s_fig,
    }


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "pct":
        return "%.1f%%" % (100 * v)
    if kind == "s":
        return "%.0f s" % v
    if kind == "ratio":
        return "%.3f" % v
    if kind == "points":
        return "%.2f points" % v
    return str(v)


def table(out):
    a, r, s, d = out["agreement"], out["real"], out["sim"], out["start_diff"]
    rows = [("", "real", "sim"),
            ("occupancy", fmt(r["occupancy"], "pct"), fmt(s["occupancy"], "pct")),
            ("debug wait p90 (trace)", fmt(r["debug_wait_p90"], "s"), fmt(s["debug_wait_p90"], "s")),
            ("runs", fmt(r["runs"], ""), fmt(s["runs"], "")),
            ("preemptions (runs)", fmt(r["preemptions"], ""), fmt(s["preemptions"], "")),
            ("preemption pairs", fmt(a["preemption_pairs"]["real"], ""), fmt(a["preemption_pairs"]["sim"], ""))]
    for acct in sorted(set(r["delivered_share"]) | set(s["delivered_share"])):
        rows.append(("delivered share " + acct, fmt(r["delivered_share"].get(acct), "pct"),
                     fmt(s["delivered_share"].get(acct), "pct")))
    lines = ["%-34s %12s %12s" % row for row in rows]
    lines.append("")
    lines.append("%-34s %s (%d pairs, tie %g s compressed)" % ("agreement: start order", fmt(a["start_order"], "ratio"),
                                                              a["start_order_pairs"], a["tie_tolerance_compressed_s"]))
    lines.append("%-34s %s (%d common of %d)" % ("agreement: preemptions (Jaccard)", fmt(a["preemptions"], "ratio"),
                                                 a["preemption_pairs"]["common"],
                                                 a["preemption_pairs"]["real"] + a["preemption_pairs"]["sim"]
                                                 - a["preemption_pairs"]["common"]))
    k = a["preemption_kinds"]
    lines.append("%-34s %s (%d common of %d)" % ("  by kind (preemptor, team, GPUs)", fmt(a["preemptions_by_kind"], "ratio"),
                                                 k["common"], k["real"] + k["sim"] - k["common"]))
    lines.append("%-34s %s (%s)" % ("agreement: team delivered max diff", fmt(a["team_delivered_max_diff"], "points"),
                                    a["team_delivered_max_diff_account"] or "-"))
    lines.append("%-34s %s (%s)" % ("  until the last submission", fmt(a["team_delivered_max_diff_until_last_submit"], "points"),
                                    a["team_delivered_max_diff_until_last_submit_account"] or "-"))
    lines.append("%-34s %s / %s (%d jobs, trace seconds)" % ("start diff median / p90", fmt(d["median"], "s"),
                                                            fmt(d["p90"], "s"), d["jobs"]))
    return "\n".join(lines)


def misses(out, a):
    """Lines naming every threshold missed."""
    found = []
    ag = out["agreement"]
    if a.assert_start_order is not None and (ag["start_order"] is None or ag["start_order"] < a.assert_start_order):
        found.append("start_order %s < %g (--assert-start-order)" % (fmt(ag["start_order"], "ratio"), a.assert_start_order))
    if a.assert_preemptions is not None and ag["preemptions"] < a.assert_preemptions:
        found.append("preemptions %s < %g (--assert-preemptions)" % (fmt(ag["preemptions"], "ratio"), a.assert_preemptions))
    if a.assert_preemptions_by_kind is not None and ag["preemptions_by_kind"] < a.assert_preemptions_by_kind:
        found.append("preemptions_by_kind %s < %g (--assert-preemptions-by-kind)"
                     % (fmt(ag["preemptions_by_kind"], "ratio"), a.assert_preemptions_by_kind))
    if a.assert_team_diff is not None and ag["team_delivered_max_diff"] > a.assert_team_diff:
        found.append("team_delivered_max_diff %s > %g (--assert-team-diff)"
                     % (fmt(ag["team_delivered_max_diff"], "points"), a.assert_team_diff))
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--sim-policy", default="budget")
    ap.add_argument("--factor", type=int, required=True)
    ap.add_argument("--tie", type=float, default=2.0, help="compressed seconds (default 2)")
    ap.add_argument("--plan", help="compress.py's plan.json: its inputs go into OUT")
    ap.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="more inputs to record")
    ap.add_argument("--out", required=True)
    ap.add_argument("--assert-start-order", type=float)
    ap.add_argument("--assert-preemptions", type=float)
    ap.add_argument("--assert-preemptions-by-kind", type=float)
    ap.add_argument("--assert-team-diff", type=float)
    a = ap.parse_args(argv)
    real_doc, real = load_side(a.real)
    sim_doc, sim = load_side(a.sim, a.sim_policy)
    out = {"version": 1}
    out.update(compare(real_doc, real, sim_doc, sim, a.factor, a.tie))
    inputs = {"compression": a.factor, "nodes": real_doc["nodes"], "gpus_per_node": real_doc["gpus_per_node"],
              "jobs": len(real), "runs": {"real": out["real"]["runs"], "sim": out["sim"]["runs"]},
              "rejected_at_submission": sum(1 for j in real.values() if j.get("rejected"))}
    if a.plan:
        with open(a.plan) as f:
            plan = json.load(f)
        for key in ("scheduler_parameters", "budget_conf", "time_limits", "node_events"):
            inputs[key] = plan[key]
    for kv in a.input:
        key, _, value = kv.partition("=")
        inputs[key] = value
    out["inputs"] = inputs
    failed = misses(out, a)
    out["thresholds_missed"] = failed
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(table(out))
    for line in failed:
        print("replay: threshold missed: %s" % line)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (InputError, OSError, ValueError, KeyError) as e:
        print("replay: error: %s" % e, file=sys.stderr)
        sys.exit(2)
