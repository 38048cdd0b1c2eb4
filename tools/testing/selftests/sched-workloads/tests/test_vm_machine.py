# SPDX-License-Identifier: GPL-2.0
"""The machine "sched-workloads vm" makes, without booting it: the
architecture read off a kernel image's header, QEMU's command line of
the deterministic mode, and the topology presets: their QEMU options and
the scheduling domains they promise, checked on domains.txt texts as the
guest's /init writes them (cpu, level, name, flags)."""
import argparse
import gzip
import os
import shutil
import tempfile
import unittest
import unittest.mock

import swtest  # noqa: F401 (puts the desk's tools on sys.path)
import vm
import vm_arch
import vm_dtb
import vm_qemu
import vm_topology

# Read from Debian 6.1 arm64 guests of QEMU 7.2 (virt, cortex-a57) on
# QEMU's own device tree: no cache shared, no MC level
NO_LLC = """\
cpu0 domain0 DIE SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK \
SD_WAKE_AFFINE SD_PREFER_SIBLING
cpu1 domain0 DIE SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK \
SD_WAKE_AFFINE SD_PREFER_SIBLING
"""
# the same CPUs sharing a cache, as 6.1 and 6.12 name its flag
FLAT2 = NO_LLC.replace("DIE SD_BALANCE_NEWIDLE", "MC SD_BALANCE_NEWIDLE "
                       "SD_SHARE_PKG_RESOURCES")
FLAT2_612 = NO_LLC.replace("DIE SD_BALANCE_NEWIDLE", "MC SD_BALANCE_NEWIDLE "
                           "SD_SHARE_LLC")


def smt_domains(cpus, smt):
    """@cpus CPUs, with an SMT level below MC when @smt."""
    lines = []
    for c in range(cpus):
        level = 0
        if smt:
            lines.append("cpu%d domain0 SMT SD_BALANCE_NEWIDLE "
                         "SD_SHARE_CPUCAPACITY SD_SHARE_PKG_RESOURCES" % c)
            level = 1
        lines.append("cpu%d domain%d MC SD_BALANCE_NEWIDLE "
                     "SD_SHARE_PKG_RESOURCES" % (c, level))
    return "\n".join(lines) + "\n"


def numa_domains(cpus):
    return "".join("cpu%d domain0 MC SD_SHARE_PKG_RESOURCES\n"
                   "cpu%d domain1 NUMA SD_BALANCE_NEWIDLE SD_NUMA\n"
                   % (c, c) for c in range(cpus))


class TestPresets(unittest.TestCase):
    def test_named_presets(self):
        self.assertEqual(vm_topology.preset("smt2x2").cpus, 4)
        self.assertEqual(vm_topology.preset("numa2x4").cpus, 8)
        self.assertEqual(vm_topology.preset("flat2").cpus, 2)
        self.assertEqual(vm_topology.preset("flat6").smp,
                         "6,sockets=1,cores=6,threads=1")
        for bad in ("flat0", "flat", "smt", "numa2x4 ", "flat100"):
            self.assertIsNone(vm_topology.preset(bad), bad)

    def test_numa_nodes_split_cpus_and_memory(self):
        args = vm_topology.preset("numa2x4").qemu_args(2048)
        self.assertEqual(args[:2], ["-smp", "8,sockets=2,cores=4,threads=1"])
        self.assertIn("memory-backend-ram,id=mem1,size=1024M", args)
        self.assertIn("node,nodeid=0,cpus=0-3,memdev=mem0", args)
        self.assertIn("node,nodeid=1,cpus=4-7,memdev=mem1", args)
        self.assertEqual(vm_topology.preset("smt2x2").qemu_args(2048),
                         ["-smp", "4,sockets=1,cores=2,threads=2"])

    def test_promises_kept(self):
        p = vm_topology.preset
        self.assertIsNone(vm_topology.broken_promise(p("flat2"), FLAT2, 2))
        self.assertIsNone(vm_topology.broken_promise(p("flat2"), FLAT2_612,
                                                     2))
        # one CPU: no domain, nothing promised of one
        self.assertIsNone(vm_topology.broken_promise(p("flat1"), "", 1))
        self.assertIsNone(vm_topology.broken_promise(
            p("smt2x2"), smt_domains(4, True), 4))
        self.assertIsNone(vm_topology.broken_promise(
            p("numa2x4"), numa_domains(8), 8))

    def test_promises_broken(self):
        p = vm_topology.preset
        # QEMU made the threads cores: no SMT level
        self.assertEqual(vm_topology.broken_promise(
            p("smt2x2"), smt_domains(4, False), 4),
            "cpu0 has no SD_SHARE_CPUCAPACITY level (its domains: MC)")
        self.assertEqual(vm_topology.broken_promise(
            p("numa2x4"), smt_domains(8, False), 8),
            "cpu0 has no SD_NUMA level (its domains: MC)")
        self.assertEqual(vm_topology.broken_promise(
            p("flat2"), smt_domains(2, True), 2),
            "cpu0 has a SD_SHARE_CPUCAPACITY level (its domains: SMT/MC)")
        self.assertEqual(vm_topology.broken_promise(p("flat2"), FLAT2, 1),
                         "1 CPUs online, 2 promised")
        # QEMU's device tree without a cache: select_idle_sibling() has
        # no LLC to look in
        self.assertEqual(vm_topology.broken_promise(p("flat2"), NO_LLC, 2),
                         "cpu0 has no SD_SHARE_PKG_RESOURCES/SD_SHARE_LLC "
                         "level (its domains: DIE)")
        self.assertEqual(vm_topology.broken_promise(
            p("numa2x4"), numa_domains(8).replace(
                "SD_SHARE_PKG_RESOURCES", ""), 8),
            "cpu0 has no SD_SHARE_PKG_RESOURCES/SD_SHARE_LLC level (its "
            "domains: MC/NUMA)")
        # a kernel without sched_verbose shows no domains at all
        self.assertRegex(vm_topology.broken_promise(p("smt2x2"), "", 4),
                         r"^scheduling domains of 0 CPUs read")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


class TestImageArch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def image(self, name, offset, magic, gz=False):
        data = bytearray(4096)
        data[offset:offset + len(magic)] = magic
        data = gzip.compress(bytes(data)) if gz else bytes(data)
        return write(os.path.join(self.tmp.name, name), data)

    def test_headers(self):
        # the boot protocol's "HdrS" at 0x202; arm64's magic at 0x38
        self.assertEqual(vm_arch.image_arch(
            self.image("bzImage", 0x202, b"HdrS")), "x86_64")
        self.assertEqual(vm_arch.image_arch(
            self.image("Image", 0x38, b"ARM\x64")), "aarch64")
        self.assertEqual(vm_arch.image_arch(
            self.image("Image.gz", 0x38, b"ARM\x64", gz=True)), "aarch64")
        self.assertIsNone(vm_arch.image_arch(
            self.image("junk", 0x38, b"ARM\x65")))
        self.assertIsNone(vm_arch.image_arch(
            write(os.path.join(self.tmp.name, "short"), b"HdrS")))


def options(**kw):
    a = argparse.Namespace(deterministic=False, memory=2048,
                           topology=vm_topology.preset("flat2"))
    for k, v in kw.items():
        setattr(a, k, v)
    return a


class TestQemuArgv(unittest.TestCase):
    def argv(self, arch, accel, **kw):
        return vm.qemu_argv(vm_arch.ARCHES[arch], "Q", "K", "I", "D", "C",
                            accel, options(**kw))

    def test_deterministic_pins_what_varies(self):
        argv = self.argv("aarch64", "tcg", deterministic=True)
        joined = " ".join(argv)
        self.assertIn("-icount shift=0,sleep=off,align=off", joined)
        self.assertIn("-rtc base=2020-01-01,clock=vm", joined)
        self.assertIn("virt,dtb-randomness=off", argv)
        self.assertEqual(argv[argv.index("-cpu") + 1], "cortex-a57")
        append = argv[argv.index("-append") + 1]
        self.assertIn("nokaslr", append.split())
        self.assertIn("norandmaps", append.split())
        self.assertIn("console=ttyAMA0", append.split())

    def test_not_deterministic(self):
        argv = self.argv("x86_64", "tcg")
        self.assertNotIn("-icount", argv)
        self.assertEqual(argv[argv.index("-cpu") + 1], "max")
        self.assertEqual(argv[argv.index("-smp") + 1],
                         "2,sockets=1,cores=2,threads=1")
        argv = self.argv("x86_64", "kvm")
        self.assertEqual(argv[argv.index("-cpu") + 1], "host")

    def test_monitor(self):
        # none unless asked; a hung guest's is read by vm_hang
        argv = self.argv("aarch64", "tcg", deterministic=True)
        self.assertEqual(argv[argv.index("-monitor") + 1], "none")
        argv = vm.qemu_argv(vm_arch.ARCHES["aarch64"], "Q", "K", "I", "D",
                            "C", "tcg", options(deterministic=True), "/w/m")
        self.assertEqual(argv[argv.index("-monitor") + 1],
                         "unix:/w/m,server=on,wait=off")

    def test_vm_name(self):
        flat2 = vm_topology.preset("flat2")
        self.assertEqual(vm.vm_name("7.2", flat2, "tcg", True),
                         "qemu7.2-flat2-icount")
        self.assertEqual(vm.vm_name("7.2", flat2, "kvm", False),
                         "qemu7.2-flat2-kvm")
        self.assertEqual(vm.vm_name("10.0", flat2, "tcg", True, 100),
                         "qemu10.0-flat2-pace100-icount")

    def test_pace(self):
        a = vm.parse_args(["--kernel", "K", "--deterministic"])
        self.assertEqual(a.pace, vm.PACE_US)
        a = vm.parse_args(["--kernel", "K"])
        self.assertEqual(a.pace, 0)
        a = vm.parse_args(["--kernel", "K", "--deterministic", "--pace",
                           "0"])
        self.assertEqual(a.pace, 0)


class TestQemuVersion(unittest.TestCase):
    """What a QEMU binary says of its version, read as vm_qemu does, and
    which versions give every vCPU a turn under icount (8.1 and later)."""

    def qemu(self, text, code=0):
        d = tempfile.mkdtemp(prefix="sw-qemu-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "qemu-system-aarch64")
        with open(path, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n%sEOF\nexit %d\n" % (text, code))
        os.chmod(path, 0o755)
        return vm_qemu.probe(path)

    def test_debian_versions(self):
        q = self.qemu("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+"
                      "deb13u1~bpo12+1)\nCopyright (c) 2003-2025\n")
        self.assertEqual((q.version, q.full),
                         ("10.0", "Debian 1:10.0.2+ds-2+deb13u1~bpo12+1"))
        self.assertTrue(vm_qemu.fair(q))
        q = self.qemu("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+"
                      "deb12u18+b3)\n")
        self.assertEqual(q.version, "7.2")
        self.assertFalse(vm_qemu.fair(q))
        q = self.qemu("QEMU emulator version 8.1.0\n")
        self.assertEqual((q.version, q.full), ("8.1", "8.1.0"))
        self.assertTrue(vm_qemu.fair(q))

    def test_not_a_qemu(self):
        self.assertIsNone(self.qemu("something else\n"))
        self.assertIsNone(self.qemu("QEMU emulator version 10.0.2\n", 1))
        self.assertIsNone(vm_qemu.probe("/nonexistent/qemu"))


class TestOptions(unittest.TestCase):
    def test_topology(self):
        a = vm.parse_args(["--kernel", "K"])
        self.assertEqual(a.topology.name, "flat2")
        a = vm.parse_args(["--kernel", "K", "--cpus", "3"])
        self.assertEqual(a.topology.name, "flat3")
        a = vm.parse_args(["--kernel", "K", "--topology", "smt2x2"])
        self.assertEqual(a.topology.cpus, 4)
        self.assertEqual(len(vm.parse_args(
            ["--kernel", "A", "--kernel", "B"]).kernel), 2)

    def test_refused(self):
        for argv in (["--topology", "ring9"],
                     ["--cpus", "2", "--topology", "flat2"],
                     ["--kernel", "B", "--kernel", "C"],
                     ["--deterministic", "--accel", "kvm"]):
            with self.assertRaises(SystemExit, msg=argv):
                with open(os.devnull, "w") as null:
                    err, vm.sys.stderr = vm.sys.stderr, null
                    try:
                        vm.parse_args(["--kernel", "K"] + argv)
                    finally:
                        vm.sys.stderr = err

    def test_run_arguments(self):
        a = vm.parse_args(["--kernel", "K", "--", "run", "-n", "1"])
        self.assertEqual(a.run_args, ["run", "-r", "/results", "-n", "1"])
        # what the guest records comes back through its results disk
        a = vm.parse_args(["--kernel", "K", "--", "baseline", "cfs-yield"])
        self.assertEqual(a.run_args, ["baseline", "-B", "/results/baselines",
                                      "-r", "/results", "cfs-yield"])
        a = vm.parse_args(["--kernel", "K", "--", "check", "w.json"])
        self.assertEqual(a.run_args, ["check", "w.json"])


if __name__ == "__main__":
    unittest.main()


class TestABWorkDirectories(unittest.TestCase):
    """An A/B gives each kernel's boots a work directory of their own:
    a split battery makes boot-N directories in it, and B's met A's
    (FileExistsError after A's whole battery)."""

    def test_each_kernel_its_own(self):
        seen = []

        def run_guest(a, g, work, out):
            os.makedirs(os.path.join(work, "boot-1"))  # as run_split does
            seen.append(work)
            return 0, (self.tmp if len(seen) == 1 else None)

        class Guest:
            kernel = argparse.Namespace(name="k")

        with tempfile.TemporaryDirectory() as work, \
                tempfile.TemporaryDirectory() as self.tmp, \
                unittest.mock.patch.object(vm, "run_guest", run_guest), \
                unittest.mock.patch("sys.stdout"):
            vm.a_b(None, [Guest(), Guest()], work)
        self.assertEqual(len(seen), 2)
        self.assertNotEqual(seen[0], seen[1])


@unittest.skipUnless(shutil.which("qemu-system-aarch64") and
                     not vm_dtb.missing_tool(),
                     "needs qemu-system-aarch64 and %s" % vm_dtb.PACKAGE)
class TestDeviceTreeCaches(unittest.TestCase):
    """QEMU's own device tree for each preset, given a cache per socket:
    which CPUs name which cache is read back with fdtget."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dtb = os.path.join(self.tmp.name, "machine.dtb")

    def tearDown(self):
        self.tmp.cleanup()

    def argv(self, name):
        # what vm boots, minus the kernel: QEMU makes its tree all the same
        return (["qemu-system-aarch64", "-nodefaults", "-display", "none",
                 "-machine", "virt,dtb-randomness=off", "-cpu", "cortex-a57",
                 "-m", "1024"] +
                vm_topology.preset(name).qemu_args(1024))

    def cache_of(self, cpu):
        """The node of the cache /cpus/cpu@@cpu names as its next."""
        handle = vm_dtb._run("fdtget", "-t", "x", self.dtb,
                             "/cpus/cpu@%x" % cpu, "next-level-cache")
        for n in vm_dtb.subnodes(self.dtb, "/cpus"):
            path = "/cpus/" + n
            if "phandle" in vm_dtb._run("fdtget", "-p", self.dtb,
                                        path).split() and \
                    vm_dtb._run("fdtget", "-t", "x", self.dtb, path,
                                "phandle") == handle:
                return n
        return None

    def test_one_cache_per_socket(self):
        for name, sockets in (("flat2", [[0, 1]]),
                              ("smt2x2", [[0, 1, 2, 3]]),
                              ("numa2x4", [[0, 1, 2, 3], [4, 5, 6, 7]])):
            argv = vm_dtb.machine_dtb(self.argv(name), self.dtb)
            self.assertEqual(argv[-2:], ["-dtb", self.dtb])
            for s, cpus in enumerate(sockets):
                for c in cpus:
                    self.assertEqual(self.cache_of(c),
                                     "l2-cache-socket%d" % s, (name, c))
            cache = "/cpus/l2-cache-socket0"
            self.assertEqual(vm_dtb._run("fdtget", self.dtb, cache,
                                         "cache-level").strip(), "2")
            self.assertEqual(vm_dtb._run("fdtget", self.dtb, cache,
                                         "compatible").strip(), "cache")

    def test_not_a_device_tree_or_not_qemus(self):
        shutil.copy(vm_dtb.__file__, self.dtb)
        with self.assertRaises(vm_dtb.DtbError):
            vm_dtb.add_socket_caches(self.dtb)
        bad = self.argv("flat2")
        bad[bad.index("-cpu") + 1] = "no-such-cpu"
        with self.assertRaisesRegex(vm_dtb.DtbError,
                                    "QEMU dumping its device tree"):
            vm_dtb.machine_dtb(bad, self.dtb)
