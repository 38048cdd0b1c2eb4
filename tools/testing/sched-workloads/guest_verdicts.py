# SPDX-License-Identifier: GPL-2.0
"""A battery run in the judging guest (vm --deterministic) on a kernel,
its KTAP read back as checks, and one kernel's checks set against
another's: what the mutant campaign (mutants.py) and the bisection
(kbisect.py) both judge with."""
import hashlib
import json
import os
import re
import signal
import subprocess
import threading

import ktap_parse
import sw_paths

# vm's own result, "vm-<release> # the guest hung..." (or panicked): only
# there when the guest did not end well, named after its kernel
GUEST = "vm"


# vm's bound on a boot of the judging guest (its --timeout) with a CPU
# of the host to itself
BOOT_BOUND_S = 1800


def boot_bound(kernels_at_once):
    """vm's --timeout for a boot when @kernels_at_once kernels run in
    judging guests together: each kernel's battery is two boots at once,
    a host thread each, so a boot's wall time grows with the boots per
    CPU (a deterministic guest's numbers do not). A bound of one CPU's
    took a mutant that confirms its failures for a hang with 4 boots on
    2 CPUs: it was still running."""
    per_cpu = 2.0 * kernels_at_once / (os.cpu_count() or 1)
    return round(BOOT_BOUND_S * max(1.0, per_cpu))


# What of the collection the guest's battery is: the binary's sources
# and the workloads (not its tests, baselines, fuzz corpora or lab
# tools). A kernel judged with other sources must be judged again.
COMMENT = re.compile(rb"/\*.*?\*/", re.S)
BATTERY_SKIP = ("tests", "baselines", "bench", "fuzz", "lab", "desk",
                "results", "sched-workloads")


def battery_digest(collection=None):
    """sha256 over the path and bytes of every file the guest's battery
    is built from or runs, in the collection at @collection (default:
    the tree's): what a resumed campaign or series checks a kernel's
    earlier verdicts against."""
    top = collection or sw_paths.COLLECTION
    h = hashlib.sha256()
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in BATTERY_SKIP]
            files = [f for f in files if f not in BATTERY_SKIP]
        dirs.sort()
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in sorted(files):
            path = os.path.join(d, f)
            h.update(os.path.normpath(os.path.join(rel, f)).encode() + b"\0")
            with open(path, "rb") as fh:
                data = fh.read()
            if f.endswith(".json"):
                # a workload's comments (rt-app's grammar has /* */) are
                # its documentation: a new paragraph judges nothing anew
                data = COMMENT.sub(b"", data)
            h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def read_record(path):
    """The JSON record at @path (what a campaign or a series wrote when a
    kernel's battery ended), None if there is none or it is not whole."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def split_run_args(argv):
    """(a command's own arguments, the battery's after "--", "run" when
    none): how the commands that run it in the judging guest take it."""
    if "--" not in argv:
        return argv, ["run"]
    i = argv.index("--")
    return argv[:i], argv[i + 1:] or ["run"]


# vm's exit when it was interrupted (Ctrl-C, SIGTERM): the kernel's
# battery did not end, it judged nothing
INTERRUPTED = 130


class Interrupted(Exception):
    """A kernel's guest was interrupted: a campaign or a series stops
    there and records nothing of that kernel."""


# The guests this process runs, and whether it was told to stop: SIGTERM
# reaches the command, not its vm children (Python's default ends it and
# leaves them running, QEMU and all).
_guests = set()
_guests_lock = threading.Lock()
_stopping = False


def stop_guests(signum=None, frame=None):
    """SIGTERM's handler (stop_guests_on_sigterm()): every guest of this
    process is sent SIGTERM (its vm ends QEMU and exits INTERRUPTED) and
    no other starts."""
    global _stopping
    with _guests_lock:
        _stopping = True
        for p in _guests:
            p.send_signal(signal.SIGTERM)


def stop_guests_on_sigterm():
    signal.signal(signal.SIGTERM, stop_guests)


def guest(kernel, baselines, results, run_args, log, timeout=None):
    """@run_args (sched-workloads run or baseline ...) on @kernel in the
    judging guest, judged with (or recording) @baselines, its run
    directory under @results, vm's output (the KTAP) into @log, each
    boot bounded by @timeout s (vm's default when None): vm's exit
    status, INTERRUPTED without a guest once stop_guests() was called."""
    bound = ["--timeout", str(timeout)] if timeout else []
    with open(log, "w") as f:
        with _guests_lock:
            if _stopping:
                return INTERRUPTED
            p = subprocess.Popen(
                [sw_paths.binary(), "vm", "--deterministic", "--kernel",
                 kernel, "-B", baselines, "-r", results] + bound + ["--"] +
                run_args, stdout=f, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
            _guests.add(p)
        try:
            return p.wait()
        finally:
            with _guests_lock:
                _guests.discard(p)


def checks(ktap):
    """{check name: (passed, its diagnostic)} of a battery's KTAP: every
    result line that is not a SKIP, the workloads' own too. A nested
    check's diagnostic is the comment line just before it ("FAIL ...",
    "REGRESSION ...", "ok ..."); a workload's, its directive. vm's own
    result is GUEST, whatever kernel it names."""
    found, last = {}, {}
    with open(ktap, errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        s = line.lstrip(" ")
        indent = len(line) - len(s)
        if s.startswith("# "):
            if indent:
                last[indent] = s[2:]
            continue
        for _, ok, name, directive in ktap_parse.ktap_results(line):
            diag = last.pop(indent, "")
            if directive.startswith("SKIP"):
                continue
            if not indent and name.startswith(GUEST + "-"):
                name = GUEST
            found[name] = (ok, diag if indent else directive)
    return found


def passed(base, name):
    """Whether check @name passed on @base: one it does not have did
    not, but for the guest's own, which a guest that ended well lacks."""
    if name == GUEST:
        return base.get(name, (True,))[0]
    return base.get(name, (False,))[0]


def judge(base, mutant):
    """The checks of @mutant (checks()) that fail where @base's pass:
    [(name, diagnostic)], those with a diagnostic first (a workload's
    own result says less than its checks), then by name. A guest that
    hung or panicked on @mutant only is a catch of its own."""
    return sorted(((name, diag) for name, (ok, diag) in mutant.items()
                   if not ok and passed(base, name)),
                  key=lambda c: (not c[1], c[0]))
