# SPDX-License-Identifier: GPL-2.0
"""The layer map (layers.txt) holds on the sources, and its check
(tests/check_layers.py, run by "make style") finds what breaks it: an
upward include, an include beside, a module cycle, an extern in a .c
file, output from a layer that does not write any, and two files of one
directory that use each other. Each is added deliberately to a copy of
the sources, or to a tiny collection made up here."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import check_layers
import swtest

CHECK = os.path.join(swtest.HERE, "check_layers.py")

# A tiny collection: one layer, two files that share one header (so that
# their includes show nothing), each with a helper of the same name.
TINY_A = """#include "lib/shared.h"

static int helper(void)
{
\treturn '{';
}

int a_count(void)
{
\treturn helper()%s;
}
"""
TINY_B = """#include "lib/shared.h"

const struct { int n; } b_table[2] = { { 1 }, { 2 } };

static int helper(void)
{
\treturn 2;
}

/* a_count() is not called from here */
int b_count(const char *why)
{
\treturn helper() + b_table[1].n + (why[0] == '}')%s;
}
"""


def run_check(root):
    return subprocess.run([sys.executable, CHECK, root], capture_output=True,
                          text=True)


class TestLayers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-layers-")
        cls.root = os.path.join(cls.tmp, "c")
        shutil.copytree(swtest.COLLECTION, cls.root, ignore=lambda d, fs: [
            f for f in fs if f in ("tests", "fuzz", "bench", "workloads",
                                   "baselines", "results", ".git")])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.saved = {}

    def tearDown(self):
        for path, text in self.saved.items():
            with open(path, "w") as f:
                f.write(text)

    def append(self, rel, text):
        path = os.path.join(self.root, rel)
        with open(path) as f:
            self.saved.setdefault(path, f.read())
        with open(path, "a") as f:
            f.write(text)

    def test_the_tree_holds(self):
        r = run_check(swtest.COLLECTION)
        self.assertEqual((r.returncode, r.stdout), (0, ""))

    def test_upward_include(self):
        self.append("lib/stats.c", '#include "judge/verdict.h"\n')
        r = run_check(self.root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("lib/stats.c:", r.stdout)
        self.assertIn("lib includes judge/verdict.h, a layer above it",
                      r.stdout)

    def test_include_beside(self):
        self.append("trace/kthreads.c", '#include "rtapp/workload.h"\n')
        r = run_check(self.root)
        self.assertIn("trace includes rtapp/workload.h, a layer beside it",
                      r.stdout)

    def test_cycle(self):
        # lib/stats.h <- lib/util.c would be allowed alone; both ways
        # round is a cycle of two modules of one layer
        self.append("lib/stats.h", '#include "lib/util.h"\n')
        self.append("lib/util.c", '#include "lib/stats.h"\n')
        r = run_check(self.root)
        self.assertIn("cycle of modules: lib/stats -> lib/util", r.stdout)

    def test_extern_in_c(self):
        self.append("judge/verdict.c", "extern int battery_run(void);\n")
        r = run_check(self.root)
        self.assertIn("judge/verdict.c", r.stdout)
        self.assertIn("extern in a .c file", r.stdout)

    def test_output_below_run(self):
        self.append("trace/trace_sched.c",
                    'static void say(void) { printf("x\\n"); }\n')
        r = run_check(self.root)
        self.assertIn("printf in layer trace", r.stdout)
        # in a comment or a string, the word is no output
        self.tearDown()
        self.saved = {}
        self.append("trace/trace_sched.c", '/* printf(stderr) */\n'
                    'static const char *w = "stdout";\n')
        self.assertEqual(run_check(self.root).stdout, "")

    def test_two_way(self):
        # trace_metrics.c reads what trace_read.c fills in, not back; a
        # function pointer is a use as much as a call
        self.append("trace/trace_metrics.c", "static const char *(*back)("
                    "const struct trace_report *) = trace_report_note;\n")
        r = run_check(self.root)
        self.assertIn("trace/trace_metrics.c and trace/trace_read.c use "
                      "each other: trace/trace_metrics.c uses "
                      "trace_report_note of trace/trace_read.c; "
                      "trace/trace_read.c uses ta_classify of "
                      "trace/trace_metrics.c", r.stdout)


class TestTwoWayCalls(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="sw-two-way-")
        os.mkdir(os.path.join(self.root, "lib"))
        self.write("layers.txt", ".   | output | main\nlib |        | all\n")
        self.write("lib/shared.h", "int a_count(void);\n"
                   "int b_count(const char *why);\n")

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text)

    def tiny(self, a_uses, b_uses):
        self.write("lib/a.c", TINY_A % a_uses)
        self.write("lib/b.c", TINY_B % b_uses)

    def test_one_way_passes(self):
        self.tiny(' + b_count("x") + b_table[0].n', "")
        r = run_check(self.root)
        self.assertEqual((r.returncode, r.stdout), (0, ""))

    def test_both_ways_caught(self):
        self.tiny(' + b_count("x") + b_table[0].n', " + a_count()")
        r = run_check(self.root)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "lib/a.c and lib/b.c use each other: "
                         "lib/a.c uses b_count, b_table of lib/b.c; "
                         "lib/b.c uses a_count of lib/a.c\n")

    def test_allowed_pair(self):
        self.tiny(' + b_count("x")', " + a_count()")
        pair = ("lib/a.c", "lib/b.c")
        saved = dict(check_layers.TWO_WAY_ALLOWED)
        try:
            check_layers.TWO_WAY_ALLOWED[pair] = "the split under way"
            self.assertEqual(check_layers.check(self.root), [])
            # once they are one way, the entry must go
            self.tiny(' + b_count("x")', "")
            self.assertEqual(check_layers.check(self.root),
                             ["lib/a.c and lib/b.c no longer use each "
                              "other: remove them from TWO_WAY_ALLOWED"])
        finally:
            check_layers.TWO_WAY_ALLOWED.clear()
            check_layers.TWO_WAY_ALLOWED.update(saved)


if __name__ == "__main__":
    unittest.main()
