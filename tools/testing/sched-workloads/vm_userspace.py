# SPDX-License-Identifier: GPL-2.0
"""The userspace of a guest of "sched-workloads vm", and its initramfs:
the guest's whole root, all it runs.

A guest of the host's architecture runs the host's binary, rt-app and
busybox. A guest of another one (arm64 on an x86_64 host) runs Debian's
packages for it: downloaded with apt-get and extracted into a sysroot in
the cache (vm_debs.py, never installed), the binary cross-built against
it. Either way the initramfs (vm_initramfs.py's format) carries these
with the libraries they load, the kernel's modules the results disk
needs, the battery's workloads and baselines, and what the guest's /init
(vm_init.sh) is told to run.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

import sw_paths
import vm_arch
import vm_debs
import vm_initramfs

# What the guest runs and what the binary links (their -dev packages)
SYSROOT_PACKAGES = (
    "rt-app", "busybox-static", "libc6", "libgcc-s1",
    "libjson-c5", "libjson-c-dev", "libtracefs1", "libtracefs-dev",
    "libtracecmd1", "libtracecmd-dev", "libtraceevent1",
    "libtraceevent-dev", "libzstd1", "libzstd-dev",
)
# The drivers of the results disk QEMU attaches (virtio-blk on PCI,
# vm.qemu_argv())
RESULTS_MODULES = ("virtio_pci", "virtio_blk")


class UserspaceError(Exception):
    """@skip: a prerequisite missing here, not a failure."""

    def __init__(self, msg, skip=False):
        super().__init__(msg)
        self.skip = skip


def run_quiet(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def packages(root):
    """{package: version} of the sysroot at @root, or of the host's
    dpkg for "/"."""
    if root != "/":
        return vm_debs.manifest(root)
    r = run_quiet(["dpkg-query", "-W", "-f", "${Package} ${Version}\n",
                   "rt-app", "busybox-static", "libc6"])
    return dict(line.split(" ", 1) for line in r.stdout.splitlines() if line)


class Userspace:
    """What the guest runs: @root, the tree its libraries are found in
    (the host's "/", or a sysroot), and the files inside or outside it
    that the initramfs takes."""

    def __init__(self, root, binary, rtapp, busybox, pace=None):
        self.root, self.binary = root, binary
        self.rtapp, self.busybox = rtapp, busybox
        self.pace = pace


def host_userspace():
    rtapp = os.environ.get("RTAPP") or shutil.which("rt-app")
    if not rtapp:
        raise UserspaceError("rt-app not found (Debian package rt-app)",
                             True)
    busybox = shutil.which("busybox") or "/bin/busybox"
    return Userspace("/", os.path.realpath(sw_paths.binary()),
                     os.path.realpath(rtapp), busybox,
                     pace_binary(vm_arch.ARCHES[vm_arch.host_arch()]))


def sysroot(arch):
    """The sysroot of @arch's Debian packages, made once in the cache,
    with its MANIFEST."""
    root = os.path.join(vm_debs.CACHE, arch.debian, "root")
    if os.path.isfile(os.path.join(root, vm_debs.MANIFEST)):
        return root
    # one of an older version, which did not say what it holds
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.dirname(root), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="debs-", dir=os.path.dirname(root))
    try:
        pkgs = ["%s:%s" % (p, arch.debian) for p in SYSROOT_PACKAGES]
        r = run_quiet(["apt-get", "download"] + pkgs, cwd=tmp)
        if r.returncode:
            raise UserspaceError(
                "apt-get cannot download Debian's %s packages (as root: "
                "dpkg --add-architecture %s && apt-get update): %s" %
                (arch.debian, arch.debian,
                 r.stderr.strip().splitlines()[-1:]), True)
        vm_debs.unpack_debs([os.path.join(tmp, d) for d in os.listdir(tmp)],
                            root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def build_dir(arch):
    """Where @arch's guest binaries of this checkout are built: one
    directory a checkout, or make would take another checkout's newer
    binary for up to date (vm_reproduce.py builds other commits)."""
    tag = hashlib.sha1(sw_paths.COLLECTION.encode()).hexdigest()[:12]
    return os.path.join(vm_debs.CACHE, arch.debian, "build-" + tag)


def cross_binary(arch, root):
    """The binary built for @arch against @root; make rebuilds it when a
    source changed."""
    cc = arch.triplet + "-gcc"
    if not shutil.which(cc):
        raise UserspaceError("%s not found (Debian package gcc-%s)" %
                             (cc, arch.triplet), True)
    out = build_dir(arch)
    os.makedirs(out, exist_ok=True)
    libdir = os.path.join(root, "usr/lib", arch.triplet)
    env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=root,
               PKG_CONFIG_LIBDIR=os.path.join(libdir, "pkgconfig"))
    binary = os.path.join(out, "sched-workloads")
    # stripped, and no path of this checkout or this host's cache in
    # it: the same sources give the same binary in any checkout
    r = run_quiet(["make", "-s", "-C", sw_paths.COLLECTION,
                   "OUTPUT=" + out, "CC=" + cc, "SW_SOURCE_DIR=/opt/sw",
                   "SW_DESK_DIR=/opt/sw/desk",
                   "LDFLAGS=-s -Wl,-rpath-link=%s:%s" %
                   (libdir, os.path.join(root, "lib", arch.triplet)),
                   binary], env=env)
    if r.returncode:
        raise UserspaceError("cannot build the binary for %s: %s" %
                             (arch.name, r.stderr.strip()[-2000:]))
    return binary


def userspace(arch):
    """The Userspace for a guest of @arch."""
    if arch.name == vm_arch.host_arch():
        return host_userspace()
    root = sysroot(arch)
    return Userspace(root, cross_binary(arch, root),
                     os.path.join(root, "usr/bin/rt-app"),
                     os.path.join(root, "bin/busybox"),
                     pace_binary(arch))


def pace_binary(arch):
    """vm_pace.c built static for @arch (its C library's cross
    headers: libc6-dev-<arch>-cross)."""
    cc = "gcc" if arch.name == vm_arch.host_arch() else arch.triplet + "-gcc"
    src = os.path.join(sw_paths.DESK, "vm_pace.c")
    argv = [cc, "-static", "-s", "-O2", "-Wall", "-Wextra"]
    with open(src, "rb") as f:
        # named by what makes it: never an older build's
        tag = hashlib.sha1(f.read() + " ".join(argv).encode()).hexdigest()
    out = os.path.join(build_dir(arch), "vm_pace-" + tag[:12])
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = run_quiet(argv + ["-o", out + ".tmp", src])
    if r.returncode:
        raise UserspaceError("cannot build vm_pace for %s: %s" %
                             (arch.name, r.stderr.strip()[-2000:]))
    os.rename(out + ".tmp", out)
    return out


def initramfs(kernel, us, run_args, vm_name, baselines, calibrate, pace=0,
              cpus=1, workloads=None, made_by=None, debug=False):
    """The guest's root as bytes, and the modules it loads. @kernel: the
    vm.Kernel it boots; @us: the Userspace it runs; @run_args: what it
    runs; @vm_name: what its fingerprint calls the VM; @baselines: the
    baseline directory it judges against (None: none, it records its
    own); @calibrate: rt-app calibrated in the guest first; @pace: the
    period of vm_pace on its @cpus CPUs (0: none); @workloads: the names
    of the battery's workloads it has (None: all of them); @made_by: what
    made the guest, which its fingerprint records (vm.provenance());
    @debug: the guest says what it does on its console (vm --debug)."""
    battery = sw_paths.battery()
    cpio = vm_initramfs.Cpio()
    for d in ("proc", "sys", "dev", "tmp", "results", "etc/sw"):
        cpio.add_dir(d)
    cpio.add_chardev("dev/console", 5, 1)
    if vm_initramfs.Elf(us.busybox).needed():
        raise UserspaceError("%s is not static (Debian package "
                             "busybox-static)" % us.busybox, True)
    cpio.add_host_file("bin/busybox", us.busybox)
    with open(os.path.join(sw_paths.DESK, "vm_init.sh"), "rb") as f:
        cpio.add_file("init", f.read(), 0o755)
    cpio.add_host_file("opt/sw/sched-workloads", us.binary)
    cpio.add_host_file("usr/bin/rt-app", us.rtapp)
    # paths inside the root the libraries are looked up in
    inside = [os.path.join("/", os.path.relpath(p, us.root))
              for p in (us.binary, us.rtapp)]
    # glibc loads libgcc_s itself, to unwind a thread that exits
    unwinder = vm_initramfs.find_library(us.root, "libgcc_s.so.1")
    for lib in vm_initramfs.library_closure(
            us.root, inside + ([unwinder] if unwinder else [])):
        if lib not in inside:
            cpio.add_host_file(lib, os.path.realpath(
                os.path.join(us.root, lib.lstrip("/"))))
    if kernel.config:
        # the fingerprint's HZ and preemption model
        cpio.add_host_file("boot/config-" + kernel.name, kernel.config)
    if workloads is None:
        vm_initramfs.add_tree(cpio, "opt/sw/workloads",
                              os.path.join(battery, "workloads"))
    for name in workloads or ():
        cpio.add_host_file("opt/sw/workloads/%s.json" % name,
                           os.path.join(battery, "workloads",
                                        name + ".json"))
    if baselines:
        vm_initramfs.add_tree(cpio, "opt/sw/baselines", baselines)
    mods = []
    if kernel.moddir:
        found = vm_initramfs.module_order(kernel.moddir, RESULTS_MODULES)
        mods = [vm_initramfs.module_guest_path(m) for m in found]
        for m, guest in zip(found, mods):
            cpio.add_file(os.path.join("lib/modules", guest),
                          vm_initramfs.module_bytes(
                              os.path.join(kernel.moddir, m)))
    cpio.add_file("etc/sw/modules", "".join(m + "\n" for m in mods).encode())
    guest_args = []
    for arg in run_args:
        # a workload file of the host's goes along (a new reproducer, a
        # breaker's patched copy)
        if arg.endswith(".json") and os.path.isfile(arg):
            inside = "opt/sw/given/%d/%s" % (
                len(guest_args), os.path.basename(arg))
            cpio.add_host_file(inside, arg)
            arg = "/" + inside
        guest_args.append(arg)
    cpio.add_file("etc/sw/args",
                  "".join(a + "\n" for a in guest_args).encode())
    cpio.add_file("etc/sw/vm", (vm_name + "\n").encode())
    if made_by:
        cpio.add_file("etc/sw/made-by.json", (json.dumps(
            made_by, indent=1, sort_keys=True) + "\n").encode())
    if pace:
        cpio.add_host_file("opt/sw/vm_pace", us.pace)
        cpio.add_file("etc/sw/pace", (" ".join(
            str(x) for x in [pace] + list(range(cpus))) + "\n").encode())
    if calibrate:
        cpio.add_file("etc/sw/calibrate", b"")
    if debug:
        cpio.add_file("etc/sw/debug", b"")
    return cpio.bytes(), mods
