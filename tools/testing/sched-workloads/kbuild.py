# SPDX-License-Identifier: GPL-2.0
"""sched-workloads kbuild [--arch ARCH] [--patch FILE]... [--name NAME]
                          [TREE]

A kernel for the guest of "sched-workloads vm", built from a source
tree: tinyconfig, the guest's fragment (kconfig/guest.config and the
architecture's) and the collection's own config merged on it, built out
of tree (make O=) with ccache, cross-compiled for arm64 (the judging
guest's) or x86_64. TREE is a kernel tree or a linux-source tarball
(default: Debian's /usr/src/linux-source-6.1.tar.xz, the reference
tree); it is never modified: the build compiles a mirror of it in the
cache (kbuild_source.py), with the --patch files (a mutant, a change to
try) applied to the mirror only.

The cache keeps one build directory per tree and architecture: a later
build, of the same tree or of a patch on it, compiles only what changed.
The kernel goes into the cache as a directory vm --kernel takes
(boot/vmlinuz-<release>, boot/config-<release>, lib/modules/<release>),
whose path is printed on stdout. Its release is the tree's version and
"-NAME" (default "sw", or "sw-" and the first patch's name): a mutant's
kernel says which it is. The build is reproducible (fixed build time,
user and host): the same sources give the same "uname -v", which the
guest's fingerprint records.

Exit: 0 built; 1 the build failed (the log's tail on stderr); 2 what was
given is wrong (no tree, a patch that does not apply, a fragment's
option that did not take); 4 a tool is missing.
"""
import argparse
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

import kbuild_source
import sw_paths
import vm_arch
from facts import EXIT_RUN_ERROR, EXIT_SKIP, EXIT_USAGE

CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.expanduser("~/.cache"), "sched-workloads",
                     "kbuild")
REFERENCE_TREE = "/usr/src/linux-source-6.1.tar.xz"
KCONFIG = os.path.join(sw_paths.DESK, "kconfig")
COLLECTION_CONFIG = os.path.join(sw_paths.COLLECTION, "config")
# Kbuild's name of each guest architecture, and its boot image
KARCH = {"aarch64": ("arm64", "Image"), "x86_64": ("x86_64", "bzImage")}
# uname -v of every build: the same sources, the same kernel
REPRODUCIBLE = {"KBUILD_BUILD_TIMESTAMP": "Wed Jan  1 00:00:00 UTC 2020",
                "KBUILD_BUILD_USER": "sched-workloads",
                "KBUILD_BUILD_HOST": "kbuild",
                "KBUILD_BUILD_VERSION": "1"}


class BuildError(Exception):
    def __init__(self, msg, code=EXIT_RUN_ERROR):
        super().__init__(msg)
        self.code = code


def fragments(arch):
    """The config fragments merged on tinyconfig, in order."""
    return [os.path.join(KCONFIG, "guest.config"),
            os.path.join(KCONFIG, "guest-%s.config" % KARCH[arch][0]),
            COLLECTION_CONFIG]


def wanted(paths):
    """{option: value} the fragments at @paths ask for ("n": "is not
    set"), the last one's word on an option winning."""
    want = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                m = re.match(r"(CONFIG_\w+)=(.*)$", line.strip())
                if m:
                    want[m.group(1)] = m.group(2)
                m = re.match(r"# (CONFIG_\w+) is not set$", line.strip())
                if m:
                    want[m.group(1)] = "n"
    return want


def config_values(path):
    got = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                got[m.group(1)] = m.group(2)
    return got


def not_taken(want, got):
    """The options of @want the final config @got does not have as
    asked: "CONFIG_X=y (got n)" each."""
    missed = []
    for opt, v in sorted(want.items()):
        have = got.get(opt, "n")
        if have != v:
            missed.append("%s=%s (got %s)" % (opt, v, have))
    return missed


class Build:
    """The build directory of one tree and architecture in the cache."""

    def __init__(self, tree, arch):
        self.tree, self.arch = tree, arch
        self.karch, self.image_name = KARCH[arch]
        key = hashlib.sha1(tree.encode()).hexdigest()[:10]
        self.root = os.path.join(CACHE, "%s-%s-%s" % (
            self.karch, os.path.basename(tree), key))
        self.src = os.path.join(self.root, "src")
        self.obj = os.path.join(self.root, "obj")
        self.log = os.path.join(self.root, "build.log")
        cross = cross_prefix(arch)
        self.make = ["make", "-C", self.src, "O=" + self.obj,
                     "ARCH=" + self.karch, "-j%d" % (os.cpu_count() or 1)]
        if cross:
            self.make.append("CROSS_COMPILE=" + cross)
        if shutil.which("ccache"):
            self.make.append("CC=ccache %sgcc" % cross)
        # every build directory is <root>/src and <root>/obj: relative to
        # CACHE, a compiler's paths are the same in each, and ccache's
        # hits are shared between trees (a bisection's worktree too)
        self.env = dict(os.environ, CCACHE_BASEDIR=CACHE, **REPRODUCIBLE)

    def run(self, args, what):
        with open(self.log, "a") as log:
            log.write("\n$ %s\n" % " ".join(self.make + args))
            log.flush()
            r = subprocess.run(self.make + args, stdout=log,
                               stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env=self.env)
        if r.returncode:
            with open(self.log, errors="replace") as f:
                tail = f.read().splitlines()[-25:]
            raise BuildError("%s failed (exit %d; log %s):\n%s" % (
                what, r.returncode, self.log, "\n".join(tail)))

    def configure(self):
        """tinyconfig and the fragments, when they or the tree's version
        changed since the last build; a fragment's option that does not
        take (its dependencies unmet) is an error naming it."""
        frags = fragments(self.arch)
        h = hashlib.sha1(kbuild_source.release_of(self.src).encode())
        for p in frags:
            with open(p, "rb") as f:
                h.update(f.read())
        stamp = os.path.join(self.obj, ".sw-config")
        config = os.path.join(self.obj, ".config")
        if (os.path.isfile(config) and os.path.isfile(stamp) and
                open(stamp).read() == h.hexdigest()):
            return
        self.run(["tinyconfig"], "make tinyconfig")
        with open(config, "a") as out:
            for p in frags:
                with open(p) as f:
                    out.write(f.read())
        self.run(["olddefconfig"], "make olddefconfig")
        missed = not_taken(wanted(frags), config_values(config))
        if missed:
            raise BuildError("options of the fragments (%s) that did not "
                             "take on %s: %s" % (
                                 ", ".join(frags), self.tree,
                                 "; ".join(missed)), EXIT_USAGE)
        with open(stamp, "w") as f:
            f.write(h.hexdigest())

    def release(self, localversion):
        r = subprocess.run(self.make + ["-s", "LOCALVERSION=" + localversion,
                                        "kernelrelease"],
                           capture_output=True, text=True, env=self.env)
        if r.returncode:
            raise BuildError("make kernelrelease: %s" % r.stderr.strip())
        return r.stdout.strip().splitlines()[-1]

    def install(self, release, localversion):
        """The kernel as vm --kernel takes it, in the cache."""
        out = os.path.join(self.root, "kernels", release)
        part = out + ".part"
        shutil.rmtree(part, ignore_errors=True)
        os.makedirs(os.path.join(part, "boot"))
        shutil.copyfile(os.path.join(self.obj, "arch",
                                     "x86" if self.karch == "x86_64"
                                     else self.karch, "boot",
                                     self.image_name),
                        os.path.join(part, "boot", "vmlinuz-" + release))
        shutil.copyfile(os.path.join(self.obj, ".config"),
                        os.path.join(part, "boot", "config-" + release))
        # vm names where a hung guest's CPUs are with it
        shutil.copyfile(os.path.join(self.obj, "System.map"),
                        os.path.join(part, "boot", "System.map-" + release))
        # depmod: vm reads each module's own dependencies
        self.run(["LOCALVERSION=" + localversion,
                  "INSTALL_MOD_PATH=" + part, "INSTALL_MOD_STRIP=1",
                  "DEPMOD=true", "modules_install"], "make modules_install")
        for link in ("build", "source"):
            p = os.path.join(part, "lib", "modules", release, link)
            if os.path.islink(p):
                os.unlink(p)
        shutil.rmtree(out, ignore_errors=True)
        os.rename(part, out)
        return out


def local_version(name, patches):
    if not name:
        name = "sw"
        if patches:
            name += "-" + os.path.basename(patches[0]).rsplit(".", 1)[0]
    name = re.sub(r"[^A-Za-z0-9._+-]", "-", name)
    return "-" + name[:48]


def build(tree, arch, patches, name=None):
    """Builds @tree for @arch with @patches applied: (the kernel's
    directory, its release, seconds the build took)."""
    start = time.monotonic()
    b = Build(tree, arch)
    os.makedirs(b.obj, exist_ok=True)
    with open(os.path.join(b.root, "lock"), "w") as lock:
        # one build at a time in a build directory
        fcntl.flock(lock, fcntl.LOCK_EX)
        open(b.log, "w").close()
        kbuild_source.mirror(tree, b.src, patches)
        b.configure()
        lv = local_version(name, patches)
        b.run(["LOCALVERSION=" + lv, b.image_name, "modules"],
              "make %s modules" % b.image_name)
        release = b.release(lv)
        out = b.install(release, lv)
    return out, release, time.monotonic() - start


def cross_prefix(arch):
    """CROSS_COMPILE for @arch: none on a host of that architecture."""
    return ("" if arch == vm_arch.host_arch() else
            vm_arch.ARCHES[arch].triplet + "-")


def missing_tools(arch):
    cross = cross_prefix(arch)
    tools = {"make": "make", "rsync": "rsync", "patch": "patch",
             "flex": "flex", "bison": "bison", "bc": "bc",
             cross + "gcc": "gcc-" + vm_arch.ARCHES[arch].triplet
             if cross else "gcc"}
    missing = ["%s (Debian package %s)" % (t, p) for t, p in tools.items()
               if not shutil.which(t)]
    # x86_64 builds objtool, which reads objects with libelf
    if arch == "x86_64" and not os.path.exists("/usr/include/gelf.h"):
        missing.append("gelf.h (Debian package libelf-dev)")
    return missing


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads kbuild",
        description="A kernel for the guest of sched-workloads vm, built "
        "from a source tree, which is never modified.")
    ap.add_argument("--arch", choices=sorted(KARCH), default="aarch64")
    ap.add_argument("--patch", action="append", default=[], metavar="FILE",
                    help="applied to the build's mirror of the tree (-p1), "
                    "in order")
    ap.add_argument("--name", help="the release's suffix (default: sw, "
                    "or sw-<first patch>)")
    ap.add_argument("tree", nargs="?", default=REFERENCE_TREE,
                    help="a kernel tree or linux-source tarball "
                    "(default: %(default)s)")
    return ap.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    missing = missing_tools(a.arch)
    if missing:
        print("sched-workloads kbuild: SKIP: not found: %s" %
              ", ".join(missing), file=sys.stderr)
        return EXIT_SKIP
    for p in a.patch:
        if not os.path.isfile(p):
            print("sched-workloads kbuild: %s: no such patch" % p,
                  file=sys.stderr)
            return EXIT_USAGE
    try:
        tree = kbuild_source.tree_of(a.tree, CACHE)
        out, release, took = build(tree, a.arch, [os.path.abspath(p)
                                                  for p in a.patch], a.name)
    except (kbuild_source.SourceError, BuildError) as e:
        print("sched-workloads kbuild: %s" % e, file=sys.stderr)
        return e.code
    print("# kbuild: %s for %s in %.0f s" % (release, a.arch, took),
          file=sys.stderr)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
