# SPDX-License-Identifier: GPL-2.0
"""What the guest's root holds (vm_userspace.initramfs()), for the host's
userspace: read back by busybox's cpio."""
import os
import shutil
import subprocess
import tempfile
import unittest

import swtest
import vm_userspace


class Kernel:
    name, config, moddir = "k", None, None


@unittest.skipUnless(shutil.which("busybox") and shutil.which("rt-app"),
                     "needs busybox-static and rt-app")
class TestGuestRoot(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-vm-root-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.us = vm_userspace.Userspace(
            "/", os.path.realpath(swtest.BINARY),
            os.path.realpath(shutil.which("rt-app")),
            os.path.realpath(shutil.which("busybox")), pace=swtest.BINARY)

    def root(self, run_args, **kw):
        """The guest's root unpacked: its directory."""
        blob, mods = vm_userspace.initramfs(Kernel(), self.us, run_args,
                                            "qemu-test", **kw)
        self.assertEqual(mods, [])
        out = tempfile.mkdtemp(dir=self.tmp)
        subprocess.run(["busybox", "cpio", "-id"], input=blob, cwd=out,
                       capture_output=True, check=True)
        return out

    def read(self, root, path):
        with open(os.path.join(root, path)) as f:
            return f.read()

    def test_judging_guest(self):
        baselines = os.path.join(swtest.COLLECTION, "baselines")
        root = self.root(["run", "cfs-yield"], baselines=baselines,
                         calibrate=True, pace=100, cpus=2,
                         workloads=["cfs-yield"])
        for path in ("init", "bin/busybox", "opt/sw/sched-workloads",
                     "usr/bin/rt-app", "opt/sw/vm_pace",
                     "etc/sw/calibrate"):
            self.assertTrue(os.path.isfile(os.path.join(root, path)), path)
        self.assertEqual(os.listdir(os.path.join(root, "opt/sw/workloads")),
                         ["cfs-yield.json"])
        self.assertTrue(os.listdir(os.path.join(root, "opt/sw/baselines")))
        self.assertEqual(self.read(root, "etc/sw/args"), "run\ncfs-yield\n")
        self.assertEqual(self.read(root, "etc/sw/vm"), "qemu-test\n")
        self.assertEqual(self.read(root, "etc/sw/pace"), "100 0 1\n")
        # the binary's libraries, as the loader finds them
        libs = [n for _, _, names in os.walk(root) for n in names]
        self.assertTrue(any(n.startswith("libjson-c") for n in libs), libs)

    def test_recording_guest_with_a_given_workload(self):
        given = os.path.join(self.tmp, "new.json")
        with open(given, "w") as f:
            f.write("{}\n")
        root = self.root(["baseline", given], baselines=None,
                         calibrate=False)
        for path in ("opt/sw/baselines", "etc/sw/calibrate", "etc/sw/pace"):
            self.assertFalse(os.path.exists(os.path.join(root, path)), path)
        self.assertEqual(self.read(root, "etc/sw/args"),
                         "baseline\n/opt/sw/given/1/new.json\n")
        self.assertEqual(self.read(root, "opt/sw/given/1/new.json"), "{}\n")
        self.assertTrue(os.listdir(os.path.join(root, "opt/sw/workloads")))


if __name__ == "__main__":
    unittest.main()
