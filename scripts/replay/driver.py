#!/usr/bin/env python3
"""Submits a compressed trace to a real cluster on schedule (scripts/replay.sh).

  driver.py --plan plan.json --job-script job.sh --checkpoints DIR
            --output-dir DIR --requeue-delay S --out driver.json

plan.json is scripts/replay/compress.py's. Time 0 of the plan is a whole
second (t0, written to driver.json) a moment after start, so that the
epochs slurmctld records, minus t0, are the plan's seconds. Then:

  - each job is submitted at t0 + submit with sbatch, in the simulator's
    shape (-N and --gres=gpu: per node, scripts/replay/shape.py), its time
    limit, its contract (--min-runtime, --resumable), its user priority as
    a negative nice (priority/budget orders a team's jobs by 10000 - nice,
    budget-sim by the trace priority: the same order), and
    --job-name=trace-<id>, which is how the runs are mapped back;
  - the jobs due at one instant are submitted together: one sbatch each,
    started STAGGER apart in trace order and running at once. An sbatch
    takes a few tenths of a second, so a burst submitted back to back
    would reach slurmctld over more than a second, and Slurm starts a job
    that is not first in its partition at its next scheduling cycle, a
    second after budget-sim, which sees the whole burst at once. Submitted
    together, a burst reaches slurmctld within its second, in trace order
    (Slurm's job ids and submit times, which break ties of priority, keep
    the trace's order; a burst that arrives otherwise is logged);
  - node events (drain, resume) are applied with scontrol at their time,
    before the submissions of the same instant;
  - a job that ends PREEMPTED or CANCELLED (the suite cancels preempted
    non-resumable jobs) is resubmitted at once under the same trace id, as
    budget-sim's owners resubmit it: a non-resumable one needing its whole
    work, a resumable one (whose requeue Slurm refused) its checkpoint's;
  - it returns when every job has ended otherwise (COMPLETED, TIMEOUT,
    FAILED, ...), or fails (exit 3) naming the jobs still out when the
    deadline (see deadline(), or --deadline) passes.
Everything is polled (squeue every POLL seconds); nothing sleeps blindly.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

POLL = 0.25
ENDED = {"COMPLETED", "TIMEOUT", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}
RESUBMIT = {"PREEMPTED", "CANCELLED"}
STAGGER = 0.05  # seconds between the sbatch starts of one burst

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurmtime import format_min_runtime  # noqa: E402


def deadline(plan, requeue_delay):
    """Seconds after t0 by which every job must have ended: the last
    submission, three times the work's span on the whole cluster (restarts
    of cancelled jobs, drained nodes, idle holes), four times the longest
    job, a requeue delay per ten jobs, and a minute."""
    jobs = plan["jobs"]
    work = sum(j["node_count"] * j["gpus_per_node"] * j["duration"] for j in jobs)
    capacity = plan["nodes"] * plan["gpus_per_node"]
    return (max(j["submit"] for j in jobs) + int(3 * work / capacity) + 4 * max(j["duration"] for j in jobs)
            + requeue_delay * (len(jobs) // 10 + 1) + 60)


def say(text):
    print("driver: %s" % text, flush=True)


# What a client prints when slurmctld was busy or briefly unreachable: worth
# a retry, never a refusal of the job.
TRANSIENT = re.compile(r"Socket timed out|Unable to contact slurm controller|Connection refused|"
                       r"Zero Bytes were transmitted|Resource temporarily unavailable")


def run_client(args, tries=5):
    """subprocess.run of a Slurm client, retried on a transient error."""
    for attempt in range(tries):
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode == 0 or not TRANSIENT.search(p.stderr or "") or attempt == tries - 1:
            return p
        time.sleep(0.5)


class Driver:
    def __init__(self, plan, job_script, checkpoints, output_dir):
        self.plan = plan
        self.job_script = job_script
        self.checkpoints = checkpoints
        self.output_dir = output_dir
        self.jobs = {j["id"]: j for j in plan["jobs"]}
        self.current = {}        # trace id -> its live Slurm job id
        self.ended = {}          # trace id -> final state
        self.rejected = {}       # trace id -> sbatch's message
        self.submissions = []    # {"trace_id", "slurm_id", "at", "resubmission"}
        self.node_events = []    # as applied: {"node", "action", "at"}
        self.t0 = int(time.time()) + 2

    def now(self):
        return time.time() - self.t0

    def sbatch_args(self, j):
        args = ["sbatch", "--parsable", "--job-name=trace-%d" % j["id"], "-A", j["account"],
                "-N", str(j["node_count"]), "--gres=gpu:%d" % j["gpus_per_node"],
                "--time=%d" % j["time_limit_minutes"],
                "--min-runtime=%s" % format_min_runtime(j["min_runtime"]),
                "-o", "%s/trace-%d.%%j.out" % (self.output_dir, j["id"])]
        if j["resumable"]:
            args.append("--resumable")
        if j["priority"]:
            args.append("--nice=-%d" % j["priority"])
        return args + [self.job_script, str(j["id"]), str(j["duration"]),
                       "1" if j["resumable"] else "0", self.checkpoints]

    def submit(self, tid, resubmission=False, first=None):
        """One job, retried on a transient error. `first`: the result of a
        first sbatch already run (submit_burst's)."""
        j = self.jobs[tid]
        at = first[1] if first else self.now()
        sid = None
        for attempt in range(5):
            p = first[0] if first and attempt == 0 else subprocess.run(self.sbatch_args(j), capture_output=True,
                                                                       text=True)
            if p.returncode == 0:
                sid = int(p.stdout.strip().split(";")[0])
                break
            if not TRANSIENT.search(p.stderr or "") or attempt == 4:
                self.rejected[tid] = (p.stderr or p.stdout).strip()
                say("trace job %d refused at submission: %s" % (tid, self.rejected[tid]))
                return
            # The reply may be what was lost: never submit a job twice.
            sid = self.adopt(tid)
            if sid:
                break
            time.sleep(0.5)
        self.current[tid] = sid
        self.submissions.append({"trace_id": tid, "slurm_id": sid, "at": round(at, 3),
                                 "resubmission": resubmission})

    def submit_burst(self, tids):
        """The jobs due at one instant, in trace order: their sbatch runs
        started STAGGER apart, all under way at once."""
        started = []
        for i, tid in enumerate(tids):
            if i:
                time.sleep(STAGGER)
            started.append((tid, self.now(), subprocess.Popen(self.sbatch_args(self.jobs[tid]), text=True,
                                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
        for tid, at, proc in started:
            out, err = proc.communicate()
            self.submit(tid, first=(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), at))
        sids = [self.current[tid] for tid in tids if tid in self.current]
        if sids != sorted(sids):
            say("the burst of trace jobs %s reached slurmctld out of trace order (job ids %s)"
                % (",".join(map(str, tids)), ",".join(map(str, sids))))

    def adopt(self, tid):
        """The Slurm id of a job trace-<tid> that sbatch created without
        saying so (its reply lost), or None."""
        p = run_client(["squeue", "-h", "-t", "all", "--name=trace-%d" % tid, "-o", "%i"])
        known = {s["slurm_id"] for s in self.submissions}
        new = [int(x) for x in p.stdout.split() if p.returncode == 0 and int(x) not in known]
        return max(new) if new else None

    def apply_node_event(self, e):
        state = "drain" if e["action"] == "drain" else "resume"
        args = ["scontrol", "update", "nodename=" + e["node"], "state=" + state]
        if state == "drain":
            args.append("reason=replay")
        p = run_client(args)
        if p.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(args), (p.stderr or p.stdout).strip()))
        self.node_events.append({"node": e["node"], "action": state, "at": round(self.now(), 3)})
        say("%s %s at %.1f s" % (state, e["node"], self.now()))

    def states(self):
        p = run_client(["squeue", "-h", "-t", "all", "-o", "%i|%T"])
        if p.returncode != 0:
            raise RuntimeError("squeue: %s" % p.stderr.strip())
        out = {}
        for line in p.stdout.splitlines():
            sid, _, state = line.partition("|")
            out[int(sid)] = state.strip()
        return out

    def check_jobs(self):
        states = self.states()
        for tid, sid in list(self.current.items()):
            state = states.get(sid)
            if state in ENDED:
                self.ended[tid] = state
                del self.current[tid]
            elif state in RESUBMIT:
                del self.current[tid]
                self.submit(tid, resubmission=True)

    def run(self, limit):
        order = sorted(self.jobs.values(), key=lambda j: (j["submit"], j["id"]))
        events = list(self.plan["node_events"])
        say("t0 = %d; %d jobs, last submission at %d s, deadline %d s"
            % (self.t0, len(order), order[-1]["submit"], limit))
        while time.time() < self.t0:
            time.sleep(0.05)
        next_poll = 0.0
        while order or events or self.current:
            now = self.now()
            while events and events[0]["at"] <= now:
                self.apply_node_event(events.pop(0))
            burst = []
            while order and order[0]["submit"] <= now:
                burst.append(order.pop(0)["id"])
            if burst:
                self.submit_burst(burst)
            if now >= next_poll:
                self.check_jobs()
                next_poll = now + POLL
            if now > limit:
                return False
            due = [next_poll]
            if events:
                due.append(events[0]["at"])
            if order:
                due.append(order[0]["submit"])
            time.sleep(max(0.0, min(due) - self.now()))
        return True

    def record(self):
        return {"t0": self.t0, "submissions": self.submissions, "node_events": self.node_events,
                "rejected": {str(k): v for k, v in self.rejected.items()},
                "ended": {str(k): v for k, v in self.ended.items()},
                "unfinished": {str(k): v for k, v in self.current.items()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plan", required=True)
    ap.add_argument("--job-script", required=True)
    ap.add_argument("--checkpoints", required=True)
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--requeue-delay", type=int, required=True, help="the cluster's (cred_expire + 1)")
    ap.add_argument("--deadline", type=int, default=0, help="seconds after t0 (default: derived from the plan)")
    a = ap.parse_args()
    with open(a.plan) as f:
        plan = json.load(f)
    d = Driver(plan, a.job_script, a.checkpoints, a.output_dir)
    ok = False
    limit = a.deadline or deadline(plan, a.requeue_delay)
    try:
        ok = d.run(limit)
    finally:
        with open(a.out, "w") as f:
            json.dump(d.record(), f, indent=1)
    if not ok:
        out = ", ".join("trace-%d (job %d)" % kv for kv in sorted(d.current.items())[:10])
        print("replay: error: the deadline (%d s after the first submission) passed with %d job(s) not ended: %s"
              % (limit, len(d.current), out), file=sys.stderr)
        return 3
    say("every job has ended after %.0f s" % d.now())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except RuntimeError as e:
        print("replay: error: %s" % e, file=sys.stderr)
        sys.exit(1)
