# SPDX-License-Identifier: GPL-2.0
"""Live: the tool killed, or its output pipe closed, mid-run.

rr-timeslice sets kernel.sched_rr_timeslice_ms and runs two SCHED_RR
hogs: what a lab's watchdog (SIGKILL) or `sched-workloads run | head`
(SIGPIPE) leaves behind shows at once. Asserted every time:
 - SIGKILL: rt-app dies with the tool (parent-death signal); the sysctl
   stays changed, journaled; the next run restores it, says so, and
   removes the journal;
 - SIGPIPE: the tool restores the sysctl, kills rt-app, removes its
   tracing instance, then dies of SIGPIPE;
 - rt-app ended early by SIGTERM (it exits 0): the workload is an error
   saying how long rt-app ran, not a shorter run judged;
 - a journal that is not one: the run is an error naming the file and
   line, and changes nothing;
 - a full or read-only results directory: an error naming the file and
   the reason, not a SKIP and not a pass beside a truncated file;
and after each, the machine as before: tracing instances, the sysctl,
no rt-app, no journal.
"""
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from swtest import (BINARY, CHILD_ENV, live_lock, sw, tracing_instances)

IS_ROOT = os.geteuid() == 0
RESULTS = "/tmp/sched-workloads-live-tests"
SYSCTL = "/proc/sys/kernel/sched_rr_timeslice_ms"
JOURNAL = "/run/sched-workloads/sysctl-journal"


def read(path):
    with open(path) as f:
        return f.read().strip()


def rtapp_pids():
    """Live rt-app processes: a zombie waiting for init is dead."""
    pids = subprocess.run(["pgrep", "-x", "rt-app"], capture_output=True,
                          text=True).stdout.split()
    live = []
    for pid in pids:
        try:
            with open("/proc/%s/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    live.append(pid)
        except OSError:
            pass
    return live


def live_instances():
    """Tracing instances, less those of killed runs (sched-workloads-PID
    with PID gone), which the next run removes: they are not ours."""
    live = []
    for name in tracing_instances():
        pid = name[len("sched-workloads-"):]
        if not (name.startswith("sched-workloads-") and pid.isdigit() and
                not os.path.exists("/proc/" + pid)):
            live.append(name)
    return live


def machine_state():
    return {"instances": live_instances(), "sysctl": read(SYSCTL),
            "rt-app": rtapp_pids(), "journal": os.path.exists(JOURNAL)}


def start(*args):
    return subprocess.Popen([BINARY, "run", "-r", RESULTS] + list(args),
                            stdout=subprocess.PIPE, text=True,
                            env=CHILD_ENV)


def wait_for_rtapp(timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if rtapp_pids():
            return True
        time.sleep(0.05)
    return False


def put_back(before):
    """Whatever a failed test left: the sysctl, rt-app, the journal."""
    for pid in rtapp_pids():
        os.kill(int(pid), signal.SIGKILL)
    with open(SYSCTL, "w") as f:
        f.write(before["sysctl"])
    if os.path.exists(JOURNAL) and not before["journal"]:
        os.unlink(JOURNAL)


@contextlib.contextmanager
def guarded():
    """The live lock held, the machine's state before as the value, and
    whatever a failed test left put back."""
    with live_lock():
        before = machine_state()
        try:
            yield before
        finally:
            put_back(before)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app"),
                     "needs root and rt-app")
class TestSigkill(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        with guarded() as cls.before:
            p = start("-n", "1", "rr-timeslice")
            cls.saw_rtapp = wait_for_rtapp()
            cls.sysctl_during = read(SYSCTL)
            p.kill()
            p.wait()
            time.sleep(0.5)
            cls.killed = machine_state()
            with open(JOURNAL) as f:
                cls.journal = f.read()
            cls.next = sw("run", "-n", "1", "-r", RESULTS, "timer-idle")
            cls.after = machine_state()

    def test_rtapp_dies_with_the_tool(self):
        self.assertTrue(self.saw_rtapp)
        self.assertEqual(self.killed["rt-app"], [])

    def test_change_journaled(self):
        self.assertEqual(self.sysctl_during, "20")
        self.assertEqual(self.killed["sysctl"], "20")
        self.assertEqual(self.journal,
                         "%s %s\n" % (SYSCTL, self.before["sysctl"]))

    def test_next_run_restores_and_says_so(self):
        self.assertIn("# restored %s to %s: a run that did not finish" %
                      (SYSCTL, self.before["sysctl"]), self.next.stdout)
        self.assertEqual(self.after, self.before)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app"),
                     "needs root and rt-app")
class TestSigpipe(unittest.TestCase):
    LIVE = True

    @classmethod
    def setUpClass(cls):
        with guarded() as cls.before:
            p = start("-n", "3", "rr-timeslice")
            for line in p.stdout:
                if "rt-app ran" in line:
                    break
            cls.sysctl_mid = read(SYSCTL)
            # the reader goes away, as head(1) does
            p.stdout.close()
            cls.rc = p.wait(timeout=120)
            cls.after = machine_state()

    def test_dies_of_sigpipe(self):
        self.assertEqual(self.sysctl_mid, "20")
        self.assertEqual(self.rc, -signal.SIGPIPE)

    def test_machine_left_as_found(self):
        self.assertEqual(self.after, self.before)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app"),
                     "needs root and rt-app")
class TestRtappEndsEarly(unittest.TestCase):
    LIVE = True

    def test_shorter_run_is_an_error(self):
        # rt-app exits 0 on SIGTERM: the run time must give it away.
        with guarded() as before:
            p = start("-n", "1", "rr-timeslice")
            self.assertTrue(wait_for_rtapp())
            time.sleep(0.5)
            for pid in rtapp_pids():
                os.kill(int(pid), signal.SIGTERM)
            out = p.communicate(timeout=120)[0]
            after = machine_state()
        self.assertNotEqual(p.returncode, 0, out)
        self.assertRegex(out, r"(?m)^not ok 1 rr-timeslice # error .*"
                         r"rt-app ended after \d+\.\d+ s of a \d+ s "
                         r"workload")
        self.assertEqual(after, before)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app"),
                     "needs root and rt-app")
class TestBadJournal(unittest.TestCase):
    LIVE = True

    def test_error_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            journal = os.path.join(tmp, "journal")
            with open(journal, "w") as f:
                f.write("%s 100\n/etc/passwd 0\n" % SYSCTL)
            env = dict(CHILD_ENV, SCHED_WORKLOADS_JOURNAL=journal)
            with live_lock():
                before = machine_state()
                r = subprocess.run([BINARY, "run", "-n", "1", "-r", RESULTS,
                                    "timer-idle"], capture_output=True,
                                   text=True, env=env, timeout=120)
                after = machine_state()
            self.assertNotEqual(r.returncode, 0, r.stdout)
            self.assertIn("%s:2: not a sysctl journal line" % journal,
                          r.stdout)
            self.assertRegex(r.stdout, r"(?m)^not ok 1 timer-idle # error "
                             r"a sysctl left changed by an earlier run")
            self.assertTrue(os.path.exists(journal))
            self.assertEqual(after, before)


@unittest.skipUnless(IS_ROOT and shutil.which("rt-app") and
                     shutil.which("mount"), "needs root, rt-app and mount")
class TestResultsDirectory(unittest.TestCase):
    LIVE = True

    def tmpfs(self, opts):
        d = tempfile.mkdtemp(prefix="sw-results-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "sw-results",
                        d], check=True)
        self.addCleanup(os.rmdir, d)
        self.addCleanup(subprocess.run, ["umount", d], check=True)
        return d

    def run_into(self, d):
        with live_lock():
            before = machine_state()
            r = subprocess.run([BINARY, "run", "-n", "1", "-r", d,
                                "timer-idle"], capture_output=True,
                               text=True, env=CHILD_ENV, timeout=300)
            self.assertEqual(machine_state(), before)
        return r

    def test_full(self):
        # rt-app's logs fit in 256 KB, the trace (about 1 MB) does not
        d = self.tmpfs("size=256k")
        r = self.run_into(d)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertRegex(r.stdout, r"(?m)^not ok 1 timer-idle # error .*"
                         r"No space left on device")
        left = [f for _, _, files in os.walk(d) for f in files
                if f.endswith(".tmp")]
        self.assertEqual(left, [])

    def test_read_only(self):
        d = self.tmpfs("ro")
        r = self.run_into(d)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("cannot create the results directory %s/" % d,
                      r.stdout)
        self.assertIn("Read-only file system", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^not ok 1 timer-idle # error no "
                         r"writable results directory")


if __name__ == "__main__":
    unittest.main()
