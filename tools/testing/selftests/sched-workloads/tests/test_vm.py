# SPDX-License-Identifier: GPL-2.0
"""sched-workloads vm, live: Debian's own 6.1 kernel (the package
apt-get downloads, extracted, never installed) booted under TCG, one
short workload run in the guest, the KTAP and the run directory back on
the host, the host left as found. Skips, saying why, where QEMU,
busybox-static or the package cannot be had.

The outcomes that need no QEMU (a missing kernel, a guest that panics or
never boots) are tested with stand-ins for the kernel."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import swtest
import breaker  # after swtest, which puts the desk's tools on the path
import kbuild
import vm_arch
import vm_topology

IS_ROOT = os.geteuid() == 0
CACHE = os.path.join(os.path.expanduser("~/.cache"), "sched-workloads",
                     "vm-tests")
WORKLOAD = "cfs-yield"


def debian_kernel(arch="amd64"):
    """A Debian linux-image .deb of Debian architecture @arch, downloaded
    into the cache once; None when apt cannot get one."""
    os.makedirs(CACHE, exist_ok=True)
    pattern = os.path.join(CACHE, "linux-image-*_%s.deb" % arch)
    have = sorted(glob.glob(pattern))
    if have:
        return have[-1]
    r = subprocess.run(["apt-cache", "depends",
                        "linux-image-%s:%s" % (arch, arch)],
                       capture_output=True, text=True)
    pkgs = [line.split(":", 1)[1].strip() for line in r.stdout.splitlines()
            if line.strip().startswith("Depends: linux-image-")]
    if r.returncode or not pkgs:
        return None
    pkg = pkgs[0] if ":" in pkgs[0] else "%s:%s" % (pkgs[0], arch)
    r = subprocess.run(["apt-get", "download", pkg], cwd=CACHE,
                       capture_output=True, text=True)
    have = glob.glob(pattern)
    return have[0] if r.returncode == 0 and have else None


def qemu_left(kernel):
    """Whether a QEMU booting @kernel (a path, or a part of one) runs."""
    r = subprocess.run(["pgrep", "-f", "qemu-system.* -kernel [^ ]*%s"
                        % re.escape(kernel)], capture_output=True)
    return bool(r.stdout.strip())


def sw_vm(*args, timeout=1200):
    """vm with @args; past @timeout stopped as kselftest stops a test
    (SIGTERM: vm takes its QEMU and its files with it) and failed with
    what it printed."""
    p = subprocess.Popen([swtest.BINARY, "vm"] + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True,
                         env=dict(os.environ, SW_BINARY=swtest.BINARY))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.terminate()
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        raise AssertionError("vm %s ran past %d s:\n%s%s"
                             % (" ".join(args), timeout, out, err))
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


class TestOutcomes(unittest.TestCase):
    """Without QEMU's guest: what vm says of what it was given."""

    def test_no_such_kernel(self):
        r = sw_vm("--kernel", "/nonexistent/bzImage")
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stdout + r.stderr)
        self.assertIn("/nonexistent/bzImage: no such kernel image", r.stderr)

    @unittest.skipIf(kbuild.missing_tools(vm_arch.host_arch()),
                     "needs what sched-workloads kbuild needs")
    def test_a_source_tree_that_does_not_build(self):
        # a kernel tree as far as vm looks, whose Makefile make refuses:
        # vm builds it first (kbuild), and says the build failed
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "linux")
            os.makedirs(os.path.join(tree, "kernel", "sched"))
            for path in ("Makefile", "kernel/sched/core.c"):
                with open(os.path.join(tree, path), "w") as f:
                    f.write("not make's\n")
            r = subprocess.run(
                [swtest.BINARY, "vm", "--kernel", tree, "-r", tmp],
                capture_output=True, text=True, timeout=300,
                env=dict(os.environ, SW_BINARY=swtest.BINARY,
                         XDG_CACHE_HOME=os.path.join(tmp, "cache")))
        self.assertEqual(r.returncode, swtest.EXIT_RUN_ERROR,
                         r.stdout + r.stderr)
        self.assertIn("# vm: building %s for %s (sched-workloads kbuild)"
                      % (tree, vm_arch.host_arch()), r.stderr)
        self.assertIn("sched-workloads vm: %s: make tinyconfig failed"
                      % tree, r.stderr)

    @unittest.skipUnless(shutil.which("qemu-system-x86_64") and
                         shutil.which("busybox"),
                         "needs qemu-system-x86 and busybox-static")
    def test_not_a_kernel_image(self):
        with tempfile.TemporaryDirectory() as tmp:
            junk = os.path.join(tmp, "bzImage")
            with open(junk, "wb") as f:
                f.write(b"\0" * 4096)
            r = sw_vm("--kernel", junk, "-r", tmp)
        self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stdout + r.stderr)
        self.assertIn("%s: not a kernel image (neither an x86_64 bzImage "
                      "nor an arm64 Image)" % junk, r.stderr)

    @unittest.skipUnless(shutil.which("qemu-system-x86_64") and
                         shutil.which("busybox"),
                         "needs qemu-system-x86 and busybox-static")
    def test_a_kernel_that_does_not_boot(self):
        tmp = tempfile.mkdtemp(prefix="sw-vm-test-")
        try:
            # a bzImage by its header, nothing behind it
            junk = os.path.join(tmp, "bzImage")
            data = bytearray(4096)
            data[0x202:0x206] = b"HdrS"
            with open(junk, "wb") as f:
                f.write(bytes(data))
            r = sw_vm("--kernel", junk, "--accel", "tcg", "--boot-timeout",
                      "10", "-r", tmp, timeout=120)
            self.assertNotEqual(r.returncode, 0, r.stdout)
            self.assertRegex(r.stdout, r"not ok 1 vm-bzImage # (QEMU "
                             r"failed|the guest did not reach its /init)")
            self.assertFalse(qemu_left(junk))
        finally:
            shutil.rmtree(tmp)

    def spinning_image(self):
        """An arm64 Image by its header whose code is zeros: the first
        CPU takes an undefined instruction, then another at its vector,
        for ever; the guest never reaches its /init."""
        missing = [t for t in ("qemu-system-aarch64", "aarch64-linux-gnu-gcc")
                   if not shutil.which(t)]
        if missing:
            self.skipTest("not found: %s (qemu-system-arm, "
                          "gcc-aarch64-linux-gnu)" % ", ".join(missing))
        tmp = tempfile.mkdtemp(prefix="sw-vm-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        image = os.path.join(tmp, "Image")
        data = bytearray(65536)
        data[0x38:0x3c] = b"ARM\x64"
        with open(image, "wb") as f:
            f.write(bytes(data))
        return tmp, image

    def test_a_stuck_guest_says_where_its_cpus_are(self):
        tmp, image = self.spinning_image()
        r = sw_vm("--kernel", image, "--boot-timeout", "5", "-r", tmp,
                  timeout=300)
        self.assertEqual(r.returncode, swtest.EXIT_RUN_ERROR,
                         r.stdout + r.stderr)
        # each CPU read through QEMU's monitor; a bare image has no
        # System.map to name the addresses with
        self.assertRegex(r.stdout, r"not ok 1 vm-Image # the guest did not "
                         r"reach its /init in 5(\.0)? s; its CPUs: cpu0 in "
                         r"0x[0-9a-f]+ \d+(, .*)? of 16 reads, cpu1 in "
                         r"0x[0-9a-f]+ \d+(, .*)? of 16 reads; addresses not "
                         r"named")
        self.assertFalse(qemu_left(image))


@unittest.skipUnless(IS_ROOT, "needs root")
class TestDebianKernel(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        missing = [t for t in ("qemu-system-x86_64", "busybox")
                   if not shutil.which(t)]
        if missing:
            raise unittest.SkipTest("%s not found (Debian packages "
                                    "qemu-system-x86, busybox-static)"
                                    % ", ".join(missing))
        cls.deb = debian_kernel()
        if not cls.deb:
            raise unittest.SkipTest("apt-get could not download a Debian "
                                    "linux-image package")

    def test_one_workload_end_to_end(self):
        tmp = tempfile.mkdtemp(prefix="sw-vm-results-")
        work_before = set(glob.glob(os.path.join(tempfile.gettempdir(),
                                                 "sw-vm-work-*")))
        try:
            # --debug: a guest that hangs says where, in the console's
            # tail vm prints when its --timeout passes
            r = sw_vm("--kernel", self.deb, "--accel", "tcg", "--debug",
                      "--timeout", "600", "-r", tmp,
                      "--", "run", "-n", "1", WORKLOAD)
            out = r.stdout
            self.assertIn("# vm: kernel 6.1", out, out + r.stderr)
            self.assertRegex(out, r"(?m)^(not )?ok 1 %s( #.*)?$" % WORKLOAD)
            self.assertIn("TAP version 13", out)
            runs = [d for d in os.listdir(tmp)
                    if os.path.isdir(os.path.join(tmp, d))]
            self.assertEqual(len(runs), 1, runs)
            run = os.path.join(tmp, runs[0])
            with open(os.path.join(run, "index.json")) as f:
                index = json.load(f)
            self.assertIn(WORKLOAD, json.dumps(index))
            self.assertTrue(os.path.exists(os.path.join(
                run, WORKLOAD, "rep-1", "trace.dat")))
            with open(os.path.join(run, "vm", "uname.txt")) as f:
                self.assertIn("6.1.0", f.read())
            with open(os.path.join(run, "vm", "domains.txt")) as f:
                self.assertIn("cpu0 domain0", f.read())
            self.assertIn("qemu-system-x86_64", open(
                os.path.join(run, "vm", "qemu.txt")).read())
            with open(os.path.join(run, "vm", "console.log")) as f:
                self.assertRegex(f.read(), r"(?m)^sw-vm: sched-workloads "
                                 r"run .*-n 1 %s$" % WORKLOAD)
            # the host reads the guest's logs and trace as its own
            rep = os.path.join(run, WORKLOAD, "rep-1")
            a = subprocess.run([swtest.BINARY, "analyze", "--logs", rep,
                                "--trace", os.path.join(rep, "trace.dat")],
                               capture_output=True, text=True)
            self.assertEqual(a.returncode, 0, a.stderr)
            metrics = json.loads(a.stdout)
            self.assertIn("worker", json.dumps(metrics))
            # and the guest's paths are this machine's in its KTAP
            self.assertIn("# to see it: sched-workloads report %s" % run,
                          out)
        finally:
            shutil.rmtree(tmp)
        self.assertFalse(qemu_left(os.path.basename(self.deb)[:-4]),
                         "QEMU left running")
        self.assertEqual(set(glob.glob(os.path.join(
            tempfile.gettempdir(), "sw-vm-work-*"))), work_before)

    def test_a_guest_in_its_kernel_only_is_ended(self):
        """A guest none of whose CPUs ran user space for --stall s hangs
        in its kernel: ended then, long before --timeout. Here a
        workload whose one thread sleeps 250 s, on TCG without icount,
        where a sleep is real: every CPU idles in the kernel."""
        tmp = tempfile.mkdtemp(prefix="sw-vm-stall-")
        self.addCleanup(shutil.rmtree, tmp, True)
        sleeper = os.path.join(tmp, "sleeper.json")
        with open(sleeper, "w") as f:
            json.dump({"sched-workloads": {
                "description": "one thread that sleeps, the CPUs idle",
                "checks": [{"metric": "passes", "task": "s", "min": 1}]},
                "global": {"duration": 260},
                "tasks": {"s": {"loop": 1, "sleep": 250000000}}}, f)
        start = time.monotonic()
        r = sw_vm("--kernel", self.deb, "--accel", "tcg", "--stall", "40",
                  "--timeout", "900", "-r", tmp, "--", "run", "-n", "1",
                  sleeper)
        took = time.monotonic() - start
        self.assertEqual(r.returncode, swtest.EXIT_RUN_ERROR,
                         r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"not ok 1 vm-\S+ # the guest hung: no "
                         r"CPU in user space for \d+ s \(\d+ s after the "
                         r"boot\); its CPUs: cpu0 in ")
        # the sleep, had it been waited out, would take 250 s
        self.assertLess(took, 240, r.stdout)
        self.assertFalse(qemu_left(os.path.basename(self.deb)[:-4]),
                         "QEMU left running")


def run_metrics(run):
    """Every metrics.json of run directory @run, by its path in it."""
    found = {}
    for d, _, names in os.walk(run):
        if "metrics.json" in names:
            with open(os.path.join(d, "metrics.json")) as f:
                found[os.path.relpath(d, run)] = json.load(f)
    return found


def arm64_kernel():
    """Debian's arm64 linux-image package, or SkipTest saying what is
    missing for the deterministic guest."""
    missing = [t for t in ("qemu-system-aarch64", "aarch64-linux-gnu-gcc")
               if not shutil.which(t)]
    if missing:
        raise unittest.SkipTest("%s not found (Debian packages "
                                "qemu-system-arm, gcc-aarch64-linux-gnu)"
                                % ", ".join(missing))
    deb = debian_kernel("arm64")
    if not deb:
        raise unittest.SkipTest("apt-get could not download Debian's arm64 "
                                "linux-image package (dpkg "
                                "--add-architecture arm64)")
    return deb


def deterministic_boots(cls, *boots):
    """Boots cls.deb in the deterministic guest once per argument list of
    @boots (vm options, "--", run arguments), each with a results
    directory of its own under cls.tmp: cls.out, their output; cls.runs,
    the run directory each brought back (None: none). A SKIP skips the
    class."""
    cls.runs, cls.out = [], []
    for i, argv in enumerate(boots):
        r = sw_vm("--kernel", cls.deb, "--deterministic", "-r",
                  os.path.join(cls.tmp, str(i)), *argv)
        if r.returncode == swtest.EXIT_SKIP:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise unittest.SkipTest(r.stdout.strip())
        cls.out.append(r.stdout + r.stderr)
        runs = glob.glob(os.path.join(cls.tmp, str(i), "*-vm"))
        cls.runs.append(runs[0] if len(runs) == 1 else None)


def workload_and_breaker_boots(cls, workload, topology):
    """Boots cls.deb in the deterministic guest of @topology twice
    (deterministic_boots): @workload as the battery has it, then with its
    breaker's patch; its breaker spec in cls.spec."""
    cls.spec = swtest.load_json(os.path.join(
        swtest.COLLECTION, "tests", "breakers", workload + ".json"))
    broken = os.path.join(cls.tmp, workload + ".json")
    loaded = breaker.load_workload(swtest.BINARY, os.path.join(
        swtest.COLLECTION, "workloads", workload + ".json"))
    with open(broken, "w") as f:
        json.dump(breaker.patched(loaded, cls.spec["patch"]), f)
    deterministic_boots(cls, *[
        ("--topology", topology, "--", "run", "-n", "1", what)
        for what in (workload, broken)])


def subtests(out):
    """{name: ok} of the subtests in KTAP @out."""
    return {name: ok for indent, ok, name, _
            in swtest.ktap_results(out) if indent == 2}


@unittest.skipUnless(IS_ROOT, "needs root")
class TestDeterministic(unittest.TestCase):
    """Debian's arm64 kernel under TCG with icount, 2 vCPUs, booted
    twice: one workload gives the same numbers and the same trace, byte
    for byte. What made two boots differ before (the results disk's
    probe, whose I/O completes in host time) must not come back."""
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.deb = arm64_kernel()
        cls.tmp = tempfile.mkdtemp(prefix="sw-vm-det-")
        once = ("--", "run", "-n", "1", WORKLOAD)
        deterministic_boots(cls, once, once)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_both_boots_ran(self):
        for run, out in zip(self.runs, self.out):
            self.assertIsNotNone(run, out)
            self.assertRegex(out, r"(?m)^(not )?ok 1 %s" % WORKLOAD)

    def test_class_names_the_deterministic_vm(self):
        for run in filter(None, self.runs):
            with open(os.path.join(run, "fingerprint.json")) as f:
                fp = json.load(f)
            self.assertRegex(fp["vm"],
                             r"^qemu[0-9]+\.[0-9]+-flat2-pace[0-9]+-icount$")
            self.assertTrue(fp["class"].startswith("aarch64-2cpu-"))
            self.assertTrue(fp["class"].endswith("-" + fp["vm"]))
            # rt-app calibrated in the guest, not the host's 10 ns
            with open(os.path.join(run, "vm", "calibration.txt")) as f:
                self.assertRegex(f.read(), r"pLoad = [0-9]+ns")
            self.assertNotEqual(fp["calibration"], 10)

    def test_cores_share_a_cache(self):
        """The kernel read the L2 the device tree gives both cores and
        built a cache-sharing level on it: select_idle_sibling() has an
        LLC to look for an idle CPU in."""
        for run in filter(None, self.runs):
            with open(os.path.join(run, "vm", "topology.txt")) as f:
                topo = f.read()
            for cpu in (0, 1):
                self.assertIn("cpu%d cache L2 Unified shared 0-1" % cpu,
                              topo)
            with open(os.path.join(run, "vm", "domains.txt")) as f:
                levels = vm_topology.parse_domains(f.read())
            for cpu in ("cpu0", "cpu1"):
                self.assertTrue(any(set(vm_topology.LLC) & flags
                                    for _, flags in levels[cpu]), levels)

    def test_says_what_made_it(self):
        """Both boots name the same commit, kernel package, QEMU and
        guest (a baseline made of them is reproducible from it), and the
        commit is this checkout's."""
        made = []
        for run in filter(None, self.runs):
            with open(os.path.join(run, "fingerprint.json")) as f:
                made.append(json.load(f)["made_by"])
        if len(made) < 2:
            self.skipTest("a boot gave no results")
        self.assertEqual(made[0], made[1])
        m = made[0]
        self.assertEqual(m["kernel"]["package"], os.path.basename(self.deb))
        self.assertEqual((m["vm"]["topology"], m["vm"]["pace"]),
                         ("flat2", 100))
        self.assertTrue(m["qemu"] and m["userspace"].get("rt-app"), m)
        head = subprocess.run(["git", "-C", swtest.COLLECTION, "rev-parse",
                               "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            self.assertEqual(m["commit"], head.stdout.strip())

    def test_same_numbers_twice(self):
        if None in self.runs:
            self.skipTest("a boot gave no results")
        a, b = (run_metrics(r) for r in self.runs)
        self.assertTrue(a)
        self.assertEqual(a, b)
        rep = os.path.join(WORKLOAD, "rep-1", "trace.dat")
        with open(os.path.join(self.runs[0], rep), "rb") as f, \
                open(os.path.join(self.runs[1], rep), "rb") as g:
            self.assertTrue(f.read() == g.read(), "trace.dat differs")


@unittest.skipUnless(IS_ROOT, "needs root")
class TestSmtPreset(unittest.TestCase):
    """smt-spread, which needs SMT siblings, in the deterministic guest
    of 2 cores x 2 threads: the preset's domains are what it promises,
    the check is judged there, and its breaker (both hogs on one core's
    threads) fails it."""
    LIVE = True
    NAME = "smt-spread.system.smt.stacked_share"

    @classmethod
    def setUpClass(cls):
        cls.deb = arm64_kernel()
        cls.tmp = tempfile.mkdtemp(prefix="sw-vm-smt-")
        workload_and_breaker_boots(cls, "smt-spread", "smt2x2")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def results(self, i):
        return subtests(self.out[i])

    def test_judged_on_the_preset(self):
        self.assertIsNotNone(self.runs[0], self.out[0])
        self.assertIn("(smt2x2)", self.out[0])
        self.assertIn(self.NAME, self.results(0), self.out[0])
        with open(os.path.join(self.runs[0], "vm", "domains.txt")) as f:
            self.assertIn("SD_SHARE_CPUCAPACITY", f.read())
        with open(os.path.join(self.runs[0], "smt-spread", "rep-1",
                               "cores.txt")) as f:
            self.assertEqual(f.read(), "0 0\n1 0\n2 2\n3 2\n")

    def test_breaker_caught(self):
        self.assertIn(self.NAME, self.results(1), self.out[1])
        self.assertFalse(self.results(1)[self.NAME], self.out[1])


@unittest.skipUnless(IS_ROOT, "needs root")
class TestNumaPreset(unittest.TestCase):
    """numa-spread, which needs two NUMA nodes, in the deterministic
    guest of 2 sockets x 4 CPUs, a node each: the preset's domains have
    a NUMA level, every CPU of both nodes is judged, and its breaker
    (the hogs pinned to the first node) leaves the second idle."""
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.deb = arm64_kernel()
        cls.tmp = tempfile.mkdtemp(prefix="sw-vm-numa-")
        workload_and_breaker_boots(cls, "numa-spread", "numa2x4")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def results(self, i):
        return subtests(self.out[i])

    def test_judged_on_the_preset(self):
        self.assertIsNotNone(self.runs[0], self.out[0])
        self.assertIn("(numa2x4)", self.out[0])
        with open(os.path.join(self.runs[0], "vm", "domains.txt")) as f:
            self.assertIn("SD_NUMA", f.read())
        judged = self.results(0)
        for cpu in range(8):
            self.assertIn("numa-spread.cpu%d.cpu.busy_share" % cpu, judged,
                          self.out[0])

    def test_breaker_caught(self):
        res = self.results(1)
        for name in self.spec["expect_fail"]:
            self.assertIn(name, res, self.out[1])
            self.assertFalse(res[name], self.out[1])


if __name__ == "__main__":
    unittest.main()
