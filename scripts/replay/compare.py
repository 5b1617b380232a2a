#!/usr/bin/env python3
"""Compares what a real cluster did with what budget-sim did on the same
compressed inputs (scripts/replay.sh), and says how far they agree.

  compare.py --real real-events.json --sim sim-events.json --factor F
             [--tie 2] [--plan plan.json] [--input KEY=VALUE ...] --out OUT.json
             [--assert-start-order X] [--assert-preemptions Y]
             [--assert-preemptions-by-kind Y] [--assert-team-diff Z]
             [--hero-min-gpus G] [--assert-debug-p90 R [--debug-p90-slack S]]
             [--assert-hero-p90 R]

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
  real/sim.debug_wait_p90_by_team   the same per account, and
      .debug_wait_p90_max_team (with _account): the largest of them, which
      is how budget-sim's family judges a mix's debug p90 (doc/simulator.md,
      "A family of workloads"): one team's slow debug jobs are not averaged
      away by the others'.
  real/sim.hero_wait_p90   jobs of at least --hero-min-gpus GPUs (default:
      the plan's HeroMinNodes x GPUs per node, the jobs the suite plans as
      heroes; without a plan 64, budget-sim's --hero-min-gpus); wait and
      rank as for debug jobs; null without a hero job (.hero_jobs says).
The bounds on the two waits (--assert-debug-p90 R, --assert-hero-p90 R)
hold when both sides are null, or when both are figures and the larger is
at most R x the smaller or within the slack of it (--debug-p90-slack S
trace seconds, default 30, for debug; none for heroes); a figure on one
side only misses. The debug bound is on .debug_wait_p90_max_team.
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
DEFAULT_HERO_MIN_GPUS = 64  # budget-sim's --hero-min-gpus


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


def is_debug(job, factor):
    return 0 < job["min_runtime"] * factor <= DEBUG_MAX_MIN_RUNTIME and job["gpus"] <= DEBUG_MAX_GPUS


def wait_p90s(jobs, starts, ids, factor):
    """(p90 of the waits of `ids` in trace seconds or None, waits counted)."""
    waits = [(starts[i] - jobs[i]["submit"]) * factor for i in ids if i in starts]
    return nearest_rank(waits, 0.9), len(waits)


def debug_p90_by_team(jobs, starts, factor):
    """{account: debug wait p90} over the accounts with a debug job that started."""
    by_team = collections.defaultdict(list)
    for i, j in jobs.items():
        if is_debug(j, factor):
            by_team[j["account"]].append(i)
    out = {}
    for acct, ids in sorted(by_team.items()):
        p90, _ = wait_p90s(jobs, starts, ids, factor)
        if p90 is not None:
            out[acct] = p90
    return out


def largest(by_team):
    """(value, account) of the largest figure, ties to the first name; (None, None) if empty."""
    if not by_team:
        return None, None
    acct = max(sorted(by_team), key=lambda a: by_team[a])
    return by_team[acct], acct


def within(real, sim, ratio, slack=0.0):
    """Whether two waits agree: both null, or the larger at most `ratio` x
    the smaller or within `slack` of it. One null side never agrees."""
    if real is None or sim is None:
        return real is None and sim is None
    lo, hi = min(real, sim), max(real, sim)
    return hi - lo <= slack or hi <= ratio * lo


def side_figures(header, jobs, factor, hero_min_gpus=DEFAULT_HERO_MIN_GPUS):
    gpn = header["gpus_per_node"]
    busy = sum(held_gpus(j["gpus"], gpn) * (r["end"] - r["start"]) for j in jobs.values() for r in j["runs"])
    first = min(j["submit"] for j in jobs.values())
    ends = [r["end"] for j in jobs.values() for r in j["runs"]]
    span = (max(ends) - first) if ends else 0
    starts = first_starts(jobs)
    debug = [i for i, j in jobs.items() if is_debug(j, factor)]
    p90, started = wait_p90s(jobs, starts, debug, factor)
    by_team = debug_p90_by_team(jobs, starts, factor)
    team_p90, team = largest(by_team)
    heroes = [i for i, j in jobs.items() if j["gpus"] >= hero_min_gpus]
    hero_p90, _ = wait_p90s(jobs, starts, heroes, factor)
    return {
        "occupancy": busy / (header["capacity_gpus"] * span) if span > 0 else None,
        "debug_wait_p90": p90,
        "debug_jobs": len(debug), "debug_jobs_never_started": len(debug) - started,
        "debug_wait_p90_by_team": by_team,
        "debug_wait_p90_max_team": team_p90, "debug_wait_p90_max_team_account": team,
        "hero_wait_p90": hero_p90, "hero_jobs": len(heroes),
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


def compare(real_doc, real, sim_doc, sim, factor, tie, hero_min_gpus=DEFAULT_HERO_MIN_GPUS):
    if set(real) != set(sim):
        raise InputError("the two sides list different jobs (%d real, %d sim)" % (len(real), len(sim)))
    if (real_doc["nodes"], real_doc["gpus_per_node"]) != (sim_doc["nodes"], sim_doc["gpus_per_node"]):
        raise InputError("the two sides ran on different clusters")
    rs, ss = first_starts(real), first_starts(sim)
    order, pairs = start_order(rs, ss, tie)
    rp, sp = preemption_pairs(real), preemption_pairs(sim)
    gpn = real_doc["gpus_per_node"]
    rk, sk = preemption_kinds(real, gpn), preemption_kinds(sim, gpn)
    r_fig = side_figures(real_doc, real, factor, hero_min_gpus)
    s_fig = side_figures(sim_doc, sim, factor, hero_min_gpus)
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
        "hero_min_gpus": hero_min_gpus,
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
            ("debug wait p90, largest team's", fmt(r["debug_wait_p90_max_team"], "s"),
             fmt(s["debug_wait_p90_max_team"], "s")),
            ("  its account", r["debug_wait_p90_max_team_account"] or "-", s["debug_wait_p90_max_team_account"] or "-"),
            ("hero wait p90 (>= %d GPUs, %d jobs)" % (out["hero_min_gpus"], r["hero_jobs"]),
             fmt(r["hero_wait_p90"], "s"), fmt(s["hero_wait_p90"], "s")),
            ("runs", fmt(r["runs"], ""), fmt(s["runs"], "")),
            ("preemptions (runs)", fmt(r["preemptions"], ""), fmt(s["preemptions"], "")),
            ("preemption pairs", fmt(a["preemption_pairs"]["real"], ""), fmt(a["preemption_pairs"]["sim"], ""))]
    for acct in sorted(set(r["delivered_share"]) | set(s["delivered_share"])):
        rows.append(("delivered share " + acct, fmt(r["delivered_share"].get(acct), "pct"),
                     fmt(s["delivered_share"].get(acct), "pct")))
    for acct in sorted(set(r["debug_wait_p90_by_team"]) | set(s["debug_wait_p90_by_team"])):
        rows.append(("debug wait p90 " + acct, fmt(r["debug_wait_p90_by_team"].get(acct), "s"),
                     fmt(s["debug_wait_p90_by_team"].get(acct), "s")))
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
    r, s = out["real"], out["sim"]
    if a.assert_debug_p90 is not None and not within(r["debug_wait_p90_max_team"], s["debug_wait_p90_max_team"],
                                                     a.assert_debug_p90, a.debug_p90_slack):
        found.append("debug_wait_p90_max_team real %s, sim %s: not within %gx or %g s (--assert-debug-p90)"
                     % (fmt(r["debug_wait_p90_max_team"], "s"), fmt(s["debug_wait_p90_max_team"], "s"),
                        a.assert_debug_p90, a.debug_p90_slack))
    if a.assert_hero_p90 is not None and not within(r["hero_wait_p90"], s["hero_wait_p90"], a.assert_hero_p90):
        found.append("hero_wait_p90 real %s, sim %s: not within %gx (--assert-hero-p90)"
                     % (fmt(r["hero_wait_p90"], "s"), fmt(s["hero_wait_p90"], "s"), a.assert_hero_p90))
    return found


def hero_min_gpus_of(plan, gpus_per_node):
    """HeroMinNodes (the trace's value: a count, not compressed) x GPUs per
    node from compress.py's plan, or budget-sim's default without one."""
    nodes = (plan or {}).get("budget_conf", {}).get("HeroMinNodes", {}).get("trace")
    return int(nodes) * gpus_per_node if nodes else DEFAULT_HERO_MIN_GPUS


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
    ap.add_argument("--hero-min-gpus", type=int, help="hero jobs: at least G GPUs (default: the plan's HeroMinNodes)")
    ap.add_argument("--assert-debug-p90", type=float, metavar="R", help="largest team debug p90s within R x")
    ap.add_argument("--debug-p90-slack", type=float, default=30.0, metavar="S", help="... or S trace seconds (30)")
    ap.add_argument("--assert-hero-p90", type=float, metavar="R", help="hero p90s within R x")
    a = ap.parse_args(argv)
    real_doc, real = load_side(a.real)
    sim_doc, sim = load_side(a.sim, a.sim_policy)
    plan = None
    if a.plan:
        with open(a.plan) as f:
            plan = json.load(f)
    hero_min = a.hero_min_gpus if a.hero_min_gpus is not None else hero_min_gpus_of(plan, real_doc["gpus_per_node"])
    out = {"version": 1}
    out.update(compare(real_doc, real, sim_doc, sim, a.factor, a.tie, hero_min))
    inputs = {"compression": a.factor, "nodes": real_doc["nodes"], "gpus_per_node": real_doc["gpus_per_node"],
              "jobs": len(real), "runs": {"real": out["real"]["runs"], "sim": out["sim"]["runs"]},
              "rejected_at_submission": sum(1 for j in real.values() if j.get("rejected"))}
    if plan:
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
