# SPDX-License-Identifier: GPL-2.0
"""Live: "analyze" on a trace.dat recorded by hand around a program that
is not rt-app, with a tracefs instance and trace-cmd extract, as a user
would on another machine.

The program: a shell pinned to CPU 0 that sleeps 5 ms, 100 times, while
a busy loop pinned to the same CPU competes. Each of the shell's
wakeups must show in the trace, and the busy loop must be preempted.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from swtest import EXIT_PASS, live_lock, sw

IS_ROOT = os.geteuid() == 0
TRACEFS = "/sys/kernel/tracing"
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_migrate_task",
          "sched/sched_process_exit"]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def record(inst_name, out, argv):
    inst = os.path.join(TRACEFS, "instances", inst_name)
    os.mkdir(inst)
    try:
        write(os.path.join(inst, "trace_clock"), "mono")
        for e in EVENTS:
            write(os.path.join(inst, "events", e, "enable"), "1")
        write(os.path.join(inst, "tracing_on"), "1")
        subprocess.run(argv, check=True, timeout=60)
        write(os.path.join(inst, "tracing_on"), "0")
        subprocess.run(["trace-cmd", "extract", "-B", inst_name,
                        "--compression", "none", "-o", out],
                       check=True, capture_output=True, timeout=60)
    finally:
        if os.path.isdir(inst):
            os.rmdir(inst)


@unittest.skipUnless(IS_ROOT and os.path.isdir(TRACEFS) and
                     shutil.which("trace-cmd"),
                     "needs root, tracefs and trace-cmd")
class TestOfflineAnalyze(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-offline-")
        cls.trace = os.path.join(cls.tmp, "by-hand.dat")
        script = ("taskset -c 0 sh -c 'while :; do :; done' & hog=$!; "
                  "taskset -c 0 sh -c "
                  "'for i in $(seq 100); do sleep 0.005; done'; "
                  "kill $hog")
        with live_lock():
            record("sw-offline-%d" % os.getpid(), cls.trace,
                   ["sh", "-c", script])
        cls.r = sw("analyze", "--trace", cls.trace, "--all-cpus")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_prints_metrics(self):
        self.assertEqual(self.r.returncode, EXIT_PASS, self.r.stderr)
        m = json.loads(self.r.stdout)
        self.assertGreaterEqual(len(m["trace_tasks"]), 3)
        self.assertIn("cpu0", m["cpus"])
        system = m["system"]["system"]
        self.assertEqual(system["system.lost_events"], 0)
        self.assertGreater(system["trace.events"], 200)
        self.assertIsNotNone(system["wc.share"])

    def test_sleeps_are_wakeups(self):
        m = json.loads(self.r.stdout)
        # Every "sleep 0.005" is a new process: the shell forks 100 of
        # them, each woken once by its timer on CPU 0. Tasks of one comm
        # are "sleep-0", "sleep-1", ... (entity.h).
        sleeps = [v for k, v in m["trace_tasks"].items()
                  if re.fullmatch(r"sleep(-[0-9]+)?", k)]
        self.assertGreaterEqual(len(sleeps), 90)
        woken = sum(v["wakeup_lat.count"] or 0 for v in sleeps)
        self.assertGreaterEqual(woken, 90)

    def test_hog_preempted(self):
        m = json.loads(self.r.stdout)
        busy = max(m["trace_tasks"].values(),
                   key=lambda v: v["cpu_time"] or 0)
        self.assertGreater(busy["switches.involuntary"], 10)
        self.assertGreater(busy["runnable_wait.total"], 0)
        self.assertEqual(busy["cpu_time.top_cpu"], 0)


if __name__ == "__main__":
    unittest.main()
