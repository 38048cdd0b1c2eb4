# SPDX-License-Identifier: GPL-2.0
"""contribute.py: a program to a reproducer with its breaker and baseline.

Unit: the draft breaker of a workload, worked out by hand (which task it
must outrank, which result of each task it must fail), and the refusals
of the command line. Live: the whole flow on stress-ng's cpu stressor at
30% for 5 s, into a scratch collection: the reproducer passes check, the
baseline of this class is recorded, the battery names its results, and
the drafted breaker fails every result it names (what holds every time;
whether the clean run passes is a timing verdict, not asserted here:
the note of issue 10 gives the figures).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from swtest import (BINARY, CHILD_ENV, EXIT_PASS, EXIT_USAGE, SCRIPTS,
                    ktap_results, load_json, sw)
import contribute  # after swtest, which puts the collection on the path
from breaker import load_workload
from test_faults import guarded, machine_state

IS_ROOT = os.geteuid() == 0
SCRIPT = os.path.join(SCRIPTS, "contribute.py")
STRESS = ["stress-ng", "--cpu", "1", "--cpu-load", "30", "--timeout", "5",
          "--quiet"]


def workload(tasks, checks, scale=None):
    block = {"description": "d", "checks": checks}
    if scale:
        block["scale"] = scale
    return {"sched-workloads": block,
            "global": {"duration": 2, "default_policy": "SCHED_OTHER"},
            "tasks": tasks}


def check(metric, task):
    return {"metric": metric, "task": task, "min": 0, "why": "w"}


def run_script(*args, timeout=60):
    return subprocess.run([sys.executable, SCRIPT, "--binary", BINARY] +
                          list(args), capture_output=True, text=True,
                          timeout=timeout, env=CHILD_ENV)


class TestDraftBreaker(unittest.TestCase):
    def test_outranks_every_task(self):
        w = workload({"a": {"policy": "SCHED_FIFO", "priority": 80},
                      "b": {"policy": "SCHED_RR", "priority": 40},
                      "c": {}},
                     [check("cpu_share", "a"), check("wakeup_lat.p90", "a"),
                      check("cpu_share", "b"), check("cpu_share", "c")])
        spec = contribute.draft_breaker("x", w)
        hog = spec["patch"]["tasks.breaker_hog"]
        self.assertEqual((hog["policy"], hog["priority"]), ("SCHED_FIFO", 81))
        self.assertEqual((hog["runtime"], hog["sleep"]), (9000, 1000))
        # a's wakeup latency (preferred), b's and c's CPU share
        self.assertEqual(spec["expect_fail"], ["x.a.wakeup_lat.p90",
                                               "x.b.cpu_share",
                                               "x.c.cpu_share"])
        self.assertEqual(spec["patch"]["sched-workloads.scale"],
                         {"tasks.breaker_hog.instance": "cpus"})

    def test_fair_tasks_need_priority_1(self):
        w = workload({"a": {"policy": "SCHED_BATCH"}},
                     [check("cpu_share", "a")],
                     scale={"tasks.a.instance": "2*cpus"})
        spec = contribute.draft_breaker("y", w)
        self.assertEqual(spec["patch"]["tasks.breaker_hog"]["priority"], 1)
        # the workload's own scale is kept
        self.assertEqual(spec["patch"]["sched-workloads.scale"],
                         {"tasks.a.instance": "2*cpus",
                          "tasks.breaker_hog.instance": "cpus"})

    def test_cannot_outrank(self):
        for tasks, msg in (
                ({"a": {"policy": "SCHED_FIFO", "priority": 99}},
                 "SCHED_FIFO 99"),
                ({"a": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000,
                        "dl-period": 10000}}, "SCHED_DEADLINE"),
                ({"breaker_hog": {}}, 'named "breaker_hog"')):
            with self.subTest(msg=msg):
                w = workload(tasks, [check("cpu_share", t) for t in tasks])
                with self.assertRaises(contribute.StepError) as cm:
                    contribute.draft_breaker("z", w)
                self.assertIn(msg, str(cm.exception))

    def test_nothing_to_break(self):
        w = workload({"a": {}}, [check("passes", "a")])
        with self.assertRaises(contribute.StepError) as cm:
            contribute.draft_breaker("z", w)
        self.assertIn("no task of the workload has", str(cm.exception))


class TestCommandLine(unittest.TestCase):
    def test_refusals(self):
        for args, msg in (
                (["Bad_Name", "--", "true"], 'NAME "Bad_Name"'),
                (["ok"], "give a command after -- or --trace"),
                (["--trace", "/nonexistent.dat", "ok"],
                 "/nonexistent.dat: no such trace")):
            with self.subTest(args=args):
                r = run_script(*args)
                self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)
                self.assertIn(msg, r.stderr)

    def test_existing_name_is_not_overwritten(self):
        # A workload of the battery: its file exists.
        tmp = tempfile.mkdtemp(prefix="sw-contribute-")
        self.addCleanup(shutil.rmtree, tmp)
        r = run_script("--work", tmp, "periodic-light", "--", "true")
        self.assertEqual(r.returncode, EXIT_USAGE, r.stdout + r.stderr)
        self.assertIn("periodic-light.json exists (--force overwrites it)",
                      r.stdout)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app"),
                     "live tests need root and rt-app")
class TestContributeLive(unittest.TestCase):
    LIVE = True

    def test_stress_ng_to_a_reproducer(self):
        if not shutil.which("stress-ng"):
            self.skipTest("stress-ng is not installed (deps.sh test)")
        tmp = tempfile.mkdtemp(prefix="sw-contribute-")
        self.addCleanup(shutil.rmtree, tmp, True)
        dest = os.path.join(tmp, "collection")
        with guarded() as before:
            r = run_script("--dest", dest, "--work",
                           os.path.join(tmp, "work"), "--comm",
                           "stress-ng-cpu", "stress-cpu30", "--", *STRESS,
                           timeout=900)
            after = machine_state()
        self.assertEqual(after, before)
        out = r.stdout + r.stderr
        # 0, or 1 for a timing verdict of the clean run: never a step
        # that could not run
        self.assertIn(r.returncode, (0, 1), out)
        self.assertNotIn("NOT READY: the breaker", out)
        self.assertIn("the breaker failed every result it names", out)

        wl = os.path.join(dest, "workloads", "stress-cpu30.json")
        self.assertEqual(sw("check", wl).returncode, EXIT_PASS)
        w = load_workload(BINARY, wl)
        self.assertEqual(list(w["tasks"]), ["stress_ng_cpu"])
        spec = load_json(os.path.join(dest, "tests", "breakers",
                                      "stress-cpu30.json"))
        self.assertEqual(spec["workload"], "stress-cpu30")
        self.assertEqual(spec["expect_fail"],
                         ["stress-cpu30.stress_ng_cpu.wakeup_lat.p90"])
        cls = json.loads(sw("fingerprint").stdout)["class"]
        base = load_json(os.path.join(dest, "baselines", cls,
                                      "stress-cpu30.json"))
        self.assertEqual(base["workload"], "stress-cpu30")

        # the battery's results, each named once, the baseline's too
        names = [n for _, _, n, _ in ktap_results(r.stdout)
                 if n.startswith("stress-cpu30.stress_ng_cpu.")]
        self.assertIn("stress-cpu30.stress_ng_cpu.cpu_share", names)
        self.assertIn("stress-cpu30.stress_ng_cpu.wakeup_lat.p90."
                      "vs-baseline", names)
        self.assertIn("git add", r.stdout)
        for f in ("workloads/stress-cpu30.json",
                  "tests/breakers/stress-cpu30.json",
                  "baselines/%s/stress-cpu30.json" % cls):
            self.assertIn(f, r.stdout)


if __name__ == "__main__":
    unittest.main()
