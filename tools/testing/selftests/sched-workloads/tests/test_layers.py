# SPDX-License-Identifier: GPL-2.0
"""The layer map (layers.txt) holds on the sources, and its check
(tests/check_layers.py, run by "make style") finds what breaks it: an
upward include, an include beside, a module cycle, an extern in a .c
file, and output from a layer that does not write any. Each is added
deliberately to a copy of the sources."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import swtest

CHECK = os.path.join(swtest.HERE, "check_layers.py")


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


if __name__ == "__main__":
    unittest.main()
