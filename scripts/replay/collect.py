#!/usr/bin/env python3
"""Reads what a real cluster did with a replayed trace (scripts/replay.sh)
and writes it in budget-sim's --events-json format (src/sim/events_json.h),
under policies.slurm, times in the plan's (compressed) seconds.

  collect.py --plan plan.json --driver driver.json --jobcomp FILE
             --log slurmctld.log --out real-events.json

Where each part comes from:
  - runs: jobcomp/filetxt (JobCompType, scripts/cluster.sh's JOB_COMP_TYPE)
    writes one record per run, requeued runs included (slurmctld calls the
    completion logger at each requeue, with JobState=PREEMPTED, the run's
    StartTime, EndTime and NodeList): start, end and nodes of every run;
  - how a run ended: COMPLETED -> finished, TIMEOUT -> timeout; a run that
    ended PREEMPTED, REQUEUE(D) or CANCELLED is matched, in order, with the
    controller log's lines about that job, which the suite writes for every
    preemption it makes:
        job P (teamb, usage ratio ...) preempts job V (...): requeue, rule: ...
        job V leaves draining node n1 (protection over at ...): cancel, ...
    (-> preempted by P, or drained). They are matched by regular expression
    anywhere in the line: the prefix ("sched/timeslice:",
    "preempt/timeslice:", the time stamp) is not relied on. A preempted run
    with no such line keeps ended "preempted" and preempted_by null;
  - trace ids: the job name trace-<id> (driver.py submits every job so),
    Slurm ids of preemptors through driver.json's submissions.
Other endings (FAILED, NODE_FAIL, ...) are written in lower case: the job
script failed, which the replay reports.
"""

import argparse
import json
import re
import sys
import time

PREEMPTS = re.compile(r"\bjob (\d+) \([^)]*\) preempts job (\d+) \(")
LEAVES = re.compile(r"\bjob (\d+) leaves draining node (\S+)")
FIELD = re.compile(r"(\w+)=(\S*)")
STOPPED = {"PREEMPTED", "REQUEUE", "REQUEUED", "CANCELLED"}


def expand_hostlist(text):
    """'n[1-2,4],m3' -> ['n1', 'n2', 'n4', 'm3'] (the names scripts/cluster.sh gives)."""
    names = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]*)\])?", text):
        prefix, ranges = m.group(1), m.group(2)
        if ranges is None:
            names.append(prefix)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            width = len(lo)
            for k in range(int(lo), int(hi or lo) + 1):
                names.append("%s%0*d" % (prefix, width, k))
    return names


def epoch(text):
    return int(time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S")))


def read_jobcomp(path):
    """[{slurm_id, name, state, start, end, nodes}] of the runs, in file order."""
    runs = []
    with open(path) as f:
        for line in f:
            rec = dict(FIELD.findall(line))
            if "JobId" not in rec:
                continue
            nodes = rec.get("NodeList", "")
            if rec.get("StartTime", "Unknown") == "Unknown" or nodes in ("", "(null)", "None"):
                continue  # never started (cancelled while pending)
            runs.append({"slurm_id": int(rec["JobId"]), "name": rec.get("Name", ""),
                         "state": rec.get("JobState", ""), "start": epoch(rec["StartTime"]),
                         "end": epoch(rec["EndTime"]), "nodes": expand_hostlist(nodes)})
    return runs


def read_log(path):
    """{victim Slurm id: [preemptor Slurm id, or "drain"], in log order}."""
    stops = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = PREEMPTS.search(line)
            if m:
                stops.setdefault(int(m.group(2)), []).append(int(m.group(1)))
                continue
            m = LEAVES.search(line)
            if m:
                stops.setdefault(int(m.group(1)), []).append("drain")
    return stops


def ending(run, stops, trace_of):
    """(ended, preempted_by trace id or None) of one run; consumes a log line."""
    if run["state"] == "COMPLETED":
        return "finished", None
    if run["state"] == "TIMEOUT":
        return "timeout", None
    if run["state"] not in STOPPED:
        return run["state"].lower(), None
    queue = stops.get(run["slurm_id"], [])
    if not queue:
        return "preempted", None
    by = queue.pop(0)
    if by == "drain":
        return "drained", None
    return "preempted", trace_of.get(by)


def collect(plan, driver, runs, stops):
    t0 = driver["t0"]
    trace_of = {s["slurm_id"]: s["trace_id"] for s in driver["submissions"]}
    by_trace = {}
    for run in runs:
        tid = trace_of.get(run["slurm_id"])
        m = re.match(r"^trace-(\d+)$", run["name"])
        if tid is None or not m or int(m.group(1)) != tid:
            continue  # not a job of this replay
        ended, by = ending(run, stops, trace_of)
        by_trace.setdefault(tid, []).append({
            "start": run["start"] - t0, "end": run["end"] - t0, "nodes": run["nodes"],
            "ended": ended, "preempted_by": by, "slurm_id": run["slurm_id"]})
    jobs = []
    for j in plan["jobs"]:
        job = {k: j[k] for k in ("id", "account", "user", "gpus", "submit", "min_runtime", "resumable")}
        job["runs"] = sorted(by_trace.get(j["id"], []), key=lambda r: r["start"])
        rejected = driver["rejected"].get(str(j["id"]))
        if rejected:
            job["rejected"] = rejected
        jobs.append(job)
    unexplained = sum(1 for j in jobs for r in j["runs"] if r["ended"] == "preempted" and r["preempted_by"] is None)
    return {"version": 1, "capacity_gpus": plan["nodes"] * plan["gpus_per_node"], "nodes": plan["nodes"],
            "gpus_per_node": plan["gpus_per_node"], "policies": {"slurm": {"jobs": jobs}},
            "notes": {"preemptions_without_preemptor": unexplained}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("--plan", "--driver", "--jobcomp", "--log", "--out"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    with open(a.plan) as f:
        plan = json.load(f)
    with open(a.driver) as f:
        driver = json.load(f)
    out = collect(plan, driver, read_jobcomp(a.jobcomp), read_log(a.log))
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        print("replay: error: collecting the real runs: %s" % e, file=sys.stderr)
        sys.exit(1)
