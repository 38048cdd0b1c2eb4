#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the sched-workloads tests: every test_*.py beside this file.

    run_tests.py [--unit | --live] [-k PATTERN]

Unit tests run the checkers on fixtures; live tests run the real rt-app
on the running kernel (root needed, else they skip) and take
/tmp/sched-workloads-live.lock so that no two live runs overlap. The last
line is "N passed, N failed, N skipped".
"""
import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


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

    flat = unittest.TestSuite()

    def walk(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            elif wanted(t):
                flat.addTest(t)
    walk(suite)

    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(flat)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed or not res.testsRun else 0


if __name__ == "__main__":
    sys.exit(main())
