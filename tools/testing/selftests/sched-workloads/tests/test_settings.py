# SPDX-License-Identifier: GPL-2.0
"""The settings a run records, read from fake /proc and /sys trees
(`fingerprint --root DIR`), and their differences as a verdict names
them (`fingerprint --diff FILE`)."""
import ctypes
import json
import os
import tempfile
import unittest

from swtest import EXIT_BAD_WORKLOAD, EXIT_PASS, EXIT_USAGE, sw

IS_ROOT = os.geteuid() == 0
CGROUP_CPU = "/sys/fs/cgroup/cpu"
PR_SET_TIMERSLACK, PR_GET_TIMERSLACK = 29, 30
LIBC = ctypes.CDLL(None, use_errno=True)
POLICIES = {os.SCHED_OTHER: "SCHED_OTHER", os.SCHED_FIFO: "SCHED_FIFO",
            os.SCHED_RR: "SCHED_RR", os.SCHED_BATCH: "SCHED_BATCH",
            os.SCHED_IDLE: "SCHED_IDLE"}


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def cpu_list(cpus):
    """{0, 1, 3} -> "0-1,3", the kernel's list format."""
    runs, cpus = [], sorted(cpus)
    for c in cpus:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in runs)


def process_settings():
    """What the binary, our child, inherits from this process."""
    policy = os.sched_getscheduler(0)
    name = POLICIES[policy]
    if policy in (os.SCHED_FIFO, os.SCHED_RR):
        name += ":%d" % os.sched_getparam(0).sched_priority
    return {
        "timer_slack_ns": str(LIBC.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)),
        "nice": str(os.getpriority(os.PRIO_PROCESS, 0)),
        "affinity": cpu_list(os.sched_getaffinity(0)),
        "policy": name,
    }


def machine(root):
    """Sysctls, debugfs, CPUs, cpufreq and cpuidle of a 4-CPU machine."""
    for name, value in (("sched_rt_runtime_us", "950000"),
                        ("sched_rt_period_us", "1000000"),
                        ("sched_rr_timeslice_ms", "100"),
                        ("sched_autogroup_enabled", "1"),
                        ("timer_migration", "1"),
                        ("hostname", "box"),          # not a scheduler knob
                        ("sched_domain/cpu0/flags", "x")):  # a directory
        write(root, "proc/sys/kernel/" + name, value)
    dbg = "sys/kernel/debug/sched/"
    write(root, dbg + "features",
          "GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY")
    write(root, dbg + "base_slice_ns", "3000000")
    write(root, dbg + "latency_ns", "24000000")
    write(root, dbg + "preempt", "none voluntary (full) lazy")
    cpu = "sys/devices/system/cpu/"
    write(root, cpu + "online", "0-3")
    write(root, cpu + "isolated", "")
    for p in (0, 2):
        write(root, cpu + "cpufreq/policy%d/scaling_governor" % p,
              "performance")
        write(root, cpu + "cpufreq/policy%d/scaling_driver" % p,
              "acpi-cpufreq")
    write(root, cpu + "cpuidle/current_driver", "intel_idle")
    write(root, cpu + "cpuidle/current_governor_ro", "menu")


MACHINE = {
    "kernel.sched_rt_runtime_us": "950000",
    "kernel.sched_rt_period_us": "1000000",
    "kernel.sched_rr_timeslice_ms": "100",
    "kernel.sched_autogroup_enabled": "1",
    "kernel.timer_migration": "1",
    "sched.features": "GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY",
    # GENTLE_FAIR_SLEEPERS went with CFS
    "sched.fair": "cfs",
    "sched.base_slice_ns": "3000000",
    "sched.latency_ns": "24000000",
    "sched.preempt": "full",
    "cpus.online": "0-3",
    "cpus.isolated": "",
    "cpufreq.governor": "performance",
    "cpufreq.driver": "acpi-cpufreq",
    "cpuidle.driver": "intel_idle",
    "cpuidle.governor": "menu",
}


def cgroup_v1(root):
    """cpu,cpuacct and cpuset on v1; the process in /batch/job:1."""
    write(root, "proc/self/cgroup",
          "9:name=systemd:/user.slice\n4:cpu,cpuacct:/batch/job:1\n"
          "3:cpuset:/\n0::/user.slice")
    write(root, "proc/self/mountinfo",
          "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
          # cpuacct is not cpu: this mount must not be taken
          "32 30 0:29 / /sys/fs/cgroup/cpuacct rw shared:8 - cgroup "
          "cgroup rw,cpuacct\n"
          "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - "
          "cgroup cgroup rw,cpu,cpuacct\n"
          "33 30 0:30 / /sys/fs/cgroup/cpuset rw shared:11 - cgroup cgroup "
          "rw,cpuset\n"
          "40 30 0:37 / /sys/fs/cgroup/unified rw shared:4 - cgroup2 "
          "cgroup2 rw")
    cpu = "sys/fs/cgroup/cpu,cpuacct/"
    for rel, quota in (("", "1000"),          # the root: never counted
                       ("batch/", "50000"),
                       ("batch/job:1/", "-1")):
        write(root, cpu + rel + "cpu.cfs_quota_us", quota)
        write(root, cpu + rel + "cpu.cfs_period_us", "100000")
    job = cpu + "batch/job:1/"
    write(root, job + "cpu.shares", "512")
    write(root, job + "cpu.rt_runtime_us", "0")
    write(root, job + "cpu.rt_period_us", "1000000")
    write(root, job + "cpu.idle", "0")
    write(root, cpu + "batch/cpu.shares", "2048")
    write(root, "sys/fs/cgroup/cpuset/cpuset.cpus", "0-3")
    write(root, "sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-3")
    write(root, "sys/fs/cgroup/cpuset/cpuset.sched_load_balance", "1")
    # The v2 hierarchy has no cpu controller here: not to be read.
    write(root, "sys/fs/cgroup/unified/user.slice/cpu.max", "1000 100000")


CGROUP_V1 = {
    "cgroup.cpu.cfs_quota_us": "-1",
    "cgroup.cpu.cfs_period_us": "100000",
    "cgroup.cpu.shares": "512",
    "cgroup.cpu.rt_runtime_us": "0",
    "cgroup.cpu.rt_period_us": "1000000",
    "cgroup.cpu.idle": "0",
    "cgroup.cpu.root": "no",
    "cgroup.cpu.ancestor_limit": "50000/100000",
    "cgroup.cpuset.cpus": "0-3",
    "cgroup.cpuset.effective_cpus": "0-3",
    "cgroup.cpuset.sched_load_balance": "1",
}


def cgroup_v2(root):
    """v2 seen from a cgroup namespace: the mount shows /ns only, at a
    mount point with a space in it."""
    write(root, "proc/self/cgroup", "0::/ns/app/worker")
    write(root, "proc/self/mountinfo",
          # another part of the hierarchy: the process is not under it
          "24 20 0:26 /other /mnt/other rw - cgroup2 cgroup2 rw\n"
          "25 20 0:26 /ns /sys/fs/my\\040cgroup rw,nosuid shared:4 - "
          "cgroup2 cgroup2 rw,nsdelegate")
    write(root, "mnt/other/ns/app/worker/cpu.weight", "1")
    mnt = "sys/fs/my cgroup/"
    write(root, mnt + "cpu.max", "30000 100000")       # /ns: 0.3 CPU
    write(root, mnt + "app/cpu.max", "20000 50000")    # /ns/app: 0.4 CPU
    w = mnt + "app/worker/"
    for name, value in (("cpu.max", "max 100000"), ("cpu.weight", "100"),
                        ("cpu.idle", "0"), ("cpu.uclamp.min", "0.00"),
                        ("cpu.uclamp.max", "max"), ("cpuset.cpus", ""),
                        ("cpuset.cpus.effective", "0-1"),
                        ("cpuset.cpus.partition", "member")):
        write(root, w + name, value)


CGROUP_V2 = {
    "cgroup.cpu.max": "max 100000",
    "cgroup.cpu.weight": "100",
    "cgroup.cpu.idle": "0",
    "cgroup.cpu.uclamp.min": "0.00",
    "cgroup.cpu.uclamp.max": "max",
    "cgroup.cpuset.cpus": "",
    "cgroup.cpuset.cpus.effective": "0-1",
    "cgroup.cpuset.cpus.partition": "member",
    "cgroup.cpu.root": "no",
    "cgroup.cpu.ancestor_limit": "30000/100000",
}


def settings_at(root):
    r = sw("fingerprint", "--root", root)
    if r.returncode != EXIT_PASS:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)["settings"], r.stdout


class TestReadSettings(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_empty_tree_has_only_the_process(self):
        s, _ = settings_at(self.root)
        self.assertEqual(s, process_settings())

    def test_v1(self):
        machine(self.root)
        cgroup_v1(self.root)
        s, text = settings_at(self.root)
        self.assertEqual(s, {**process_settings(), **MACHINE, **CGROUP_V1})
        # Printed in sorted order.
        keys = [line.split('"')[1] for line in text.splitlines()
                if line.startswith('    "')]
        self.assertEqual(keys, sorted(s))

    def test_v2_through_a_namespace(self):
        cgroup_v2(self.root)
        s, _ = settings_at(self.root)
        self.assertEqual(s, {**process_settings(), **CGROUP_V2})

    def test_v2_root(self):
        write(self.root, "proc/self/cgroup", "0::/")
        write(self.root, "proc/self/mountinfo",
              "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw")
        write(self.root, "sys/fs/cgroup/cpuset.cpus.effective", "0-3")
        s, _ = settings_at(self.root)
        self.assertEqual(s, {**process_settings(), "cgroup.cpu.root": "yes",
                             "cgroup.cpuset.cpus.effective": "0-3"})

    def test_cpufreq_policies_that_disagree(self):
        cpu = "sys/devices/system/cpu/"
        for p, gov in ((0, "performance"), (2, "powersave"),
                       (10, "performance")):
            write(self.root, cpu + "cpufreq/policy%d/scaling_governor" % p,
                  gov)
            write(self.root, cpu + "cpufreq/policy%d/scaling_driver" % p,
                  "intel_pstate")
        s, _ = settings_at(self.root)
        # By CPU number, not by name: cpu2 before cpu10.
        self.assertEqual(s["cpufreq.governor"],
                         "cpu0:performance,cpu2:powersave,cpu10:performance")
        self.assertEqual(s["cpufreq.driver"], "intel_pstate")

    def test_old_kernel_places(self):
        write(self.root, "sys/kernel/debug/sched_features", "A NO_B")
        write(self.root, "sys/devices/system/cpu/nohz_full", "1-3")
        write(self.root, "sys/devices/system/cpu/cpuidle/current_governor",
              "teo")
        write(self.root,
              "sys/devices/system/cpu/cpuidle/current_governor_ro", "menu")
        s, _ = settings_at(self.root)
        self.assertEqual(s, {**process_settings(), "sched.features": "A NO_B",
                             "nohz_full": "1-3", "cpuidle.governor": "teo"})

    def test_settings_do_not_make_the_class(self):
        machine(self.root)
        cgroup_v1(self.root)
        a = json.loads(sw("fingerprint").stdout)
        b = json.loads(sw("fingerprint", "--root", self.root).stdout)
        self.assertNotEqual(a["settings"], b["settings"])
        del a["settings"], b["settings"]
        self.assertEqual(a, b)

    def test_command_line(self):
        r = sw("fingerprint", "--root", os.path.join(self.root, "none"))
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn("none: not a directory", r.stderr)
        r = sw("fingerprint", "-h")
        self.assertEqual(r.returncode, EXIT_PASS)
        self.assertIn("--diff FILE", r.stdout)
        for bad in (["extra"], ["--width", "0", "--diff", "x"], ["-c", "0"]):
            with self.subTest(args=bad):
                r = sw("fingerprint", *bad)
                self.assertEqual(r.returncode, EXIT_USAGE)
                self.assertIn("usage:", r.stderr)


class TestDiff(unittest.TestCase):
    """Base: the v1 machine; current: five settings changed."""

    ITEMS = [
        'cpus.isolated "" -> 1',
        "kernel.sched_rt_runtime_us 950000 -> 300000",
        "kernel.timer_migration 1 -> (unset)",
        "nohz_full (unset) -> 1",
        "sched.features NO_NEXT_BUDDY -> NEXT_BUDDY",
    ]

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = cls.tmp.name
        cls.a, cls.b = os.path.join(t, "a"), os.path.join(t, "b")
        for root in (cls.a, cls.b):
            machine(root)
            cgroup_v1(root)
        cpu = "sys/devices/system/cpu/"
        write(cls.b, "proc/sys/kernel/sched_rt_runtime_us", "300000")
        os.unlink(os.path.join(cls.b, "proc/sys/kernel/timer_migration"))
        write(cls.b, cpu + "isolated", "1")
        write(cls.b, cpu + "nohz_full", "1")
        write(cls.b, "sys/kernel/debug/sched/features",
              "START_DEBIT NEXT_BUDDY GENTLE_FAIR_SLEEPERS")
        cls.fp = json.loads(sw("fingerprint", "--root", cls.a).stdout)
        cls.base = cls.file("a.json", cls.fp)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def file(cls, name, doc):
        path = os.path.join(cls.tmp.name, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def diff(self, base, *args):
        return sw("fingerprint", "--root", self.b, "--diff", base, *args)

    def test_names_what_changed(self):
        r = self.diff(self.base)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(r.stdout, "# 5 settings differ from %s\n%s\n"
                         % (self.base, ", ".join(self.ITEMS)))

    def test_same_settings(self):
        r = sw("fingerprint", "--root", self.a, "--diff", self.base)
        self.assertEqual((r.returncode, r.stdout), (
            EXIT_PASS, "# no setting differs from %s\n" % self.base))

    def test_from_a_baseline_file(self):
        path = self.file("baseline.json", {
            "workload": "w", "class": self.fp["class"],
            "fingerprint": self.fp, "metrics": {}})
        r = self.diff(path)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(r.stdout.splitlines()[1], ", ".join(self.ITEMS))

    def test_same_words_in_another_order(self):
        # Word lists with the same words: the whole values are named.
        doc = json.loads(sw("fingerprint", "--root", self.b).stdout)
        doc["settings"]["sched.features"] = \
            "GENTLE_FAIR_SLEEPERS START_DEBIT NEXT_BUDDY"
        path = self.file("order.json", doc)
        r = self.diff(path)
        self.assertEqual(r.stdout.splitlines(), [
            "# 1 setting differs from %s" % path,
            "sched.features GENTLE_FAIR_SLEEPERS START_DEBIT NEXT_BUDDY -> "
            "START_DEBIT NEXT_BUDDY GENTLE_FAIR_SLEEPERS"])

    def test_recorded_before_settings_were(self):
        old = dict(self.fp)
        del old["settings"]
        path = self.file("old.json", old)
        r = self.diff(path)
        self.assertEqual((r.returncode, r.stdout), (
            EXIT_PASS, "# %s records no settings\n" % path))

    def test_cut_at_an_item(self):
        full = ", ".join(self.ITEMS)
        two = ", ".join(self.ITEMS[:2]) + ", ..."
        cases = [
            (len(full), full),
            (len(full) - 1, ", ".join(self.ITEMS[:4]) + ", ..."),
            (len(two), two),
            (len(two) - 1, self.ITEMS[0] + ", ..."),
            (len(self.ITEMS[0]) + len(", ..."), self.ITEMS[0] + ", ..."),
            (len(self.ITEMS[0]) + len(", ...") - 1, "..."),
            (3, "..."),
            (2, ""),
        ]
        for width, want in cases:
            with self.subTest(width=width):
                r = self.diff(self.base, "--width", str(width))
                self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
                lines = r.stdout.split("\n")
                self.assertEqual(lines[0], "# 5 settings differ from %s"
                                 % self.base)
                self.assertEqual(lines[1], want)

    def test_bad_files(self):
        cases = [
            ("syntax.json", '{\n  "class": "x",\n  oops\n}\n',
             EXIT_BAD_WORKLOAD, "syntax.json:3:3: invalid JSON"),
            ("array.json", "[1]", EXIT_BAD_WORKLOAD, "not a JSON object"),
            ("other.json", '{"foo": 1}', EXIT_BAD_WORKLOAD,
             "neither a baseline"),
            ("list.json", '{"class": "x", "settings": [1]}',
             EXIT_BAD_WORKLOAD, '"settings" is not an object'),
            ("number.json", '{"class": "x", "settings": {"nice": 0}}',
             EXIT_BAD_WORKLOAD, 'settings: "nice" is not a string'),
        ]
        for name, text, code, msg in cases:
            with self.subTest(file=name):
                path = self.file(name, text)
                r = self.diff(path)
                self.assertEqual(r.returncode, code, r.stderr)
                self.assertIn(path, r.stderr)
                self.assertIn(msg, r.stderr)
                self.assertEqual(r.stdout, "")
        r = self.diff(os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn("missing.json: cannot read", r.stderr)


def in_cgroup(path):
    def enter():
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    return enter


@unittest.skipUnless(IS_ROOT, "needs root")
class TestLiveSettings(unittest.TestCase):
    """The real process state; no workload runs, so no live lock."""
    LIVE = True

    def test_timer_slack(self):
        def slack():
            if LIBC.prctl(PR_SET_TIMERSLACK, 123456, 0, 0, 0):
                raise OSError(ctypes.get_errno(), "PR_SET_TIMERSLACK")
        r = sw("fingerprint", preexec_fn=slack)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(json.loads(r.stdout)["settings"]["timer_slack_ns"],
                         "123456")

    @unittest.skipUnless(os.path.exists(os.path.join(CGROUP_CPU,
                                                     "cpu.cfs_quota_us")),
                         "needs the cgroup v1 cpu controller")
    def test_cpu_cgroup_and_its_ancestor(self):
        outer = os.path.join(CGROUP_CPU, "sw-settings-test-%d" % os.getpid())
        inner = os.path.join(outer, "inner")
        try:
            os.mkdir(outer)
            os.mkdir(inner)
            # 10% of a CPU, so that the tool's own reads stay quick.
            for name, value in (("cpu.cfs_period_us", "10000"),
                                ("cpu.cfs_quota_us", "1000")):
                with open(os.path.join(outer, name), "w") as f:
                    f.write(value)
            r = sw("fingerprint", preexec_fn=in_cgroup(outer), timeout=60)
            self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
            s = json.loads(r.stdout)["settings"]
            self.assertEqual(s["cgroup.cpu.cfs_quota_us"], "1000")
            self.assertEqual(s["cgroup.cpu.cfs_period_us"], "10000")
            self.assertEqual(s["cgroup.cpu.root"], "no")
            self.assertNotIn("cgroup.cpu.ancestor_limit", s)

            r = sw("fingerprint", preexec_fn=in_cgroup(inner), timeout=60)
            self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
            s = json.loads(r.stdout)["settings"]
            self.assertEqual(s["cgroup.cpu.cfs_quota_us"], "-1")
            self.assertEqual(s["cgroup.cpu.ancestor_limit"], "1000/10000")
        finally:
            for path in (inner, outer):
                if os.path.isdir(path):
                    os.rmdir(path)


if __name__ == "__main__":
    unittest.main()
