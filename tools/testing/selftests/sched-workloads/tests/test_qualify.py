# SPDX-License-Identifier: GPL-2.0
"""Live: a short qualification of this machine class.

"sched-workloads qualify" records baselines and runs K batteries against
them; here K = 2 batteries of one one-second workload, into temporary
directories. Asserted is what holds every time: a row per result with
its counts adding up to K, the record written beside the baselines it
recorded, the batteries' KTAP kept. Whether the batteries passed is the
machine's business: the exit code only has to agree with the report.
"""
import json
import os
import re
import shutil
import tempfile
import unittest

from swtest import EXIT_FAIL, EXIT_PASS, fixture, live_lock, sw

IS_ROOT = os.geteuid() == 0
WORKLOAD = fixture("workloads", "short-periodic.json")
RESULTS = {"short-periodic.tick.passes",
           "short-periodic.tick.wu_lat.p50.vs-baseline",
           "short-periodic.tick.slack.p50.vs-baseline",
           "short-periodic.system.kthread.cpu_share"}


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestShortQualification(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-qualify-")
        with live_lock():
            cls.r = sw("qualify", "-k", "2", "-m", "3", "-n", "3", "-g", "1",
                       "-B", cls.tmp, "-r", cls.tmp, WORKLOAD, timeout=600)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def rows(self):
        out = {}
        for line in self.r.stdout.splitlines():
            f = line.split()
            if len(f) >= 5 and f[0] in RESULTS:
                out[f[0]] = tuple(int(x) for x in f[1:4])
        return out

    def test_a_row_per_result(self):
        rows = self.rows()
        self.assertEqual(set(rows), RESULTS, self.r.stdout)
        for name, (ok, bad, skip) in rows.items():
            self.assertEqual(ok + bad + skip, 2, name)

    def test_exit_agrees_with_report(self):
        m = re.search(r"# qualification of (\S+): 2 batteries, (\d) without "
                      r"a failure", self.r.stdout)
        self.assertIsNotNone(m, self.r.stdout + self.r.stderr)
        clean = int(m.group(2))
        self.assertEqual(self.r.returncode,
                         EXIT_PASS if clean == 2 else EXIT_FAIL)

    def test_record_and_baseline_written(self):
        cls = re.search(r"# qualifying (\S+):", self.r.stdout).group(1)
        base = os.path.join(self.tmp, cls, "short-periodic.json")
        with open(base) as f:
            b = json.load(f)
        self.assertEqual(b["repetitions"], 3)
        self.assertTrue(b["canary"], "the baseline keeps its canaries")
        with open(os.path.join(self.tmp, cls, "qualification.json")) as f:
            q = json.load(f)
        self.assertEqual(q["batteries"], 2)
        self.assertEqual(set(q["checks"]), RESULTS)
        # two batteries of at least 3 repetitions (more when split)
        passes = q["checks"]["short-periodic.tick.passes"]
        self.assertGreaterEqual(passes["reps"], 6)
        self.assertLessEqual(passes["beyond"], passes["reps"])
        # a baseline check's first rounds: one a battery unless skipped;
        # it drifts when both regressed (binomial p = (2/56)^2; one of
        # two is p = 0.07, as likely on a quiet machine)
        for name in RESULTS:
            c = q["checks"][name]
            if not name.endswith(".vs-baseline"):
                self.assertNotIn("first_rounds", c, name)
                continue
            rounds = c.get("first_rounds", 0)
            self.assertLessEqual(rounds, 2, name)
            self.assertGreaterEqual(rounds, 2 - c["skip"], name)
            self.assertLessEqual(c.get("regressed", 0), rounds, name)
            self.assertEqual(c.get("drifts", False),
                             c.get("regressed", 0) == 2, name)

    def test_batteries_kept(self):
        runs = [d for d in os.listdir(self.tmp) if d.startswith("qualify-")]
        self.assertEqual(len(runs), 1)
        d = os.path.join(self.tmp, runs[0])
        for name in ("baseline.ktap", "battery-1.ktap", "battery-2.ktap"):
            self.assertTrue(os.path.getsize(os.path.join(d, name)) > 0, name)


if __name__ == "__main__":
    unittest.main()
