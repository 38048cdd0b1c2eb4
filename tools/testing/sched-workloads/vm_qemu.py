# SPDX-License-Identifier: GPL-2.0
"""The QEMU a guest of "sched-workloads vm" runs.

The host's own (Debian's qemu-system-* package) for an ordinary guest.
The judging guest (--deterministic) needs a QEMU whose round-robin of
vCPUs under icount is fair, which 7.2, bookworm's, is not: there, when
one vCPU runs up to the machine's next timer deadline, the others get
no turn in that pass (fixed in 8.1, commit 83ecdb18eb65, "ensure
fairness with icount"). When the host's is older than that, the
judging guest's comes from Debian's bookworm-backports on the mirror
apt already uses: downloaded with apt-get through an apt state of its
own in the cache (the host's sources and packages are not touched),
extracted there, never installed. Its libraries are bookworm's, which
the host's qemu-system-* package brought.
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile

import vm_debs

CACHE = os.path.join(vm_debs.CACHE, "qemu")
# The first version whose icount round-robin gives every vCPU a turn
FAIR = (8, 1)
BACKPORTS = "bookworm-backports"


class QemuError(Exception):
    """@skip: what is missing here, not a failure."""

    def __init__(self, msg, skip=True):
        super().__init__(msg)
        self.skip = skip


class Qemu:
    """A QEMU binary: its path, "major.minor" and full version."""

    def __init__(self, path, version, full):
        self.path, self.version, self.full = path, version, full


def probe(path):
    """The Qemu at @path, or None when it does not run."""
    try:
        r = subprocess.run([path, "--version"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version ([0-9]+)\.([0-9]+)\S*(?: \(([^)]*)\))?",
                  r.stdout)
    if r.returncode or not m:
        return None
    return Qemu(path, "%s.%s" % m.group(1, 2),
                m.group(3) or m.group(0).split()[1])


def fair(q):
    return tuple(int(x) for x in q.version.split(".")) >= FAIR


def mirror():
    """The URL apt fetches the host's Debian release from."""
    r = subprocess.run(["apt-cache", "policy"], capture_output=True,
                       text=True)
    for line in r.stdout.splitlines():
        m = re.match(r"\s*\d+ (\S+) (bookworm)/main ", line)
        if m:
            return m.group(1)
    return None


def apt(state, *args):
    """apt-get with the package index of @state alone: BACKPORTS."""
    opts = ["-o", "Dir::Etc::sourcelist=%s/sources.list" % state,
            "-o", "Dir::Etc::sourceparts=-",
            "-o", "Dir::State::Lists=" + os.path.join(state, "lists"),
            "-o", "Dir::Cache=" + os.path.join(state, "cache"),
            "-o", "APT::Sandbox::User=root"]
    return subprocess.run(["apt-get"] + opts + list(args),
                          capture_output=True, text=True, cwd=state)


def backports(package, binary):
    """@binary of Debian package @package from BACKPORTS, extracted into
    the cache once: its path."""
    root = os.path.join(CACHE, package)
    path = os.path.join(root, "usr", "bin", binary)
    if os.path.isfile(os.path.join(root, vm_debs.MANIFEST)):
        return path
    shutil.rmtree(root, ignore_errors=True)
    url = mirror()
    if not url:
        raise QemuError("no bookworm source in apt's sources to take %s "
                        "from %s" % (package, BACKPORTS))
    os.makedirs(CACHE, exist_ok=True)
    state = tempfile.mkdtemp(prefix="apt-", dir=CACHE)
    for d in ("lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(state, d))
    with open(os.path.join(state, "sources.list"), "w") as f:
        f.write("deb %s %s main\n" % (url, BACKPORTS))
    try:
        r = apt(state, "update")
        if r.returncode == 0:
            r = apt(state, "download", "%s/%s" % (package, BACKPORTS))
        debs = glob.glob(os.path.join(state, package + "_*.deb"))
        if r.returncode or len(debs) != 1:
            raise QemuError("apt-get cannot download %s from %s (%s): %s" %
                            (package, BACKPORTS, url,
                             (r.stderr.strip().splitlines() or ["?"])[-1]))
        vm_debs.unpack_debs(debs, root)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return path


def qemu_for(binary, package, judging):
    """The Qemu that runs @binary (qemu-system-<arch>) of Debian package
    @package: the host's; for the judging guest (@judging) the host's
    only when its round-robin is fair, else BACKPORTS'."""
    host = shutil.which(binary)
    q = probe(host) if host else None
    if not judging:
        if not q:
            raise QemuError("%s not found (Debian package %s)" %
                            (binary, package))
        return q
    if q and fair(q):
        return q
    q = probe(backports(package, binary))
    if not q or not fair(q):
        raise QemuError("%s from %s does not run here, or is older than "
                        "%d.%d" % ((binary, BACKPORTS) + FAIR), skip=False)
    return q


def given(path):
    """The Qemu at @path, given on the command line."""
    q = probe(path)
    if not q:
        raise QemuError("%s: not a QEMU that runs here" % path, skip=False)
    return q
