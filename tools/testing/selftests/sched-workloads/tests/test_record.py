# SPDX-License-Identifier: GPL-2.0
"""Live: sched-workloads record, the first step from a real program to a
reproducer.

A command, a process and the whole system are traced; asserted every
time: the trace is one the analyzer reads, with the program's threads in
it; record.json says what was traced, how it stopped, the command's exit
code, and each thread's policy, nice and affinity as set from outside
(chrt, nice, taskset); Ctrl-C keeps what was traced and leaves nothing
behind; bad arguments are usage errors.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from swtest import (BINARY, CHILD_ENV, EXIT_PASS, EXIT_USAGE, sw)
from test_faults import guarded, machine_state

IS_ROOT = os.geteuid() == 0
# a parent that forks short children and spins between them
LOOP = ("for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.02; i=0; "
        "while [ $i -lt 3000 ]; do i=$((i+1)); done; done")


@unittest.skipUnless(IS_ROOT and shutil.which("chrt") and
                     shutil.which("taskset"), "needs root, chrt, taskset")
class TestRecord(unittest.TestCase):
    LIVE = True

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-record-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def record(self, *args, name="r"):
        out = os.path.join(self.tmp, name)
        with guarded() as before:
            r = sw("record", "-o", out, *args, timeout=120)
            after = machine_state()
        self.assertEqual(after, before)
        return r, out

    def load(self, out):
        with open(os.path.join(out, "record.json")) as f:
            return json.load(f)

    def analyzed(self, out):
        r = sw("analyze", "--trace", os.path.join(out, "trace.dat"),
               "--all-cpus")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        return json.loads(r.stdout)

    def test_command(self):
        r, out = self.record("--", "taskset", "-c", "0", "chrt", "-f", "10",
                             "sh", "-c", LOOP + "; exit 3")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        rec = self.load(out)
        self.assertEqual(rec["command"][:4], ["taskset", "-c", "0", "chrt"])
        self.assertEqual(rec["exit"], 3)
        self.assertEqual(rec["stopped"], "the command exited")
        self.assertEqual(rec["lost_events"], 0)
        self.assertGreater(rec["seconds"], 0.2)
        self.assertEqual(rec["end_ns"] - rec["start_ns"],
                         round(rec["seconds"] * 1e9))
        sh = [t for t in rec["tasks"] if t["comm"] == "sh"]
        self.assertTrue(sh, rec["tasks"])
        # set from outside, seen from /proc: what the trace does not carry
        self.assertEqual((sh[0]["policy"], sh[0]["cpus"]),
                         ("SCHED_FIFO:10", "0"))
        self.assertIn("fingerprint", rec)
        # by its PID: another "sh" on the machine makes the names sh-0, sh-1
        tasks = self.analyzed(out)["trace_tasks"]
        mine = [t for t in tasks.values() if t["id"] == sh[0]["tid"]]
        self.assertEqual(len(mine), 1, tasks)
        self.assertEqual(mine[0]["group"], "sh")
        self.assertGreater(mine[0]["cpu_time"], 0)

    def test_pid_until_it_exits(self):
        p = subprocess.Popen(["nice", "-n", "5", "sh", "-c",
                              "sleep 0.3; " + LOOP])
        try:
            time.sleep(0.05)
            r, out = self.record("-p", str(p.pid))
        finally:
            p.kill()
            p.wait()
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        rec = self.load(out)
        self.assertEqual(rec["pid"], p.pid)
        self.assertEqual(rec["stopped"], "the process exited")
        mine = [t for t in rec["tasks"] if t["tid"] == p.pid]
        self.assertEqual(mine[0]["nice"], 5)

    def test_system_for_a_time(self):
        r, out = self.record("-a", "-d", "0.3")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        rec = self.load(out)
        self.assertTrue(rec["system"])
        self.assertEqual(rec["stopped"], "the time was up")
        self.assertGreaterEqual(rec["seconds"], 0.3)
        self.assertLess(rec["seconds"], 1.0)
        self.analyzed(out)

    def test_interrupted_keeps_the_trace(self):
        out = os.path.join(self.tmp, "int")
        with guarded() as before:
            p = subprocess.Popen([BINARY, "record", "-o", out, "--",
                                  "sh", "-c", "while :; do sleep 0.01; done"],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=CHILD_ENV)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=60)
            time.sleep(0.1)
            left = subprocess.run(["pgrep", "-f", "while :; do sleep"],
                                  capture_output=True, text=True).stdout
            after = machine_state()
        self.assertEqual(after, before)
        self.assertEqual(p.returncode, -signal.SIGINT)
        self.assertEqual(left, "")
        rec = self.load(out)
        self.assertEqual(rec["stopped"], "interrupted")
        self.assertGreater(rec["seconds"], 0.3)
        self.analyzed(out)

    def test_usage(self):
        for args in ((), ("-a",), ("-p", "999999999"),
                     ("-d", "1", "--", "true"), ("-a", "-d", "1", "-p", "1")):
            with self.subTest(args=args):
                r = sw("record", "-o", os.path.join(self.tmp, "u"), *args)
                self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)
                self.assertIn("usage: sched-workloads record", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "u")))


if __name__ == "__main__":
    unittest.main()
