# SPDX-License-Identifier: GPL-2.0
"""sched-workloads kbuild without building a kernel: the mirror of a tree
(a tree of its own here, a few files) never writes the tree, carries a
patch, and gives the next build every file the last one's patch changed
as newer than its objects; the config fragments' wanted options and
those that did not take; what a tree or tarball that is not one gets."""
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import unittest
import unittest.mock

import swtest  # noqa: F401 (puts the desk's tools on the path)
import kbuild
import kbuild_source

CORE = "kernel/sched/core.c"


def patch_text(path, old, new):
    """A unified diff changing line @old of @path into @new, as git
    writes it (a/ and b/ prefixes)."""
    return ("--- a/%s\n+++ b/%s\n@@ -1,2 +1,2 @@\n %s\n-%s\n+%s\n"
            % (path, path, "first", old, new))


class Tree:
    """A kernel tree as far as kbuild_source looks: a top Makefile and
    kernel/sched/core.c."""

    def __init__(self, top):
        self.top = top
        os.makedirs(os.path.join(top, "kernel", "sched"))
        with open(os.path.join(top, "Makefile"), "w") as f:
            f.write("# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n"
                    "EXTRAVERSION =\nNAME = x\n")
        self.write(CORE, "first\nsecond\n")
        # an in-tree build's leftovers, which the mirror leaves out
        self.write(".config", "CONFIG_X=y\n")
        self.write("kernel/sched/core.o", "obj")

    def write(self, path, text):
        with open(os.path.join(self.top, path), "w") as f:
            f.write(text)

    def state(self):
        """{path: (text, mtime, inode)} of every file of the tree."""
        out = {}
        for d, _, names in os.walk(self.top):
            for n in names:
                p = os.path.join(d, n)
                st = os.stat(p)
                with open(p) as f:
                    out[os.path.relpath(p, self.top)] = (
                        f.read(), st.st_mtime_ns, st.st_ino)
        return out


@unittest.skipUnless(shutil.which("rsync") and shutil.which("patch"),
                     "needs rsync and patch")
class TestMirror(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-kbuild-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tree = Tree(os.path.join(self.tmp, "linux"))
        self.dest = os.path.join(self.tmp, "mirror")
        self.patch = os.path.join(self.tmp, "m.patch")
        with open(self.patch, "w") as f:
            f.write("Mutant: m\nMechanism: a test's\n\n" +
                    patch_text(CORE, "second", "mutated"))

    def read(self, path):
        with open(os.path.join(self.dest, path)) as f:
            return f.read()

    def test_patch_goes_to_the_mirror_only(self):
        before = self.tree.state()
        kbuild_source.mirror(self.tree.top, self.dest, [self.patch])
        self.assertEqual(self.read(CORE), "first\nmutated\n")
        self.assertEqual(self.tree.state(), before)
        # an in-tree build's state stays out: kbuild's O= build refuses it
        self.assertFalse(os.path.exists(os.path.join(self.dest, ".config")))
        self.assertFalse(os.path.exists(os.path.join(
            self.dest, "kernel/sched/core.o")))

    def test_the_build_after_a_patch_recompiles_its_files(self):
        kbuild_source.mirror(self.tree.top, self.dest, [self.patch])
        patched = os.stat(os.path.join(self.dest, CORE)).st_mtime_ns
        # the objects of the mutant's build, made after its patch
        time.sleep(0.05)
        built = time.time_ns()
        time.sleep(0.05)
        before = self.tree.state()
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertEqual(self.read(CORE), "first\nsecond\n")
        self.assertEqual(self.tree.state(), before)
        mtime = os.stat(os.path.join(self.dest, CORE)).st_mtime_ns
        self.assertGreater(mtime, built, "make would keep the mutant's "
                           "object of %s" % CORE)
        self.assertGreater(mtime, patched)
        # and once rebuilt, nothing is newer than its objects again
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertEqual(self.read(CORE), "first\nsecond\n")

    def test_unchanged_files_are_links_to_the_tree(self):
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertEqual(os.stat(os.path.join(self.dest, "Makefile")).st_ino,
                         os.stat(os.path.join(self.tree.top,
                                              "Makefile")).st_ino)

    def test_a_change_to_the_tree_reaches_the_mirror(self):
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.tree.write("kernel/sched/fair.c", "new\n")
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertEqual(self.read("kernel/sched/fair.c"), "new\n")
        os.unlink(os.path.join(self.tree.top, "kernel/sched/fair.c"))
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertFalse(os.path.exists(os.path.join(
            self.dest, "kernel/sched/fair.c")))

    def test_a_patch_that_does_not_apply(self):
        bad = os.path.join(self.tmp, "bad.patch")
        with open(bad, "w") as f:
            f.write(patch_text(CORE, "not there", "x"))
        before = self.tree.state()
        with self.assertRaises(kbuild_source.SourceError) as e:
            kbuild_source.mirror(self.tree.top, self.dest, [bad])
        self.assertEqual(e.exception.code, 2)
        self.assertIn("%s does not apply to %s" % (bad, self.tree.top),
                      str(e.exception))
        self.assertEqual(self.tree.state(), before)
        # what it half did is undone by the next build
        kbuild_source.mirror(self.tree.top, self.dest, [])
        self.assertEqual(self.read(CORE), "first\nsecond\n")

    def test_not_a_diff(self):
        junk = os.path.join(self.tmp, "junk.patch")
        with open(junk, "w") as f:
            f.write("no diff here\n")
        with self.assertRaises(kbuild_source.SourceError) as e:
            kbuild_source.patched_files(junk)
        self.assertIn("%s: not a unified diff" % junk, str(e.exception))


class TestTrees(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-kbuild-test-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_release(self):
        tree = Tree(os.path.join(self.tmp, "linux"))
        self.assertEqual(kbuild_source.release_of(tree.top), "6.1.192")

    def test_not_a_tree(self):
        with self.assertRaises(kbuild_source.SourceError) as e:
            kbuild_source.tree_of(self.tmp, self.tmp)
        self.assertEqual(e.exception.code, 2)
        self.assertIn("not a kernel source tree", str(e.exception))
        with self.assertRaises(kbuild_source.SourceError) as e:
            kbuild_source.tree_of(os.path.join(self.tmp, "none"), self.tmp)
        self.assertIn("no such kernel tree or tarball", str(e.exception))

    def test_tarball_extracted_once(self):
        tree = Tree(os.path.join(self.tmp, "src", "linux-source-6.1"))
        tarball = os.path.join(self.tmp, "linux-source-6.1.tar.xz")
        with tarfile.open(tarball, "w:xz") as t:
            t.add(tree.top, arcname="linux-source-6.1")
        cache = os.path.join(self.tmp, "cache")
        top = kbuild_source.tree_of(tarball, cache)
        self.assertEqual(top, os.path.join(cache, "sources",
                                           "linux-source-6.1",
                                           "linux-source-6.1"))
        self.assertTrue(kbuild_source.is_kernel_tree(top))
        stamp = os.stat(os.path.join(top, CORE)).st_mtime_ns
        self.assertEqual(kbuild_source.tree_of(tarball, cache), top)
        self.assertEqual(os.stat(os.path.join(top, CORE)).st_mtime_ns,
                         stamp)

    def test_tarball_without_a_tree(self):
        tarball = os.path.join(self.tmp, "other.tar")
        with open(os.path.join(self.tmp, "x"), "w") as f:
            f.write("x")
        subprocess.run(["tar", "-cf", tarball, "-C", self.tmp, "x"],
                       check=True)
        with self.assertRaises(kbuild_source.SourceError) as e:
            kbuild_source.tree_of(tarball, os.path.join(self.tmp, "c"))
        self.assertIn("%s: no kernel tree in it" % tarball, str(e.exception))


class TestFragments(unittest.TestCase):
    def test_every_fragment_exists_and_asks(self):
        for arch in kbuild.KARCH:
            want = kbuild.wanted(kbuild.fragments(arch))
            # what the guest cannot boot or the battery cannot run without
            for opt in ("CONFIG_SMP", "CONFIG_BLK_DEV_INITRD",
                        "CONFIG_FTRACE", "CONFIG_CGROUPS",
                        "CONFIG_FILE_LOCKING", "CONFIG_DEBUG_FS"):
                self.assertEqual(want.get(opt), "y", (arch, opt))
            self.assertEqual(want["CONFIG_VIRTIO_BLK"], "m")
            self.assertEqual(want["CONFIG_LOCALVERSION_AUTO"], "n")

    def test_not_taken(self):
        want = {"CONFIG_A": "y", "CONFIG_B": "m", "CONFIG_C": "n",
                "CONFIG_D": "y", "CONFIG_E": "64"}
        got = {"CONFIG_A": "y", "CONFIG_B": "y", "CONFIG_E": "32"}
        self.assertEqual(kbuild.not_taken(want, got),
                         ["CONFIG_B=m (got y)", "CONFIG_D=y (got n)",
                          "CONFIG_E=64 (got 32)"])

    def test_local_version(self):
        self.assertEqual(kbuild.local_version(None, []), "-sw")
        self.assertEqual(kbuild.local_version(
            None, ["/x/01-fair-wakeup.patch"]), "-sw-01-fair-wakeup")
        self.assertEqual(kbuild.local_version("a b/c", []), "-a-b-c")


if __name__ == "__main__":
    unittest.main()


class TestTools(unittest.TestCase):
    def test_missing_named_with_their_package(self):
        which, exists = shutil.which, os.path.exists
        gone = ("bison", "aarch64-linux-gnu-gcc")
        with unittest.mock.patch.object(
                kbuild.shutil, "which",
                lambda t: None if t in gone else which(t)), \
                unittest.mock.patch.object(
                    kbuild.os.path, "exists",
                    lambda p: not p.endswith("/gelf.h") and exists(p)):
            self.assertEqual(kbuild.missing_tools("aarch64"), [
                "bison (Debian package bison)",
                "aarch64-linux-gnu-gcc (Debian package "
                "gcc-aarch64-linux-gnu)"])
            # objtool, which an x86_64 build makes, reads ELF with libelf
            self.assertIn("gelf.h (Debian package libelf-dev)",
                          kbuild.missing_tools("x86_64"))
