# SPDX-License-Identifier: GPL-2.0
"""The canary: its comparison rule (unit) and one measurement (live).

The rule (machine/canary.h): a current value is "slower" when it lies above the
baseline's highest value by more than max(rel * highest, abs), "faster"
when below the lowest by more than max(rel * lowest, abs), else normal.
The margins below are the contract written in machine/canary.c; every expected
verdict is worked out by hand from them in the comments.
"""
import json
import math
import os
import subprocess
import time
import unittest

from swtest import BINARY, CHILD_ENV, EXIT_USAGE, cpu_list, live_lock, sw

IS_ROOT = os.geteuid() == 0
MAX_CPUS = 8
VALUES = ["canary.loop_ns", "canary.libm_ns", "canary.timer_lat.p50",
          "canary.timer_lat.p90", "canary.wake_lat.p50"]
CGROUP_CPU = "/sys/fs/cgroup/cpu"


def compare(metric, base, cur):
    """(verdict word, reason) of canary --compare."""
    r = sw("canary", "--compare", metric, *[str(b) for b in base], "--",
           str(cur), timeout=30)
    if r.returncode:
        raise AssertionError("exit %d: %s" % (r.returncode, r.stderr))
    word, _, why = r.stdout.strip().partition(": ")
    return word, why


def expected_cpus():
    """The CPUs the canary must measure, worked out apart from
    machine/canary.c: online and allowed, at most MAX_CPUS of them, evenly
    spread."""
    with open("/sys/devices/system/cpu/online") as f:
        online = cpu_list(f.read())
    allowed = sorted(set(online) & os.sched_getaffinity(0))
    m = min(len(allowed), MAX_CPUS)
    return [allowed[i * len(allowed) // m] for i in range(m)]


class TestCanaryRule(unittest.TestCase):
    """canary_compare() through "canary --compare", worked by hand.

    Margins (machine/canary.h): timer_lat.p50 and wake_lat.p50 30% / 10 us,
    timer_lat.p90 50% / 20 us, loop_ns 15% / 0.05 ns, libm_ns 15% /
    0.2 ns.
    """

    def test_inside(self):
        # hi 50: limit 50 + max(15, 10) = 65; lo 40: 40 - max(12, 10) = 28.
        base = [40, 42, 44, 46, 50]
        self.assertEqual(compare("canary.timer_lat.p50", base, 60)[0],
                         "normal")
        self.assertEqual(compare("canary.timer_lat.p50", base, 30)[0],
                         "normal")

    def test_beyond_by_rel_only(self):
        # hi 20: hi + 30% = 26 but hi + 10 us = 30, so 27 is normal.
        word, why = compare("canary.timer_lat.p50", [10, 12, 14, 16, 20], 27)
        self.assertEqual(word, "normal")
        self.assertIn("widened to 0-30", why)
        # lo 20: lo - 30% = 14 but lo - 10 = 10, so 13 is normal too.
        self.assertEqual(compare("canary.wake_lat.p50",
                                 [20, 25, 30], 13)[0], "normal")

    def test_beyond_by_abs_only(self):
        # hi 50: hi + 10 = 60 but hi + 30% = 65, so 62 is normal.
        self.assertEqual(compare("canary.timer_lat.p50",
                                 [40, 42, 44, 46, 50], 62)[0], "normal")
        # lo 40: lo - 10 = 30 but lo - 30% = 28, so 29 is normal.
        self.assertEqual(compare("canary.wake_lat.p50",
                                 [40, 42, 44, 46, 50], 29)[0], "normal")

    def test_beyond_both(self):
        word, why = compare("canary.timer_lat.p50", [40, 42, 44, 46, 50], 66)
        self.assertEqual(word, "slower")
        self.assertIn("above the baseline's 40-50 us", why)
        self.assertIn("= 15", why)
        # hi 20: margin max(6, 10) = 10, limit 30.
        self.assertEqual(compare("canary.timer_lat.p50",
                                 [10, 12, 14, 16, 20], 31)[0], "slower")
        # lo 40: margin max(12, 10) = 12, limit 28.
        word, why = compare("canary.wake_lat.p50", [40, 42, 44, 46, 50], 27)
        self.assertEqual(word, "faster")
        self.assertIn("= 12", why)
        # lo 20: margin max(6, 10) = 10, limit 10.
        self.assertEqual(compare("canary.wake_lat.p50", [20, 25, 30], 9)[0],
                         "faster")

    def test_limit_itself_is_normal(self):
        # hi 20 + 10 us = 30 exactly: strictly beyond is needed.
        base = [10, 12, 14, 16, 20]
        self.assertEqual(compare("canary.timer_lat.p50", base, 30)[0],
                         "normal")
        self.assertEqual(compare("canary.timer_lat.p50", base, 30.001)[0],
                         "slower")

    def test_margins_of_the_other_values(self):
        # loop_ns: hi 1.8 + max(0.27, 0.05) = 2.07; lo 1.6 - 0.24 = 1.36.
        base = [1.6, 1.7, 1.8]
        self.assertEqual(compare("canary.loop_ns", base, 2.0)[0], "normal")
        self.assertEqual(compare("canary.loop_ns", base, 2.1)[0], "slower")
        self.assertEqual(compare("canary.loop_ns", base, 1.4)[0], "normal")
        self.assertEqual(compare("canary.loop_ns", base, 1.3)[0], "faster")
        # libm_ns: hi 13.6 + max(2.04, 0.2) = 15.64; lo 13.4 - 2.01 =
        # 11.39. Below 1.33 ns the 0.2 ns floor is the wider margin:
        # hi 1.0 + 0.2.
        base = [13.4, 13.5, 13.6]
        self.assertEqual(compare("canary.libm_ns", base, 15.6)[0], "normal")
        self.assertEqual(compare("canary.libm_ns", base, 15.7)[0], "slower")
        self.assertEqual(compare("canary.libm_ns", base, 11.4)[0], "normal")
        self.assertEqual(compare("canary.libm_ns", base, 11.3)[0], "faster")
        self.assertEqual(compare("canary.libm_ns", [1.0], 1.19)[0],
                         "normal")
        self.assertEqual(compare("canary.libm_ns", [1.0], 1.21)[0],
                         "slower")
        # timer_lat.p90: hi 60 + max(30, 20) = 90.
        base = [40, 50, 60]
        self.assertEqual(compare("canary.timer_lat.p90", base, 85)[0],
                         "normal")
        self.assertEqual(compare("canary.timer_lat.p90", base, 95)[0],
                         "slower")

    def test_one_baseline_value(self):
        # 40 + max(12, 10) = 52.
        self.assertEqual(compare("canary.timer_lat.p50", [40], 53)[0],
                         "slower")
        self.assertEqual(compare("canary.timer_lat.p50", [40], 51)[0],
                         "normal")

    def test_unsorted_baseline(self):
        # The range is min-max whatever the order: lo 40, hi 50, limits
        # 28 and 65 as in test_inside.
        base = [50, 44, 40, 46, 42]
        self.assertEqual(compare("canary.timer_lat.p50", base, 64)[0],
                         "normal")
        self.assertEqual(compare("canary.timer_lat.p50", base, 66)[0],
                         "slower")
        self.assertEqual(compare("canary.timer_lat.p50", base, 29)[0],
                         "normal")
        self.assertEqual(compare("canary.timer_lat.p50", base, 27)[0],
                         "faster")

    def test_fifo_is_not_a_speed(self):
        word, why = compare("canary.fifo", [1, 1, 1], 0)
        self.assertEqual(word, "normal")
        self.assertIn("not compared", why)

    def test_bad_input(self):
        cases = [
            (["wu_lat.p50", "1", "--", "2"], '"wu_lat.p50" is not a canary'),
            (["canary.nope", "1", "--", "2"], '"canary.nope" is not a canary'),
            (["canary.loop_ns", "1", "x", "--", "2"],
             'baseline value 2 "x" is not a finite number'),
            (["canary.loop_ns", "1", "--", "nan"],
             'current value "nan" is not a finite number'),
            (["canary.loop_ns", "1", "2"], 'want METRIC'),
            (["canary.loop_ns", "--", "2"], 'want METRIC'),
            (["canary.loop_ns", "1", "--", "2", "3"], 'want METRIC'),
            ([], 'usage'),
        ]
        for args, msg in cases:
            r = sw("canary", "--compare", *args, timeout=30)
            self.assertEqual(r.returncode, EXIT_USAGE, args)
            self.assertIn(msg, r.stderr, args)
            self.assertEqual(r.stdout, "", args)
        r = sw("canary", "--bogus", timeout=30)
        self.assertEqual(r.returncode, EXIT_USAGE)
        self.assertIn('unknown option "--bogus"', r.stderr)

    def test_listed_with_the_metrics(self):
        r = sw("metrics", timeout=30)
        rows = [line.split() for line in r.stdout.splitlines()]
        canary = sorted(row[0] for row in rows if row[2] == "canary")
        self.assertEqual(canary, sorted(VALUES + ["canary.fifo"]))


@unittest.skipUnless(IS_ROOT, "live tests need root")
class TestCanaryLive(unittest.TestCase):
    """One real canary: about a second, every value for every CPU."""
    LIVE = True

    def measure(self, prefix=()):
        with live_lock():
            t0 = time.monotonic()
            r = subprocess.run(list(prefix) + [BINARY, "canary"],
                               capture_output=True, text=True, timeout=60,
                               env=CHILD_ENV)
            took = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["canary"], took

    def check_values(self, ents, fifo, wake=True):
        for name, ent in ents.items():
            self.assertEqual(ent["canary.fifo"], fifo, name)
            for m in VALUES:
                v = ent[m]
                if m.startswith("canary.wake_lat") and not wake:
                    self.assertIsNone(v, (name, m))
                    continue
                self.assertIsNotNone(v, (name, m))
                self.assertTrue(math.isfinite(v) and v > 0, (name, m, v))
            # A percentile is never below the median.
            self.assertGreaterEqual(ent["canary.timer_lat.p90"],
                                    ent["canary.timer_lat.p50"])
            # Host latencies live between a microsecond and a second.
            self.assertLess(ent["canary.timer_lat.p50"], 1e6, name)

    def test_measures_every_cpu_quickly(self):
        ents, took = self.measure()
        cpus = expected_cpus()
        self.assertLess(took, 3.0)
        self.assertEqual(sorted(ents), sorted(["cpu%d" % c for c in cpus] +
                                              ["system"]))
        for c in cpus:
            self.assertEqual(ents["cpu%d" % c]["id"], c)
        self.check_values(ents, 1, wake=len(cpus) > 1)
        # "system" pools the CPUs' samples: a pooled nearest-rank median
        # lies between the smallest and the largest of the groups' ones
        # (fewer than ceil(N/2) samples are below the smallest, at least
        # ceil(N/2) are at or below the largest).
        meds = ["canary.loop_ns", "canary.libm_ns", "canary.timer_lat.p50"]
        if len(cpus) > 1:
            meds.append("canary.wake_lat.p50")
        for m in meds:
            per_cpu = [ents["cpu%d" % c][m] for c in cpus]
            self.assertGreaterEqual(ents["system"][m], min(per_cpu), m)
            self.assertLessEqual(ents["system"][m], max(per_cpu), m)

    def test_one_cpu_has_no_wakeup(self):
        """Confined to one CPU: that CPU only, and no cross-CPU wakeup."""
        cpu = sorted(os.sched_getaffinity(0))[-1]
        ents, _ = self.measure(["taskset", "-c", str(cpu)])
        self.assertEqual(sorted(ents), ["cpu%d" % cpu, "system"])
        self.check_values(ents, 1, wake=False)

    def test_fifo_refused(self):
        """A cgroup with no RT runtime: it measures as SCHED_OTHER and
        says so with canary.fifo 0."""
        if not os.path.isfile(os.path.join(CGROUP_CPU, "cpu.rt_runtime_us")):
            self.skipTest("no cgroup v1 cpu controller with RT group "
                          "scheduling")
        group = os.path.join(CGROUP_CPU, "sched-workloads-canary-%d" %
                             os.getpid())
        os.mkdir(group)
        try:
            with open(os.path.join(group, "cpu.rt_runtime_us"), "w") as f:
                f.write("0")
            ents, took = self.measure(
                ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"',
                 group])
        finally:
            os.rmdir(group)
        self.assertLess(took, 3.0)
        self.check_values(ents, 0, wake=len(expected_cpus()) > 1)


if __name__ == "__main__":
    unittest.main()
