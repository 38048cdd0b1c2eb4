# SPDX-License-Identifier: GPL-2.0
"""lab/facts.py: the python3 programs take the binary's facts from
"sched-workloads --facts", so that each has one owner in the C. The exit
code the binary gives in a case is the one its name has in python3, the
canary's figures are metrics of the registry, and --help lists the same
exit codes."""
import os
import re
import tempfile
import unittest

import facts
from swtest import fixture, sw


class TestExitCodes(unittest.TestCase):
    def test_binary_exits_with_the_named_codes(self):
        with tempfile.TemporaryDirectory() as tmp:
            garbage = os.path.join(tmp, "trace.dat")
            with open(garbage, "w") as f:
                f.write("not a trace\n")
            cases = [
                ("PASS", ["check", fixture("workloads", "all-pass.json")]),
                ("FAIL", ["compare", fixture("results", "a"),
                          fixture("results", "b")]),
                ("USAGE", ["no-such-command"]),
                ("BAD_WORKLOAD", ["check",
                                  fixture("workloads", "bad-json.json")]),
                ("BAD_LOG", ["analyze", "--logs",
                             fixture("logs", "truncated")]),
                ("BAD_TRACE", ["analyze", "--trace", garbage,
                               "--all-cpus"]),
                ("BAD_RESULTS", ["index", tmp]),
            ]
            for name, argv in cases:
                with self.subTest(name=name):
                    r = sw(*argv, timeout=120)
                    self.assertEqual(r.returncode,
                                     getattr(facts, "EXIT_" + name),
                                     r.stderr)

    def test_python_and_c_agree_on_a_bad_result_directory(self):
        """index (C) and export (lab/kcidb.py) on the same directory."""
        with tempfile.TemporaryDirectory() as tmp:
            c = sw("index", tmp, timeout=60)
            py = sw("export", "--kcidb", tmp, timeout=60)
        self.assertEqual(c.returncode, facts.EXIT_BAD_RESULTS)
        self.assertEqual(py.returncode, c.returncode, py.stderr)

    def test_help_lists_the_codes(self):
        r = sw("--help", timeout=30)
        text = " ".join(r.stdout.split("Exit:", 1)[1].split())
        listed = [int(n) for n in re.findall(r"(?:^|, )(\d+) ", text)]
        codes = facts.load()["exit_codes"]
        self.assertEqual(listed, sorted(codes.values()))
        self.assertEqual(len(set(codes.values())), len(codes))

    def test_unknown_name(self):
        with self.assertRaises(AttributeError):
            facts.EXIT_NO_SUCH_CODE


class TestCanary(unittest.TestCase):
    def test_machine_figures_are_canary_metrics(self):
        listed = {}
        for line in sw("metrics", timeout=30).stdout.splitlines():
            name, unit, source = line.split()[:3]
            listed[name] = (unit, source)
        figures = facts.canary_machine()
        self.assertTrue(figures)
        for metric, unit in figures:
            with self.subTest(metric=metric):
                self.assertEqual(listed.get(metric), (unit, "canary"))


if __name__ == "__main__":
    unittest.main()
