# SPDX-License-Identifier: GPL-2.0
"""The runner's machine-state check around live test classes
(run_tests.GuardedRun), on a stand-in for swtest.machine_state()."""
import io
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import run_tests
import swtest


def sample_classes():
    """A live class of two tests and a unit class, made here so that the
    loader does not run them as tests of their own."""
    class Leaves(unittest.TestCase):
        LIVE = True
        torn_down = 0

        @classmethod
        def tearDownClass(cls):
            cls.torn_down += 1

        def test_a(self):
            pass

        def test_b(self):
            pass

    class Unit(unittest.TestCase):
        def test_c(self):
            pass
    return Leaves, Unit


class TestGuardedRun(unittest.TestCase):
    def run_groups(self, states):
        Leaves, Unit = sample_classes()
        live = unittest.TestSuite([Leaves("test_a"), Leaves("test_b")])
        groups = [(True, live), (False, unittest.TestSuite([Unit("test_c")]))]
        result = unittest.TextTestResult(io.StringIO(), True, 0)
        with mock.patch.object(swtest, "machine_state",
                               side_effect=states) as state:
            run_tests.GuardedRun(groups)(result)
        # once before and once after the live class, not per test, and
        # never around a unit class
        self.assertEqual(state.call_count, 2)
        # its class set-up and tear-down inside, and only once
        self.assertEqual(Leaves.torn_down, 1)
        return result

    def test_unchanged_passes(self):
        s = {"instances": [], "sysctls": {"x": "1"}}
        r = self.run_groups([s, dict(s)])
        self.assertEqual((r.testsRun, r.failures), (4, []))

    def test_change_fails_naming_it(self):
        r = self.run_groups([{"instances": [], "sysctls": {"x": "1"}},
                             {"instances": ["left"], "sysctls": {"x": "2"}}])
        self.assertEqual(r.testsRun, 4)
        self.assertEqual(len(r.failures), 1)
        test, text = r.failures[0]
        self.assertEqual(str(test),
                         "machine state after test_machine_state."
                         "sample_classes.<locals>.Leaves")
        self.assertIn("instances: [] -> ['left']", text)
        self.assertIn("x: '1' -> '2'", text)


class TestTopBufferExpansion(unittest.TestCase):
    """The top-level buffer after boot reads "7 (expanded: 1408)" and,
    once anything traces in it, "1410" (whole pages): the first make test
    after boot failed so, blaming the class whose own set-up traces there
    (test_live_battery.TestStarterBattery). A class that says it uses the
    buffer is not blamed for its expansion; any other change still is.
    Neither state is made here (only a reboot gives the first back): the
    values are those the kernel printed."""

    def changes(self, before, after, used=True):
        return swtest.state_changes({"tracing": {"buffer_size_kb": before}},
                                    {"tracing": {"buffer_size_kb": after}},
                                    used)

    def test_expansion_by_its_user(self):
        self.assertEqual(self.changes("7 (expanded: 1408)", "1410"), [])
        self.assertEqual(self.changes("7 (expanded: 1408)", "1408"), [])

    def test_runner_passes_the_class_attribute(self):
        """Through the runner's real path (GuardedRun), which must read
        TOP_BUFFER_USED before the class runs: unittest's TestSuite drops
        each test once it has run, and the runner once read the attribute
        from the dropped test (False), so the first make test after boot
        failed although state_changes was right."""
        class UsesTop(unittest.TestCase):
            LIVE = True
            TOP_BUFFER_USED = True

            def test_traces(self):
                pass

        states = [{"tracing": {"buffer_size_kb": "7 (expanded: 1408)"}},
                  {"tracing": {"buffer_size_kb": "1410"}}]
        result = unittest.TextTestResult(io.StringIO(), True, 0)
        with mock.patch.object(swtest, "machine_state", side_effect=states):
            run_tests.GuardedRun([(True, unittest.TestSuite(
                [UsesTop("test_traces")]))])(result)
        self.assertEqual((result.testsRun, result.failures), (2, []))

    def test_named_otherwise(self):
        self.assertEqual(self.changes("7 (expanded: 1408)", "1410", False),
                         ["buffer_size_kb: '7 (expanded: 1408)' -> '1410'"])
        # resized, not expanded: a size set by someone
        self.assertTrue(self.changes("7 (expanded: 1408)", "32768"))
        self.assertTrue(self.changes("1410", "4096"))
        self.assertTrue(self.changes("7 (expanded: 1408)", "7"))


class TestSweepStaleInstances(unittest.TestCase):
    """What a killed run left is removed before the live tests, by the
    rule of capture_sweep_stale(): the tool's prefix and a PID that is
    gone; anything else is left as found."""

    def test_only_dead_runs_instances(self):
        p = subprocess.Popen(["true"])
        p.wait()
        dead = "sched-workloads-%d" % p.pid
        alive = "sched-workloads-%d" % os.getpid()
        with tempfile.TemporaryDirectory() as tracefs:
            names = [dead, alive, "sched-workloads-x1", "other-7"]
            for n in names:
                os.makedirs(os.path.join(tracefs, "instances", n))
            self.assertEqual(swtest.sweep_stale_instances(tracefs), [dead])
            self.assertEqual(sorted(os.listdir(os.path.join(tracefs,
                                                            "instances"))),
                             sorted(names[1:]))
