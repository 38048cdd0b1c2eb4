# SPDX-License-Identifier: GPL-2.0
"""The rt-app log parser and its metrics, on hand-written logs.

Expected values are worked out by hand from the fixture rows (the
percentile is nearest-rank: sample ceil(p/100 * N) of the sorted N), and
written down here with the working, not taken from the tool's output.
"""
import json
import unittest

from swtest import (EXIT_BAD_LOG, EXIT_PASS, fixture, sw)


def metrics_of(logdir):
    r = sw("analyze", "--logs", fixture("logs", logdir))
    if r.returncode != EXIT_PASS:
        raise AssertionError("analyze failed: %s" % r.stderr)
    return json.loads(r.stdout)["rtapp_tasks"]


class TestBasicLogs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = metrics_of("basic")

    def test_entities(self):
        self.assertEqual(sorted(self.m), ["audio", "hog"])
        self.assertEqual(self.m["audio"]["group"], "audio")
        self.assertEqual(self.m["hog"]["group"], "hog")

    def test_passes_and_first_pass_apart(self):
        a = self.m["audio"]
        self.assertEqual(a["passes"], 6)
        # The first row: slack 8000, wu_lat 50; kept out of the series.
        self.assertEqual(a["first.slack"], 8000)
        self.assertEqual(a["first.wu_lat"], 50)

    def test_slack(self):
        # Steady slack: 7000 -500 8500 6000 -100
        # sorted: -500 -100 6000 7000 8500
        a = self.m["audio"]
        self.assertEqual(a["slack.min"], -500)
        self.assertEqual(a["slack.p50"], 6000)     # rank ceil(2.5) = 3
        self.assertEqual(a["slack.p10"], -500)     # rank ceil(0.5) = 1
        self.assertEqual(a["slack.p1"], -500)
        self.assertAlmostEqual(a["slack.mean"], 20900 / 5)
        self.assertEqual(a["missed_periods"], 2)
        self.assertAlmostEqual(a["slack.negative_share"], 0.4)

    def test_wu_lat(self):
        # wu_lat 80 300 60 40 1000, but the passes with slack -500 and
        # -100 did not sleep: 80 60 40 -> sorted 40 60 80
        a = self.m["audio"]
        self.assertEqual(a["wu_lat.p50"], 60)      # rank ceil(1.5) = 2
        self.assertEqual(a["wu_lat.p90"], 80)      # rank ceil(2.7) = 3
        self.assertEqual(a["wu_lat.p99"], 80)
        self.assertEqual(a["wu_lat.max"], 80)
        self.assertAlmostEqual(a["wu_lat.mean"], 60)

    def test_run_inflation(self):
        # run / c_duration: 1.1 2.0 1.0 1.2 1.0 -> 1.0 1.0 1.1 1.2 2.0
        a = self.m["audio"]
        self.assertAlmostEqual(a["run_inflation.p50"], 1.1)
        self.assertAlmostEqual(a["run_inflation.max"], 2.0)
        self.assertAlmostEqual(a["run_inflation.mean"], 6.3 / 5)

    def test_period_jitter(self):
        # |period - 10000|: 0 500 200 0 100 -> 0 0 100 200 500
        a = self.m["audio"]
        self.assertEqual(a["period_jitter.p50"], 100)
        self.assertEqual(a["period_jitter.p90"], 500)
        self.assertEqual(a["period_jitter.max"], 500)

    def test_rate(self):
        # perf / run: 90.9 25 100 83.3 80 -> 25 80 83.3 90.9 100
        a = self.m["audio"]
        self.assertAlmostEqual(a["rate.p50"], 100000 / 1200)
        self.assertAlmostEqual(a["rate.p10"], 25)

    def test_task_without_timer(self):
        # No c_period: no slack, wu_lat or jitter, never "missed".
        h = self.m["hog"]
        self.assertEqual(h["passes"], 3)
        self.assertIsNone(h["slack.min"])
        self.assertIsNone(h["wu_lat.p50"])
        self.assertIsNone(h["period_jitter.max"])
        self.assertEqual(h["missed_periods"], 0)
        # Steady run / c_duration: 1.5 1.0 -> p50 rank 1 = 1.0
        self.assertAlmostEqual(h["run_inflation.p50"], 1.0)
        self.assertAlmostEqual(h["run_inflation.max"], 1.5)


class TestStartup(unittest.TestCase):
    """The first pass and its catch-up passes are the start-up.

    Every task has c_period 10000; the spare time of a period is
    c_period - c_duration (6000 but for "full"). The backlog left by the
    first pass is its lateness (-slack); a following overrun is catch-up
    when it ends no later than the backlog left, which then shrinks to
    min(backlog - spare, its own lateness).
    """
    @classmethod
    def setUpClass(cls):
        cls.m = metrics_of("startup")

    def test_catchup_passes(self):
        # late: backlog 8000; pass 2 (3000 <= 8000) -> min(2000, 3000);
        # pass 3 (1500 <= 2000) -> min(-4000, 1500); pass 4 (-500) is
        # beyond it: steady slack -500 2000 -100
        t = self.m["late"]
        self.assertEqual(t["startup.passes"], 3)
        self.assertEqual(t["first.slack"], -8000)
        self.assertEqual(t["missed_periods"], 2)
        self.assertEqual(t["slack.min"], -500)
        self.assertEqual(t["slack.p50"], -100)
        self.assertEqual(t["wu_lat.max"], 30)

    def test_pass_that_slept_ends_startup(self):
        t = self.m["ontime"]
        self.assertEqual(t["startup.passes"], 1)
        self.assertEqual(t["missed_periods"], 1)

    def test_later_than_the_backlog_is_steady(self):
        # 9000 > 8000: the second pass is late on its own account
        t = self.m["runaway"]
        self.assertEqual(t["startup.passes"], 1)
        self.assertEqual(t["missed_periods"], 2)

    def test_no_spare_time_no_catchup(self):
        t = self.m["full"]
        self.assertEqual(t["startup.passes"], 1)
        self.assertEqual(t["missed_periods"], 1)


class TestDutyStep(unittest.TestCase):
    """step.missed_periods: overruns from the first doubling of c_duration
    (after the start-up) until a pass met its period."""
    @classmethod
    def setUpClass(cls):
        cls.m = metrics_of("step")

    def test_overruns_until_on_time(self):
        # 1000 x3, then 9000: -500 -200 (counted) 600 (settled) -100
        t = self.m["duty"]
        self.assertEqual(t["step.missed_periods"], 2)
        self.assertEqual(t["missed_periods"], 3)

    def test_no_step(self):
        self.assertIsNone(self.m["flat"]["step.missed_periods"])
        # 1000 -> 1500 is no doubling
        self.assertIsNone(self.m["small"]["step.missed_periods"])

    def test_step_after_a_late_start(self):
        # backlog 30000; -25000 -> min(21000, 25000); -20000 -> 12000;
        # the first heavy pass (-19000) is beyond it: start-up 3 passes,
        # and the step's overruns never end
        t = self.m["starved"]
        self.assertEqual(t["startup.passes"], 3)
        self.assertEqual(t["missed_periods"], 3)
        self.assertEqual(t["step.missed_periods"], 3)

    def test_first_step_only(self):
        # 1000 -> 3000 is the step, met at once; 3000 -> 9000 comes after
        self.assertEqual(self.m["second"]["step.missed_periods"], 0)


class TestUpstreamFlavour(unittest.TestCase):
    """Tabs, an extra column: columns are found by name."""

    def test_values(self):
        c = metrics_of("upstream")["cam"]
        self.assertEqual(c["passes"], 3)
        self.assertEqual(c["first.slack"], 15000)
        # Steady slack 14000 -1000; wu_lat 30 (the overrun pass's 900
        # is no wakeup); run/c 1.25 2.0
        self.assertEqual(c["slack.min"], -1000)
        self.assertEqual(c["slack.p50"], -1000)    # rank ceil(1) = 1
        self.assertEqual(c["missed_periods"], 1)
        self.assertEqual(c["wu_lat.max"], 30)
        self.assertAlmostEqual(c["run_inflation.p50"], 1.25)
        self.assertAlmostEqual(c["rate.p50"], 50 / 4000)


class TestInstances(unittest.TestCase):
    """Threads are named per task, not by rt-app's index in the file.

    logs/instances: rt-app-lead-0 (4 passes), rt-app-crew-1, -2, -3 (1,
    2 and 3 passes: three instances of task "crew"), rt-app-tail-4 (5).
    """

    def test_names(self):
        m = metrics_of("instances")
        self.assertEqual(sorted(m), ["crew", "crew-0", "crew-1", "crew-2",
                                     "lead", "tail"])
        # instance k of crew is rt-app's thread 1 + k: k + 1 passes
        for k in range(3):
            self.assertEqual(m["crew-%d" % k]["passes"], k + 1)
            self.assertEqual(m["crew-%d" % k]["group"], "crew")
        self.assertEqual(m["lead"]["passes"], 4)
        self.assertEqual(m["tail"]["passes"], 5)
        self.assertEqual(m["tail"]["group"], "tail")
        self.assertNotIn("pooled", m["tail"])

    def test_pooled(self):
        # "crew": the passes of its three threads as one. Steady state
        # (the first pass of each thread is its start-up): crew-1 slack
        # 7000 wu_lat 80 run 1100/1000; crew-2 the same, then slack -500
        # (no wu_lat: it never slept) and run 2000/1000.
        c = metrics_of("instances")["crew"]
        self.assertIs(c["pooled"], True)
        self.assertEqual(c["group"], "crew")
        self.assertEqual(c["passes"], 6)
        self.assertEqual(c["startup.passes"], 3)
        self.assertEqual(c["slack.p50"], 7000)     # rank 2 of -500 7000 7000
        self.assertEqual(c["slack.min"], -500)
        self.assertEqual(c["missed_periods"], 1)
        self.assertAlmostEqual(c["slack.negative_share"], 1 / 3)
        self.assertEqual(c["wu_lat.p50"], 80)
        self.assertAlmostEqual(c["run_inflation.p50"], 1.1)
        self.assertAlmostEqual(c["run_inflation.max"], 2.0)
        self.assertIsNone(c["first.slack"])


class TestEmptySeries(unittest.TestCase):
    def test_header_only(self):
        i = metrics_of("header-only")["idle"]
        self.assertEqual(i["passes"], 0)
        self.assertIsNone(i["first.slack"])
        self.assertIsNone(i["slack.p50"])


class TestBadLogs(unittest.TestCase):
    def bad(self, logdir, *words):
        r = sw("analyze", "--logs", fixture("logs", logdir))
        self.assertEqual(r.returncode, EXIT_BAD_LOG, r.stderr)
        self.assertEqual(r.stdout, "")
        for w in words:
            self.assertIn(w, r.stderr)

    def test_truncated(self):
        self.bad("truncated", "rt-app-audio-0.log:4:", "truncated")

    def test_foreign(self):
        self.bad("foreign", "rt-app-dmesg-0.log:1:", "not an rt-app log")

    def test_wrong_column_count(self):
        self.bad("badcols", "rt-app-t-0.log:3:", "expected 11 numeric columns")

    def test_empty_file(self):
        self.bad("empty", "rt-app-t-0.log:1:", "file empty")

    def test_no_logs(self):
        self.bad("../workloads", "no rt-app log")

    def test_missing_directory(self):
        r = sw("analyze", "--logs", fixture("logs", "does-not-exist"))
        self.assertEqual(r.returncode, EXIT_BAD_LOG)
        self.assertIn("does-not-exist", r.stderr)


if __name__ == "__main__":
    unittest.main()
