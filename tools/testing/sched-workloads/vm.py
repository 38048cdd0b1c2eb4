#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads vm: the battery on a kernel image, in a QEMU guest.

    sched-workloads vm --kernel IMAGE [options] [-- RUN-ARGUMENTS...]
    sched-workloads vm --kernel A --kernel B [options] [-- ...]

IMAGE is a kernel image (an x86_64 bzImage or an arm64 Image), a Debian
linux-image .deb, or a directory such a package was extracted into
(boot/vmlinuz-*, and lib/modules/<version> for the modules the results
disk needs). The guest boots from an initramfs that holds all it runs
(vm_userspace.py; an arm64 guest's userspace is Debian's);
its /init (vm_init.sh) runs "sched-workloads RUN-ARGUMENTS" (default:
"run", the whole battery), rt-app calibrated in the guest, then writes
its results to a second disk. The run directory comes back under the
results directory, the guest's view of the machine in its vm/ (console,
CPUs, scheduling domains, calibration, QEMU's command line), and the
guest's KTAP is printed here.

With two kernels, A then B run the same arguments, and "sched-workloads
compare" prints B against A (exact comparisons when deterministic).

--deterministic: TCG with icount (the guest's clock counts instructions,
not host time), a fixed CPU model, no randomness in the device tree, the
kernel's or userspace's address layout: what the guest measures does
not depend on the host.

Outcomes: the guest's own exit status; a kernel panic or oops, the
kernel's failure, with the console's tail (exit 1); a guest that does
not boot or does not finish in time, named as a hang (exit 8); a
prerequisite missing here, SKIP (exit 4). QEMU is killed and the disk
images removed whatever happens, Ctrl-C included.
"""
import argparse
import ctypes
import glob
import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import kbuild
import kbuild_source
import sw_paths
import vm_arch
import vm_debs
import vm_dtb
import vm_hang
import vm_initramfs
import vm_qemu
import vm_reproduce
import vm_split
import vm_topology
import vm_userspace
from facts import EXIT_FAIL, EXIT_RUN_ERROR, EXIT_SKIP, EXIT_USAGE
# The battery of the host's binary (its workloads and baselines), whatever
# the guest's binary is
BATTERY = sw_paths.battery()
CACHE = vm_debs.CACHE
BOOTED, EXITED = "SW_VM_BOOTED", "SW_VM_EXIT="
# oops=panic on the command line: an oops ends here too
PANIC = ("Kernel panic - not syncing",)
RESULTS_DISK_BYTES = 8 << 30    # sparse: only what the tar writes is used
# The guest's clock: an instruction is 2^0 ns, idle time skipped, the
# RTC's date fixed.
ICOUNT = ("-icount", "shift=0,sleep=off,align=off",
          "-rtc", "base=2020-01-01,clock=vm")
# The judging guest's pace (vm_pace.c): a timer every 100 us on each CPU
# bounds each vCPU's turn. Measured on Debian's 6.1 arm64 kernel with
# QEMU 10.0: a wakeup among hogs 74 us at the median (hardware: 67-72
# us), RT push/pull's waits 34 us at p90 (hardware 25-31), for 4% of
# each CPU; 50 us gave the same waits for 11%, 20 us 24%.
PACE_US = 100
# A guest in its kernel only this long hangs (vm_hang.Stall): ten times
# a battery's quietest stretch, the 60 s wait between two rounds (which a
# deterministic guest, skipping its idle time, passes in moments).
STALL_S = 600
PR_SET_PDEATHSIG = 1    # <linux/prctl.h>
# Set when vm is interrupted: the boots on other threads stop their QEMU
STOP = threading.Event()
# Subcommands that record the baselines they judge with, if any
RECORDING = ("baseline", "qualify")
# Subcommands that run rt-app, given the guest's calibration unless -c
CALIBRATED = ("run", "baseline", "qualify")


class VmError(Exception):
    def __init__(self, msg, code=EXIT_RUN_ERROR):
        super().__init__(msg)
        self.code = code


def skip(msg):
    print("TAP version 13\n1..0 # SKIP %s" % msg)
    sys.exit(EXIT_SKIP)


class Kernel:
    """The kernel under test: its image, the directory of its modules
    (None: none given, the results disk's drivers must be built in), its
    config (None: not known), a name and its System.map (None: not
    known; names where a hung guest's CPUs are)."""

    def __init__(self, image, moddir, config, name, system_map=None):
        self.image, self.moddir = image, moddir
        self.config, self.name = config, name
        self.system_map = system_map


def kernel_of(arg, modules, deterministic=False):
    """The Kernel of --kernel @arg; a source tree is built first, for
    the judging guest's arm64 when @deterministic, else for the host's
    architecture."""
    if os.path.isdir(arg) and kbuild_source.is_kernel_tree(arg):
        arch = "aarch64" if deterministic else vm_arch.host_arch()
        missing = kbuild.missing_tools(arch)
        if missing:
            raise VmError("%s: a source tree, which vm builds first: not "
                          "found: %s" % (arg, ", ".join(missing)), EXIT_SKIP)
        print("# vm: building %s for %s (sched-workloads kbuild)" %
              (arg, arch), file=sys.stderr)
        try:
            arg, release, took = kbuild.build(
                kbuild_source.tree_of(arg, kbuild.CACHE), arch, [])
        except (kbuild.BuildError, kbuild_source.SourceError) as e:
            raise VmError("%s: %s" % (arg, e), e.code)
        print("# vm: built %s in %.0f s" % (release, took), file=sys.stderr)
    if arg.endswith(".deb"):
        if not os.path.isfile(arg):
            raise VmError("%s: no such package" % arg, EXIT_USAGE)
        root = os.path.join(CACHE, "kernels",
                            os.path.basename(arg)[:-len(".deb")])
        if not os.path.isfile(os.path.join(root, vm_debs.MANIFEST)):
            shutil.rmtree(root, ignore_errors=True)
            vm_debs.unpack_debs([arg], root)
        arg = root
    if os.path.isdir(arg):
        images = glob.glob(os.path.join(arg, "boot", "vmlinuz-*"))
        if len(images) != 1:
            raise VmError("%s: %d boot/vmlinuz-* in it, not one" %
                          (arg, len(images)), EXIT_USAGE)
        version = os.path.basename(images[0])[len("vmlinuz-"):]
        mods = [os.path.join(arg, d, "modules", version)
                for d in ("lib", "usr/lib")]
        mods = [m for m in mods if os.path.isdir(m)]
        config = os.path.join(arg, "boot", "config-" + version)
        smap = os.path.join(arg, "boot", "System.map-" + version)
        return Kernel(images[0], modules or (mods[0] if mods else None),
                      config if os.path.isfile(config) else None, version,
                      smap if os.path.isfile(smap) else None)
    if not os.path.isfile(arg):
        raise VmError("%s: no such kernel image" % arg, EXIT_USAGE)
    # a KTAP name has no spaces; a build tree's System.map is at its top
    smap = os.path.join(os.path.dirname(arg), "..", "..", "..", "System.map")
    return Kernel(arg, modules, None, "_".join(os.path.basename(arg).split()),
                  smap if os.path.isfile(smap) else None)


def guest_arch(kernel):
    """The vm_arch.Arch of @kernel's image."""
    name = vm_arch.image_arch(kernel.image)
    if not name:
        raise VmError("%s: not a kernel image (neither an x86_64 bzImage "
                      "nor an arm64 Image)" % kernel.image, EXIT_USAGE)
    return vm_arch.ARCHES[name]


def accels_to_try(a, arch):
    """The accelerators to boot with, in turn: KVM first when it may
    work and TCG is left to fall back on."""
    if a.deterministic or arch.name != vm_arch.host_arch():
        return ["tcg"]
    if a.accel != "auto":
        return [a.accel]
    return ["kvm", "tcg"] if kvm_usable() else ["tcg"]


def kvm_usable():
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return True


def vm_name(version, topology, accel, deterministic, pace=0):
    """What the guest's fingerprint calls this VM (SCHED_WORKLOADS_VM):
    part of its machine class, so a baseline is valid for a QEMU, a
    topology preset, a pace and an accelerator; "-icount" last when the
    guest is deterministic (machine/fingerprint.h)."""
    return "qemu%s-%s%s-%s" % (version, topology.name,
                               "-pace%d" % pace if pace else "",
                               "icount" if deterministic else accel)


def qemu_argv(arch, qemu, image, initrd, disk, console, accel, a,
              monitor=None):
    """QEMU's command line (@qemu: the binary); @a: the options
    (topology, memory, deterministic); @monitor: the unix socket of its
    human monitor (None: no monitor)."""
    if accel == "kvm":
        cpu = "host"
    else:
        cpu = arch.cpu_deterministic if a.deterministic else arch.cpu_tcg
    append = ("console=%s rdinit=/init panic=-1 oops=panic quiet "
              "loglevel=3 sched_verbose" % arch.console)
    if a.deterministic:
        append += " nokaslr norandmaps"
    return ([qemu, "-nodefaults", "-no-reboot",
             "-display", "none"] +
            (vm_hang.monitor_args(monitor) if monitor else
             ["-monitor", "none"]) +
            ["-machine", arch.machine, "-accel", accel, "-cpu", cpu,
             "-m", str(a.memory)] + a.topology.qemu_args(a.memory) +
            (list(ICOUNT) if a.deterministic else []) +
            ["-kernel", image, "-initrd", initrd, "-append", append,
             "-serial", "file:" + console,
             "-drive", "if=none,id=results,format=raw,file=" + disk,
             "-device", "virtio-blk-pci,drive=results"])


def read_console(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def die_with_parent():
    """In QEMU's child before the exec: it is killed when vm goes, even
    by a SIGKILL (a test's or a lab's timeout), which runs no cleanup."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")


def watch(argv, console, boot_s, run_s, stuck=None, stall=None):
    """Runs QEMU until it exits or a bound passes: (outcome, detail,
    where). outcome: "exited" (detail: the guest's status), "panic",
    "no-boot", "hang", "qemu" (QEMU itself failed: its stderr). where:
    what @stuck() said of a guest that passed its bound, before QEMU
    was killed (None otherwise). @stall, a vm_hang.Stall, ends a booted
    guest that runs only its kernel for its bound as a hang too."""
    q = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True,
                         preexec_fn=die_with_parent)
    start, booted = time.monotonic(), None

    def passed(outcome, bound):
        return outcome, bound, stuck() if stuck else None

    try:
        while q.poll() is None:
            time.sleep(0.2)
            if STOP.is_set():
                return "interrupted", None, None
            text = read_console(console)
            now = time.monotonic()
            if booted is None and BOOTED in text:
                booted = now
            if any(p in text for p in PANIC):
                time.sleep(1)   # the rest of the report
                return "panic", None, None
            if booted is None and now - start > boot_s:
                return passed("no-boot", boot_s)
            if booted is not None and now - booted > run_s:
                return passed("hang", run_s)
            kernel_only = (stall.stuck(now) if stall and booted is not None
                           else None)
            if kernel_only:
                return passed("hang", "no CPU in user space for %.0f s "
                              "(%.0f s after the boot)" %
                              (kernel_only, now - booted))
    finally:
        if q.poll() is None:
            os.killpg(q.pid, signal.SIGKILL)
        err = q.communicate()[1]
    text = read_console(console)
    if any(p in text for p in PANIC):
        return "panic", None, None
    for line in reversed(text.splitlines()):
        if line.startswith(EXITED):
            return "exited", int(line[len(EXITED):]), None
    if q.returncode:
        return "qemu", err.strip(), None
    return "hang", "the guest powered off without a status", None


def tail(text, n=30):
    return text.splitlines()[-n:]


def fetch_results(disk, results, baselines):
    """The guest's results out of the tar stream on @disk: every run
    directory it wrote comes back under @results (its name the guest's,
    with "-vm"), the guest's vm/ into the last; the baselines it recorded
    (its /results/baselines) are merged into @baselines. Returns the runs'
    paths, {guest path: host path}; no runs when the guest wrote none
    (what it wrote is then left in a sw-vm-* directory)."""
    tmp = tempfile.mkdtemp(prefix="sw-vm-", dir=results)
    r = subprocess.run(["tar", "-xf", disk, "-C", tmp],
                       capture_output=True, text=True)
    names = sorted(d for d in os.listdir(tmp)
                   if d not in ("vm", "baselines") and
                   os.path.isdir(os.path.join(tmp, d)))
    if r.returncode or not names:
        if not os.listdir(tmp):
            os.rmdir(tmp)
        return {}
    if os.path.isdir(os.path.join(tmp, "baselines")):
        shutil.copytree(os.path.join(tmp, "baselines"), baselines,
                        dirs_exist_ok=True)
        shutil.rmtree(os.path.join(tmp, "baselines"))
    runs = {}
    for name in names:
        # a deterministic guest's clock starts at the same date every boot
        run = os.path.join(results, name + "-vm")
        n = 1
        while os.path.exists(run):
            n += 1
            run = os.path.join(results, "%s-vm%d" % (name, n))
        os.rename(os.path.join(tmp, name), run)
        runs["/results/" + name] = run
    if os.path.isdir(os.path.join(tmp, "vm")):
        os.rename(os.path.join(tmp, "vm"), os.path.join(run, "vm"))
    os.rmdir(tmp)
    return runs


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads vm",
        description="The battery on a kernel image, in a QEMU guest.")
    ap.add_argument("--kernel", metavar="IMAGE", action="append",
                    help="a bzImage or arm64 Image, a linux-image .deb, "
                    "a directory one was extracted into, or a kernel "
                    "source tree (built first: sched-workloads kbuild); "
                    "twice: A/B, both run in turn, B compared with A")
    ap.add_argument("--modules", metavar="DIR",
                    help="the image's lib/modules/<version>, when its "
                    "virtio drivers are modules")
    ap.add_argument("--accel", choices=("auto", "kvm", "tcg"),
                    default="auto", help="auto: KVM if it boots the "
                    "guest within --boot-timeout, else TCG")
    ap.add_argument("--deterministic", action="store_true",
                    help="TCG with icount: the guest's clock counts its "
                    "instructions, the host does not show in its results")
    ap.add_argument("--cpus", type=int, metavar="N",
                    help="N CPUs, one core each: --topology flatN")
    ap.add_argument("--topology", metavar="PRESET",
                    help="flat2 (the default), smt2x2 (2 cores x 2 "
                    "threads), numa2x4 (2 sockets x 4 cores, 2 nodes), "
                    "flatN")
    ap.add_argument("--qemu", metavar="PATH",
                    help="this QEMU binary instead of the host's (or, "
                    "for --deterministic, of one whose vCPU round-robin "
                    "is fair)")
    ap.add_argument("--pace", type=int, metavar="US",
                    help="a timer every US on each guest CPU, which "
                    "bounds how long one vCPU runs before QEMU turns to "
                    "the next (default: %d with --deterministic, else "
                    "none; 0: none)" % PACE_US)
    ap.add_argument("--boot", type=int, choices=(1, 2), metavar="K",
                    help="of the judging guest's battery, which runs as "
                    "two boots, only the K-th")
    ap.add_argument("--memory", type=int, default=2048, metavar="MB")
    ap.add_argument("--boot-timeout", type=float, default=120,
                    metavar="S", help="for the guest to reach its /init")
    ap.add_argument("--timeout", type=float, default=1800, metavar="S",
                    help="for the battery, once booted")
    ap.add_argument("--stall", type=float, default=STALL_S, metavar="S",
                    help="a booted guest none of whose CPUs ran user space "
                    "for S s hangs in its kernel: ended then, not at "
                    "--timeout (default %(default)s; 0: never)")
    ap.add_argument("--debug", action="store_true",
                    help="the guest says on its console what it does: "
                    "each step, and every 10 s its processes (for a "
                    "guest that hangs; a console write waits on the "
                    "host, so not for numbers)")
    ap.add_argument("-r", "--results", default="results", metavar="DIR")
    ap.add_argument("-B", "--baselines", metavar="DIR",
                    default=os.path.join(BATTERY, "baselines"),
                    help="the guest's baselines, and where those it "
                    "records go (default: the battery's)")
    ap.add_argument("--reproduce", nargs="+", metavar="BASELINE",
                    help="make these baselines of a deterministic guest "
                    "again from what they say made them, and compare "
                    "them byte for byte (--kernel: the kernel, when its "
                    "package cannot be downloaded again)")
    ap.add_argument("run_args", nargs="*", metavar="RUN-ARGUMENTS",
                    help="after --: the arguments of sched-workloads "
                    "(default: run)")
    a = ap.parse_args(argv)
    if not a.kernel and not a.reproduce:
        ap.error("--kernel IMAGE is needed")
    if a.reproduce:
        if a.kernel and len(a.kernel) > 1:
            ap.error("--reproduce: one --kernel at most")
        return a
    if len(a.kernel) > 2:
        ap.error("--kernel: one image, or two for an A/B")
    if a.cpus is not None and a.topology:
        ap.error("--cpus N is --topology flatN: not both")
    name = a.topology or "flat%d" % (a.cpus or 2)
    a.topology = vm_topology.preset(name)
    if not a.topology:
        ap.error("--topology %s: no such preset (flat2, smt2x2, numa2x4, "
                 "flatN)" % name)
    if a.deterministic and a.accel == "kvm":
        ap.error("--deterministic is TCG's: not with --accel kvm")
    if a.pace is None:
        a.pace = PACE_US if a.deterministic else 0
    if a.pace < 0:
        ap.error("--pace %d: a period in us, or 0" % a.pace)
    if not a.run_args:
        a.run_args = ["run"]
    if a.run_args[0] in CALIBRATED and "-r" not in a.run_args:
        a.run_args[1:1] = ["-r", "/results"]
    # a guest whose clock counts instructions does not drift: a canary
    # would measure the same every time
    if (a.deterministic and a.run_args[0] in CALIBRATED and
            "--no-canary" not in a.run_args):
        a.run_args[1:1] = ["--no-canary"]
    # what the guest records comes back into --baselines
    if a.run_args[0] in RECORDING and "-B" not in a.run_args:
        a.run_args[1:1] = ["-B", "/results/baselines"]
    return a


class Boot:
    """One boot of a guest: what became of it (watch()'s outcome and
    detail), QEMU's command line, the results disk and console files,
    the wall time, and where its CPUs were when it passed a bound
    (vm_hang.report())."""

    def __init__(self, outcome, detail, argv, disk, console, took,
                 where=None):
        self.outcome, self.detail = outcome, detail
        self.argv, self.disk, self.console = argv, disk, console
        self.took, self.where = took, where


def boot(a, g, initrd, work, accel):
    disk = os.path.join(work, "results.img")
    console = os.path.join(work, "console.log")
    for p in (disk, console):
        if os.path.exists(p):
            os.unlink(p)
    with open(disk, "wb") as f:
        f.truncate(RESULTS_DISK_BYTES)
    monitor = os.path.join(work, "monitor.sock")
    if os.path.exists(monitor):
        os.unlink(monitor)
    argv = qemu_argv(g.arch, g.qemu.path, g.kernel.image, initrd, disk,
                     console, accel, a, monitor)
    if g.arch.name == "aarch64":
        try:
            argv = vm_dtb.machine_dtb(argv, os.path.join(work,
                                                         "machine.dtb"))
        except vm_dtb.DtbError as e:
            return Boot("qemu", str(e), argv, disk, console, 0)
    # symbols name addresses only where the kernel's are not randomized
    smap = g.kernel.system_map if a.deterministic else None
    start = time.monotonic()
    outcome, detail, where = watch(
        argv, console, a.boot_timeout, a.timeout,
        lambda: vm_hang.report(monitor, smap),
        vm_hang.Stall(monitor, a.stall) if a.stall else None)
    return Boot(outcome, detail, argv, disk, console,
                time.monotonic() - start, where)


def interrupted(signum, frame):
    raise KeyboardInterrupt


class Guest:
    """A kernel ready to boot: its Arch, the accelerators to try in turn,
    the VM name and initramfs (bytes, modules) of each."""

    def __init__(self, a, arg):
        self.source = arg
        self.kernel = kernel_of(arg, a.modules, a.deterministic)
        self.arch = guest_arch(self.kernel)
        self.qemu = (vm_qemu.given(a.qemu) if a.qemu else
                     vm_qemu.qemu_for(self.arch.qemu, self.arch.qemu_package,
                                      a.deterministic))
        version = self.qemu.version
        if (a.deterministic and self.arch.name == "x86_64" and
                a.topology.cpus > 1 and not vm_qemu.fair(self.qemu)):
            # QEMU 7.2 with Debian's 6.1: "smp: Bringing up secondary
            # CPUs" never ends: the first CPU spins for the second, which
            # an unfair round-robin never lets run
            raise VmError("an x86_64 guest with %d CPUs hangs bringing up "
                          "its second CPU under QEMU %s's icount: a QEMU "
                          "of %d.%d or later (--qemu), --cpus 1, or an "
                          "arm64 kernel" % ((a.topology.cpus, version) +
                                            vm_qemu.FAIR), EXIT_USAGE)
        missing = vm_dtb.missing_tool() if self.arch.name == "aarch64" \
            else None
        if missing:
            # without its shared cache, the guest is not the machine its
            # baselines and promised topology are of
            raise VmError("an arm64 guest's device tree is edited with %s"
                          % missing, EXIT_SKIP)
        us = vm_userspace.userspace(self.arch)
        self.accels = accels_to_try(a, self.arch)
        self.names = {x: vm_name(version, a.topology, x, a.deterministic,
                                 a.pace)
                      for x in self.accels}
        # one boot, or the judging guest's battery in two
        self.shares = shares(a) if a.deterministic else [None]
        # what it judges against; a guest that records baselines needs
        # none, and the fewer bytes a deterministic guest unpacks at boot,
        # the less of what it measures depends on what the tree holds
        judged = a.baselines if a.run_args[0] not in RECORDING else None
        calibrate = (a.run_args[0] in CALIBRATED and
                     not {"-c", "--calibration"} & set(a.run_args))
        self.blobs = {x: [vm_userspace.initramfs(
            self.kernel, us, a.run_args, self.names[x], judged, calibrate,
            a.pace, a.topology.cpus, share,
            provenance(a, self, us, self.names[x], share)
            if a.deterministic else None, a.debug)
            for share in self.shares] for x in self.accels}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def source_commit():
    """The collection's commit, and whether its tree or the desk's tools
    differ from it; (None, None) outside a git checkout."""
    top = subprocess.run(["git", "-C", sw_paths.DESK, "rev-parse", "HEAD",
                          "--show-toplevel"], capture_output=True, text=True)
    if top.returncode:
        return None, None
    commit, root = top.stdout.split()
    r = subprocess.run(["git", "-C", root, "status", "--porcelain", "--",
                        sw_paths.COLLECTION, sw_paths.DESK],
                       capture_output=True, text=True)
    return commit, bool(r.stdout.strip())


def provenance(a, g, us, name, share):
    """What makes a deterministic guest's numbers, as its fingerprint's
    "made_by" records it, so that anyone can make them again
    (vm_reproduce.py): the collection's commit, the guest's binary and
    the packages of its userspace, the compiler that built it, QEMU, the
    kernel, the VM and the boot's arguments and workloads: all that goes
    into its initramfs."""
    commit, dirty = source_commit()
    cc = g.arch.triplet + "-gcc" if g.arch.name != vm_arch.host_arch() \
        else "gcc"
    ccv = subprocess.run([cc, "--version"], capture_output=True, text=True)
    return {
        "commit": commit, "dirty": dirty,
        "binary": sha256(us.binary),
        "pace": sha256(us.pace),
        "compiler": (ccv.stdout.splitlines() or ["?"])[0],
        "userspace": vm_userspace.packages(us.root),
        "qemu": g.qemu.full,
        "kernel": {"name": g.kernel.name, "sha256": sha256(g.kernel.image),
                   "package": os.path.basename(g.source)
                   if g.source.endswith(".deb") else None},
        "vm": {"name": name, "topology": a.topology.name, "pace": a.pace,
               "memory": a.memory},
        "boot": {"args": a.run_args, "workloads": share,
                 "index": g.shares.index(share) + 1 if a.boot is None
                 else a.boot},
    }


def battery_names():
    return sorted(n[:-len(".json")] for n in
                  os.listdir(os.path.join(BATTERY, "workloads"))
                  if n.endswith(".json"))


def shares(a):
    """The workloads of each boot (None: all of the battery): the
    battery in two halves (vm_split.py) when the arguments run or record
    all of it, else one boot."""
    names = battery_names()
    if (a.run_args[0] not in ("run", "baseline") or
            any(x in names or x.endswith(".json") for x in a.run_args[1:])):
        return [None]
    halves = vm_split.halves(names)
    # one of them alone: to make its numbers again (vm_reproduce.py)
    return [halves[a.boot - 1]] if a.boot else halves


def main(argv):
    # kselftest's timeout sends SIGTERM: QEMU goes too, the files with it
    signal.signal(signal.SIGTERM, interrupted)
    STOP.clear()
    a = parse_args(argv)
    if a.reproduce:
        try:
            return vm_reproduce.reproduce(
                a.reproduce, a.kernel[0] if a.kernel else None)
        except vm_reproduce.ReproduceError as e:
            print("sched-workloads vm: %s" % e, file=sys.stderr)
            return e.code
    try:
        guests = [Guest(a, k) for k in a.kernel]
    except VmError as e:
        if e.code == EXIT_SKIP:
            skip(str(e))
        print("sched-workloads vm: %s" % e, file=sys.stderr)
        return e.code
    except (vm_userspace.UserspaceError, vm_qemu.QemuError) as e:
        if e.skip:
            skip(str(e))
        print("sched-workloads vm: %s" % e, file=sys.stderr)
        return EXIT_RUN_ERROR
    except vm_initramfs.ElfError as e:
        print("sched-workloads vm: %s" % e, file=sys.stderr)
        return EXIT_RUN_ERROR
    os.makedirs(a.results, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sw-vm-work-")
    try:
        if len(guests) == 1:
            return run_guest(a, guests[0], work, sys.stdout)[0]
        return a_b(a, guests, work)
    except KeyboardInterrupt:
        print("# interrupted")
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_guest(a, g, work, out):
    """Boots Guest @g, its report on @out: (exit status, run directory
    or None)."""
    if len(g.shares) > 1:
        return run_split(a, g, work, out)
    for accel in g.accels:
        initrd = os.path.join(work, "initramfs-%s.cpio" % accel)
        with open(initrd, "wb") as f:
            f.write(g.blobs[accel][0][0])
        b = boot(a, g, initrd, work, accel)
        if b.outcome == "no-boot" and accel == "kvm" and len(g.accels) > 1:
            print("# KVM unusable here: the guest did not reach its "
                  "/init in %.0f s; TCG instead" % a.boot_timeout, file=out)
            continue
        break
    return report(a, g, accel, b, out)


def run_split(a, g, work, out):
    """Guest @g's boots, one for each share of the battery, all at once
    (TCG: one host thread each); their run directories and KTAP as one
    (vm_split.py): (exit status, run directory or None)."""
    accel = g.accels[0]
    boots = [None] * len(g.shares)

    def one(i):
        w = os.path.join(work, "boot-%d" % (i + 1))
        os.makedirs(w)
        initrd = os.path.join(w, "initramfs.cpio")
        with open(initrd, "wb") as f:
            f.write(g.blobs[accel][i][0])
        boots[i] = boot(a, g, initrd, w, accel)

    threads = [threading.Thread(target=one, args=(i,))
               for i in range(len(boots))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            # in turns: a signal taken by a boot's thread reaches the
            # handler here only when this thread runs again
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        # the other threads' QEMUs go before vm does, not at their end
        STOP.set()
        for t in threads:
            t.join()
        raise
    bufs = [io.StringIO() for _ in boots]
    texts = [[] for _ in boots]
    done = [report(a, g, accel, b, buf, i, texts[i])
            for i, (b, buf) in enumerate(zip(boots, bufs))]
    if any(run is None or not texts[i] for i, (_, run) in enumerate(done)):
        for buf in bufs:
            out.write(buf.getvalue())
        return vm_split.merge_status([s for s, _ in done]), None
    first = done[0][1]
    vm_split.merge_runs(first, [run for _, run in done[1:]])
    for buf in bufs:
        out.write("".join(line for line in buf.getvalue().splitlines(True)
                          if not line.startswith("# vm: results ")))
    merged = vm_split.merge_ktap([t[0] for t in texts], battery_names())
    for _, run in done[1:]:
        merged = merged.replace(run, first)
    out.write(merged)
    print("# vm: results %s (%d boots)" % (first, len(boots)), file=out)
    return vm_split.merge_status([s for s, _ in done]), first


def topology_broken(topology, vmdir):
    """Why the guest's CPUs and scheduling domains (its vm/cpuinfo.txt
    and domains.txt) are not what @topology promised, or None."""
    try:
        with open(os.path.join(vmdir, "cpuinfo.txt")) as f:
            cpus = sum(line.startswith("processor") for line in f)
        with open(os.path.join(vmdir, "domains.txt")) as f:
            domains = f.read()
    except FileNotFoundError as e:
        return "the guest did not write %s" % e.filename
    return vm_topology.broken_promise(topology, domains, cpus)


def a_b(a, guests, work):
    """Kernel A, then kernel B, on the same arguments; their batteries'
    reports as diagnostics, then compare's table of B against A, and its
    exit status."""
    runs = []
    for label, g in zip("AB", guests):
        buf = io.StringIO()
        # each kernel's boots in a directory of their own: B's must not
        # meet A's (a split battery's boot-N directories)
        gwork = os.path.join(work, label)
        os.makedirs(gwork)
        status, run = run_guest(a, g, gwork, buf)
        for line in buf.getvalue().splitlines():
            print("# %s: %s" % (label, line))
        if not run:
            print("TAP version 13\n1..1\nnot ok 1 vm-a-b # kernel %s (%s) "
                  "gave no results" % (label, g.kernel.name))
            return status or EXIT_RUN_ERROR
        runs.append(run)
    print("# A/B: B %s against A %s" % (runs[1], runs[0]))
    sys.stdout.flush()
    return subprocess.run([sw_paths.binary(), "compare"] + runs).returncode


def report(a, g, accel, b, out, share=0, ktap_into=None):
    """What became of Boot @b of Guest @g with @accel (of its @share of
    the battery), on @out, the guest's KTAP appended to list @ktap_into
    instead when given: (exit status, run directory or None)."""
    name, outcome, detail = g.kernel.name, b.outcome, b.detail
    text = read_console(b.console)
    print("# vm: kernel %s, %s, %d CPUs (%s), %d MB, %.0f s" %
          (name, g.names[accel], a.topology.cpus, a.topology.name,
           a.memory, b.took), file=out)
    if outcome != "exited":
        what = {
            "panic": "the kernel panicked",
            "no-boot": "the guest did not reach its /init in %s s" % detail,
            "hang": "the guest hung: %s" % (
                detail if isinstance(detail, str) else
                "no end in %s s" % detail),
            "qemu": "QEMU failed: %s" % detail,
        }[outcome]
        if b.where:
            what += "; " + b.where
        print("TAP version 13\n1..1", file=out)
        for line in tail(text, 80 if a.debug else 30):
            print("# console: %s" % line, file=out)
        print("not ok 1 vm-%s # %s" % (name, what), file=out)
        return (EXIT_FAIL if outcome == "panic" else EXIT_RUN_ERROR), None
    runs = fetch_results(b.disk, a.results, a.baselines)
    run = runs[max(runs)] if runs else None
    if not run:
        print("TAP version 13\n1..1", file=out)
        for line in tail(text):
            print("# console: %s" % line, file=out)
        print("not ok 1 vm-%s # the guest wrote no results (status %d)"
              % (name, detail), file=out)
        return EXIT_RUN_ERROR, None
    vmdir = os.path.join(run, "vm")
    os.makedirs(vmdir, exist_ok=True)
    with open(os.path.join(vmdir, "console.log"), "w") as f:
        f.write(text)
    with open(os.path.join(vmdir, "qemu.txt"), "w") as f:
        f.write(" ".join(b.argv) + "\n")
        f.write("modules: %s\n" % " ".join(g.blobs[accel][share][1]))
    broken = topology_broken(a.topology, vmdir)
    if broken:
        print("TAP version 13\n1..1", file=out)
        print("not ok 1 vm-%s # topology %s not as promised: %s" %
              (name, a.topology.name, broken), file=out)
        print("# vm: results %s" % run, file=out)
        return EXIT_RUN_ERROR, run
    ktap = os.path.join(vmdir, "ktap.txt")
    if os.path.exists(ktap):
        with open(ktap) as f:
            text = f.read()
        # the guest's paths, as this machine sees them
        for guest, host in runs.items():
            text = text.replace(guest, host)
        if ktap_into is None:
            out.write(text)
        else:
            ktap_into.append(text)
    print("# vm: results %s" % run, file=out)
    return detail, run


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
