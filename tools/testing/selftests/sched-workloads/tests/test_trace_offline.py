# SPDX-License-Identifier: GPL-2.0
"""Live: "analyze" on a trace.dat recorded by hand around a program that
is not rt-app, with a tracefs instance and trace-cmd extract, as a user
would on another machine.

The program: a shell pinned to CPU 0 that sleeps 5 ms, 100 times, while
a busy loop pinned to the same CPU competes. Each of the shell's
wakeups must show in the trace, and the busy loop must be preempted.

Then a trace as trace-cmd writes it by default, compressed, and with more
event data than the rest of the file (formats, kallsyms) holds: two
processes pinned to CPU 0 pass a byte back and forth through pipes
PINGS times. Each needs the other to have run between two of its reads,
on the one CPU they share: each is switched out (blocked, or preempted
by the wakeup of the other) at least PINGS - 1 times. The file cut
short must be refused.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from swtest import EXIT_BAD_TRACE, EXIT_PASS, live_lock, sw

IS_ROOT = os.geteuid() == 0
TRACEFS = "/sys/kernel/tracing"
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_migrate_task",
          "sched/sched_process_exit"]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def record(inst_name, out, argv, compression="none", buffer_kb=None):
    inst = os.path.join(TRACEFS, "instances", inst_name)
    os.mkdir(inst)
    try:
        if buffer_kb:
            write(os.path.join(inst, "buffer_size_kb"), str(buffer_kb))
        write(os.path.join(inst, "trace_clock"), "mono")
        for e in EVENTS:
            write(os.path.join(inst, "events", e, "enable"), "1")
        write(os.path.join(inst, "tracing_on"), "1")
        subprocess.run(argv, check=True, timeout=60)
        write(os.path.join(inst, "tracing_on"), "0")
        extract = ["trace-cmd", "extract", "-B", inst_name, "-o", out]
        if compression:
            extract += ["--compression", compression]
        subprocess.run(extract, check=True, capture_output=True,
                       timeout=120)
    finally:
        if os.path.isdir(inst):
            os.rmdir(inst)


@unittest.skipUnless(IS_ROOT and os.path.isdir(TRACEFS) and
                     shutil.which("trace-cmd"),
                     "needs root, tracefs and trace-cmd")
class TestOfflineAnalyze(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-offline-")
        cls.trace = os.path.join(cls.tmp, "by-hand.dat")
        script = ("taskset -c 0 sh -c 'while :; do :; done' & hog=$!; "
                  "taskset -c 0 sh -c "
                  "'for i in $(seq 100); do sleep 0.005; done'; "
                  "kill $hog")
        with live_lock():
            record("sw-offline-%d" % os.getpid(), cls.trace,
                   ["sh", "-c", script])
        cls.r = sw("analyze", "--trace", cls.trace, "--all-cpus")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_prints_metrics(self):
        self.assertEqual(self.r.returncode, EXIT_PASS, self.r.stderr)
        m = json.loads(self.r.stdout)
        self.assertGreaterEqual(len(m["trace_tasks"]), 3)
        self.assertIn("cpu0", m["cpus"])
        system = m["system"]["system"]
        self.assertEqual(system["system.lost_events"], 0)
        self.assertGreater(system["trace.events"], 200)
        self.assertIsNotNone(system["wc.share"])

    def test_sleeps_are_wakeups(self):
        m = json.loads(self.r.stdout)
        # Every "sleep 0.005" is a new process: the shell forks 100 of
        # them, each woken once by its timer on CPU 0. Tasks of one comm
        # are "sleep-0", "sleep-1", ... (lib/entity_name.h).
        sleeps = [v for k, v in m["trace_tasks"].items()
                  if re.fullmatch(r"sleep(-[0-9]+)?", k)]
        self.assertGreaterEqual(len(sleeps), 90)
        woken = sum(v["wakeup_lat.count"] or 0 for v in sleeps)
        self.assertGreaterEqual(woken, 90)

    def test_hog_preempted(self):
        m = json.loads(self.r.stdout)
        busy = max(m["trace_tasks"].values(),
                   key=lambda v: v["cpu_time"] or 0)
        self.assertGreater(busy["switches.involuntary"], 10)
        self.assertGreater(busy["runnable_wait.total"], 0)
        self.assertEqual(busy["cpu_time.top_cpu"], 0)


PINGS = 30000
PING_PONG = """
import os
r1, w1 = os.pipe()
r2, w2 = os.pipe()
if os.fork() == 0:
    for _ in range(%d):
        os.read(r1, 1)
        os.write(w2, b"x")
    os._exit(0)
for _ in range(%d):
    os.write(w1, b"x")
    os.read(r2, 1)
os.wait()
""" % (PINGS, PINGS)


def compression_of(path):
    """The compression a trace.dat says it uses: "none" for a version 6
    file; in a version 7 file the name after the magic, the version
    string, endianness, long size and page size."""
    with open(path, "rb") as f:
        head = f.read(64)
    version, rest = head[10:].split(b"\0", 1)
    if int(version) < 7:
        return "none"
    return rest[6:].split(b"\0", 1)[0].decode()


@unittest.skipUnless(IS_ROOT and os.path.isdir(TRACEFS) and
                     shutil.which("trace-cmd") and shutil.which("taskset"),
                     "needs root, tracefs, trace-cmd and taskset")
class TestCompressedTrace(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-compressed-")
        cls.trace = os.path.join(cls.tmp, "compressed.dat")
        # the comm is the name exec'ed: "pingpong", not "python3"; the
        # interpreter itself, not a wrapper that dispatches on its name
        # (pyenv's shims)
        prog = os.path.join(cls.tmp, "pingpong")
        os.symlink(os.path.realpath(sys.executable), prog)
        with live_lock():
            # 16 MB a CPU: the ~180000 events fit, none is lost
            record("sw-compressed-%d" % os.getpid(), cls.trace,
                   ["taskset", "-c", "0", prog, "-c", PING_PONG],
                   compression=None, buffer_kb=16384)
        cls.r = sw("analyze", "--trace", cls.trace, "--all-cpus")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_default_is_compressed(self):
        self.assertNotEqual(compression_of(self.trace), "none")

    def test_every_pass_is_a_switch(self):
        self.assertEqual(self.r.returncode, EXIT_PASS, self.r.stderr)
        m = json.loads(self.r.stdout)
        self.assertEqual(m["system"]["system"]["system.lost_events"], 0)
        pp = [v for k, v in m["trace_tasks"].items()
              if re.fullmatch(r"pingpong(-[0-9]+)?", k)]
        self.assertEqual(len(pp), 2)
        for v in pp:
            self.assertGreaterEqual(v["switches.voluntary"] +
                                    v["switches.involuntary"], PINGS - 1)
        # the events take more room than the file: offsets into the
        # decompressed data lie beyond its end
        self.assertGreater(m["system"]["system"]["trace.events"] * 16,
                           os.path.getsize(self.trace))

    def test_cut_short_is_refused(self):
        size = os.path.getsize(self.trace)
        cut = os.path.join(self.tmp, "cut.dat")
        for keep in (size // 2, size - size // 10, size - 4096):
            with open(self.trace, "rb") as src, open(cut, "wb") as dst:
                dst.write(src.read(keep))
            r = sw("analyze", "--trace", cut, "--all-cpus")
            self.assertEqual(r.returncode, EXIT_BAD_TRACE,
                             "cut at %d of %d: %s" % (keep, size, r.stderr))
            self.assertIn(cut, r.stderr)


if __name__ == "__main__":
    unittest.main()
