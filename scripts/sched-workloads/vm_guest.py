# SPDX-License-Identifier: GPL-2.0
"""What a guest of "sched-workloads vm" is made of, by architecture: how
QEMU runs it, and the userspace its initramfs carries.

A guest of the host's architecture runs the host's binary, rt-app and
busybox. A guest of another one (arm64 on an x86_64 host) runs a
userspace of Debian's packages for it: downloaded with apt-get and
extracted into a sysroot in the cache (never installed), the binary
cross-built against it.
"""
import gzip
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile

import sw_paths

CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.expanduser("~/.cache"), "sched-workloads", "vm")
# What the guest runs and what the binary links (their -dev packages)
SYSROOT_PACKAGES = (
    "rt-app", "busybox-static", "libc6", "libgcc-s1",
    "libjson-c5", "libjson-c-dev", "libtracefs1", "libtracefs-dev",
    "libtracecmd1", "libtracecmd-dev", "libtraceevent1",
    "libtraceevent-dev", "libzstd1", "libzstd-dev",
)


class GuestError(Exception):
    """@skip: a prerequisite missing here, not a failure."""

    def __init__(self, msg, skip=False):
        super().__init__(msg)
        self.skip = skip


class Arch:
    def __init__(self, name, debian, qemu_package, machine, console,
                 cpu_tcg, cpu_deterministic):
        self.name, self.debian = name, debian
        self.qemu = "qemu-system-" + name
        self.qemu_package = qemu_package
        self.machine, self.console = machine, console
        self.cpu_tcg, self.cpu_deterministic = cpu_tcg, cpu_deterministic
        self.triplet = name + "-linux-gnu"


# The deterministic CPU models: a fixed one, never "max" (what QEMU
# emulates grows with its version) or "host".
ARCHES = {
    "x86_64": Arch("x86_64", "amd64", "qemu-system-x86", "q35", "ttyS0",
                   "max", "qemu64"),
    # dtb-randomness=off: no kaslr-seed or rng-seed in the device tree
    "aarch64": Arch("aarch64", "arm64", "qemu-system-arm",
                    "virt,dtb-randomness=off", "ttyAMA0",
                    "cortex-a57", "cortex-a57"),
}


def image_arch(path):
    """The architecture of the kernel image at @path: "x86_64" for a
    bzImage, "aarch64" for an arm64 Image (gzip-compressed or not), None
    for anything else."""
    with open(path, "rb") as f:
        head = f.read(0x240)
    if head[:2] == b"\x1f\x8b":
        with gzip.open(path) as f:
            head = f.read(0x240)
    if head[0x202:0x206] == b"HdrS":
        return "x86_64"
    if head[0x38:0x3c] == b"ARM\x64":
        return "aarch64"
    return None


def host_arch():
    return platform.machine()


def packages(root):
    """{package: version} of the sysroot at @root (its MANIFEST), or of
    the host's dpkg for "/"."""
    if root == "/":
        r = run_quiet(["dpkg-query", "-W", "-f", "${Package} ${Version}\n",
                       "rt-app", "busybox-static", "libc6"])
        text = r.stdout
    else:
        with open(os.path.join(root, MANIFEST)) as f:
            text = f.read()
    return dict(line.split(" ", 1) for line in text.splitlines() if line)


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
        raise GuestError("rt-app not found (Debian package rt-app)", True)
    busybox = shutil.which("busybox") or "/bin/busybox"
    return Userspace("/", os.path.realpath(sw_paths.binary()),
                     os.path.realpath(rtapp), busybox,
                     pace_binary(ARCHES[host_arch()]))


def run_quiet(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


# In a sysroot: its packages and their versions, a line each
MANIFEST = ".sw-packages"


def unpack_debs(debs, final):
    """The Debian packages @debs extracted into the cache directory
    @final, with a MANIFEST: made whole in a directory of its own, then
    renamed, so that of two processes making it at once (two guests of
    one kernel) the first wins and the other's copy goes."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    part = tempfile.mkdtemp(prefix=os.path.basename(final) + ".part-",
                            dir=os.path.dirname(final))
    try:
        manifest = []
        for deb in sorted(debs):
            run_quiet(["dpkg-deb", "-x", deb, part], check=True)
            manifest.append(run_quiet(
                ["dpkg-deb", "-f", deb, "Package", "Version"],
                check=True).stdout.replace("Package: ", "").replace(
                    "\nVersion: ", " "))
        with open(os.path.join(part, MANIFEST), "w") as f:
            f.write("".join(manifest))
        os.chmod(part, 0o755)
        try:
            os.rename(part, final)
        except OSError:
            if not os.path.isfile(os.path.join(final, MANIFEST)):
                raise
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return final


def sysroot(arch):
    """The sysroot of @arch's Debian packages, made once in the cache,
    with its MANIFEST."""
    root = os.path.join(CACHE, arch.debian, "root")
    if os.path.isfile(os.path.join(root, MANIFEST)):
        return root
    # one of an older version, which did not say what it holds
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.dirname(root), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="debs-", dir=os.path.dirname(root))
    try:
        pkgs = ["%s:%s" % (p, arch.debian) for p in SYSROOT_PACKAGES]
        r = run_quiet(["apt-get", "download"] + pkgs, cwd=tmp)
        if r.returncode:
            raise GuestError(
                "apt-get cannot download Debian's %s packages (as root: "
                "dpkg --add-architecture %s && apt-get update): %s" %
                (arch.debian, arch.debian,
                 r.stderr.strip().splitlines()[-1:]), True)
        unpack_debs([os.path.join(tmp, d) for d in os.listdir(tmp)], root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def build_dir(arch):
    """Where @arch's guest binaries of this checkout are built: one
    directory a checkout, or make would take another checkout's newer
    binary for up to date (vm_reproduce.py builds other commits)."""
    tag = hashlib.sha1(sw_paths.COLLECTION.encode()).hexdigest()[:12]
    return os.path.join(CACHE, arch.debian, "build-" + tag)


def cross_binary(arch, root):
    """The binary built for @arch against @root; make rebuilds it when a
    source changed."""
    cc = arch.triplet + "-gcc"
    if not shutil.which(cc):
        raise GuestError("%s not found (Debian package gcc-%s)" %
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
        raise GuestError("cannot build the binary for %s: %s" %
                         (arch.name, r.stderr.strip()[-2000:]))
    return binary


def userspace(arch):
    """The Userspace for a guest of @arch."""
    if arch.name == host_arch():
        return host_userspace()
    root = sysroot(arch)
    return Userspace(root, cross_binary(arch, root),
                     os.path.join(root, "usr/bin/rt-app"),
                     os.path.join(root, "bin/busybox"),
                     pace_binary(arch))


def pace_binary(arch):
    """vm_pace.c built static for @arch (its C library's cross
    headers: libc6-dev-<arch>-cross)."""
    cc = "gcc" if arch.name == host_arch() else arch.triplet + "-gcc"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "vm_pace.c")
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
        raise GuestError("cannot build vm_pace for %s: %s" %
                         (arch.name, r.stderr.strip()[-2000:]))
    os.rename(out + ".tmp", out)
    return out
