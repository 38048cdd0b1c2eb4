# SPDX-License-Identifier: GPL-2.0
"""analyze --timeline: what ran and what waited on each CPU over a span.

On the trace of cfs-work-conserving under CFS bandwidth (the report's
fixture), the running segments are checked against the sched_switch
events that trace-cmd report prints, and the longest work-conservation
stretch that --explain names must show as its task waiting on its CPU
while the other CPU is idle.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import swtest

FIXTURE = swtest.fixture("report")
RUN = os.path.join(FIXTURE, "20261205-034357-6.18.44-fc-v1272",
                   "cfs-work-conserving")
WORKLOAD = os.path.join(RUN, "cfs-work-conserving.json")
# explain.txt: "at 2012.620021 (+2.916100 s): 6423.7 us; burst (pid 3284)
# waited on cpu0 while cpu1 idled"
EPISODE = (2012.620021, 6423.7e-6, 3284, 0, 1)
SPAN = (2012.615021, 2012.631445)
SWITCH_RE = re.compile(r"\[(\d+)\]\s+(\d+\.\d+): sched_switch:.* ==> "
                       r"(.+):(\d+) \[(\d+)\]")


class TestTimeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.trace = swtest.unpack_traces(FIXTURE, cls.tmp.name)[
            "cfs-work-conserving"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def timeline(self, start, end, *extra):
        r = swtest.sw("analyze", "--trace", self.trace, "--workload",
                      WORKLOAD, "--timeline", "%.6f,%.6f" % (start, end),
                      *extra)
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
        return json.loads(r.stdout)

    def test_running_tiles_each_cpu(self):
        tl = self.timeline(*SPAN)
        self.assertEqual((tl["start"], tl["end"], tl["cpus"]),
                         (SPAN[0], SPAN[1], 2))
        for cpu in (0, 1):
            segs = [s for s in tl["running"] if s["cpu"] == cpu]
            self.assertGreater(len(segs), 3)
            self.assertAlmostEqual(segs[0]["start"], SPAN[0], places=6)
            self.assertAlmostEqual(segs[-1]["end"], SPAN[1], places=6)
            for a, b in zip(segs, segs[1:]):
                self.assertEqual(a["end"], b["start"], "cpu%d" % cpu)
                self.assertNotEqual(a["pid"], b["pid"])
            for s in segs:
                self.assertLess(s["start"], s["end"])
                if not s["pid"]:
                    self.assertEqual(s["comm"], "idle")

    @unittest.skipUnless(shutil.which("trace-cmd"), "needs trace-cmd")
    def test_switches_as_trace_cmd_reads_them(self):
        out = subprocess.run(["trace-cmd", "report", "-t", "-i",
                              self.trace], capture_output=True, text=True,
                             check=True).stdout
        switches = set()
        for m in SWITCH_RE.finditer(out):
            ts = float(m.group(2))
            if SPAN[0] < ts < SPAN[1]:
                pid = int(m.group(4))
                switches.add((int(m.group(1)), round(ts, 9), pid,
                              int(m.group(5)) if pid else 120))
        self.assertGreater(len(switches), 10)
        tl = self.timeline(*SPAN)
        starts = {(s["cpu"], round(s["start"], 9), s["pid"], s["prio"])
                  for s in tl["running"] if s["start"] > SPAN[0]}
        self.assertEqual(starts, switches)

    def test_explained_stretch(self):
        start, length, pid, cpu, other = EPISODE
        tl = self.timeline(start - 0.005, start + length + 0.005)
        mid = start + length / 2

        def at(kind, c):
            return [s for s in tl[kind] if s["cpu"] == c and
                    s["start"] <= mid < s["end"]]
        self.assertIn(pid, [s["pid"] for s in at("waiting", cpu)])
        self.assertEqual([s["pid"] for s in at("running", other)], [0])
        # a task waits or runs, not both at once
        for w in tl["waiting"]:
            for r in tl["running"]:
                if r["pid"] == w["pid"]:
                    self.assertFalse(r["start"] < w["end"] and
                                     w["start"] < r["end"], (w, r))

    def test_span_outside_the_trace(self):
        tl = self.timeline(1.0, 2.0)
        self.assertEqual((tl["running"], tl["waiting"]), ([], []))

    def test_bad_spans(self):
        for arg in ("2012.6", "2012.63,2012.62", "a,b", "1,2,3", "-1,2",
                    "2000,2011", "1,"):
            r = swtest.sw("analyze", "--trace", self.trace, "--timeline",
                          arg)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE, arg)
            self.assertIn("--timeline", r.stderr, arg)
        r = swtest.sw("analyze", "--trace", self.trace, "--explain",
                      "--timeline", "1,2")
        self.assertEqual(r.returncode, swtest.EXIT_USAGE)


if __name__ == "__main__":
    unittest.main()
