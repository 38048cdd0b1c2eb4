# SPDX-License-Identifier: GPL-2.0
"""Live: a regression injected on purpose is found, and clears.

A baseline of periodic-light is recorded into a temporary directory;
then the battery runs it inside a cgroup whose CFS bandwidth is 1 ms per
10 ms: the kernel now throttles the workload (it wants 15% of a CPU) the
way a scheduler bug that starves it would, so the decoder overruns its
periods: the absolute check on missed periods must fail, and its median
slack must be reported as a regression against the baseline, with the
numbers, after the confirmation re-run. Out of the cgroup the same
baseline passes. (Its wu_lat is not asserted: a pass that overruns does
not sleep, so it has no wakeup to measure.)

A CPU-stealing process beside the workload is not the injection: the
battery sees such a run as disturbed (foreign.cpu_share) and does not
count it, as it should on a shared machine.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from swtest import (BINARY, CHILD_ENV, EXIT_FAIL, EXIT_PASS, ktap_results,
                    live_lock, sw)

IS_ROOT = os.geteuid() == 0
RESULTS = "/tmp/sched-workloads-live-tests"
REPS = "3"


def subtests(stdout):
    return {name: ok for indent, ok, name, _ in ktap_results(stdout)
            if indent == 2}


CGROUP_ROOT = "/sys/fs/cgroup/cpu"


def run_throttled(group, *args):
    """The tool in a cgroup limited to 10% of a CPU, 1 ms per 10 ms."""
    os.mkdir(group)
    try:
        for name, value in (("cpu.cfs_period_us", "10000"),
                            ("cpu.cfs_quota_us", "1000")):
            with open(os.path.join(group, name), "w") as f:
                f.write(value)
        return subprocess.run(
            ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', group,
             BINARY] + list(args), capture_output=True, text=True,
            timeout=600, env=CHILD_ENV)
    finally:
        os.rmdir(group)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app") and
                     os.path.isfile(os.path.join(CGROUP_ROOT,
                                                 "cpu.cfs_quota_us")),
                     "needs root, rt-app and the cgroup v1 cpu controller")
class TestInjectedRegression(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-inject-")
        args = ["-n", REPS, "-B", cls.tmp, "-r", RESULTS, "periodic-light"]
        with live_lock():
            cls.record = sw("baseline", *args, timeout=300)
            cls.clean_before = sw("run", *args, timeout=300)
            cls.injected = run_throttled(
                os.path.join(CGROUP_ROOT, "sw-inject-%d" % os.getpid()),
                "run", *args)
            cls.clean_after = sw("run", *args, timeout=300)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_baseline_recorded(self):
        self.assertEqual(self.record.returncode, EXIT_PASS,
                         self.record.stdout)
        self.assertIn("baseline of 3 repetitions written", self.record.stdout)

    def test_clean_runs_pass(self):
        for r in (self.clean_before, self.clean_after):
            self.assertEqual(r.returncode, EXIT_PASS, r.stdout)
            sub = subtests(r.stdout)
            base = [n for n in sub if n.endswith(".vs-baseline")]
            self.assertEqual(len(base), 3)
            self.assertTrue(all(sub[n] for n in base), r.stdout)

    def test_injection_detected_with_numbers(self):
        r = self.injected
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        sub = subtests(r.stdout)
        self.assertFalse(sub["periodic-light.decoder-0.missed_periods"])
        name = "periodic-light.decoder-0.slack.p50.vs-baseline"
        self.assertFalse(sub[name], r.stdout)
        self.assertRegex(r.stdout, r"REGRESSION decoder-0: slack\.p50 = \S+ "
                         r"us \(median of 6: [^)]*\) vs baseline \S+ "
                         r"\(median of 3\): -\d+\.\d%, p=\S+")
        self.assertIn("confirming with 3 more repetitions", r.stdout)
        self.assertIn("still regressed after the re-run", r.stdout)


if __name__ == "__main__":
    unittest.main()
