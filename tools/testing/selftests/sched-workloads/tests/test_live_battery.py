# SPDX-License-Identifier: GPL-2.0
"""Live: the real rt-app on the running kernel, through the real binary.

Needs root; otherwise every test here skips. Each test holds the live
lock, so no two live runs (or another engineer's battery) overlap.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import swtest
from swtest import (BINARY, CHILD_ENV, EXIT_FAIL, EXIT_PASS, EXIT_SKIP,
                    cpu_list, fixture, ktap_results, live_lock, load_json,
                    results_dir, sw, tracing_instances)

IS_ROOT = os.geteuid() == 0
RESULTS = "/tmp/sched-workloads-live-tests"
TRACING = "/sys/kernel/tracing"


def tracing_file(name, value=None):
    """Reads a file of the top-level tracing directory, or writes it."""
    path = os.path.join(TRACING, name)
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, "w") as f:
        f.write(value)
    return None


TOP_SWITCH = "events/sched/sched_switch/enable"


def rtapp_processes(parent=None):
    """rt-app processes: all of them, or the children of @parent."""
    argv = ["pgrep", "-x", "rt-app"]
    if parent:
        argv[1:1] = ["-P", str(parent)]
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    return out.split()


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestStarterBattery(unittest.TestCase):
    LIVE = True
    # it traces in the top-level buffer, as another user would: the
    # buffer's first expansion after boot is its doing (swtest)
    TOP_BUFFER_USED = True

    @classmethod
    def setUpClass(cls):
        # Another user's trace in the top-level buffer, as during a lab's
        # own tracing: the run must leave it recording.
        with live_lock():
            cls.before = tracing_instances()
            top = (tracing_file(TOP_SWITCH), tracing_file("tracing_on"))
            try:
                tracing_file(TOP_SWITCH, "1")
                tracing_file("tracing_on", "1")
                cls.r = sw("run", "-r", RESULTS, "periodic-among-hogs",
                           "periodic-light", timeout=600)
                cls.top_after = (tracing_file(TOP_SWITCH),
                                 tracing_file("tracing_on"))
            finally:
                tracing_file(TOP_SWITCH, top[0])
                tracing_file("tracing_on", top[1])
                if top[0] == "0":
                    tracing_file("trace", "")
            cls.after = tracing_instances()

    def test_judged(self):
        # Pass or fail is the kernel's and the machine's business (the
        # qualification's); here only that both were judged, not skipped.
        self.assertIn(self.r.returncode, (EXIT_PASS, EXIT_FAIL), self.r.stdout)
        for indent, ok, name, directive in ktap_results(self.r.stdout):
            if indent == 0:
                self.assertNotIn("SKIP", directive, self.r.stdout)

    def test_one_line_per_workload_plus_checks(self):
        res = ktap_results(self.r.stdout)
        top = [name for indent, ok, name, _ in res if indent == 0]
        self.assertEqual(top, ["periodic-among-hogs", "periodic-light"])
        sub = [name for indent, _, name, _ in res if indent == 2]
        self.assertGreaterEqual(len(sub), 5)
        self.assertEqual(len(sub), len(set(sub)))
        for name in sub:
            self.assertTrue(name.startswith(("periodic-among-hogs.",
                                             "periodic-light.")), name)

    def test_results_directory(self):
        root = results_dir(self.r.stdout)
        self.assertIsNotNone(root)
        self.assertTrue(os.path.isfile(os.path.join(root,
                                                    "fingerprint.json")))
        for w in ("periodic-light", "periodic-among-hogs"):
            d = os.path.join(root, w)
            for f in (w + ".json", "samples.json", "verdicts.json",
                      "rounds.json", "settings.json"):
                self.assertTrue(os.path.isfile(os.path.join(d, f)),
                                "%s/%s" % (d, f))
            for k in (1, 2, 3):
                rep = os.path.join(d, "rep-%d" % k)
                for f in ("run.json", "rt-app.out", "trace.dat",
                          "metrics.json", "events.json", "explain.txt"):
                    self.assertTrue(os.path.isfile(os.path.join(rep, f)),
                                    "%s/%s" % (rep, f))
            run = load_json(os.path.join(d, "rep-1", "run.json"))
            self.assertNotIn("sched-workloads", run)
            self.assertEqual(run["global"]["logdir"],
                             os.path.join(d, "rep-1"))
            self.assertIs(run["global"]["ftrace"], False)
            self.assertIsInstance(run["global"]["calibration"], int)
        hogs = load_json(os.path.join(root, "periodic-among-hogs", "rep-1",
                                      "run.json"))["tasks"]["hog"]
        self.assertEqual(hogs["instance"], os.sysconf("SC_NPROCESSORS_ONLN"))

    def test_trace_saved_uncompressed(self):
        trace = os.path.join(results_dir(self.r.stdout), "periodic-light",
                             "rep-1", "trace.dat")
        with open(trace, "rb") as f:
            self.assertEqual(f.read(10), b"\x17\x08\x44tracing")
        dump = subprocess.run(["trace-cmd", "dump", "--summary", "-i",
                               trace], capture_output=True, text=True).stdout
        self.assertIn("none\t[Compression algorithm]", dump)

    def test_trace_saved_whole(self):
        # Every event the kernel counted in the instance (its stats, which
        # the file keeps) is in the file: trace-cmd report and both of the
        # analyzer's readers read the same.
        root = results_dir(self.r.stdout)
        for w in ("periodic-light", "periodic-among-hogs"):
            trace = os.path.join(root, w, "rep-1", "trace.dat")
            opts = subprocess.run(["trace-cmd", "dump", "--options", "-i",
                                   trace], capture_output=True, text=True,
                                  check=True).stdout
            entries = sum(int(n) for n in
                          re.findall(r"^entries: (\d+)$", opts, re.M))
            report = subprocess.run(["trace-cmd", "report", trace],
                                    capture_output=True, text=True,
                                    check=True).stdout.splitlines()
            events = [ln for ln in report if not ln.startswith("cpus=")]
            self.assertGreater(entries, 1000, trace)
            self.assertEqual(len(events), entries, trace)
            out = [sw("analyze", "--all-cpus", "--reader", reader,
                      "--trace", trace).stdout
                   for reader in ("pages", "libtracecmd")]
            self.assertEqual(out[0], out[1], trace)
            self.assertIn('"wakeup_lat.p50"', out[0])

    def test_top_level_tracer_untouched(self):
        self.assertEqual(self.top_after, ("1", "1"))

    def test_no_lost_events_reported(self):
        self.assertRegex(self.r.stdout, r"events enabled, 0 lost")

    def test_machine_left_as_found(self):
        self.assertEqual(self.before, self.after)


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestSkips(unittest.TestCase):
    LIVE = True

    def test_not_root(self):
        # a copy nobody can reach: the tree may be under root's home
        tmp = tempfile.mkdtemp(prefix="sw-not-root-")
        try:
            os.chmod(tmp, 0o755)
            shutil.copy(BINARY, tmp)
            shutil.copytree(os.path.join(swtest.COLLECTION, "workloads"),
                            os.path.join(tmp, "workloads"))
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                                "--clear-groups",
                                os.path.join(tmp, "sched-workloads"), "run"],
                               capture_output=True, text=True, timeout=60,
                               cwd=tmp)
        finally:
            shutil.rmtree(tmp)
        self.assertEqual(r.returncode, EXIT_SKIP, r.stdout)
        res = ktap_results(r.stdout)
        self.assertTrue(res)
        for indent, ok, name, directive in res:
            self.assertTrue(ok and name)
            self.assertIn("SKIP must run as root", directive)

    def test_policy_refused(self):
        """A cgroup with no RT runtime: the kernel refuses SCHED_FIFO."""
        group = "/sys/fs/cgroup/cpu/sched-workloads-test-%d" % os.getpid()
        if not os.path.isfile("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"):
            self.skipTest("no cgroup v1 cpu controller with RT group "
                          "scheduling")
        os.mkdir(group)
        try:
            with open(os.path.join(group, "cpu.rt_runtime_us"), "w") as f:
                f.write("0")
            with live_lock():
                r = subprocess.run(
                    ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"',
                     group, BINARY, "run", "-r", RESULTS,
                     fixture("workloads", "long-running.json")],
                    capture_output=True, text=True, timeout=60,
                    env=CHILD_ENV)
        finally:
            os.rmdir(group)
        self.assertEqual(r.returncode, EXIT_SKIP, r.stdout)
        self.assertIn("ok 1 long-running # SKIP kernel refuses SCHED_FIFO "
                      "for task rt: Operation not permitted", r.stdout)


@unittest.skipUnless(IS_ROOT and os.sysconf("SC_NPROCESSORS_ONLN") == 2,
                     "live tests need root; the shapes assume 2 CPUs")
class TestRefusal(unittest.TestCase):
    """A workload the kernel must refuse passes only when refused."""
    LIVE = True

    def run_dl(self, instances, tmp):
        w = json.loads(re.sub(r"/\*.*?\*/", "", open(
            fixture("workloads", "dl-over-admission.json")).read(),
            flags=re.S))
        w["tasks"]["dl"]["instance"] = instances
        path = os.path.join(tmp, "dl-over-admission.json")
        with open(path, "w") as f:
            json.dump(w, f)
        with live_lock():
            return sw("run", "-n", "1", "-r", RESULTS, path)

    def test_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_dl(4, tmp)
        self.assertEqual(r.returncode, EXIT_PASS, r.stdout)
        self.assertIn("ok 1 dl-over-admission.rtapp.refused", r.stdout)

    def test_admitted_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_dl(2, tmp)
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        self.assertIn("not ok 1 dl-over-admission.rtapp.refused", r.stdout)
        self.assertIn("the kernel was expected to refuse", r.stdout)


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestInterrupted(unittest.TestCase):
    """Ctrl-C or kselftest's timeout (SIGTERM) half-way through a run."""
    LIVE = True

    def interrupt(self, sig):
        with live_lock():
            before = tracing_instances()
            p = subprocess.Popen([BINARY, "run", "-r", RESULTS,
                                  fixture("workloads", "long-running.json")],
                                 stdout=subprocess.PIPE, text=True,
                                 env=CHILD_ENV)
            mine = "sched-workloads-%d" % p.pid
            deadline = time.time() + 30
            while (mine not in tracing_instances() or
                   not rtapp_processes(p.pid)):
                self.assertLess(time.time(), deadline, "run never started")
                time.sleep(0.1)
            children = rtapp_processes(p.pid)
            time.sleep(2)
            p.send_signal(sig)
            out, _ = p.communicate(timeout=30)
            after = tracing_instances()
        self.assertEqual(p.returncode, -sig, out)
        self.assertEqual(after, before)
        # Its rt-app, not another user's: the machine is shared.
        for pid in children:
            self.assertFalse(os.path.exists("/proc/%s" % pid),
                             "rt-app %s left running" % pid)

    def test_sigint(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM)


CPU_SYS = "/sys/devices/system/cpu"


def online_cpus():
    with open(os.path.join(CPU_SYS, "online")) as f:
        return f.read().strip()


def set_online(cpu, on):
    with open(os.path.join(CPU_SYS, "cpu%d" % cpu, "online"), "w") as f:
        f.write("1" if on else "0")


def last_cpu():
    """The highest CPU that can go offline (has an "online" file)."""
    cpus = sorted(int(d[3:]) for d in os.listdir(CPU_SYS)
                  if re.match(r"^cpu\d+$", d) and
                  os.path.exists(os.path.join(CPU_SYS, d, "online")))
    return cpus[-1] if cpus else None


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestOfflineCpu(unittest.TestCase):
    """Possible CPUs that are not online (SMT off, hot-pluggable vCPUs):
    the battery judges on the CPUs online, and its trace holds no data
    for the others. A per-CPU check of the CPU that is offline SKIPs
    naming it (duty-step checks every CPU), a workload that needs more
    CPUs than are online SKIPs naming the count (cfs-work-conserving, on
    a 2-CPU machine), and nothing ends in error. The CPU taken offline
    here is put back, also when the run fails (the machine-state check
    reads the online list)."""
    LIVE = True
    WORKLOADS = ("periodic-light", "duty-step", "cfs-work-conserving")

    @classmethod
    def setUpClass(cls):
        cls.cpu = last_cpu()
        if cls.cpu is None or os.cpu_count() < 2:
            raise unittest.SkipTest("no CPU that can go offline here")
        with live_lock():
            before = online_cpus()
            try:
                set_online(cls.cpu, False)
            except OSError as e:
                raise unittest.SkipTest("cpu%d cannot go offline: %s" %
                                        (cls.cpu, e.strerror))
            try:
                cls.during = online_cpus()
                cls.r = sw("run", "-n", "1", "-r", RESULTS, *cls.WORKLOADS,
                           timeout=300)
            finally:
                set_online(cls.cpu, True)
            cls.after = online_cpus()
        cls.before = before

    def test_cpu_back(self):
        self.assertNotEqual(self.during, self.before)
        self.assertEqual(self.after, self.before)

    def test_judged_on_the_cpus_online(self):
        self.assertIn(self.r.returncode, (EXIT_PASS, EXIT_FAIL),
                      self.r.stdout + self.r.stderr)
        self.assertNotIn("# error", self.r.stdout)
        self.assertRegex(self.r.stdout, r"machine class \S+-%dcpu-" %
                         (os.cpu_count() - 1))
        top = {name: (ok, d) for indent, ok, name, d
               in ktap_results(self.r.stdout) if indent == 0}
        self.assertEqual(sorted(top), sorted(self.WORKLOADS))
        self.assertNotIn("SKIP", top["periodic-light"][1], self.r.stdout)
        root = results_dir(self.r.stdout)
        trace = os.path.join(root, "periodic-light", "rep-1", "trace.dat")
        self.assertTrue(os.path.getsize(trace) > 0)

    def test_offline_cpu_not_judged(self):
        cpu = ".cpu%d." % self.cpu
        lines = [(ok, name, d) for indent, ok, name, d
                 in ktap_results(self.r.stdout) if cpu in name]
        self.assertTrue(lines, self.r.stdout)
        for ok, name, d in lines:
            self.assertTrue(ok, name)
            self.assertIn("SKIP cpu%d: " % self.cpu, d)
            self.assertIn("cpu%d was not one of the run's CPUs (cpus.online"
                          % self.cpu, d)

    def test_too_few_cpus_named(self):
        online = len(cpu_list(self.during))
        top = {name: d for indent, ok, name, d
               in ktap_results(self.r.stdout) if indent == 0}
        if online >= 2:
            self.assertNotIn("needs 2 CPUs", top["cfs-work-conserving"])
        else:
            self.assertEqual(top["cfs-work-conserving"],
                             "SKIP needs 2 CPUs online, this machine has 1:"
                             " what it measures happens between CPUs")


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestCpuGoneDuringARun(unittest.TestCase):
    """A CPU that goes offline while a repetition runs is the machine
    changing under it: the repetition is not counted and the workload
    skips naming the change, not an error of the tool."""
    LIVE = True

    def test_named_as_a_machine_change(self):
        cpu = last_cpu()
        if cpu is None or os.cpu_count() < 2:
            self.skipTest("no CPU that can go offline here")
        with live_lock():
            before = online_cpus()
            p = subprocess.Popen([BINARY, "run", "-n", "1", "-r", RESULTS,
                                  "periodic-light"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=CHILD_ENV)
            try:
                time.sleep(3)       # the canary, then rt-app running
                set_online(cpu, False)
                out, err = p.communicate(timeout=300)
            finally:
                if p.poll() is None:
                    p.kill()
                set_online(cpu, True)
            self.assertEqual(online_cpus(), before)
        self.assertNotIn("# error", out)
        self.assertRegex(out, r"the machine changed during the repetition: "
                         r"CPUs online %s -> " % re.escape(before))
        top = [d for indent, ok, name, d in ktap_results(out) if indent == 0]
        self.assertEqual(len(top), 1)
        self.assertIn("SKIP the machine changed", top[0], out)


RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
# cgroup v1: the root group's RT runtime may not exceed the global one,
# and the kernel refuses to lower the global one below it
ROOT_RT_RUNTIME = "/sys/fs/cgroup/cpu/cpu.rt_runtime_us"


def write_value(path, value):
    with open(path, "w") as f:
        f.write(str(value))


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestRtThrottled(unittest.TestCase):
    """RT bandwidth lowered to 30%: the kernel throttles the RT
    workloads' threads, their last passes run late or not at all. That is
    the kernel's behaviour, judged by their checks (they fail), with the
    throttling named; no workload ends in error. The DEADLINE set of
    dl-within-admission (cpus+1 threads of 30%) no longer fits in 30% of
    each CPU: the kernel refuses it, which SKIPs the workload naming the
    RT bandwidth, not an error of rt-app."""
    LIVE = True
    WORKLOADS = ("fifo-priority-order", "pi-inversion", "rr-timeslice")
    DL = "dl-within-admission"

    @classmethod
    def setUpClass(cls):
        with live_lock():
            old = swtest.read_quiet(RT_RUNTIME)
            old_root = swtest.read_quiet(ROOT_RT_RUNTIME)
            try:
                if old_root is not None:
                    write_value(ROOT_RT_RUNTIME, 300000)
                write_value(RT_RUNTIME, 300000)
            except OSError as e:
                cls.restore(old, old_root)
                raise unittest.SkipTest("RT bandwidth cannot be lowered "
                                        "here: %s" % e.strerror)
            try:
                cls.r = sw("run", "-n", "1", "-r", RESULTS, *cls.WORKLOADS,
                           cls.DL, timeout=600)
            finally:
                cls.restore(old, old_root)

    @staticmethod
    def restore(old, old_root):
        write_value(RT_RUNTIME, old)
        if old_root is not None:
            write_value(ROOT_RT_RUNTIME, old_root)

    def test_no_error(self):
        self.assertNotIn("# error", self.r.stdout)
        self.assertEqual(self.r.returncode, EXIT_FAIL, self.r.stdout)

    def test_rt_workloads_fail(self):
        top = {name: ok for indent, ok, name, _ in ktap_results(self.r.stdout)
               if indent == 0}
        self.assertEqual(top, dict({w: False for w in self.WORKLOADS},
                                   **{self.DL: True}), self.r.stdout)

    def test_dl_admission_named(self):
        cpus = os.cpu_count()
        top = {name: d for indent, ok, name, d
               in ktap_results(self.r.stdout) if indent == 0}
        self.assertRegex(
            top[self.DL], r"^SKIP the kernel refuses SCHED_DEADLINE "
            r"admission \(EBUSY\) to the workload's %d DEADLINE threads "
            r"together, %.2f CPUs of bandwidth \(admitted: \d+\), while "
            r"kernel.sched_rt_runtime_us 300000 of "
            r"kernel.sched_rt_period_us \d+ on each of %d CPUs admits "
            r"[\d.]+: the RT bandwidth is too low for it$"
            % (cpus + 1, 0.3 * (cpus + 1), cpus))

    def test_throttling_named(self):
        # logs that end early, or threads held back that still finished
        for w in self.WORKLOADS:
            self.assertRegex(self.r.stdout,
                             r"# %s: rep-1: .*waited runnable \d+\.\d+ s"
                             r".*throttled (or starved )?by the kernel; "
                             r"RT bandwidth: kernel.sched_rt_runtime_us "
                             r"300000 of kernel.sched_rt_period_us \d+; "
                             r"judged as it ran" % w)


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestBusyMachine(unittest.TestCase):
    """Other tasks busy on every CPU: each repetition is disturbed, and
    after three the workload skips as "machine too busy", the KTAP line
    naming the heaviest neighbour, the run's index.json naming them all
    with pid, policy and share, and the export counting the workload,
    not dropping it."""
    LIVE = True

    @classmethod
    def setUpClass(cls):
        with live_lock():
            hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                    for _ in range(os.cpu_count())]
            try:
                cls.r = sw("run", "-n", "1", "-r", RESULTS, "periodic-light",
                           timeout=300)
            finally:
                for h in hogs:
                    h.kill()
                    h.wait()

    def test_skip_names_the_heaviest(self):
        top = [d for indent, ok, name, d in ktap_results(self.r.stdout)
               if indent == 0]
        self.assertEqual(len(top), 1, self.r.stdout)
        self.assertRegex(top[0], r"^SKIP machine too busy: 3 repetitions in "
                         r"a row disturbed by other tasks, the heaviest "
                         r"\S+ \(pid \d+, fair nice 0\) \d+\.\d%")

    def test_index_names_them(self):
        root = results_dir(self.r.stdout)
        e = load_json(os.path.join(root, "index.json"))["workloads"]
        w = e["periodic-light"]
        self.assertEqual(w["state"], "skip")
        self.assertTrue(w["reason"].startswith("machine too busy"))
        self.assertTrue(w["neighbours"])
        for t in w["neighbours"]:
            self.assertEqual(set(t), {"comm", "pid", "kthread", "policy",
                                      "share"})
            self.assertFalse(t["kthread"])
        self.assertGreater(sum(t["share"] for t in w["neighbours"]), 0.05)

    def test_export_counts_it(self):
        r = sw("export", "--kcidb", results_dir(self.r.stdout))
        self.assertEqual(r.returncode, 0, r.stderr)
        tests = {t["path"]: t for t in json.loads(r.stdout)["tests"]}
        w = tests["sched-workloads.periodic-light"]
        self.assertEqual(w["status"], "SKIP")
        self.assertIn("machine too busy", w["comment"])
        self.assertNotEqual(tests["sched-workloads"]["status"], "PASS")


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestTimeLimit(unittest.TestCase):
    """Past the battery's time limit (-T) no round nor repetition starts:
    a workload waiting for its confirmation round is judged on the round
    it has, the check that waited skipping "out of time", and a workload
    not started skips saying so."""
    LIVE = True
    # 1 s, ~100 passes: beyond "at most 1" in round 1, so a confirmation
    # round is due 60 s later (-g), past the limit
    BEYOND = {
        "sched-workloads": {
            "description": "beyond its bound in round 1",
            "checks": [{"metric": "passes", "task": "t", "max": 1,
                        "why": "never holds: round 2 is due"}]},
        "global": {"duration": 1, "default_policy": "SCHED_OTHER"},
        "tasks": {"t": {"loop": -1, "run": 1000,
                        "timer": {"ref": "t", "period": 10000}}},
    }

    def test_round_due_after_the_limit(self):
        # round 1 ends within ~6 s; round 2 would start at 60 s
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "beyond-then-late.json")
            with open(path, "w") as f:
                json.dump(self.BEYOND, f)
            with live_lock():
                r = sw("run", "-T", "15", "-g", "60", "-r", RESULTS, path,
                       timeout=300)
        res = {name: d for indent, ok, name, d in ktap_results(r.stdout)}
        self.assertRegex(res["beyond-then-late.t.passes"],
                         r"^SKIP t: passes was beyond its bound in round 1 "
                         r"and could not be judged again: out of time: the "
                         r"battery's time limit of 15 s \(-T\) was "
                         r"reached", r.stdout)
        self.assertIn("beyond-then-late", res, r.stdout)

    def test_not_started(self):
        with live_lock():
            r = sw("run", "-T", "0.001", "-r", RESULTS, "timer-idle",
                   "periodic-light", timeout=120)
        top = {name: d for indent, ok, name, d in ktap_results(r.stdout)
               if indent == 0}
        why = ("SKIP out of time: the battery's time limit of 0.001 s (-T) "
               "was reached before it started")
        self.assertEqual(top, {"timer-idle": why, "periodic-light": why},
                         r.stdout)


# A workload the machine is too busy for ends within this: a canary (5 s
# and a second for a thread kept off its CPU) and three disturbed
# repetitions, each at most 1.5 times its 3 s plus 10 s, and 2 s to save
# and analyse.
WORKLOAD_BOUND_S = 6 + 3 * (1.5 * 3 + 10 + 2)


def threads_of(pid):
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return 0


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestRtNeighbour(unittest.TestCase):
    """Another user's real-time thread (tests/rt_neighbour.c). SCHED_FIFO
    50 running 20 us of every 50 us: the battery ends within its time
    bound, each workload skipped as "machine too busy" with the neighbour
    named; SIGINT while the canary measures (its threads up, no rt-app
    yet) ends the run within 2 s, the machine as found. SCHED_FIFO 99 all
    the time on one CPU: the canary cannot measure within its bound, and
    says who took the CPU."""
    LIVE = True
    WORKLOADS = ["periodic-light", "timer-idle", "cfs-yield"]

    @classmethod
    def setUpClass(cls):
        swtest.setup_checker(cls, "rt_neighbour", [])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def neighbour(self, *argv):
        p = subprocess.Popen([self.bin] + list(argv or ("50", "20", "50",
                                                        "900")),
                             stdout=subprocess.PIPE, text=True, env=self.env)
        self.assertEqual(p.stdout.readline().strip(), "ready")
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        return p

    def test_battery_skips_naming_it(self):
        with live_lock():
            nb = self.neighbour()
            start = time.monotonic()
            r = sw("run", "-r", RESULTS, *self.WORKLOADS, timeout=900)
            took = time.monotonic() - start
        top = {name: d for indent, ok, name, d in ktap_results(r.stdout)
               if indent == 0}
        self.assertEqual(sorted(top), sorted(self.WORKLOADS), r.stdout)
        for w in self.WORKLOADS:
            self.assertRegex(top[w], r"^SKIP machine too busy: .*"
                             r"rt_neighbour \(pid %d, rt 50\)" % nb.pid)
        self.assertLess(took, WORKLOAD_BOUND_S * len(self.WORKLOADS),
                        r.stdout)

    @unittest.skipUnless(os.cpu_count() > 1, "one CPU: nothing would run")
    def test_starved_canary(self):
        # SCHED_FIFO 99 all the time on the last CPU (the RT throttle
        # leaves others 5%): the canary's thread there never runs
        workloads = self.WORKLOADS[:2]
        with live_lock():
            nb = self.neighbour("99", "1000", "1000", "16",
                                str(os.cpu_count() - 1))
            start = time.monotonic()
            r = sw("run", "-r", RESULTS, *workloads, timeout=300)
            took = time.monotonic() - start
        top = {name: d for indent, ok, name, d in ktap_results(r.stdout)
               if indent == 0}
        for w in workloads:
            self.assertRegex(top[w], r"^SKIP machine too busy: the canary "
                             r"could not measure the machine within 5 s: "
                             r"other tasks took its CPUs, the heaviest "
                             r"rt_neighbour \(pid %d, rt 99\)" % nb.pid,
                             r.stdout)
        # 5 s, a second for the starved thread, a second once released
        self.assertLess(took, len(workloads) * 7 + 5, r.stdout)

    def test_sigint_in_the_canary(self):
        with live_lock():
            self.neighbour()
            p = subprocess.Popen([BINARY, "run", "-r", RESULTS,
                                  *self.WORKLOADS], stdout=subprocess.PIPE,
                                 text=True, env=CHILD_ENV)
            deadline = time.monotonic() + 60
            # the canary's threads measure, rt-app has not started
            while threads_of(p.pid) < 2 or rtapp_processes(p.pid):
                self.assertLess(time.monotonic(), deadline,
                                "the canary never ran")
                time.sleep(0.01)
            p.send_signal(signal.SIGINT)
            sent = time.monotonic()
            out, _ = p.communicate(timeout=60)
            took = time.monotonic() - sent
        self.assertEqual(p.returncode, -signal.SIGINT, out)
        self.assertLess(took, 2, out)
        top = [d for indent, ok, name, d in ktap_results(out) if indent == 0]
        self.assertEqual(top, ["SKIP interrupted"] * len(self.WORKLOADS), out)


if __name__ == "__main__":
    unittest.main()
