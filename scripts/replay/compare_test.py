#!/usr/bin/env python3
"""Tests of the replay's comparison (compare.py), of the ledger check
(ledger_check.py), of how it reads a real
cluster (collect.py), of the compression (compress.py) and of the driver's
submissions (driver.py, against fake clients), on tiny hand-made inputs
whose figures are worked out below by hand. Run:
python3 scripts/replay/compare_test.py (make check and
test/integration/test_replay.sh run it; it takes well under a second).

testdata/real_events.json and testdata/sim_events.json: 2 nodes x 8 GPUs,
F = 60, times in compressed seconds.

  job acct gpus submit min_rt | real runs              | sim runs
  1   a    8    0      10     | 0-10 preempted by 2,   | 0-10 preempted by 2,
                              | 30-40                  | 20-30
  2   b    1    0      15     | 10-25                  | 11-26
  3   b    4    5      0      | 26-30 drained, 40-45   | 5-15
  4   a    2    10     16     | 25-35                  | 24-28 preempted by 1, 30-36
  5   c    1    20     5      | 45-50                  | never starts

First starts: real 1:0 2:10 3:26 4:25 5:45; sim 1:0 2:11 3:5 4:24.
start_order (tie 2 s), pairs of jobs started on both sides (1-4):
  (1,2) (1,3) (1,4) (2,4): same order.               agree
  (2,3): real 2 first by 16 s, sim 3 first by 6 s.    disagree
  (3,4): real 4 first by 1 s (<= tie), sim 3 first.   agree (tie)
  -> 5 / 6 = 0.8333.
preemptions: real {(1,2), (3,drain)}, sim {(1,2), (4,1)}: 1 common of 3
  -> 0.3333. By kind (preemptor, victim's account, its GPUs): real
  {(2,a,8), (drain,b,4)}, sim {(2,a,8), (1,a,2)}: 1 common of 3 -> 0.3333.
delivered GPU-seconds: real a 8x10 + 8x10 + 2x10 = 180, b 1x15 + 4x4 + 4x5
  = 51, c 1x5 = 5, total 236; sim a 80 + 80 + 2x4 + 2x6 = 180, b 15 + 4x10
  = 55, c 0, total 235. Shares (points): a 76.27 vs 76.60, b 21.61 vs 23.40,
  c 2.12 vs 0 -> max diff 500/236 = 2.1186 points, account c.
  Until the last submission (20): real a 8x10 = 80, b 1x10 = 10; sim a 80,
  b 1x9 + 4x10 = 49 -> a 80/90 vs 80/129, b alike: 100 x 3120/11610 =
  26.873 points (a and b tie; the first name is reported).
start_diff x 60: |0-0|, |10-11|, |26-5|, |25-24| -> 0, 60, 1260, 60;
  sorted 0, 60, 60, 1260: median (rank 2) 60 s, p90 (rank 4) 1260 s.
occupancy: real 236 / (16 x 50) = 0.295; sim 235 / (16 x 36) = 0.40799.
debug jobs (0 < min-runtime x 60 <= 900, <= 8 GPUs): 1 (600 s), 2 (900 s,
  the bound is inclusive), 5 (300 s); not 3 (unallocated) nor 4 (960 s).
  Waits x 60: real 0, 600, 1500 -> p90 (rank 3) 1500 s; sim 0, 660 (5 never
  starts, left out) -> p90 (rank 2) 660 s.
  Per team: real a 0, b 600, c 1500 -> largest 1500 s (c); sim a 0, b 660,
  c none (its one job never starts) -> largest 660 s (b).
hero jobs: none of 64 GPUs (the default without a plan): null on both
  sides. With --hero-min-gpus 4, jobs 1 (8 GPUs) and 3 (4): waits x 60
  real 0, 1260 -> p90 (rank 2) 1260 s; sim 0, 0 -> 0 s.
"""

import collections
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there
sys.path.insert(0, HERE)
import collect  # noqa: E402
import compare  # noqa: E402
import compress  # noqa: E402
import differences  # noqa: E402
import driver  # noqa: E402
import ledger_check  # noqa: E402

REAL = os.path.join(HERE, "testdata", "real_events.json")
SIM = os.path.join(HERE, "testdata", "sim_events.json")


def run_compare(*extra):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            rc = compare.main(["--real", REAL, "--sim", SIM, "--factor", "60", "--out", out] + list(extra))
        with open(out) as f:
            return rc, json.load(f), text.getvalue()


class CompareTest(unittest.TestCase):
    def test_figures_worked_out_by_hand(self):
        rc, out, text = run_compare()
        self.assertEqual(rc, 0)
        a = out["agreement"]
        self.assertEqual(a["start_order_pairs"], 6)
        self.assertAlmostEqual(a["start_order"], 5 / 6)
        self.assertAlmostEqual(a["preemptions"], 1 / 3)
        self.assertEqual(a["preemption_pairs"], {"real": 2, "sim": 2, "common": 1})
        self.assertAlmostEqual(a["preemptions_by_kind"], 1 / 3)
        self.assertEqual(a["preemption_kinds"], {"real": 2, "sim": 2, "common": 1})
        self.assertAlmostEqual(a["team_delivered_max_diff"], 500 / 236)
        self.assertEqual(a["team_delivered_max_diff_account"], "c")
        self.assertAlmostEqual(a["team_delivered_max_diff_until_last_submit"], 100 * 3120 / 11610)
        self.assertEqual(a["team_delivered_max_diff_until_last_submit_account"], "a")
        self.assertEqual(out["start_diff"], {"median": 60, "p90": 1260, "jobs": 4})
        self.assertAlmostEqual(out["real"]["occupancy"], 0.295)
        self.assertAlmostEqual(out["sim"]["occupancy"], 235 / 576)
        self.assertEqual(out["real"]["debug_wait_p90"], 1500)
        self.assertEqual(out["sim"]["debug_wait_p90"], 660)
        self.assertEqual(out["real"]["debug_jobs"], 3)
        self.assertEqual(out["sim"]["debug_jobs_never_started"], 1)
        self.assertEqual(out["inputs"]["runs"], {"real": 7, "sim": 6})
        self.assertIn("agreement: start order", text)

    def test_tie_tolerance_is_what_makes_the_pair_agree(self):
        # Without a tolerance, (3,4) disagrees too: 4 / 6.
        _, out, _ = run_compare("--tie", "0")
        self.assertAlmostEqual(out["agreement"]["start_order"], 4 / 6)

    def test_thresholds_name_each_miss(self):
        rc, out, text = run_compare("--assert-start-order", "0.95", "--assert-preemptions", "0.9",
                                    "--assert-team-diff", "3")
        self.assertEqual(rc, 1)
        self.assertIn("threshold missed: start_order 0.833 < 0.95 (--assert-start-order)", text)
        self.assertIn("threshold missed: preemptions 0.333 < 0.9 (--assert-preemptions)", text)
        self.assertNotIn("team_delivered_max_diff", "\n".join(out["thresholds_missed"]))
        rc, _, text = run_compare("--assert-team-diff", "2")
        self.assertEqual(rc, 1)
        self.assertIn("team_delivered_max_diff 2.12 points > 2 (--assert-team-diff)", text)
        rc, _, _ = run_compare("--assert-start-order", "0.8", "--assert-preemptions", "0.3",
                               "--assert-team-diff", "2.2")
        self.assertEqual(rc, 0)

    def test_no_preemptions_on_either_side_agree_fully(self):
        self.assertEqual(compare.jaccard(set(), set()), 1.0)
        self.assertEqual(compare.jaccard({(1, 2)}, set()), 0.0)

    def test_by_kind_one_decision_on_another_job_of_the_same_team_and_size(self):
        # Job 12 preempts job 10 on the real side and job 11 in the
        # simulator, both team a's 8-GPU jobs: two one-sided pairs, one kind.
        # Job 13 preempts two such jobs on the real side, one in the
        # simulator: a multiset, 1 of 2.
        def side(preempted):
            jobs = {i: {"account": "a", "gpus": 8, "runs": []} for i in (10, 11, 14, 15)}
            for victim, by in preempted:
                jobs[victim]["runs"].append({"start": 0, "end": 5, "ended": "preempted", "preempted_by": by})
            return jobs
        real = side([(10, 12), (14, 13), (15, 13)])
        sim = side([(11, 12), (14, 13)])
        self.assertAlmostEqual(compare.jaccard(compare.preemption_pairs(real), compare.preemption_pairs(sim)), 1 / 4)
        rk, sk = compare.preemption_kinds(real, 8), compare.preemption_kinds(sim, 8)
        self.assertEqual(rk, {(12, "a", 8): 1, (13, "a", 8): 2})
        self.assertAlmostEqual(compare.jaccard(rk, sk), 2 / 3)
        # Another team's job, or another size, is another kind.
        sim[11]["account"] = "b"
        self.assertAlmostEqual(compare.jaccard(rk, compare.preemption_kinds(sim, 8)), 1 / 4)
        self.assertEqual(compare.jaccard(collections.Counter(), collections.Counter()), 1.0)

    def test_by_kind_threshold(self):
        rc, out, text = run_compare("--assert-preemptions-by-kind", "0.5")
        self.assertEqual(rc, 1)
        self.assertIn("threshold missed: preemptions_by_kind 0.333 < 0.5 (--assert-preemptions-by-kind)", text)
        self.assertIn("by kind (preemptor, team, GPUs)", text)
        rc, _, _ = run_compare("--assert-preemptions-by-kind", "0.3")
        self.assertEqual(rc, 0)

    def test_debug_p90_per_team_and_its_largest(self):
        _, out, text = run_compare()
        self.assertEqual(out["real"]["debug_wait_p90_by_team"], {"a": 0, "b": 600, "c": 1500})
        self.assertEqual(out["sim"]["debug_wait_p90_by_team"], {"a": 0, "b": 660})
        self.assertEqual((out["real"]["debug_wait_p90_max_team"], out["real"]["debug_wait_p90_max_team_account"]),
                         (1500, "c"))
        self.assertEqual((out["sim"]["debug_wait_p90_max_team"], out["sim"]["debug_wait_p90_max_team_account"]),
                         (660, "b"))
        self.assertIn("debug wait p90 c", text)

    def test_hero_p90_by_size(self):
        _, out, _ = run_compare()
        self.assertEqual(out["hero_min_gpus"], 64)
        self.assertEqual((out["real"]["hero_jobs"], out["real"]["hero_wait_p90"], out["sim"]["hero_wait_p90"]),
                         (0, None, None))
        _, out, _ = run_compare("--hero-min-gpus", "4")
        self.assertEqual((out["real"]["hero_jobs"], out["real"]["hero_wait_p90"], out["sim"]["hero_wait_p90"]),
                         (2, 1260, 0))
        # From a plan: HeroMinNodes as the site wrote it (a count) x GPUs per node.
        plan = {"budget_conf": {"HeroMinNodes": {"trace": "4", "compressed": "4"}}}
        self.assertEqual(compare.hero_min_gpus_of(plan, 8), 32)
        self.assertEqual(compare.hero_min_gpus_of(None, 8), 64)

    def test_within_a_ratio_or_a_slack(self):
        # Both null: nothing to compare (no such jobs on either side).
        self.assertTrue(compare.within(None, None, 2))
        self.assertFalse(compare.within(None, 5, 2))
        self.assertTrue(compare.within(0, 0, 2))
        # 200 = 2 x 100; 201 is not, nor 0 against anything above the slack.
        self.assertTrue(compare.within(100, 200, 2))
        self.assertFalse(compare.within(201, 100, 2))
        self.assertFalse(compare.within(0, 1, 2))
        # 50 - 20 = 30 s: within the slack, though 2.5x.
        self.assertTrue(compare.within(20, 50, 2, 30))
        self.assertFalse(compare.within(20, 51, 2, 30))

    def test_wait_bounds(self):
        # Debug: 1500 against 660 is 2.27x and 840 s apart.
        rc, out, text = run_compare("--assert-debug-p90", "2")
        self.assertEqual(rc, 1)
        self.assertIn("threshold missed: debug_wait_p90_max_team real 1500 s, sim 660 s: not within 2x or 30 s "
                      "(--assert-debug-p90)", text)
        self.assertEqual(run_compare("--assert-debug-p90", "2.5")[0], 0)
        self.assertEqual(run_compare("--assert-debug-p90", "2", "--debug-p90-slack", "900")[0], 0)
        # Heroes: none of 64 GPUs on either side holds; 1260 against 0 misses.
        self.assertEqual(run_compare("--assert-hero-p90", "2")[0], 0)
        rc, _, text = run_compare("--assert-hero-p90", "2", "--hero-min-gpus", "4")
        self.assertEqual(rc, 1)
        self.assertIn("threshold missed: hero_wait_p90 real 1260 s, sim 0 s: not within 2x (--assert-hero-p90)", text)

    def test_a_pair_needs_two_jobs(self):
        self.assertEqual(compare.start_order({1: 0}, {1: 5}, 2), (None, 0))


class CollectTest(unittest.TestCase):
    JOBCOMP = (
        "JobId=7 UserId=root(0) GroupId=root(0) Name=trace-1 JobState=PREEMPTED Partition=gpu TimeLimit=1 "
        "StartTime=2026-01-01T00:00:10 EndTime=2026-01-01T00:00:20 NodeList=n[1-2] NodeCnt=2 ProcCnt=2\n"
        "JobId=8 UserId=root(0) GroupId=root(0) Name=trace-2 JobState=COMPLETED Partition=gpu TimeLimit=1 "
        "StartTime=2026-01-01T00:00:20 EndTime=2026-01-01T00:00:35 NodeList=n2 NodeCnt=1 ProcCnt=1\n"
        "JobId=7 UserId=root(0) GroupId=root(0) Name=trace-1 JobState=PREEMPTED Partition=gpu TimeLimit=1 "
        "StartTime=2026-01-01T00:00:40 EndTime=2026-01-01T00:00:50 NodeList=n1 NodeCnt=1 ProcCnt=1\n"
        "JobId=9 UserId=root(0) GroupId=root(0) Name=trace-1 JobState=COMPLETED Partition=gpu TimeLimit=1 "
        "StartTime=2026-01-01T00:01:00 EndTime=2026-01-01T00:01:30 NodeList=n[3,5] NodeCnt=2 ProcCnt=2\n"
        "JobId=10 UserId=root(0) GroupId=root(0) Name=other JobState=CANCELLED Partition=gpu TimeLimit=1 "
        "StartTime=Unknown EndTime=2026-01-01T00:01:30 NodeList=(null) NodeCnt=0 ProcCnt=0\n")
    # Two prefixes (the log's prefix is changing); a plan line that says
    # "preempt job" but is not a preemption; a drain departure.
    LOG = (
        "[2026-01-01T00:00:20.100] sched/timeslice: job 8 (p, usage ratio 0.000, projected 0.040) "
        "preempts job 7 (q, usage ratio 0.500): requeue, rule: over-served allocation\n"
        "[2026-01-01T00:00:49.900] sched/timeslice: job 8 (alloc 0, 8 GPUs x 1 node(s)): preempt job 7 "
        "(alloc 1, cancel, rule unallocated, preemptee ratio 0.900, preemptor projected 0.300) on node(s) 0\n"
        "[2026-01-01T00:00:50.000] preempt/timeslice: job 7 leaves draining node n1 (protection over at "
        "2026-01-01T00:00:50): cancel, rule: drain at contract end\n")

    def test_runs_endings_and_preemptors(self):
        with tempfile.TemporaryDirectory() as d:
            jc, log = os.path.join(d, "jobcomp"), os.path.join(d, "log")
            with open(jc, "w") as f:
                f.write(self.JOBCOMP)
            with open(log, "w") as f:
                f.write(self.LOG)
            runs, stops = collect.read_jobcomp(jc), collect.read_log(log)
        self.assertEqual(len(runs), 4)
        self.assertEqual(stops, {7: [8, "drain"]})
        t0 = runs[0]["start"] - 10  # 2026-01-01T00:00:00 local time
        plan = {"nodes": 5, "gpus_per_node": 8, "jobs": [
            {"id": 1, "account": "q", "user": "u", "gpus": 16, "submit": 5, "min_runtime": 10, "resumable": False},
            {"id": 2, "account": "p", "user": "u", "gpus": 8, "submit": 15, "min_runtime": 10, "resumable": True}]}
        driver = {"t0": t0, "rejected": {}, "submissions": [
            {"trace_id": 1, "slurm_id": 7}, {"trace_id": 2, "slurm_id": 8}, {"trace_id": 1, "slurm_id": 9}]}
        out = collect.collect(plan, driver, runs, stops)
        jobs = out["policies"]["slurm"]["jobs"]
        self.assertEqual([(r["start"], r["end"], r["nodes"], r["ended"], r["preempted_by"]) for r in jobs[0]["runs"]],
                         [(10, 20, ["n1", "n2"], "preempted", 2), (40, 50, ["n1"], "drained", None),
                          (60, 90, ["n3", "n5"], "finished", None)])
        self.assertEqual(jobs[1]["runs"][0]["ended"], "finished")
        self.assertEqual(out["capacity_gpus"], 40)

    def test_hostlists(self):
        self.assertEqual(collect.expand_hostlist("n[1-3,7],m2"), ["n1", "n2", "n3", "n7", "m2"])
        self.assertEqual(collect.expand_hostlist("n[08-10]"), ["n08", "n09", "n10"])


class CompressTest(unittest.TestCase):
    def test_every_budget_conf_key_has_a_rule(self):
        # A key added to the core's parser must get a compression rule (or be
        # kept on purpose): otherwise a site's budget.conf is refused, or a
        # window of it replays uncompressed.
        config = os.path.join(HERE, "..", "..", "src", "libbudget", "config", "config.cc")
        with open(config) as f:
            text = f.read()
        table = text[text.index("kKeys[] = {"):]
        table = table[:table.index("\n};")]
        keys = re.findall(r'\{"([A-Za-z]+)"', table)
        self.assertGreater(len(keys), 5)
        self.assertEqual(sorted(keys), sorted(k for k, _, _ in compress.CONF_KEYS))

    def test_budget_conf_mapping(self):
        with tempfile.TemporaryDirectory() as d:
            conf = os.path.join(d, "budget.conf")
            with open(conf, "w") as f:
                f.write("# a site's\nlookbackwindow=7-0\nRecalcInterval=30\nHeroWait=0\nHeroMinNodes=4\n")
            got = {k: c for k, _, c in compress.compress_budget_conf(conf, 60, "/c/tree.json")}
        # 7 days / 60 = 2 h 48 min; 30 s / 60 rounds to 1 s (never 0);
        # HeroWait 0 stays 0; a node count is not a time; defaults filled in.
        self.assertEqual(got["LookbackWindow"], "2:48:00")
        self.assertEqual(got["RecalcInterval"], "1")
        self.assertEqual(got["HeroWait"], "0:00:00")
        self.assertEqual(got["HeroMinNodes"], "4")
        self.assertEqual(got["LedgerBucket"], "0:00:05")
        self.assertEqual(got["BudgetTree"], "/c/tree.json")

    def test_scheduler_parameters(self):
        # bf_window is minutes (rounded up), the others seconds (>= 1);
        # other keys pass through; absent intervals get Slurm's defaults, scaled.
        self.assertEqual(compress.compress_scheduler_parameters("bf_interval=90,bf_window=100,bf_continue", 60),
                         "sched_interval=1,bf_interval=2,bf_resolution=1,bf_window=2,bf_continue")

    def test_jobs(self):
        jobs = [{"submit": 1000, "account": "a", "user": "u", "gpus": 12, "duration": 89, "min_runtime": 29,
                 "resumable": True, "priority": 0, "time_limit": 3660},
                {"submit": 1090, "account": "a", "user": "v", "gpus": 1, "duration": 20, "min_runtime": 0,
                 "resumable": False, "priority": 3, "time_limit": 60}]
        a, b = compress.compress_jobs(jobs, 60, 8)
        # 12 GPUs on 8-GPU nodes: 2 nodes x 6; 89 s -> 1 s; min-runtime 29 s
        # rounds to 0 but stays allocated (1 s); 61 min / 60 -> 2 minutes.
        self.assertEqual((a["node_count"], a["gpus_per_node"], a["duration"], a["min_runtime"],
                          a["time_limit_minutes"], a["submit"]), (2, 6, 1, 1, 2, 0))
        # 90 s after the first: 2 s (1.5 rounds up); unallocated stays 0;
        # a 1-minute limit stays 1 minute.
        self.assertEqual((b["submit"], b["min_runtime"], b["time_limit_minutes"], b["duration"]), (2, 0, 1, 1))
        # The driver submits every job as one user, so the simulator sees
        # one user too (per-user rules alike); the trace's stays recorded.
        self.assertEqual((a["user"], b["user"]), (compress.ONE_USER, compress.ONE_USER))
        self.assertEqual((a["trace"]["user"], b["trace"]["user"]), ("u", "v"))


class DifferencesTest(unittest.TestCase):
    """differences.py on the hand-made pair: (4, 1) in the simulator only at
    28, (3, drain) on the real side only at 30; (2, drain) on both."""

    def test_the_one_side_pairs_in_time_order_with_their_surroundings(self):
        _, real = compare.load_side(REAL)
        _, sim = compare.load_side(SIM)
        lines = differences.differences(real, sim, first=1, around=2)
        self.assertEqual(lines[0], "1 preemption pairs on both sides, 1 on the real side only, 1 in the simulator only")
        self.assertEqual(lines[2], "at 28: job 4 preempted by 1 on the sim side only")
        real_part = lines[lines.index("  real:") + 1:lines.index("  sim:")]
        self.assertEqual([line.split()[0] for line in real_part], ["26", "30", "30"])
        self.assertIn("ended (preempted by 1)", lines[lines.index("  sim:") + 2])
        self.assertNotIn("at 30:", "\n".join(lines))  # --first 1

        self.assertIn("at 30: job 3 preempted by drain on the real side only",
                      differences.differences(real, sim, first=2, around=2))


@contextlib.contextmanager
def fake_clients(**scripts):
    """A directory holding the given fake Slurm clients (name -> shell
    text), first on PATH and named by $FAKE while the block runs."""
    with tempfile.TemporaryDirectory() as d:
        for name, text in scripts.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(d, name), 0o755)
        env = dict(os.environ)
        os.environ["PATH"] = d + os.pathsep + env["PATH"]
        os.environ["FAKE"] = d
        try:
            yield d
        finally:
            os.environ.clear()
            os.environ.update(env)


# A plan's job, less its id and submit time.
PLAN_JOB = {"account": "a", "node_count": 1, "gpus_per_node": 1, "time_limit_minutes": 1, "min_runtime": 20,
            "resumable": False, "priority": 0, "duration": 5}


class DriverTest(unittest.TestCase):
    """submit() against fake sbatch/squeue on PATH: a lost reply is adopted,
    never submitted twice; a refusal is recorded."""
    FAKE_SBATCH = """#!/bin/sh
n=$(cat "$FAKE/calls" 2>/dev/null || echo 0); echo $((n + 1)) > "$FAKE/calls"
case "$*" in
  *trace-7*) echo "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2
             echo 41 > "$FAKE/queued"; exit 1 ;;
  *trace-8*) echo "sbatch: error: min-runtime 0:20 is longer than the time limit" >&2; exit 1 ;;
esac
echo 50
"""
    FAKE_SQUEUE = """#!/bin/sh
case "$*" in *--name=trace-7*) cat "$FAKE/queued" ;; esac
"""

    def test_lost_reply_and_refusal(self):
        with fake_clients(sbatch=self.FAKE_SBATCH, squeue=self.FAKE_SQUEUE) as d:
            plan = {"jobs": [dict(PLAN_JOB, id=i, submit=0) for i in (7, 8, 9)], "node_events": []}
            drv = driver.Driver(plan, "job.sh", d, d)
            with contextlib.redirect_stdout(io.StringIO()):
                drv.submit(7)
                drv.submit(8)
                drv.submit(9)
            with open(os.path.join(d, "calls")) as f:
                calls = int(f.read())
        self.assertEqual(drv.current, {7: 41, 9: 50})
        self.assertEqual(calls, 3)  # trace-7 was not submitted again
        self.assertIn("longer than the time limit", drv.rejected[8])


class DriverBurstTest(unittest.TestCase):
    """run() against fake clients: the jobs due at one instant are submitted
    together (their sbatch runs overlap), started in trace order."""
    FAKE_SBATCH = """#!/bin/sh
echo "$(date +%s.%N) $*" >> "$FAKE/sbatch.log"
for a; do case $a in --job-name=trace-*) id=${a#--job-name=trace-} ;; esac; done
sleep 0.3
echo "$(date +%s.%N) end $id" >> "$FAKE/sbatch.log"
echo $id
"""
    FAKE_SQUEUE = """#!/bin/sh
sed -n 's/.*--job-name=trace-\\([0-9]*\\).*/\\1|COMPLETED/p' "$FAKE/sbatch.log"
"""

    def test_a_burst_is_submitted_at_once_in_trace_order(self):
        with fake_clients(sbatch=self.FAKE_SBATCH, squeue=self.FAKE_SQUEUE) as d:
            plan = {"jobs": [dict(PLAN_JOB, id=i, submit=t) for i, t in ((4, 1), (3, 0), (1, 0), (2, 0))],
                    "node_events": []}
            drv = driver.Driver(plan, "job.sh", d, d)
            log = io.StringIO()
            with contextlib.redirect_stdout(log):
                self.assertTrue(drv.run(30))
            with open(os.path.join(d, "sbatch.log")) as f:
                lines = [line.split() for line in f.read().splitlines()]
        starts = [(float(w[0]), w[2]) for w in lines if w[1] != "end"]
        ends = [float(w[0]) for w in lines if w[1] == "end"]
        self.assertEqual([name for _, name in starts],
                         ["--job-name=trace-%d" % i for i in (1, 2, 3, 4)])
        # The burst's three sbatch runs overlap: the third started before
        # the first one ended.
        self.assertLess(starts[2][0], min(ends))
        self.assertEqual(drv.current, {})
        self.assertEqual(drv.ended, {i: "COMPLETED" for i in (1, 2, 3, 4)})
        at = {s["trace_id"]: s["at"] for s in drv.submissions}
        self.assertLess(max(at[1], at[2], at[3]), 0.3)
        self.assertGreaterEqual(at[4], 1)
        self.assertNotIn("out of trace order", log.getvalue())


class LedgerCheckTest(unittest.TestCase):
    """ledger_check.py on testdata/real_events.json (see the table above):
    allocated a 8x10 + 8x10 + 2x10 = 180, b 1x15 = 15, c 1x5 = 5;
    unallocated b 4x4 + 4x5 = 36. Up to 28: job 1's second run and job 4's
    and job 5's runs are cut (a 80 + 2x3 = 86; b 15, unallocated 4x2 = 8)."""

    def usage(self, until):
        with open(os.path.join(HERE, "testdata", "real_events.json")) as f:
            events = json.load(f)
        (policy,) = events["policies"].values()
        return ledger_check.run_usage(policy["jobs"], events["gpus_per_node"], until)

    def test_runs_counted_up_to_the_report(self):
        u = self.usage(100)
        self.assertEqual(u["a"][:2], [180, 0])
        self.assertEqual(u["b"][:2], [15, 36])
        self.assertEqual(u["c"][:2], [5, 0])
        # Allowance: GPUs x 1 s per run ended: a 8 + 8 + 2, b 1 + 4 + 4, c 1.
        self.assertEqual([u[k][2] for k in "abc"], [18, 9, 1])
        u = self.usage(28)
        self.assertEqual(u["a"][:2], [86, 0])
        self.assertEqual(u["b"][:2], [15, 8])

    def test_a_lost_tail_fails_and_an_exact_ledger_passes(self):
        u = self.usage(100)
        exact = {"a": {"window_usage": 180, "unallocated": 0}, "b": {"window_usage": 15, "unallocated": 36},
                 "c": {"window_usage": 5, "unallocated": 0}}
        self.assertTrue(ledger_check.check(u, exact)[0])
        # a charged 24 GPU-seconds short (job 1's 8 GPUs for 3 s): more than
        # a's allowance of 18.
        lost = dict(exact, a={"window_usage": 156, "unallocated": 0})
        ok, lines = ledger_check.check(u, lost)
        self.assertFalse(ok)
        self.assertIn("charging lost", lines[0])
        self.assertFalse(ledger_check.check(u, {"a": exact["a"], "b": exact["b"]})[0])  # c missing


if __name__ == "__main__":
    unittest.main()
