# SPDX-License-Identifier: GPL-2.0
"""Work conservation and RT placement on machines with many CPUs.

Builds tests/sched_stream_check.c (the analyser's state machine fed a text
stream of sched events, no trace.dat) under AddressSanitizer and UBSan and
plays a scene on 256 and on 8192 CPUs: every CPU runs a hog, one CPU far
above 63 goes idle, and a task then waits behind the hog of CPU 3. The
expected values follow from the scene's timestamps alone:

- the waiter is runnable from its sched_waking at 2000 us (a wakeup's
  latency starts there, trace/trace_metrics.c; its sched_wakeup follows at
  2000.1 us) and runs at 12000 us: 10000 us of waiting, all of it beside
  the idle CPU;
- the window runs from the first record (1 us) to the last (20000 us):
  19999 us, so wc.share = 10000 / 19999;
- the idle CPU N ran its hog from (1000 + N) ns to 1 ms.

Allowed the idle CPU, the waiter counts; kept off it, nothing does.
"""
import unittest

import swtest
from swtest import EXIT_USAGE

WAIT_CPU = 3
HOG, WAITER = 1000, 900000
WAKING_NS, QUEUED_NS, RUN_NS, END_NS = 2000000, 2000100, 12000000, 20000000
WAIT_US = (RUN_NS - WAKING_NS) / 1000.0


def scene(ncpus, idle_cpu, waiter_prio=120, hog_prio=120):
    """The records of the scene, in time order."""
    lines = []
    for c in range(ncpus):
        lines.append("%d %d 0 switch 0 swapper/%d 120 0 %d hog %d" %
                     (1000 + c, c, c, HOG + c, hog_prio))
    # the hog of idle_cpu sleeps (prev_state 1, S): the CPU idles
    lines.append("1000000 %d %d switch %d hog %d 1 0 swapper/%d 120" %
                 (idle_cpu, HOG + idle_cpu, HOG + idle_cpu, hog_prio,
                  idle_cpu))
    hog = HOG + WAIT_CPU
    lines.append("%d %d %d waking %d waiter %d %d" %
                 (WAKING_NS, WAIT_CPU, hog, WAITER, waiter_prio, WAIT_CPU))
    lines.append("%d %d %d wakeup %d waiter %d %d" %
                 (QUEUED_NS, WAIT_CPU, hog, WAITER, waiter_prio, WAIT_CPU))
    # preempted (prev_state 0, R): the hog waits, the waiter runs
    lines.append("%d %d %d switch %d hog %d 0 %d waiter %d" %
                 (RUN_NS, WAIT_CPU, hog, hog, hog_prio, WAITER, waiter_prio))
    lines.append("%d %d %d switch %d waiter %d 1 %d hog %d" %
                 (END_NS, WAIT_CPU, WAITER, WAITER, waiter_prio, hog,
                  hog_prio))
    return "\n".join(lines) + "\n"


class TestManyCpus(swtest.StreamCheckerTest):
    def assert_wc(self, ncpus, idle_cpu, allowed, want_us):
        m = self.metrics(ncpus, scene(ncpus, idle_cpu),
                         "-A", "waiter=" + allowed, "-t", "waiter")
        system = m["system"]["system"]
        self.assertAlmostEqual(system["wc.idle_while_waiting"], want_us,
                               places=3)
        self.assertAlmostEqual(system["trace.window"], 19999.0, places=3)
        self.assertAlmostEqual(system["wc.share"], want_us / 19999.0,
                               places=6)
        self.assertAlmostEqual(m["cpus"]["cpu%d" % idle_cpu]["cpu.busy"],
                               999.0 - idle_cpu / 1000.0, places=3)

    def test_idle_cpu_200_of_256(self):
        self.assert_wc(256, 200, "0-255", WAIT_US)

    def test_waiter_kept_off_cpu_200(self):
        self.assert_wc(256, 200, "0-199,201-255", 0.0)

    def test_idle_cpu_8191_of_8192(self):
        self.assert_wc(8192, 8191, "0-8191", WAIT_US)

    def test_only_the_idle_cpu_allowed(self):
        # the waiter may use CPU 200 alone: it waits on CPU 3 all the same
        self.assert_wc(256, 200, "200", WAIT_US)

    def test_rt_waiter_beside_a_fair_cpu(self):
        """An RT waiter (prio 10) queued behind an RT hog (prio 5) on CPU 3
        while CPU 200 idles: rt.wait_while_lower is its whole wait."""
        stream = scene(256, 200, waiter_prio=10, hog_prio=5)
        m = self.metrics(256, stream, "-A", "waiter=0-255", "-t", "waiter")
        waiter = m["trace_tasks"]["waiter"]
        self.assertAlmostEqual(waiter["rt.wait_while_lower"], WAIT_US,
                               places=3)
        m = self.metrics(256, stream, "-A", "waiter=3", "-t", "waiter")
        self.assertEqual(m["trace_tasks"]["waiter"]["rt.wait_while_lower"],
                         0.0)

    def test_cpu_beyond_the_count_is_an_error(self):
        p = self.play(256, "1000 256 0 switch 0 swapper 120 0 5 x 120\n")
        self.assertEqual(p.returncode, EXIT_USAGE)
        self.assertIn("stdin:1: malformed record", p.stderr)


if __name__ == "__main__":
    unittest.main()
