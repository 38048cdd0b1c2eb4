#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the sched-workloads tests: every test_*.py beside this file.

    run_tests.py [--unit | --live] [-k PATTERN]

Unit tests run the checkers on fixtures; live tests run the real rt-app
on the running kernel (root needed, else they skip) and take
/tmp/sched-workloads-live.lock so that no two live runs overlap. Each
live test class must leave the machine as it found it (tracing, the
scheduler's sysctls, cgroups, no rt-app left): a change is one more
failure. Before them, the tracing instances of runs that are gone (a run
killed with SIGKILL) are removed, as every run does. The last line is
"N passed, N failed, N skipped".
"""
import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class MachineState(unittest.TestCase):
    """The check that follows a live test class: it fails, naming what
    changed, when the class left the machine other than it found it."""

    def __init__(self, after, changes):
        super().__init__()
        self.after, self.changes = after, changes

    def __str__(self):
        return "machine state after %s" % self.after

    def runTest(self):
        self.assertFalse(self.changes, "left changed:\n  " +
                         "\n  ".join(self.changes))


class GuardedRun:
    """Runs each test class as a suite of its own, so that its class
    set-up and tear-down run inside it; each live class is followed by
    its MachineState check."""

    def __init__(self, groups):
        self.groups = groups

    def countTestCases(self):
        return sum(g.countTestCases() for _, g in self.groups)

    def __call__(self, result):
        import swtest
        for live, group in self.groups:
            # read the class before the group runs: unittest's TestSuite
            # drops each test (sets it to None) once it has run
            cls = type(group._tests[0])
            name = "%s.%s" % (cls.__module__, cls.__qualname__)
            uses_top = getattr(cls, "TOP_BUFFER_USED", False)
            before = swtest.machine_state() if live else None
            group(result)
            # each group ran as a whole run: its class is torn down, and
            # the next group must not tear it down again (unittest keeps
            # the last class in this attribute across runs)
            result._previousTestClass = None
            if live:
                MachineState(name, swtest.state_changes(
                    before, swtest.machine_state(), uses_top))(result)
        return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unit", action="store_true", help="unit tests only")
    ap.add_argument("--live", action="store_true", help="live tests only")
    ap.add_argument("-k", dest="pattern", help="only tests matching")
    args = ap.parse_args()

    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    if args.pattern:
        loader.testNamePatterns = ["*%s*" % args.pattern]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)

    def wanted(test):
        live = getattr(test, "LIVE", False)
        return not ((args.unit and live) or (args.live and not live))

    groups = []     # (live, suite of one test class), in order

    def walk(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            elif wanted(t):
                live = getattr(t, "LIVE", False)
                if not groups or groups[-1][1]._tests[0].__class__ is not \
                        t.__class__:
                    groups.append((live, unittest.TestSuite()))
                groups[-1][1].addTest(t)
    walk(suite)
    if any(live for live, _ in groups) and os.geteuid() == 0:
        import swtest
        for name in swtest.sweep_stale_instances():
            print("# removed tracing instance %s: its run is gone" % name)

    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(
        GuardedRun(groups))
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed or not res.testsRun else 0


if __name__ == "__main__":
    sys.exit(main())
