# SPDX-License-Identifier: GPL-2.0
"""sched-workloads bisect, what it refuses before it builds anything: no
workloads, a tree that is not a kernel's or not git's, a commit git does
not know; each with exit 2 and the reason."""
import os
import shutil
import subprocess
import tempfile
import unittest

import swtest


def bisect(*args):
    return swtest.sw("bisect", *args, timeout=120)


@unittest.skipUnless(shutil.which("git"), "needs git")
class TestRefused(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-bisect-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        # a kernel tree as far as bisect looks, a commit in its git
        os.makedirs(os.path.join(self.tmp, "kernel", "sched"))
        for path in ("Makefile", "kernel/sched/core.c"):
            with open(os.path.join(self.tmp, path), "w") as f:
                f.write("x\n")

    def git(self, *args):
        subprocess.run(["git", "-C", self.tmp, "-c", "user.name=t", "-c",
                        "user.email=t@example.org"] + list(args),
                       check=True, capture_output=True)

    def test_no_workloads(self):
        r = bisect("--good", "a", "--bad", "b", self.tmp)
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stderr)
        self.assertIn("the workloads that regressed, after --", r.stderr)

    def test_not_a_git_tree(self):
        r = bisect("--good", "a", "--bad", "b", self.tmp, "--", "w")
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stderr)
        self.assertIn("%s: not a git tree" % self.tmp, r.stderr)

    def test_not_a_kernel_tree(self):
        os.unlink(os.path.join(self.tmp, "kernel", "sched", "core.c"))
        r = bisect("--good", "a", "--bad", "b", self.tmp, "--", "w")
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stderr)
        self.assertIn("%s: not a kernel source tree" % self.tmp, r.stderr)

    def test_unknown_commit(self):
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "one")
        r = bisect("--good", "HEAD", "--bad", "nosuchref", self.tmp, "--",
                   "w")
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stderr)
        self.assertIn("git rev-parse --verify nosuchref^{commit}", r.stderr)
        # and no worktree was made of it
        r = subprocess.run(["git", "-C", self.tmp, "worktree", "list"],
                           capture_output=True, text=True)
        self.assertEqual(len(r.stdout.splitlines()), 1, r.stdout)


if __name__ == "__main__":
    unittest.main()
