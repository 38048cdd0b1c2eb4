# SPDX-License-Identifier: GPL-2.0
"""Live: a regression injected on purpose is found, confirmed, explained.

A baseline of fixtures/workloads/throttled-decoder.json (periodic-light's
decoder and player) is recorded into a temporary directory; then the
tool runs it inside a cgroup whose CFS bandwidth is 1 ms per 10 ms: the
kernel now throttles the pair (it wants 15% of a CPU) the way a
scheduler bug that starves it would, so the decoder overruns its
periods. What must hold every time, and is asserted:
 - the absolute check on missed periods fails;
 - the median slack is a regression against the baseline, confirmed in
   three rounds (5 s apart here: the test is about the protocol, the
   battery's default gap is 60 s), with the numbers of each round, the
   canary of each round and the settings that differ from the
   baseline's (the cgroup's quota);
 - the confirmation rounds do not wait when there is other work: with
   two light workloads after it in the throttled run, the decoder's
   round 2 runs between their first rounds, once its gap has passed;
 - both hold on a slower host too: the threads' lost time on a CPU
   says it is the kernel (TestRecordedSlowHost in test_protocol.py);
 - clean runs before and after name the same results (whether a clean
   run passes is the qualification's business, not a test's: a noisy
   machine may fail it, and nothing here depends on it).
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from swtest import (BINARY, CHILD_ENV, EXIT_FAIL, fixture, ktap_results,
                    live_lock, sw)

IS_ROOT = os.geteuid() == 0
RESULTS = "/tmp/sched-workloads-live-tests"
WORKLOAD = fixture("workloads", "throttled-decoder.json")
FILLERS = [fixture("workloads", "throttled-filler-%s.json" % x)
           for x in "ab"]
GAP = "5"
CGROUP_ROOT = "/sys/fs/cgroup/cpu"


def subtests(stdout):
    return {name: ok for indent, ok, name, _ in ktap_results(stdout)
            if indent == 2}


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
        args = ["-n", "3", "-g", GAP, "-B", cls.tmp, "-r", RESULTS, WORKLOAD]
        with live_lock():
            cls.record = sw("baseline", *args, timeout=300)
            cls.clean_before = sw("run", *args, timeout=300)
            cls.injected = run_throttled(
                os.path.join(CGROUP_ROOT, "sw-inject-%d" % os.getpid()),
                "run", *(args + FILLERS))
            cls.clean_after = sw("run", *args, timeout=300)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_baseline_recorded(self):
        self.assertIn("baseline of 3 repetitions written", self.record.stdout,
                      self.record.stdout)

    def test_clean_runs_name_every_result(self):
        want = {"throttled-decoder.decoder.missed_periods",
                "throttled-decoder.decoder.slack.p50.vs-baseline",
                "throttled-decoder.decoder.wu_lat.p50.vs-baseline",
                "throttled-decoder.system.kthread.cpu_share"}
        for r in (self.clean_before, self.clean_after):
            self.assertEqual(set(subtests(r.stdout)), want, r.stdout)

    def test_injection_fails_the_absolute_check(self):
        r = self.injected
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        self.assertFalse(subtests(r.stdout)[
            "throttled-decoder.decoder.missed_periods"], r.stdout)

    def test_injection_regresses_in_three_rounds(self):
        r = self.injected
        self.assertFalse(subtests(r.stdout)[
            "throttled-decoder.decoder.slack.p50.vs-baseline"], r.stdout)
        self.assertRegex(r.stdout, r"REGRESSION decoder: slack\.p50 = -?\S+ "
                         r"us \(median of 3: [^)]*\) vs baseline \S+ "
                         r"\(median of 3\): -\d+\.\d%, p=\S+")
        self.assertRegex(r.stdout, r"still there in round 2 at \+\d+ s: "
                         r"-?\S+ us, -\d+\.\d%, p=\S+ and round 3 at \+\d+ s")
        self.assertIn("round 2: judging", r.stdout)
        self.assertIn("round 3: judging", r.stdout)

    def test_confirmation_between_first_rounds(self):
        # filler-a's first round (3 x 2 s) outlasts the 5 s gap: the
        # decoder's round 2 is due before filler-b's first round starts.
        out = self.injected.stdout
        confirm = out.find("throttled-decoder: round 2: judging")
        filler_a = out.find("# throttled-filler-a: rt-app ran")
        filler_b = out.find("# throttled-filler-b: rt-app ran")
        self.assertTrue(0 <= filler_a < confirm < filler_b, out)
        self.assertNotIn("throttled-decoder: waiting", out[:filler_b])

    def test_regression_shows_canary_and_settings(self):
        line = [ln for ln in self.injected.stdout.splitlines()
                if ln.startswith("  # REGRESSION decoder: slack.p50")]
        self.assertEqual(len(line), 1, self.injected.stdout)
        self.assertIn("canary of round 1:", line[0])
        self.assertIn("canary of round 3:", line[0])
        self.assertRegex(line[0], r"settings differ from the baseline's: "
                         r".*cgroup\.cpu\.cfs_quota_us -1 -> 1000")


if __name__ == "__main__":
    unittest.main()
