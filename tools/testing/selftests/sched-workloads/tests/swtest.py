# SPDX-License-Identifier: GPL-2.0
"""What the tests share: where things are, running the binary, the lock."""
import contextlib
import fcntl
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")


def build_var(name):
    """A variable of build.mk, the one description of the build (its
    sources by layer, libraries and flags, where things are), as a list
    of words."""
    try:
        out = subprocess.run(["make", "-s", "--no-print-directory", "-f",
                              "build.mk", "print-" + name], cwd=COLLECTION,
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return []       # an installed collection: no sources
    return out.stdout.split()


# The kernel tree, and the desk's tools in it, where the binary built
# here finds them.
TOP = " ".join(build_var("SW_TREE"))
SCRIPTS = " ".join(build_var("SW_DESK_DIR"))
# The python of the collection (lab/: results.py, kcidb.py) and of the
# desk (report.py, breaker.py...) is tested too.
sys.path.insert(1, os.path.join(COLLECTION, "lab"))
sys.path.insert(1, SCRIPTS)
from ktap_parse import ktap_results  # noqa: E402,F401 (for the tests)
import facts  # noqa: E402
# The binary under test; the test command may point it at a sanitizer build.
BINARY = facts.binary()
LOCK_FILE = "/tmp/sched-workloads-live.lock"


def __getattr__(name):
    """EXIT_PASS, EXIT_BAD_WORKLOAD...: the tool's exit codes, as it
    states them (lab/facts.py)."""
    if name.startswith("EXIT_"):
        return getattr(facts, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# Tests take the live lock themselves (live_lock()); the tool they start
# must then not wait for it.
CHILD_ENV = dict(os.environ, SCHED_WORKLOADS_LOCK="")


def sw(*args, timeout=600, **kw):
    """Runs the tool; returns the CompletedProcess (text mode)."""
    kw.setdefault("env", CHILD_ENV)
    return subprocess.run([BINARY] + list(args), capture_output=True,
                          text=True, timeout=timeout, **kw)


def index_run(path):
    """Has the tool write @path/index.json, for a run directory a test
    made by hand (as for a run of an older sched-workloads)."""
    r = sw("index", path, timeout=60)
    if r.returncode:
        raise AssertionError("sched-workloads index %s: %s" %
                             (path, r.stderr))


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


def sweep_stale_instances(tracefs="/sys/kernel/tracing"):
    """Removes the tracing instances of runs whose process is gone (a
    run killed by SIGKILL, or with its machine), as every run does
    before it starts (capture_sweep_stale()): the first live test would
    otherwise sweep them and be blamed for the change. Returns their
    names."""
    path = os.path.join(tracefs, "instances")
    swept = []
    for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        pid = name[len("sched-workloads-"):]
        if not name.startswith("sched-workloads-") or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        os.rmdir(os.path.join(path, name))
        swept.append(name)
    return swept


# What trace_check and sched_stream_check link with: the trace analysis
# and what it stands on, and their shared options.
ANALYSIS_SOURCES = ["tests/checker_opts.c"] + [
    os.path.relpath(p, ".") for p in build_var("SW_ANALYSIS_SRCS")]


def unpack_traces(fixtures, tmp):
    """Every NAME.dat.gz of @fixtures unpacked into @tmp: {NAME: path}."""
    out = {}
    for gz in sorted(os.listdir(fixtures)):
        if gz.endswith(".dat.gz"):
            dat = os.path.join(tmp, gz[:-3])
            with gzip.open(os.path.join(fixtures, gz)) as src, \
                    open(dat, "wb") as dst:
                shutil.copyfileobj(src, dst)
            out[gz[:-7]] = dat
    return out


# The pkg-config packages ANALYSIS_SOURCES need.
ANALYSIS_PKGS = tuple(build_var("SW_LIBS"))
SAN_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]


def build_checker(tmp, name, sources, pkgs=()):
    """Builds tests/<name>.c with @sources (paths in the collection) under
    AddressSanitizer and UBSan into @tmp; returns (binary, env to run it
    with). SkipTest when gcc or a pkg-config package is missing."""
    if not shutil.which("gcc"):
        raise unittest.SkipTest("gcc missing")
    if not build_var("SW_CPPFLAGS"):
        raise unittest.SkipTest("no build.mk: not a source tree")
    flags = []
    if pkgs:
        try:
            flags = subprocess.run(["pkg-config", "--cflags", "--libs"] +
                                   list(pkgs), capture_output=True,
                                   text=True, check=True).stdout.split()
        except (OSError, subprocess.CalledProcessError):
            raise unittest.SkipTest("pkg-config %s missing" % " ".join(pkgs))
    binary = os.path.join(tmp, name)
    subprocess.run(["gcc", "-g", "-O1", "-Wall", "-Wextra", "-Werror"] +
                   build_var("SW_CPPFLAGS") + SAN_FLAGS + ["-o", binary,
                   "tests/%s.c" % name] + list(sources) + flags +
                   ["-lm", "-pthread"], cwd=COLLECTION, check=True)
    # libtraceevent 1.7 leaks a few bytes per parsed format: not ours
    supp = os.path.join(tmp, "lsan.supp")
    with open(supp, "w") as f:
        f.write("leak:libtraceevent.so\nleak:libtracecmd.so\n")
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               LSAN_OPTIONS="suppressions=" + supp)
    return binary, env


def setup_checker(cls, name, sources, pkgs=()):
    """setUpClass of a test of a C checker: cls.tmp, a new directory
    (removed again when the build fails), and cls.bin, cls.env as
    build_checker() gives them."""
    cls.tmp = tempfile.mkdtemp(prefix="sw-%s-" % name)
    try:
        cls.bin, cls.env = build_checker(cls.tmp, name, sources, pkgs)
    except BaseException:
        shutil.rmtree(cls.tmp, ignore_errors=True)
        raise


SANITIZER_ERRORS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                    "runtime error")


class StreamCheckerTest(unittest.TestCase):
    """Tests that feed the trace analysis's state machine a text stream
    of sched events (tests/sched_stream_check.c, built with sanitizers)."""

    @classmethod
    def setUpClass(cls):
        setup_checker(cls, "sched_stream_check", ANALYSIS_SOURCES,
                      ANALYSIS_PKGS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def play(self, ncpus, stream, *args):
        """sched_stream_check ARGS NCPUS < STREAM, no sanitizer report."""
        p = subprocess.run([self.bin] + list(args) + [str(ncpus)],
                           input=stream, capture_output=True, text=True,
                           env=self.env, timeout=120)
        for bad in SANITIZER_ERRORS:
            self.assertNotIn(bad, p.stderr, p.stderr)
        return p

    def metrics(self, ncpus, stream, *args):
        """The metrics of a stream the analysis takes."""
        p = self.play(ncpus, stream, *args)
        self.assertEqual(p.returncode, facts.EXIT_PASS, p.stderr)
        return json.loads(p.stdout)


# What a live test must leave as it found (machine_state()).
TRACEFS = "/sys/kernel/tracing"
CGROUP_ROOT = "/sys/fs/cgroup"
JOURNAL = "/run/sched-workloads/sysctl-journal"
# The sysctls workloads may set ("sysctl" blocks name kernel.*): the
# scheduler's, and those the fingerprint records as settings.
SYSCTL_GLOBS = ("/proc/sys/kernel/sched_*", "/proc/sys/kernel/timer_migration",
                "/proc/sys/kernel/numa_balancing",
                # the root group's RT bandwidth (cgroup v1): lowered with it
                "/sys/fs/cgroup/cpu/cpu.rt_runtime_us")


def cpu_list(text):
    """ "0-3,5" -> [0, 1, 2, 3, 5]."""
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def read_quiet(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def live_pids(comm):
    """Processes named @comm, zombies left out: a killed child the
    container's init has not reaped yet is dead."""
    pids = subprocess.run(["pgrep", "-x", comm], capture_output=True,
                          text=True).stdout.split()
    live = []
    for pid in pids:
        stat = read_quiet("/proc/%s/stat" % pid)
        if stat and stat.rsplit(")", 1)[1].split()[0] != "Z":
            live.append(pid)
    return live


def cgroup_dirs():
    """Every cgroup directory, two levels down (controller, group)."""
    out = []
    if os.path.isdir(CGROUP_ROOT):
        for top in sorted(os.listdir(CGROUP_ROOT)):
            d = os.path.join(CGROUP_ROOT, top)
            if os.path.isdir(d) and not os.path.islink(d):
                out += ["%s/%s" % (top, s) for s in sorted(os.listdir(d))
                        if os.path.isdir(os.path.join(d, s))]
    return out


def machine_state():
    """Tracing instances and the top-level buffer's settings, the
    sysctls workloads may change, cgroups, the sysctl journal, and the
    processes no finished test may leave (rt-app, the tool)."""
    sysctls = {}
    for pattern in SYSCTL_GLOBS:
        for path in sorted(glob.glob(pattern)):
            if os.path.isfile(path):
                sysctls[path] = read_quiet(path)
    top = {name: read_quiet(os.path.join(TRACEFS, name))
           for name in ("tracing_on", "current_tracer", "set_event",
                        "trace_clock", "buffer_size_kb")}
    cpus = read_quiet("/sys/devices/system/cpu/online")
    return {"instances": tracing_instances(), "tracing": top,
            "cpus online": cpus,
            "sysctls": sysctls, "cgroups": cgroup_dirs(),
            "journal": os.path.exists(JOURNAL),
            "rt-app": live_pids("rt-app"),
            "sched-workloads": live_pids("sched-workloads")}


EXPANDED_RE = re.compile(r"^(\d+) \(expanded: (\d+)\)$")


def expanded_on_use(before, after):
    """The top-level buffer as boot leaves it ("7 (expanded: 1408)":
    7 KB now, 1408 KB from its first use on) before, expanded after (the
    kernel rounds the size up to whole pages: 1410): a use of it, which
    nothing can undo short of a reboot, not a setting changed."""
    m = EXPANDED_RE.match(before or "")
    if not m or not (after or "").isdigit():
        return False
    want = int(m.group(2))
    return want <= int(after) <= want + max(64, want // 100)


def state_changes(before, after, top_buffer_used=False):
    """What differs, one line per thing, for a failure message. With
    @top_buffer_used (a test class that traces in the top-level buffer
    itself, as another user would), the buffer's first expansion is not
    a change."""
    out = []
    for key in before:
        a, b = before[key], after[key]
        if isinstance(a, dict):
            out += ["%s: %r -> %r" % (k, a.get(k), b.get(k))
                    for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)
                    and not (top_buffer_used and k == "buffer_size_kb" and
                             expanded_on_use(a.get(k), b.get(k)))]
        elif a != b:
            out.append("%s: %r -> %r" % (key, a, b))
    return out
