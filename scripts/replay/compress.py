#!/usr/bin/env python3
"""Time-compresses a replay's inputs by a factor F (scripts/replay.sh).

Both sides of a replay, the real cluster and budget-sim, get the SAME
compressed, already-quantised inputs, written here:

  trace.csv    the native trace, compressed (ids unchanged: row order is kept)
  budget.conf  every key spelled out, compressed
  plan.json    what the driver submits (the sbatch shape of each job), the
               node events, the SchedulerParameters and the mapping below
               (it goes into the replay's JSON as "inputs")
  sim_args     budget-sim's options for the same run, one per line (the
               requeue delay is the cluster's, added by replay.sh)

The mapping (trace -> compressed; round() is to the nearest whole second):
  submit (from the first), duration   round(x / F); durations >= 1 s
  min_runtime                         round(x / F); >= 1 s unless 0 (work
                                      that was allocated stays allocated)
  time_limit                          ceil(x / F / 60) minutes, >= 1 minute
                                      (Slurm's limits are whole minutes)
  LookbackWindow, LedgerBucket, MaxMinRuntime   round(x / F), >= 1 s
  HeroWait, DefaultMinRuntime, QuickStartMinRuntime
                                                round(x / F), >= 1 s unless 0
  RecalcInterval, TimesliceInterval             max(1, round(x / F)) s
  PreemptNotice                                 0 (the replay's jobs leave at
                                                their first signal)
  sched_interval, bf_interval, bf_resolution    max(1, round(x / F)) s
  bf_window (minutes)                           max(1, ceil(x / F)) minutes
  --drain/--resume times                        round(x / F)
  user                                ONE_USER for every job: the driver
                                      submits every job as the one user
                                      running the replay, and per-user rules
                                      (QuickStartUserGpus) must see on the
                                      simulator's side what the controller
                                      sees (the trace's user stays in
                                      plan.json, under "trace")
  BudgetTree                          the cluster's copy of the tree
  BudgetRefresh, UnknownAccount, QuickStartGpus, QuickStartUserGpus,
  QuickStartReserveNodes, HeroMinNodes,
  DefaultContractNotice, TreeConnectTimeout, TreeFetchTimeout (network
  time, not workload time), other SchedulerParameters keys: unchanged
  ReportDir                           dropped: the replay's cluster must not
                                      write into a site's shared report
The four scheduler intervals are always written, Slurm's defaults scaled
when absent, so that neither side falls back to an unscaled default.
"""

import argparse
import csv
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shape import shape_for  # noqa: E402
from slurmtime import format_hms, parse_duration  # noqa: E402

# The user of every compressed job (see the mapping above).
ONE_USER = "replay"

# budget-sim --write-trace writes every job's time limit (the trace's own,
# or its work x --time-limit-factor), so the normalised trace always has it.
NATIVE_HEADER = ["submit", "account", "user", "gpus", "duration", "min_runtime", "resumable", "priority",
                 "time_limit"]

# budget.conf keys: built-in defaults (src/libbudget/config/config.h) and how they
# scale. "window": round(x / F), >= 1 s; "window0": the same but 0 stays 0;
# "interval": whole seconds, max(1, round(x / F)); "keep": unchanged;
# "drop": left out; "zero": 0 whatever the site set (PreemptNotice: the
# replay's jobs leave at their first signal, scripts/replay/job.sh, so a
# notice would end their runs early on the cluster's side only; the notice
# is tested on its own, test/integration/test_notice.sh).
CONF_KEYS = [
    ("BudgetTree", None, "tree"),
    ("BudgetRefresh", "5:00", "keep"),
    ("TreeConnectTimeout", "5", "keep"),
    ("TreeFetchTimeout", "20", "keep"),
    ("LookbackWindow", "7-0", "window"),
    ("LedgerBucket", "5:00", "window"),
    ("RecalcInterval", "30", "interval"),
    ("UnknownAccount", "reject", "keep"),
    ("MaxMinRuntime", "8:00:00", "window"),
    ("DefaultMinRuntime", "0", "window0"),
    ("TimesliceInterval", "30", "interval"),
    ("TimeSlicing", "", "keep"),
    ("PreemptNotice", "30", "zero"),
    ("HeroWait", "30:00", "window0"),
    ("QuickStartMinRuntime", "15:00", "window0"),
    ("QuickStartGpus", "8", "keep"),
    ("QuickStartUserGpus", "8", "keep"),
    ("QuickStartReserveNodes", "0", "keep"),
    ("HeroMinNodes", "8", "keep"),
    ("GpuTypeWeights", "", "keep"),
    ("DefaultContractNotice", "yes", "keep"),
    ("ReportDir", "", "drop"),
]

# SchedulerParameters the compression rescales, with Slurm 22.05's defaults
# (src/libbudget/policy/scheduler_params.h): seconds, except bf_window (minutes).
SCHED_KEYS = [("sched_interval", 60), ("bf_interval", 30), ("bf_resolution", 60), ("bf_window", 1440)]


class InputError(Exception):
    pass


def rounded(x, factor):
    return int(math.floor(x / factor + 0.5))


def at_least_one_unless_zero(x, factor):
    return 0 if x == 0 else max(1, rounded(x, factor))


def compressed_limit_minutes(limit, factor):
    return max(1, int(math.ceil(limit / factor / 60.0)))


def read_trace(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise InputError("%s: empty trace" % path)
    header = [h.strip() for h in rows[0]]
    if header != NATIVE_HEADER:
        raise InputError("%s:1: expected the header %s (budget-sim --write-trace's), got %s"
                         % (path, ",".join(NATIVE_HEADER), ",".join(header)))
    jobs = []
    for line, r in enumerate(rows[1:], start=2):
        if not r:
            continue
        if len(r) != len(header):
            raise InputError("%s:%d: expected %d fields, got %d" % (path, line, len(header), len(r)))
        try:
            j = {"submit": int(r[0]), "account": r[1], "user": r[2], "gpus": int(r[3]),
                 "duration": int(r[4]), "min_runtime": int(r[5]), "resumable": r[6] in ("1", "true"),
                 "priority": int(r[7]), "time_limit": int(r[8])}
        except ValueError as e:
            raise InputError("%s:%d: %s" % (path, line, e))
        jobs.append(j)
    if not jobs:
        raise InputError("%s: the trace has no jobs" % path)
    return header, jobs


def compress_jobs(jobs, factor, gpus_per_node):
    first = jobs[0]["submit"]
    out = []
    for i, j in enumerate(jobs, start=1):
        limit = j["time_limit"]
        nodes, per_node = shape_for(j["gpus"], gpus_per_node)
        out.append({
            "id": i, "account": j["account"], "user": ONE_USER, "gpus": j["gpus"],
            "node_count": nodes, "gpus_per_node": per_node,
            "submit": rounded(j["submit"] - first, factor),
            "duration": max(1, rounded(j["duration"], factor)),
            "min_runtime": at_least_one_unless_zero(j["min_runtime"], factor),
            "time_limit_minutes": compressed_limit_minutes(limit, factor),
            "resumable": j["resumable"], "priority": j["priority"],
            "trace": {"user": j["user"], "submit": j["submit"], "duration": j["duration"],
                      "min_runtime": j["min_runtime"], "time_limit": limit},
        })
    return out


def write_trace(path, header, jobs):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for j in jobs:
            row = [j["submit"], j["account"], j["user"], j["gpus"], j["duration"], j["min_runtime"],
                   1 if j["resumable"] else 0, j["priority"], j["time_limit_minutes"] * 60]
            w.writerow(row)


def parse_budget_conf(path):
    """{canonical key: value text} of a budget.conf (budget.conf(5) syntax)."""
    values = {}
    if not path:
        return values
    canonical = {k.lower(): k for k, _, _ in CONF_KEYS}
    with open(path) as f:
        for n, raw in enumerate(f, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if "=" not in line:
                raise InputError('%s:%d: expected Key=Value, got "%s"' % (path, n, line))
            key, value = (s.strip() for s in line.split("=", 1))
            if key.lower() not in canonical:
                raise InputError("%s:%d: unknown key %s" % (path, n, key))
            values[canonical[key.lower()]] = value.strip('"')
    return values


def compress_budget_conf(path, factor, tree_path):
    """[(key, trace value, compressed value)] for every key, defaults filled in."""
    given = parse_budget_conf(path)
    out = []
    for key, default, kind in CONF_KEYS:
        text = given.get(key, default)
        if kind == "drop":
            continue
        if kind == "zero":
            out.append((key, text, "0"))
            continue
        if kind == "tree":
            out.append((key, text or "", tree_path))
            continue
        if kind == "keep":
            # A key with no default that the site did not set (GpuTypeWeights)
            # stays unset: an empty value is no value to budget.conf.
            if text != "":
                out.append((key, text, text))
            continue
        try:
            secs = int(text) if kind == "interval" else parse_duration(text)
        except ValueError as e:
            raise InputError("%s: key %s: %s" % (path or "budget.conf defaults", key, e))
        if kind == "interval":
            out.append((key, text, str(max(1, rounded(secs, factor)))))
        elif kind == "window0":
            out.append((key, text, format_hms(at_least_one_unless_zero(secs, factor))))
        else:
            out.append((key, text, format_hms(max(1, rounded(secs, factor)))))
    return out


def compress_scheduler_parameters(text, factor):
    # "(null)" is how scontrol show config prints an unset value.
    items = [s.strip() for s in text.split(",") if s.strip()] if text and text != "(null)" else []
    values = {}
    rest = []
    for item in items:
        key, _, value = item.partition("=")
        if key in dict(SCHED_KEYS):
            if not re.match(r"^\d+$", value):
                raise InputError("--scheduler-parameters: %s: expected a whole number, got '%s'" % (key, value))
            values[key] = int(value)
        else:
            rest.append(item)
    scaled = []
    for key, default in SCHED_KEYS:
        v = values.get(key, default)
        c = max(1, int(math.ceil(v / factor))) if key == "bf_window" else max(1, rounded(v, factor))
        scaled.append("%s=%d" % (key, c))
    return ",".join(scaled + rest)


def node_events(drains, resumes, factor, nodes):
    events = []
    for action, specs in (("drain", drains), ("resume", resumes)):
        for spec in specs:
            m = re.match(r"^n(\d+)@(.+)$", spec)
            if not m or not 1 <= int(m.group(1)) <= nodes:
                raise InputError("--%s %s: expected nK@TIME with nK one of n1-n%d" % (action, spec, nodes))
            try:
                at = parse_duration(m.group(2))
            except ValueError as e:
                raise InputError("--%s %s: %s" % (action, spec, e))
            events.append({"node": "n" + m.group(1), "action": action, "at_trace": at,
                           "at": rounded(at, factor)})
    # In time order; at one instant drains before resumes, in input order.
    events.sort(key=lambda e: (e["at"], e["action"] != "drain"))
    return events


def tree_binds_users(path):
    def walk(node):
        return "user" in node or any(walk(c) for c in node.get("children", []))
    with open(path) as f:
        return walk(json.load(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", required=True, help="native trace, normalised by budget-sim --write-trace")
    ap.add_argument("--tree", required=True)
    ap.add_argument("--config", default="")
    ap.add_argument("--factor", type=int, required=True)
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--gpus-per-node", type=int, required=True)
    ap.add_argument("--scheduler-parameters", default="")
    ap.add_argument("--drain", action="append", default=[])
    ap.add_argument("--resume", action="append", default=[])
    ap.add_argument("--cluster-tree", required=True, help="BudgetTree as the cluster sees it")
    ap.add_argument("--time-limits", default="budget-sim's", help="where the time limits came from (recorded)")
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()
    if a.factor < 1:
        raise InputError("--compress: must be a whole number >= 1")
    header, trace = read_trace(a.trace)
    jobs = compress_jobs(trace, a.factor, a.gpus_per_node)
    conf = compress_budget_conf(a.config, a.factor, a.cluster_tree)
    sched = compress_scheduler_parameters(a.scheduler_parameters, a.factor)
    events = node_events(a.drain, a.resume, a.factor, a.nodes)
    if tree_binds_users(a.tree):
        print("replay: warning: %s binds users; every replayed job runs as root, so jobs are charged "
              "to their account's node, on both sides alike" % a.tree, file=sys.stderr)

    os.makedirs(a.out_dir, exist_ok=True)
    write_trace(os.path.join(a.out_dir, "trace.csv"), header, jobs)
    with open(os.path.join(a.out_dir, "budget.conf"), "w") as f:
        f.write("# budget.conf of a replay, compressed %dx by scripts/replay/compress.py\n" % a.factor)
        for key, _, value in conf:
            f.write("%s=%s\n" % (key, value))
    plan = {
        "factor": a.factor, "nodes": a.nodes, "gpus_per_node": a.gpus_per_node,
        "scheduler_parameters": {"trace": a.scheduler_parameters, "compressed": sched},
        "budget_conf": {k: {"trace": t, "compressed": c} for k, t, c in conf},
        "time_limits": a.time_limits,
        "node_events": events,
        "jobs": jobs,
    }
    with open(os.path.join(a.out_dir, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    args = ["--scheduler-parameters=" + sched]
    args += ["--%s=%s@%s" % (e["action"], e["node"], format_hms(e["at"])) for e in events]
    with open(os.path.join(a.out_dir, "sim_args"), "w") as f:
        f.write("\n".join(args) + "\n")


if __name__ == "__main__":
    try:
        main()
    except (InputError, OSError, ValueError) as e:
        print("replay: error: %s" % e, file=sys.stderr)
        sys.exit(2)
