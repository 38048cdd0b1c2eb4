#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads vm: the battery on a kernel image, in a QEMU guest.

    sched-workloads vm --kernel IMAGE [options] [-- RUN-ARGUMENTS...]

IMAGE is a kernel image (bzImage), a Debian linux-image .deb, or a
directory such a package was extracted into (boot/vmlinuz-*, and
lib/modules/<version> for the modules the results disk needs). The
guest boots from an initramfs that holds all it runs (vm_initramfs.py);
its /init (vm_init.sh) runs "sched-workloads RUN-ARGUMENTS" (default:
"run", the whole battery), then writes its results to a second disk. The
run directory comes back under the results directory, the guest's view
of the machine in its vm/ (console, CPUs, scheduling domains, QEMU's
command line), and the guest's KTAP is printed here.

Outcomes: the guest's own exit status; a kernel panic or oops, the
kernel's failure, with the console's tail (exit 1); a guest that does
not boot or does not finish in time, named as a hang (exit 8); a
prerequisite missing here, SKIP (exit 4). QEMU is killed and the disk
images removed whatever happens, Ctrl-C included.
"""
import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import sw_paths
import vm_initramfs

EXIT_FAIL, EXIT_USAGE, EXIT_SKIP, EXIT_RUN_ERROR = 1, 2, 4, 8
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.expanduser("~/.cache"), "sched-workloads", "vm")
# virtio-blk on PCI: the results disk, and what its driver needs
RESULTS_MODULES = ("virtio_pci", "virtio_blk")
BOOTED, EXITED = "SW_VM_BOOTED", "SW_VM_EXIT="
# oops=panic on the command line: an oops ends here too
PANIC = ("Kernel panic - not syncing",)
RESULTS_DISK_BYTES = 8 << 30    # sparse: only what the tar writes is used


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
    config (None: not known) and a name."""

    def __init__(self, image, moddir, config, name):
        self.image, self.moddir = image, moddir
        self.config, self.name = config, name


def kernel_of(arg, modules):
    """The Kernel of --kernel @arg."""
    if arg.endswith(".deb"):
        if not os.path.isfile(arg):
            raise VmError("%s: no such package" % arg, EXIT_USAGE)
        root = os.path.join(CACHE, "kernels",
                            os.path.basename(arg)[:-len(".deb")])
        if not os.path.isdir(root):
            tmp = root + ".part"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            subprocess.run(["dpkg-deb", "-x", arg, tmp], check=True)
            os.rename(tmp, root)
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
        return Kernel(images[0], modules or (mods[0] if mods else None),
                      config if os.path.isfile(config) else None, version)
    if not os.path.isfile(arg):
        raise VmError("%s: no such kernel image" % arg, EXIT_USAGE)
    # a KTAP name has no spaces
    return Kernel(arg, modules, None, "_".join(os.path.basename(arg).split()))


def build_initramfs(kernel, run_args):
    """The guest's root as bytes, and the modules it loads."""
    cpio = vm_initramfs.Cpio()
    for d in ("proc", "sys", "dev", "tmp", "results", "etc/sw"):
        cpio.add_dir(d)
    cpio.add_chardev("dev/console", 5, 1)
    busybox = shutil.which("busybox") or "/bin/busybox"
    if vm_initramfs.Elf(busybox).needed():
        raise VmError("%s is not static (Debian package busybox-static)"
                      % busybox, EXIT_SKIP)
    cpio.add_host_file("bin/busybox", busybox)
    with open(os.path.join(HERE, "vm_init.sh"), "rb") as f:
        cpio.add_file("init", f.read(), 0o755)
    binary = os.path.realpath(sw_paths.binary())
    rtapp = os.environ.get("RTAPP") or shutil.which("rt-app")
    if not rtapp:
        raise VmError("rt-app not found (Debian package rt-app)", EXIT_SKIP)
    cpio.add_host_file("opt/sw/sched-workloads", binary)
    cpio.add_host_file("usr/bin/rt-app", os.path.realpath(rtapp))
    # glibc loads libgcc_s itself, to unwind a thread that exits
    unwinder = vm_initramfs.find_library("/", "libgcc_s.so.1")
    for lib in vm_initramfs.library_closure(
            "/", [binary, rtapp] + ([unwinder] if unwinder else [])):
        if lib not in (binary, rtapp):
            cpio.add_host_file(lib, os.path.realpath(lib))
    if kernel.config:
        # the fingerprint's HZ and preemption model
        cpio.add_host_file("boot/config-" + kernel.name, kernel.config)
    vm_initramfs.add_tree(cpio, "opt/sw/workloads",
                          os.path.join(os.path.dirname(binary), "workloads"))
    vm_initramfs.add_tree(cpio, "opt/sw/baselines",
                          os.path.join(os.path.dirname(binary), "baselines"))
    mods = []
    if kernel.moddir:
        mods = vm_initramfs.module_order(kernel.moddir, RESULTS_MODULES)
        for m in mods:
            cpio.add_host_file(os.path.join("lib/modules", m),
                               os.path.join(kernel.moddir, m))
    cpio.add_file("etc/sw/modules", "".join(m + "\n" for m in mods).encode())
    cpio.add_file("etc/sw/args",
                  "".join(a + "\n" for a in run_args).encode())
    return cpio.bytes(), mods


def kvm_usable():
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return True


def qemu_argv(image, initrd, disk, console, accel, cpus, memory):
    cpu = "host" if accel == "kvm" else "max"
    return ["qemu-system-x86_64", "-nodefaults", "-no-reboot",
            "-display", "none", "-monitor", "none",
            "-machine", "q35", "-accel", accel, "-cpu", cpu,
            "-smp", str(cpus), "-m", str(memory),
            "-kernel", image, "-initrd", initrd,
            "-append", "console=ttyS0 rdinit=/init panic=-1 oops=panic "
            "quiet loglevel=3 sched_verbose",
            "-serial", "file:" + console,
            "-drive", "if=none,id=results,format=raw,file=" + disk,
            "-device", "virtio-blk-pci,drive=results"]


def read_console(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def watch(argv, console, boot_s, run_s):
    """Runs QEMU until it exits or a bound passes: (outcome, detail).
    outcome: "exited" (detail: the guest's status), "panic", "no-boot",
    "hang", "qemu" (QEMU itself failed: its stderr)."""
    q = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    start, booted = time.monotonic(), None
    try:
        while q.poll() is None:
            time.sleep(0.2)
            text = read_console(console)
            now = time.monotonic()
            if booted is None and BOOTED in text:
                booted = now
            if any(p in text for p in PANIC):
                time.sleep(1)   # the rest of the report
                return "panic", None
            if booted is None and now - start > boot_s:
                return "no-boot", boot_s
            if booted is not None and now - booted > run_s:
                return "hang", run_s
    finally:
        if q.poll() is None:
            os.killpg(q.pid, signal.SIGKILL)
        err = q.communicate()[1]
    text = read_console(console)
    if any(p in text for p in PANIC):
        return "panic", None
    for line in reversed(text.splitlines()):
        if line.startswith(EXITED):
            return "exited", int(line[len(EXITED):])
    if q.returncode:
        return "qemu", err.strip()
    return "hang", "the guest powered off without a status"


def tail(text, n=30):
    return text.splitlines()[-n:]


def fetch_results(disk, results):
    """The guest's results out of the tar stream on @disk, into a run
    directory under @results (its name the guest's, with "-vm"); returns
    its path, or None when the guest wrote none."""
    tmp = tempfile.mkdtemp(prefix="sw-vm-", dir=results)
    r = subprocess.run(["tar", "-xf", disk, "-C", tmp],
                       capture_output=True, text=True)
    runs = [d for d in os.listdir(tmp)
            if d != "vm" and os.path.isdir(os.path.join(tmp, d))]
    if r.returncode or len(runs) != 1:
        return tmp if os.listdir(tmp) else os.rmdir(tmp)
    run = os.path.join(results, runs[0] + "-vm")
    os.rename(os.path.join(tmp, runs[0]), run)
    if os.path.isdir(os.path.join(tmp, "vm")):
        os.rename(os.path.join(tmp, "vm"), os.path.join(run, "vm"))
    os.rmdir(tmp)
    return run


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads vm",
        description="The battery on a kernel image, in a QEMU guest.")
    ap.add_argument("--kernel", required=True, metavar="IMAGE",
                    help="a bzImage, a linux-image .deb, or a directory "
                    "one was extracted into")
    ap.add_argument("--modules", metavar="DIR",
                    help="the image's lib/modules/<version>, when its "
                    "virtio drivers are modules")
    ap.add_argument("--accel", choices=("auto", "kvm", "tcg"),
                    default="auto", help="auto: KVM if it boots the "
                    "guest within --boot-timeout, else TCG")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--memory", type=int, default=2048, metavar="MB")
    ap.add_argument("--boot-timeout", type=float, default=120,
                    metavar="S", help="for the guest to reach its /init")
    ap.add_argument("--timeout", type=float, default=1800, metavar="S",
                    help="for the battery, once booted")
    ap.add_argument("-r", "--results", default="results", metavar="DIR")
    ap.add_argument("run_args", nargs="*", metavar="RUN-ARGUMENTS",
                    help="after --: the arguments of sched-workloads "
                    "(default: run)")
    a = ap.parse_args(argv)
    if not a.run_args:
        a.run_args = ["run"]
    if a.run_args[0] == "run" and "-r" not in a.run_args:
        a.run_args[1:1] = ["-r", "/results"]
    return a


def boot(a, image, initrd, work, accel):
    disk = os.path.join(work, "results.img")
    console = os.path.join(work, "console.log")
    for p in (disk, console):
        if os.path.exists(p):
            os.unlink(p)
    with open(disk, "wb") as f:
        f.truncate(RESULTS_DISK_BYTES)
    argv = qemu_argv(image, initrd, disk, console, accel, a.cpus, a.memory)
    start = time.monotonic()
    outcome, detail = watch(argv, console, a.boot_timeout, a.timeout)
    return outcome, detail, argv, disk, console, time.monotonic() - start


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    # kselftest's timeout sends SIGTERM: QEMU goes too, the files with it
    signal.signal(signal.SIGTERM, interrupted)
    a = parse_args(argv)
    if not shutil.which("qemu-system-x86_64"):
        skip("qemu-system-x86_64 not found (Debian package qemu-system-x86)")
    try:
        kernel = kernel_of(a.kernel, a.modules)
        blob, mods = build_initramfs(kernel, a.run_args)
    except VmError as e:
        if e.code == EXIT_SKIP:
            skip(str(e))
        print("sched-workloads vm: %s" % e, file=sys.stderr)
        return e.code
    except vm_initramfs.ElfError as e:
        print("sched-workloads vm: %s" % e, file=sys.stderr)
        return EXIT_RUN_ERROR
    os.makedirs(a.results, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sw-vm-work-")
    try:
        initrd = os.path.join(work, "initramfs.cpio")
        with open(initrd, "wb") as f:
            f.write(blob)
        accels = ["kvm", "tcg"] if a.accel == "auto" and kvm_usable() \
            else ["tcg" if a.accel == "auto" else a.accel]
        for accel in accels:
            outcome, detail, qargv, disk, console, took = boot(
                a, kernel.image, initrd, work, accel)
            if outcome == "no-boot" and accel == "kvm" and len(accels) > 1:
                print("# KVM unusable here: the guest did not reach its "
                      "/init in %.0f s; TCG instead" % a.boot_timeout)
                continue
            break
        return report(a, kernel.name, accel, outcome, detail, qargv, disk,
                      console, took, mods)
    except KeyboardInterrupt:
        print("# interrupted")
        return 130
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(a, name, accel, outcome, detail, qargv, disk, console, took,
           mods):
    text = read_console(console)
    print("# vm: kernel %s, %s, %d CPUs, %d MB, %.0f s" %
          (name, accel, a.cpus, a.memory, took))
    if outcome != "exited":
        what = {
            "panic": "the kernel panicked",
            "no-boot": "the guest did not reach its /init in %s s" % detail,
            "hang": "the guest hung: %s" % (
                detail if isinstance(detail, str) else
                "no end in %s s" % detail),
            "qemu": "QEMU failed: %s" % detail,
        }[outcome]
        print("TAP version 13\n1..1")
        for line in tail(text):
            print("# console: %s" % line)
        print("not ok 1 vm-%s # %s" % (name, what))
        return EXIT_FAIL if outcome == "panic" else EXIT_RUN_ERROR
    run = fetch_results(disk, a.results)
    if not run:
        print("TAP version 13\n1..1")
        for line in tail(text):
            print("# console: %s" % line)
        print("not ok 1 vm-%s # the guest wrote no results (status %d)"
              % (name, detail))
        return EXIT_RUN_ERROR
    vmdir = os.path.join(run, "vm")
    os.makedirs(vmdir, exist_ok=True)
    with open(os.path.join(vmdir, "console.log"), "w") as f:
        f.write(text)
    with open(os.path.join(vmdir, "qemu.txt"), "w") as f:
        f.write(" ".join(qargv) + "\n")
        f.write("modules: %s\n" % " ".join(mods))
    ktap = os.path.join(vmdir, "ktap.txt")
    if os.path.exists(ktap):
        # the guest's paths, as this machine sees them
        guest = "/results/" + os.path.basename(run)[:-len("-vm")]
        with open(ktap) as f:
            sys.stdout.write(f.read().replace(guest, run))
    print("# vm: results %s" % run)
    return detail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
