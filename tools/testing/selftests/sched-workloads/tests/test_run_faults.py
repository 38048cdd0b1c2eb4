# SPDX-License-Identifier: GPL-2.0
"""Live: rt-app misbehaving, signals, a trace buffer too small, two
batteries at once.

rt-app is replaced (RTAPP=) by a wrapper that crashes it, hangs,
refuses the workload, or cuts its logs after a full run. Asserted every
time, besides the runner's machine-state check after each class:
 - each fault is an error of the workload saying what rt-app did, never
   a verdict, and nothing of rt-app's (nor the wrapper's) is left;
 - SIGKILL as a repetition's analysis starts: the next run restores the
   sysctl, and no file of the killed run is half-written (JSON that does
   not parse, a temporary file left);
 - SIGINT, SIGTERM and SIGHUP mid-run: what was not judged is SKIP
   "interrupted", the tool restores and dies of that signal; kselftest's
   timeout (timeout(1) sending SIGTERM) the same;
 - a trace buffer that overflows: trace checks are errors naming the
   lost events, rt-app's own checks are still judged;
 - two batteries: the second waits for the first, saying so; rt-app of
   both never runs at the same time; one interrupted while waiting skips
   saying why;
 - another tracer's instance, recording beside a run, keeps its events,
   its settings and what it recorded.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from swtest import BINARY, CHILD_ENV, fixture, ktap_results, live_lock
from test_faults import RESULTS, guarded, machine_state, wait_for_rtapp

IS_ROOT = os.geteuid() == 0
RTAPP = shutil.which("rt-app")
WORKLOAD = "timer-idle"         # 3 s, no sysctl
FINITE = fixture("workloads", "finite-early.json")

# rt-app runs as "rt-app CONFIG": each wrapper gets the same arguments.
WRAPPERS = {
    # a crash half a second in: the tool sees rt-app killed by SIGSEGV
    "crash": "#!/bin/sh\nulimit -c 0\n(sleep 0.5; kill -SEGV $$) &\n"
             "exec %(rtapp)s \"$@\"\n",
    "hang": "#!/bin/sh\nexec sleep 600\n",
    "refuse": "#!/bin/sh\necho '[rt-app] <crit> Invalid policy SCHED_FOO'\n"
              "exit 2\n",
    # a full run, then every log cut to its first third at a line end
    "cut-logs": "#!%(python)s\n"
                "import glob, json, os, subprocess, sys\n"
                "rc = subprocess.call([%(rtapp)r] + sys.argv[1:])\n"
                "with open(sys.argv[-1]) as f:\n"
                "    g = json.load(f)['global']\n"
                "pat = os.path.join(g['logdir'], g['log_basename'])\n"
                "for log in glob.glob(pat + '-*.log'):\n"
                "    with open(log) as f:\n"
                "        lines = f.readlines()\n"
                "    head = [x for x in lines if x.startswith('#')]\n"
                "    data = [x for x in lines if not x.startswith('#')]\n"
                "    with open(log, 'w') as f:\n"
                "        f.writelines(head + data[:len(data) // 3])\n"
                "sys.exit(rc)\n",
}


def stray(pattern):
    """Processes whose command line matches @pattern (pgrep -f)."""
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True,
                          text=True).stdout.split()


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestRtappFaults(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-rtapp-")
        cls.wrapper = {}
        for name, text in WRAPPERS.items():
            path = os.path.join(cls.tmp, "rt-app-" + name)
            with open(path, "w") as f:
                f.write(text % {"rtapp": RTAPP, "python": sys.executable})
            os.chmod(path, 0o755)
            cls.wrapper[name] = path

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_with(self, name, workload=WORKLOAD):
        """A run of @workload with rt-app's wrapper @name (None: rt-app)."""
        env = dict(CHILD_ENV, RTAPP=self.wrapper[name]) if name else CHILD_ENV
        with guarded() as before:
            r = subprocess.run([BINARY, "run", "-n", "1", "-r", RESULTS,
                                workload], capture_output=True, text=True,
                               env=env, timeout=300)
            after = machine_state()
        self.assertEqual(after, before)
        if name:
            self.assertEqual(stray(self.wrapper[name]), [])
            self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertEqual(stray("sleep 600"), [])
        return r

    def assertError(self, r, pattern, name=WORKLOAD):
        self.assertRegex(r.stdout, r"(?m)^not ok 1 %s # error .*%s"
                         % (name, pattern))

    def test_crash(self):
        r = self.run_with("crash")
        self.assertError(r, r"rt-app killed by signal 11 after \d")

    def test_hang(self):
        # killed at 1.5 times the duration plus 10 s
        r = self.run_with("hang")
        self.assertError(r, r"rt-app still running after 1[45] s: killed")

    def test_refuse(self):
        r = self.run_with("refuse")
        self.assertError(r, r"rt-app exited with 2 after .*Invalid policy "
                         r"SCHED_FOO")

    def test_logs_cut(self):
        r = self.run_with("cut-logs")
        self.assertError(r, r"rt-app's logs end \d+\.\d+ s before its "
                         r"run did .*a shorter run is not judged")

    def test_finite_task_ends_before_rtapp(self):
        # 100 passes logged of 100: complete, 1.5 s before rt-app ends
        r = self.run_with(None, FINITE)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("ok 1 finite-early.short.passes", r.stdout)

    def test_finite_task_logs_cut(self):
        # 33 passes logged of 100: cut, whatever the task's loop
        r = self.run_with("cut-logs", FINITE)
        self.assertError(r, r"rt-app's logs end \d+\.\d+ s before its "
                         r"run did", "finite-early")


def start_run(*args, env=CHILD_ENV):
    return subprocess.Popen([BINARY, "run", "-r", RESULTS] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestSigkillInAnalysis(unittest.TestCase):
    LIVE = True

    def test_no_half_written_file(self):
        with guarded() as before:
            p = start_run("-n", "3", "rr-timeslice")
            results = None
            for line in p.stdout:
                if line.startswith("# results: "):
                    results = line.split(": ", 1)[1].strip()
                # printed once the trace is saved: the analysis follows
                if "rt-app ran" in line:
                    p.kill()
                    break
            p.wait()
            nxt = subprocess.run([BINARY, "run", "-n", "1", "-r", RESULTS,
                                  WORKLOAD], capture_output=True, text=True,
                                 env=CHILD_ENV, timeout=300)
            after = machine_state()
        self.assertEqual(after, before)
        self.assertIn("# restored /proc/sys/kernel/sched_rr_timeslice_ms",
                      nxt.stdout)
        self.assertTrue(results and os.path.isdir(results))
        for d, _, files in os.walk(results):
            for f in files:
                self.assertFalse(f.endswith(".tmp"), os.path.join(d, f))
                if f.endswith(".json"):
                    with open(os.path.join(d, f)) as fh:
                        text = fh.read()
                    if not f.endswith("rr-timeslice.json"):
                        json.loads(text)    # raises on a half-written file


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestSignals(unittest.TestCase):
    LIVE = True

    def interrupt(self, sig):
        with guarded() as before:
            p = start_run("-n", "1", WORKLOAD, "periodic-light")
            self.assertTrue(wait_for_rtapp())
            time.sleep(0.5)
            p.send_signal(sig)
            out = p.communicate(timeout=120)[0]
            after = machine_state()
        self.assertEqual(after, before)
        self.assertEqual(p.returncode, -sig, out)
        res = {name: d for _, ok, name, d in ktap_results(out)}
        self.assertEqual(res, {WORKLOAD: "SKIP interrupted",
                               "periodic-light": "SKIP interrupted"})

    def test_sigint(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM)

    def test_sighup(self):
        self.interrupt(signal.SIGHUP)

    def test_sigterm_at_setup(self):
        # 0.2 s in: the fingerprint and the canary, before any rt-app
        with guarded() as before:
            p = start_run("-n", "1", WORKLOAD, "periodic-light")
            time.sleep(0.2)
            saw_rtapp = bool(subprocess.run(["pgrep", "-x", "rt-app"],
                                            capture_output=True).stdout)
            p.send_signal(signal.SIGTERM)
            out = p.communicate(timeout=120)[0]
            after = machine_state()
        self.assertEqual(after, before)
        self.assertFalse(saw_rtapp, "rt-app already ran: not at setup")
        self.assertEqual(p.returncode, -signal.SIGTERM, out)
        for _, ok, name, d in ktap_results(out):
            self.assertEqual(d, "SKIP interrupted", out)

    def test_kselftest_timeout(self):
        # kselftest's runner wraps each test in timeout(1), SIGTERM
        with guarded() as before:
            r = subprocess.run(["timeout", "-s", "TERM", "2", BINARY, "run",
                                "-n", "1", "-r", RESULTS, WORKLOAD],
                               capture_output=True, text=True,
                               env=CHILD_ENV, timeout=120)
            after = machine_state()
        self.assertEqual(after, before)
        self.assertEqual(r.returncode, 124, r.stdout)
        self.assertIn("ok 1 %s # SKIP interrupted" % WORKLOAD, r.stdout)


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestTraceOverflow(unittest.TestCase):
    LIVE = True

    def test_lost_events_are_errors(self):
        # 8 KB a CPU cannot hold three seconds of ping-pong
        with guarded() as before:
            r = subprocess.run([BINARY, "run", "-n", "1", "-b", "8", "-r",
                                RESULTS, "condvar-pingpong"],
                               capture_output=True, text=True,
                               env=CHILD_ENV, timeout=300)
            after = machine_state()
        self.assertEqual(after, before)
        lost = re.search(r"trace .*, (\d+) lost", r.stdout)
        self.assertTrue(lost and int(lost.group(1)) > 0, r.stdout)
        # each check's result follows its diagnostic line
        lines = r.stdout.splitlines()
        pairs = [(lines[i].strip(), lines[i + 1].strip())
                 for i in range(len(lines) - 1)
                 if lines[i].startswith("  # ")]
        lost = [res for diag, res in pairs if "the trace lost" in diag]
        self.assertTrue(lost, r.stdout)
        for res in lost:
            self.assertTrue(res.startswith("not ok "), res)
        # rt-app's own check does not depend on the trace: judged, or
        # skipped for want of a baseline on this platform, never lost
        name = re.compile(r"ok \d+ condvar-pingpong\.ping\.passes"
                          r"\.vs-baseline( #|$)")
        at = [i for i, line in enumerate(lines) if name.search(line)]
        self.assertEqual(len(at), 1, r.stdout)
        diag, res = lines[at[0] - 1].strip(), lines[at[0]].strip()
        self.assertNotIn("the trace lost", diag, r.stdout)
        self.assertTrue(diag.startswith(("# ok ", "# FAIL ")) or
                        "# SKIP no baseline" in res, r.stdout)
        self.assertNotEqual(r.returncode, 0)


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestTwoBatteries(unittest.TestCase):
    LIVE = True

    @staticmethod
    def rtapp_parents():
        parents = set()
        for pid in subprocess.run(["pgrep", "-x", "rt-app"],
                                  capture_output=True,
                                  text=True).stdout.split():
            try:
                with open("/proc/%s/status" % pid) as f:
                    for line in f:
                        if line.startswith("PPid:"):
                            parents.add(line.split()[1])
            except OSError:
                pass
        return parents

    def test_second_waits(self):
        with tempfile.TemporaryDirectory() as tmp, live_lock():
            before = machine_state()
            # their own lock file: the runs take it, as two labs' would
            env = dict(CHILD_ENV,
                       SCHED_WORKLOADS_LOCK=os.path.join(tmp, "lock"))
            a = start_run("-n", "1", WORKLOAD, env=env)
            self.assertTrue(wait_for_rtapp())
            b = start_run("-n", "1", WORKLOAD, env=env)
            c = start_run("-n", "1", WORKLOAD, env=env)
            most = 0
            deadline = time.time() + 2
            while a.poll() is None or b.poll() is None:
                most = max(most, len(self.rtapp_parents()))
                if c.poll() is None and time.time() > deadline:
                    c.send_signal(signal.SIGTERM)
                time.sleep(0.02)
            out = {k: p.communicate(timeout=120)[0]
                   for k, p in (("a", a), ("b", b), ("c", c))}
            after = machine_state()
        self.assertEqual(after, before)
        self.assertEqual(most, 1)
        waiting = "# waiting for another sched-workloads run (%s)" % \
            env["SCHED_WORKLOADS_LOCK"]
        self.assertNotIn(waiting, out["a"])
        self.assertIn(waiting, out["b"])
        self.assertIn(waiting, out["c"])
        self.assertIn("ok 1 %s # SKIP interrupted while waiting for the lock"
                      % WORKLOAD, out["c"])
        self.assertEqual(c.returncode, -signal.SIGTERM)
        for k in ("a", "b"):
            self.assertRegex(out[k], r"(?m)^(not )?ok 1 %s( # (?!error)|$)"
                             % WORKLOAD)


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestOtherTracer(unittest.TestCase):
    LIVE = True
    INSTANCE = "/sys/kernel/tracing/instances/sw-test-other-tracer"
    FILES = ("tracing_on", "events/sched/sched_switch/enable",
             "events/sched/sched_waking/enable", "buffer_size_kb",
             "trace_clock")

    def settings(self):
        return {f: read_file(os.path.join(self.INSTANCE, f))
                for f in self.FILES}

    def test_instance_untouched(self):
        with guarded() as before:
            os.mkdir(self.INSTANCE)
            try:
                write_file(os.path.join(self.INSTANCE, "buffer_size_kb"),
                           "4096")
                write_file(os.path.join(
                    self.INSTANCE, "events/sched/sched_switch/enable"), "1")
                write_file(os.path.join(self.INSTANCE, "tracing_on"), "1")
                set_before = self.settings()
                r = subprocess.run([BINARY, "run", "-n", "1", "-r", RESULTS,
                                    WORKLOAD], capture_output=True,
                                   text=True, env=CHILD_ENV, timeout=300)
                set_after = self.settings()
                write_file(os.path.join(self.INSTANCE, "tracing_on"), "0")
                # what it recorded during the run is still there: rt-app's
                # threads switching
                with open(os.path.join(self.INSTANCE, "trace")) as f:
                    recorded = f.read()
            finally:
                os.rmdir(self.INSTANCE)
            after = machine_state()
        self.assertEqual(after, before)
        self.assertEqual(set_after, set_before)
        self.assertNotIn("# error", r.stdout)
        self.assertIn("next_comm=tick1ms", recorded)


def read_file(path):
    with open(path) as f:
        return f.read().strip()


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    unittest.main()
