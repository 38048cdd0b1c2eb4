# SPDX-License-Identifier: GPL-2.0
"""sched-workloads vm --reproduce BASELINE...: a deterministic guest's
baselines made again, here, from what they say made them, and compared
byte for byte.

A baseline recorded in the judging guest carries its guest's "made_by"
(vm.py provenance()): the collection's commit, the guest's binary and
userspace, the compiler, QEMU, the kernel and its package, the VM, the
boot's arguments and its share of the battery. Reproducing it checks out
that commit into a git worktree, builds it, boots the same kernel (its
Debian package downloaded again when not given) with the same arguments
and the same share, and compares every file: identical, or the first
value that differs, with what of "made_by" differs between the two
(another QEMU, another package version, another compiler: the reason).
"""
import json
import os
import shutil
import subprocess
import tempfile

import sw_paths
import vm_arch
from facts import EXIT_FAIL, EXIT_PASS, EXIT_RUN_ERROR, EXIT_USAGE
# the same files: as a pass; others: as a check that failed
EXIT_SAME, EXIT_DIFFERS = EXIT_PASS, EXIT_FAIL


class ReproduceError(Exception):
    def __init__(self, msg, code=EXIT_RUN_ERROR):
        super().__init__(msg)
        self.code = code


def made_by(path):
    """The baseline at @path and its fingerprint's "made_by"."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ReproduceError("%s: %s" % (path, e), EXIT_USAGE)
    made = doc.get("fingerprint", {}).get("made_by")
    if not made:
        raise ReproduceError("%s: its fingerprint has no made_by: not "
                             "recorded in a deterministic guest, or before "
                             "baselines said what made them" % path,
                             EXIT_USAGE)
    if made.get("dirty") or not made.get("commit"):
        raise ReproduceError("%s: recorded from a tree with changes no "
                             "commit holds: it cannot be made again" % path,
                             EXIT_USAGE)
    return doc, made


def first_difference(a, b, where=""):
    """The first place two JSON values differ, "path: a vs b", or None."""
    if type(a) is not type(b):
        return "%s: %r vs %r" % (where or "/", a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                side = "the original" if k in a else "the copy"
                return "%s/%s: only in %s" % (where, k, side)
            d = first_difference(a[k], b[k], "%s/%s" % (where, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d values vs %d" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r vs %r" % (where or "/", a, b)


def kernel_package(made, work):
    """The kernel's Debian package, downloaded again into @work."""
    deb = made["kernel"].get("package")
    if not deb:
        raise ReproduceError("the kernel was not a Debian package (%s): "
                             "give it with --kernel" % made["kernel"]["name"],
                             EXIT_USAGE)
    name, version, arch = deb[:-len(".deb")].split("_")
    r = subprocess.run(["apt-get", "download", "%s:%s=%s" % (
        name, arch, version.replace("%3a", ":"))], cwd=work,
        capture_output=True, text=True)
    path = os.path.join(work, deb)
    if r.returncode or not os.path.exists(path):
        raise ReproduceError("apt-get cannot download %s: %s" % (
            deb, (r.stderr.strip().splitlines() or ["?"])[-1]))
    return path


def worktree(commit, work):
    """The collection at @commit, built, in a git worktree under @work:
    its top directory."""
    top = subprocess.run(["git", "-C", sw_paths.TOP, "rev-parse",
                          "--show-toplevel"], capture_output=True,
                         text=True).stdout.strip()
    tree = os.path.join(work, "tree")
    r = subprocess.run(["git", "-C", top, "worktree", "add", "--detach",
                        tree, commit], capture_output=True, text=True)
    if r.returncode:
        raise ReproduceError("commit %s is not in %s (%s): fetch it first"
                             % (commit, top, r.stderr.strip()), EXIT_USAGE)
    r = subprocess.run(["make", "-C", tree, "build"], capture_output=True,
                       text=True)
    if r.returncode:
        raise ReproduceError("cannot build commit %s: %s" %
                             (commit, r.stderr.strip()[-1500:]))
    return top, tree


def again_path(original, out):
    """Where the copy of baseline @original lands under baseline
    directory @out: the same class directory (and platform directory,
    when it has one) as @original."""
    parts = os.path.abspath(original).split(os.sep)
    for depth in (2, 3):
        p = os.path.join(out, *parts[-depth:])
        if os.path.exists(p):
            return p
    return os.path.join(out, *parts[-2:])


def boot_again(made, kernel, tree, out):
    """The worktree's "vm" with @made's guest and arguments: the
    baselines it records land in @out."""
    binary = os.path.join(sw_paths.collection(tree), "sched-workloads")
    vm = made["vm"]
    argv = [binary, "vm", "--deterministic", "--kernel", kernel,
            "--topology", vm["topology"], "--pace", str(vm["pace"]),
            "--memory", str(vm["memory"]), "-B", out,
            "-r", os.path.join(os.path.dirname(out), "runs")]
    if made["boot"]["workloads"] is not None:
        argv += ["--boot", str(made["boot"]["index"])]
    argv += ["--"] + made["boot"]["args"]
    # the worktree's own tools, not another desk's
    env = dict(os.environ, SW_BINARY=binary)
    env.pop("SCHED_WORKLOADS_DESK", None)
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    if r.returncode not in (EXIT_PASS, EXIT_FAIL):
        raise ReproduceError("the guest did not record them (exit %d): %s"
                             % (r.returncode, (r.stdout + r.stderr)[-2000:]))


def reproduce(paths, kernel=None):
    """Makes the baselines at @paths again and compares them, printing
    what it finds; returns the exit status."""
    groups = {}
    for p in paths:
        doc, made = made_by(p)
        groups.setdefault(json.dumps(made, sort_keys=True), []).append(p)
    status = EXIT_SAME
    for key, files in groups.items():
        made = json.loads(key)
        work = tempfile.mkdtemp(prefix="sw-reproduce-")
        top = None
        try:
            print("# reproducing %d baseline(s) of commit %s, kernel %s, "
                  "%s" % (len(files), made["commit"][:12],
                          made["kernel"]["name"], made["vm"]["name"]))
            k = kernel or kernel_package(made, work)
            top, tree = worktree(made["commit"], work)
            out = os.path.join(work, "baselines")
            boot_again(made, k, tree, out)
            for p in files:
                status = max(status, compare(p, out))
        finally:
            if top:
                subprocess.run(["git", "-C", top, "worktree", "remove",
                                "--force", os.path.join(work, "tree")],
                               capture_output=True)
            shutil.rmtree(work, ignore_errors=True)
    return status


def compare(original, out):
    """@original against the file recorded again under @out."""
    again = again_path(original, out)
    if not os.path.exists(again):
        print("not ok %s: not recorded again" % original)
        return EXIT_DIFFERS
    with open(original, "rb") as f, open(again, "rb") as g:
        a, b = f.read(), g.read()
    if a == b:
        print("ok %s: the same, byte for byte" % original)
        return EXIT_SAME
    ja, jb = json.loads(a), json.loads(b)
    print("not ok %s: %s" % (original, first_difference(ja, jb) or
                             "the same values, written otherwise"))
    why = first_difference(ja["fingerprint"].get("made_by"),
                           jb["fingerprint"].get("made_by"))
    print("# what made them differs: %s" % why if why else
          "# what made them is the same: %s" % describe_host())
    return EXIT_DIFFERS


def describe_host():
    """Said when the same inputs gave other numbers: a bug of the mode."""
    return ("the same inputs gave other numbers: something of the host "
            "leaks into the guest (%s)" % vm_arch.host_arch())
