# SPDX-License-Identifier: GPL-2.0
"""fork.stacked: a thread created behind a running and a waiting task
while a CPU it may use idles (fork balancing, find_idlest_cpu()), on
scenes fed to the analyser's state machine (tests/sched_stream_check.c).

In every scene rt-app (pid 100) runs on CPU 0 from 1000 ns and creates
job threads 101 and 102 onto CPU 0; a kernel thread leaves CPU 1 idle
at 1002 ns. 101, created first, finds rt-app alone on CPU 0: not
stacked, whatever else is idle. 102, created second, finds rt-app
running and 101 waiting there: stacked when CPU 1 is idle and one of
its CPUs. The threads take their names ("job") as they first run.
"""
import unittest

import swtest


def scene(second_target=0, cpu1_idle=True, taken=False):
    """The scene above; @second_target is where 102 is created, @taken
    wakes a kernel thread onto idle CPU 1 just before 102 is."""
    lines = ["1000 0 0 switch 0 swapper/0 120 0 100 rt-app 120"]
    if cpu1_idle:
        lines.append("1002 1 300 switch 300 kworker/u4:1 120 1 0 "
                     "swapper/1 120")
    lines.append("2000 0 100 wakeup_new 101 rt-app 120 0")
    if taken:
        lines.append("2900 0 100 waking 300 kworker/u4:1 120 1")
    lines.append("3000 0 100 wakeup_new 102 rt-app 120 %d" % second_target)
    # rt-app goes to sleep; its threads run and rename themselves
    lines.append("4000 0 100 switch 100 rt-app 120 1 101 job 120")
    if second_target == 0:
        lines.append("5000 0 101 switch 101 job 120 1 102 job 120")
        lines.append("9000000 0 102 switch 102 job 120 1 0 swapper/0 120")
    else:
        lines.append("5000 1 0 switch 0 swapper/1 120 0 102 job 120")
        lines.append("9000000 0 101 switch 101 job 120 1 0 swapper/0 120")
    return "\n".join(lines) + "\n"


class TestForkStacked(swtest.StreamCheckerTest):
    def stacked(self, stream, *args):
        tasks = self.metrics(2, stream, "-t", "job", *args)["trace_tasks"]
        return tasks["job-0"]["fork.stacked"], tasks["job-1"]["fork.stacked"]

    def test_stacked_beside_an_idle_cpu(self):
        self.assertEqual(self.stacked(scene(), "-a"), (0, 1))

    def test_sent_to_the_idle_cpu(self):
        self.assertEqual(self.stacked(scene(second_target=1), "-a"), (0, 0))

    def test_a_taken_cpu_is_not_idle(self):
        # the kworker woken onto CPU 1 is about to run there
        self.assertEqual(self.stacked(scene(taken=True), "-a"), (0, 0))

    def test_an_unknown_cpu_is_not_idle(self):
        # CPU 1 has no event before the creations: its state is unknown
        self.assertEqual(self.stacked(scene(cpu1_idle=False), "-a"),
                         (0, 0))

    def test_only_idle_cpus_of_its_affinity(self):
        # job may run on CPU 0 only: CPU 1 idling is none of its business
        self.assertEqual(self.stacked(scene(), "-A", "job=0"), (0, 0))
        self.assertEqual(self.stacked(scene(), "-A", "job=0-1"), (0, 1))

    def test_unknown_without_affinity_or_creation(self):
        # no affinity known: not measurable
        self.assertEqual(self.stacked(scene()), (None, None))
        # a thread whose creation the trace missed
        stream = "".join(line + "\n" for line in scene().splitlines()
                         if "wakeup_new 102" not in line)
        self.assertEqual(self.stacked(stream, "-a"), (0, None))


if __name__ == "__main__":
    unittest.main()
