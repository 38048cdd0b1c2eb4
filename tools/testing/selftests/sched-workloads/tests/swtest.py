# SPDX-License-Identifier: GPL-2.0
"""What the tests share: where things are, running the binary, the lock."""
import contextlib
import fcntl
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.dirname(HERE)
TOP = os.path.abspath(os.path.join(COLLECTION, "..", "..", "..", ".."))
FIXTURES = os.path.join(HERE, "fixtures")
# The binary under test; the test command may point it at a sanitizer build.
BINARY = os.environ.get("SW_BINARY",
                        os.path.join(COLLECTION, "sched-workloads"))
LOCK_FILE = "/tmp/sched-workloads-live.lock"

# Exit codes of the tool (util.h).
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 4
EXIT_BAD_WORKLOAD, EXIT_BAD_LOG, EXIT_BAD_TRACE, EXIT_RUN_ERROR = 5, 6, 7, 8


# Tests take the live lock themselves (live_lock()); the tool they start
# must then not wait for it.
CHILD_ENV = dict(os.environ, SCHED_WORKLOADS_LOCK="")


def sw(*args, timeout=600, **kw):
    """Runs the tool; returns the CompletedProcess (text mode)."""
    kw.setdefault("env", CHILD_ENV)
    return subprocess.run([BINARY] + list(args), capture_output=True,
                          text=True, timeout=timeout, **kw)


def fixture(*parts):
    return os.path.join(FIXTURES, *parts)


def load_json(path):
    with open(path) as f:
        return json.load(f)


@contextlib.contextmanager
def live_lock():
    """Live runs on a 2-CPU machine disturb each other: one at a time."""
    with open(LOCK_FILE, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def results_dir(stdout):
    """The run's results directory, from its "# results: DIR" line."""
    for line in stdout.splitlines():
        if line.startswith("# results: "):
            return line[len("# results: "):]
    return None


def tracing_instances():
    path = "/sys/kernel/tracing/instances"
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def ktap_results(text):
    """(indent, ok, name, directive) of every KTAP result line."""
    out = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        for prefix, ok in (("ok ", True), ("not ok ", False)):
            if stripped.startswith(prefix):
                rest = stripped[len(prefix):].split(" ", 1)
                tail = rest[1] if len(rest) > 1 else ""
                name, _, directive = tail.partition(" # ")
                out.append((indent, ok, name, directive))
                break
    return out
