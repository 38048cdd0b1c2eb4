# SPDX-License-Identifier: GPL-2.0
"""Baseline checks and the A/B comparison, on fixtures.

Expected outcomes are worked out by hand from the rule in judge/compare.h:
a change counts when it exceeds max(rel * |A median|, abs) and is
significant: one-sided Mann-Whitney p <= 0.05 (compare's fallback for a
tail without events: every B value beyond A's range).
"""
import json
import os
import shutil
import tempfile
import unittest

from swtest import (EXIT_BAD_WORKLOAD, EXIT_FAIL, EXIT_PASS, EXIT_USAGE,
                    fixture, ktap_results, sw)


class TestBaselineChecks(unittest.TestCase):
    """logs/basic (one run) against baselines/basic.json (five, format 1).

    One repetition against five can never be significant: the rank test's
    smallest p is then 1/6. Rounds, tails and confirmations are tested on
    recordings in test_protocol.py.
    """

    @classmethod
    def setUpClass(cls):
        cls.r = sw("analyze", "--logs", fixture("logs", "basic"),
                   "--workload", fixture("workloads", "vs-baseline.json"),
                   "--baseline", fixture("baselines", "basic.json"))
        cls.res = {name: (ok, d) for indent, ok, name, d
                   in ktap_results(cls.r.stdout) if indent == 2}

    def test_exit(self):
        self.assertEqual(self.r.returncode, EXIT_PASS, self.r.stdout)

    def test_one_run_cannot_be_significant(self):
        # wu_lat.p50 60 vs 40..44: +43%, below max(21, 10) us anyway.
        ok, _ = self.res["vs-baseline.audio.wu_lat.p50.vs-baseline"]
        self.assertTrue(ok)
        # wu_lat.p90 80 vs 20..24: +264%, beyond the ranges, and still
        # p = 1/6 > 0.05: one run never regresses.
        ok, _ = self.res["vs-baseline.audio.wu_lat.p90.vs-baseline"]
        self.assertTrue(ok)
        self.assertIn("wu_lat.p90 = 80 us vs baseline 22 (median of 5): "
                      "+263.6%, p=0.167, ranges apart", self.r.stdout)

    def test_tail_without_events_in_the_baseline_skips(self):
        # slack.min is a tail, judged on events: a format-1 baseline kept
        # none, so it must be recorded again.
        ok, d = self.res["vs-baseline.audio.slack.min.vs-baseline"]
        self.assertTrue(ok)
        self.assertIn("SKIP", d)
        self.assertIn("the baseline has no events of series slack", d)

    def test_metric_missing_from_baseline_skips(self):
        ok, d = self.res["vs-baseline.hog.run_inflation.p50.vs-baseline"]
        self.assertTrue(ok)
        self.assertIn("SKIP", d)
        self.assertIn("the baseline has no value for it", d)

    def test_no_baseline_skips_baseline_checks(self):
        r = sw("analyze", "--logs", fixture("logs", "basic"),
               "--workload", fixture("workloads", "vs-baseline.json"))
        self.assertEqual(r.returncode, EXIT_PASS, r.stdout)
        skips = [d for indent, ok, name, d in ktap_results(r.stdout)
                 if name.endswith(".vs-baseline")]
        self.assertEqual(len(skips), 5)
        for d in skips:
            self.assertIn("SKIP no baseline given", d)


class TestBaselineValues(unittest.TestCase):
    """A recorded value json-c would read as something else: "1e400" as
    infinity (a bound no run crosses), a string as 0. Found by
    fuzz_results; each must be refused, naming the file and the key."""

    def test_refused(self):
        with open(fixture("baselines", "basic.json")) as f:
            text = f.read()
        for bad in ("1e400", "-1e400", '"41"', "true", "[41]"):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "basic.json")
                with open(path, "w") as f:
                    f.write(text.replace("[ 40, 41,", "[ 40, %s," % bad))
                r = sw("analyze", "--logs", fixture("logs", "basic"),
                       "--workload", fixture("workloads", "vs-baseline.json"),
                       "--baseline", path)
                self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD,
                                 "%s: %s" % (bad, r.stderr))
                self.assertIn("%s: metrics.rtapp_tasks/audio/wu_lat.p50[1]: "
                              "not a finite number or null" % path, r.stderr)


class TestMalformedBaselineChecks(unittest.TestCase):
    CASES = {
        "baseline-no-better.json": "baseline[0].better: missing",
        "baseline-bad-better.json": 'baseline[0].better: "smaller"',
        "baseline-no-threshold.json":
            'baseline[0]: neither "rel" nor "abs" > 0',
        "baseline-unknown-key.json": "baseline[0].max: unknown key",
        "baseline-tail-wrong-way.json":
            'baseline[0].better: wu_lat.p99 is a tail of its events, '
            'judged in one direction: "lower"',
    }

    def test_check(self):
        for name, msg in self.CASES.items():
            with self.subTest(name=name):
                r = sw("check", fixture("workloads", name))
                self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
                self.assertIn(name, r.stderr)
                self.assertIn(msg, r.stderr)


def table(stdout):
    rows = {}
    for line in stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "w":
            rows[f[2]] = (float(f[3]), float(f[4]), f[5], f[7])
    return rows


class TestCompare(unittest.TestCase):
    def test_regression_table_and_exit(self):
        r = sw("compare", fixture("results", "a"), fixture("results", "b"))
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout + r.stderr)
        rows = table(r.stdout)
        # 3 against 3, fully separated: p = 1/20 = 0.05; +90.9% > 50%.
        self.assertEqual(rows["wu_lat.p50"], (11, 21, "+90.9%",
                                              "regression"))
        # Same separation, but no baseline rule: only "changed".
        self.assertEqual(rows["slack.p50"], (101, 151, "+49.5%", "changed"))
        self.assertEqual(rows["passes"][3], "same")
        # A tail: 105..125 does not clear 100..120.
        self.assertEqual(rows["wu_lat.max"][3], "same")
        self.assertIn("1 regressions, 0 improvements, 1 other", r.stdout)

    def test_same_run_passes(self):
        r = sw("compare", fixture("results", "a"), fixture("results", "a"))
        self.assertEqual(r.returncode, EXIT_PASS, r.stdout)
        self.assertIn("0 regressions", r.stdout)

    def test_refuses_other_machine_class(self):
        r = sw("compare", fixture("results", "a"), fixture("results", "c"))
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn('cpus_online differs: "2" vs "4"', r.stderr)
        self.assertIn("--force", r.stderr)
        r = sw("compare", "--force", fixture("results", "a"),
               fixture("results", "c"))
        self.assertEqual(r.returncode, EXIT_FAIL)
        self.assertIn("# warning: different machine classes", r.stdout)

    def test_a_vm_is_another_class(self):
        # a run of "sched-workloads vm": its fingerprint names the VM
        with tempfile.TemporaryDirectory() as tmp:
            b = os.path.join(tmp, "b")
            shutil.copytree(fixture("results", "b"), b)
            with open(os.path.join(b, "fingerprint.json")) as f:
                fp = json.load(f)
            fp["vm"] = "qemu7.2-flat2-icount"
            with open(os.path.join(b, "fingerprint.json"), "w") as f:
                json.dump(fp, f)
            r = sw("compare", fixture("results", "a"), b)
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn('vm differs: "" vs "qemu7.2-flat2-icount"', r.stderr)

    def test_not_a_results_directory(self):
        r = sw("compare", fixture("results", "a"), fixture("logs", "basic"))
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn("fingerprint.json", r.stderr)


if __name__ == "__main__":
    unittest.main()
