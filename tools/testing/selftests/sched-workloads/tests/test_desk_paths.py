# SPDX-License-Identifier: GPL-2.0
"""How the binary and the desk's tools find each other (sw_paths.py says
why they are where they are): the binary runs the tools of the tree it
was built in, or of $SCHED_WORKLOADS_DESK; the tools find the collection
from their own place in the tree."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import swtest
import sw_paths

# A desk tool that says where it runs and what it was told
STUB = """import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import sw_paths
    collection = sw_paths.COLLECTION
except ImportError:
    collection = None
print(json.dumps({"file": os.path.abspath(__file__), "argv": sys.argv[1:],
                  "binary": os.environ.get("SW_BINARY"),
                  "collection": collection}))
"""


def run_stub(binary, command, env_desk=None, *args):
    env = dict(swtest.CHILD_ENV)
    env.pop("SCHED_WORKLOADS_DESK", None)
    if env_desk:
        env["SCHED_WORKLOADS_DESK"] = env_desk
    return subprocess.run([binary, command] + list(args), capture_output=True,
                          text=True, timeout=120, env=env)


def same(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


class TestBothSidesAgree(unittest.TestCase):
    def test_the_build_and_the_tools_name_the_same_places(self):
        self.assertTrue(same(sw_paths.DESK, swtest.SCRIPTS))
        self.assertTrue(same(sw_paths.COLLECTION, swtest.COLLECTION))
        self.assertTrue(same(sw_paths.TOP, swtest.TOP))

    def test_a_desk_outside_a_tree_is_refused(self):
        with self.assertRaisesRegex(ImportError, "not a kernel tree's"):
            sw_paths.tree_top("/somewhere/else")


class TestEnvironment(unittest.TestCase):
    """SCHED_WORKLOADS_DESK: the tools of another directory."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-desk-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_override(self):
        # each command's script (bisect's is not bisect.py, which would
        # hide python's own module of that name)
        commands = {"report": "report.py", "history": "history.py",
                    "vm": "vm.py", "kbuild": "kbuild.py",
                    "mutants": "mutants.py", "bisect": "kbisect.py",
                    "series": "series.py", "contribute": "contribute.py"}
        for script in commands.values():
            with open(os.path.join(self.tmp, script), "w") as f:
                f.write(STUB)
        for command, script in commands.items():
            with self.subTest(command=command):
                r = run_stub(swtest.BINARY, command, self.tmp, "-x", "y z")
                self.assertEqual(r.returncode, 0, r.stderr)
                said = json.loads(r.stdout)
                self.assertEqual(said["file"], os.path.join(
                    self.tmp, script))
                self.assertEqual(said["argv"], ["-x", "y z"])
                self.assertTrue(same(said["binary"], swtest.BINARY))

    def test_no_tools_there(self):
        r = run_stub(swtest.BINARY, "report", self.tmp)
        self.assertEqual(r.returncode, swtest.EXIT_SKIP)
        self.assertIn("no report.py in %s" % self.tmp, r.stderr)

    def test_unset_is_the_build_tree(self):
        r = run_stub(swtest.BINARY, "history", None, "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("usage:", r.stdout)


@unittest.skipUnless(os.path.isfile(os.path.join(
    os.path.dirname(swtest.COLLECTION), "lib.mk")),
    "no kselftest harness (make harness)")
class TestTreeCopiedElsewhere(unittest.TestCase):
    """The tree copied, its binary built out of it (O=): the binary runs
    the copy's tools, and they find the copy's collection."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-tree-")
        try:
            cls.top = os.path.join(cls.tmp, "linux")
            cls.copy(swtest.COLLECTION)
            cls.copy(os.path.dirname(swtest.COLLECTION), only=(
                "lib.mk", "kselftest.h", "kselftest_harness.h"))
            cls.desk = cls.copy(swtest.SCRIPTS)
            cls.collection = os.path.join(
                cls.top, os.path.relpath(swtest.COLLECTION, swtest.TOP))
            out = os.path.join(cls.tmp, "out")
            cls.binary = os.path.join(out, "sched-workloads")
            os.makedirs(out)
            env = dict(os.environ)
            for k in ("MAKEFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MFLAGS",
                      "O", "OUTPUT", "KBUILD_OUTPUT", "SW_SOURCE_DIR",
                      "SW_DESK_DIR"):
                env.pop(k, None)
            # unoptimized: what is tested is where it looks, not how fast
            subprocess.run(["make", "-s", "-C", cls.collection,
                            "OUTPUT=" + out, "USERCFLAGS=-O0", cls.binary],
                           check=True, capture_output=True, env=env,
                           timeout=900)
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def copy(cls, src, only=None):
        """@src (a directory of the tree) at its place in the copy: its
        sources, not what was built or run there."""
        dst = os.path.join(cls.top, os.path.relpath(src, swtest.TOP))
        if only:
            os.makedirs(dst, exist_ok=True)
            for name in only:
                shutil.copy2(os.path.join(src, name), dst)
            return dst

        def skip(d, names):
            return [n for n in names if n in ("results", "__pycache__") or
                    os.path.isfile(os.path.join(d, n)) and
                    os.access(os.path.join(d, n), os.X_OK) and
                    not n.endswith((".py", ".sh"))]
        shutil.copytree(src, dst, ignore=skip)
        return dst

    def test_the_copys_tools_run(self):
        with open(os.path.join(self.desk, "history.py"), "w") as f:
            f.write(STUB)
        r = run_stub(self.binary, "history", None, "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        said = json.loads(r.stdout)
        self.assertEqual(said["file"], os.path.join(self.desk, "history.py"))
        self.assertEqual(said["collection"], self.collection)
        self.assertTrue(same(said["binary"], self.binary))

    def test_the_copys_vm_help(self):
        r = run_stub(self.binary, "vm", None, "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--kernel", r.stdout)

    def test_override_beats_the_build(self):
        other = os.path.join(self.tmp, "other")
        os.makedirs(other)
        with open(os.path.join(other, "report.py"), "w") as f:
            f.write(STUB)
        r = run_stub(self.binary, "report", other)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["file"],
                         os.path.join(other, "report.py"))


if __name__ == "__main__":
    unittest.main()
