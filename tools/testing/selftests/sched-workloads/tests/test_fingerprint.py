# SPDX-License-Identifier: GPL-2.0
"""The machine fingerprint, against what Python reads of the machine."""
import json
import os
import re
import tempfile
import unittest

from swtest import CHILD_ENV, EXIT_PASS, sw


def cpuinfo_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return line.split(":", 1)[1].split()
    return []


class TestFingerprint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = sw("fingerprint", "-c", "17")
        cls.fp = json.loads(cls.r.stdout)

    def test_runs(self):
        self.assertEqual(self.r.returncode, EXIT_PASS, self.r.stderr)

    def test_class_says_what_it_is(self):
        arch = os.uname().machine
        cpus = os.sysconf("SC_NPROCESSORS_ONLN")
        vm = "hypervisor" in cpuinfo_flags()
        self.assertEqual(self.fp["arch"], arch)
        self.assertEqual(self.fp["cpus_online"], cpus)
        self.assertEqual(self.fp["virtualized"], vm)
        self.assertRegex(self.fp["class"], r"^%s-%dcpu-[a-z0-9-]+%s$"
                         % (re.escape(arch), cpus, "-vm" if vm else ""))

    def test_kernel_part(self):
        self.assertEqual(self.fp["kernel_release"], os.uname().release)
        self.assertEqual(self.fp["calibration"], 17)
        if os.path.exists("/proc/config.gz"):
            self.assertGreater(self.fp["hz"], 0)
            self.assertIn(self.fp["preempt"],
                          ("none", "voluntary", "full", "lazy", "rt"))

    def fingerprint_in_vm(self, vm):
        r = sw("fingerprint", "-c", "17",
               env=dict(CHILD_ENV, SCHED_WORKLOADS_VM=vm))
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        return json.loads(r.stdout)

    def test_a_vm_is_part_of_the_class(self):
        # what sched-workloads vm sets in its guests
        fp = self.fingerprint_in_vm("qemu7.2-flat2-icount")
        self.assertEqual(fp["vm"], "qemu7.2-flat2-icount")
        self.assertEqual(fp["class"],
                         self.fp["class"] + "-qemu7.2-flat2-icount")
        self.assertNotIn("vm", self.fp)

    def test_a_vm_name_that_cannot_be_a_file_name_is_ignored(self):
        for bad in ("qemu 7.2", "../x", "QEMU", "x" * 48):
            fp = self.fingerprint_in_vm(bad)
            self.assertNotIn("vm", fp, bad)
            self.assertEqual(fp["class"], self.fp["class"], bad)

    def test_made_by(self):
        # what sched-workloads vm writes for a deterministic guest: kept
        # whole, and rt-app's version read from its userspace
        made = {"commit": "0" * 40, "dirty": False,
                "userspace": {"rt-app": "1.0-1", "libc6": "2.36-9"},
                "qemu": "Debian 1:10.0.2"}
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(made, f)
            f.flush()
            r = sw("fingerprint", "-c", "17",
                   env=dict(CHILD_ENV, SCHED_WORKLOADS_MADE_BY=f.name))
        fp = json.loads(r.stdout)
        self.assertEqual(fp["made_by"], made)
        self.assertEqual(fp["rtapp"], "1.0-1")
        self.assertNotIn("made_by", self.fp)
        self.assertEqual(fp["class"], self.fp["class"])

    def test_made_by_not_an_object_is_ignored(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write("[1, 2")
            f.flush()
            r = sw("fingerprint", "-c", "17",
                   env=dict(CHILD_ENV, SCHED_WORKLOADS_MADE_BY=f.name))
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertNotIn("made_by", json.loads(r.stdout))


if __name__ == "__main__":
    unittest.main()
