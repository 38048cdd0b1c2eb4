# SPDX-License-Identifier: GPL-2.0
"""smt.stacked_share: two tasks on the SMT threads of one core while
another core idles, on scenes fed to the analyser's state machine
(tests/sched_stream_check.c) on 4 CPUs, cores given as -C (CPUs 0 and 1
one core's threads, 2 and 3 another's: "0,0,2,2"), and the cores.txt a
repetition keeps, read back by analyze.

The expected values follow from the scenes' timestamps alone: the window
runs from the first record (1000 ns) to the last (10,000,000 ns),
9,999,000 ns; a CPU is known from its first switch on.
"""
import gzip
import json
import os
import shutil
import tempfile
import unittest

import swtest
from swtest import EXIT_BAD_LOG, EXIT_PASS, fixture, sw

WINDOW_NS = 10000000 - 1000
CORES = "0,0,2,2"


def scene(hog_cpus, sleep_ns):
    """hog-a and hog-b start on @hog_cpus at 1000 and 1001 ns; the
    other two CPUs go idle at 1002 and 1003 ns (a kernel thread sleeps);
    hog-b sleeps at @sleep_ns, hog-a at the end."""
    a, b = hog_cpus
    idle = [c for c in range(4) if c not in hog_cpus]
    lines = ["1000 %d 0 switch 0 swapper/%d 120 0 101 hog-a 120" % (a, a),
             "1001 %d 0 switch 0 swapper/%d 120 0 102 hog-b 120" % (b, b)]
    for k, c in enumerate(idle):
        lines.append("%d %d %d switch %d kworker 120 1 0 swapper/%d 120" %
                     (1002 + k, c, 300 + c, 300 + c, c))
    lines.append("%d %d 102 switch 102 hog-b 120 1 0 swapper/%d 120" %
                 (sleep_ns, b, b))
    lines.append("10000000 %d 101 switch 101 hog-a 120 1 0 swapper/%d 120" %
                 (a, a))
    return "\n".join(lines) + "\n"


class TestStacked(swtest.StreamCheckerTest):
    def stacked(self, stream, *args):
        system = self.metrics(4, stream, *args)["system"]["system"]
        self.assertAlmostEqual(system["trace.window"], WINDOW_NS / 1000.0)
        return system["smt.stacked_share"]

    def test_siblings_busy_while_a_core_idles(self):
        # from 1003 ns (the last CPU of core 2 idle) to hog-b's sleep
        share = self.stacked(scene((0, 1), 5001003), "-C", CORES)
        self.assertAlmostEqual(share, 5000000 / WINDOW_NS, places=9)

    def test_one_task_a_core(self):
        self.assertEqual(self.stacked(scene((0, 2), 5001003), "-C", CORES),
                         0)

    def test_no_smt(self):
        # every CPU a core of its own: nothing to stack on
        self.assertEqual(self.stacked(scene((0, 1), 5001003), "-C",
                                      "0,1,2,3"), 0)

    def test_unknown_cores(self):
        self.assertIsNone(self.stacked(scene((0, 1), 5001003)))
        # a map of another machine (2 CPUs) is not this trace's
        self.assertIsNone(self.stacked(scene((0, 1), 5001003), "-C", "0,0"))

    def test_an_unknown_cpu_is_not_idle(self):
        # CPU 3 never switches: core 2 is never known idle
        stream = "".join(line + "\n" for line in
                         scene((0, 1), 5001003).splitlines()
                         if " 3 303 " not in line)
        self.assertEqual(self.stacked(stream, "-C", CORES), 0)


class TestCoresFile(unittest.TestCase):
    """cores.txt beside the logs: analyze reads it, or says where it is
    not one."""

    def analyze(self, cores):
        tmp = tempfile.mkdtemp(prefix="sw-cores-")
        self.addCleanup(shutil.rmtree, tmp)
        logs = os.path.join(tmp, "rep-1")
        shutil.copytree(fixture("logs", "basic"), logs)
        with open(os.path.join(logs, "cores.txt"), "w") as f:
            f.write(cores)
        trace = os.path.join(tmp, "trace.dat")
        with gzip.open(fixture("trace", "pinned.dat.gz")) as g, \
                open(trace, "wb") as f:
            f.write(g.read())
        return sw("analyze", "--logs", logs, "--trace", trace)

    def test_read(self):
        # the trace's 2 CPUs one core: known, and never a core idle
        r = self.analyze("0 0\n1 0\n")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        system = json.loads(r.stdout)["system"]["system"]
        self.assertEqual(system["smt.stacked_share"], 0)
        r = self.analyze("")
        system = json.loads(r.stdout)["system"]["system"]
        self.assertIsNone(system["smt.stacked_share"])

    def test_malformed(self):
        for bad, line in (("0 0\n2 0\n", 2), ("0 1\n", 1), ("0 0 x\n", 1),
                          ("zero\n", 1)):
            r = self.analyze(bad)
            self.assertEqual(r.returncode, EXIT_BAD_LOG, bad)
            self.assertIn("cores.txt:%d: expected" % line, r.stderr)


if __name__ == "__main__":
    unittest.main()
