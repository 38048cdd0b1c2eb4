# SPDX-License-Identifier: GPL-2.0
"""Live: a workload's task groups (machine/task_groups.c) on this kernel.

Asserted every time (never the shares themselves, which are timing):
 - while rt-app runs, each thread of a grouped task is in its group,
   a task no group names in the workload's cgroup, and the group has
   the weight the workload gave it (cgroup v1: cpu.shares);
 - SIGINT mid-run: the cgroups are gone with the run, and the machine's
   state (cgroups included) is as before;
 - the cgroups of a run that was SIGKILLed are removed by the next run.
"""
import os
import shutil
import signal
import subprocess
import time
import unittest

from swtest import BINARY, CHILD_ENV, ktap_results
from test_faults import RESULTS, guarded, machine_state, rtapp_pids
from test_run_faults import start_run

IS_ROOT = os.geteuid() == 0
RTAPP = shutil.which("rt-app")
WORKLOAD = "cfs-group-weight"
PREFIX = "sw-tg-"


def cpu_top():
    """The cpu controller's hierarchy: v1's mount, else the v2 one."""
    v1 = "/sys/fs/cgroup/cpu"
    if os.path.isfile(os.path.join(v1, "cgroup.procs")):
        return v1
    return "/sys/fs/cgroup"


def groups_of_runs():
    return sorted(d for d in os.listdir(cpu_top()) if d.startswith(PREFIX))


def cgroup_of(pid, tid):
    """The cpu cgroup of thread @tid, as /proc names it."""
    with open("/proc/%s/task/%s/cgroup" % (pid, tid)) as f:
        lines = f.read().splitlines()
    for line in lines:
        _, ctrl, path = line.split(":", 2)
        if "cpu" in ctrl.split(","):
            return path
    return [line for line in lines if line.startswith("0::")][0][3:]


def threads(pid):
    """{comm: [tid, ...]} of process @pid."""
    out = {}
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
                out.setdefault(f.read().strip(), []).append(tid)
        except FileNotFoundError:
            pass
    return out


def read(path):
    with open(path) as f:
        return f.read().strip()


@unittest.skipUnless(IS_ROOT and RTAPP, "needs root and rt-app")
class TestTaskGroups(unittest.TestCase):
    LIVE = True

    def running_groups(self):
        """Once both hogs are placed: {comm: its threads' cgroups}, and
        the run's cgroup directory."""
        deadline = time.time() + 60
        while time.time() < deadline:
            pids = rtapp_pids()
            if pids:
                t = threads(pids[0])
                if "light" in t and "heavy" in t:
                    time.sleep(0.3)     # past the 100 ms delay
                    return ({comm: [cgroup_of(pids[0], tid) for tid in tids]
                             for comm, tids in threads(pids[0]).items()},
                            groups_of_runs())
            time.sleep(0.02)
        self.fail("rt-app of %s never ran its hogs" % WORKLOAD)

    def test_threads_placed_then_removed_on_sigint(self):
        with guarded() as before:
            p = start_run("-n", "1", WORKLOAD)
            placed, dirs = self.running_groups()
            self.assertEqual(len(dirs), 1, dirs)
            run = "/" + dirs[0]
            weight = os.path.join(cpu_top(), dirs[0], "heavy")
            if os.path.exists(os.path.join(weight, "cpu.weight")):
                self.assertEqual(read(os.path.join(weight, "cpu.weight")),
                                 "300")
            else:
                self.assertEqual(read(os.path.join(weight, "cpu.shares")),
                                 "3072")
            p.send_signal(signal.SIGINT)
            out = p.communicate(timeout=120)[0]
            after = machine_state()
        self.assertEqual(placed["light"], [run + "/light"])
        self.assertEqual(placed["heavy"], [run + "/heavy"])
        self.assertEqual(set(placed["rt-app"]), {run})
        self.assertEqual(p.returncode, -signal.SIGINT, out)
        self.assertEqual(groups_of_runs(), [])
        self.assertEqual(after, before)

    def test_stale_groups_removed(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = os.path.join(cpu_top(), PREFIX + str(dead.pid))
        os.mkdir(stale)
        try:
            os.mkdir(os.path.join(stale, "light"))
            with guarded():
                r = subprocess.run([BINARY, "run", "-n", "1", "-r", RESULTS,
                                    WORKLOAD], capture_output=True,
                                   text=True, env=CHILD_ENV, timeout=300)
            # judged (pass or fail), not an error of the run
            top = {n: d for _, _, n, d in ktap_results(r.stdout)
                   if "." not in n}
            self.assertEqual(list(top), [WORKLOAD], r.stdout + r.stderr)
            self.assertNotIn("ERROR", top[WORKLOAD], r.stdout)
            self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
            self.assertFalse(os.path.exists(stale))
            self.assertEqual(groups_of_runs(), [])
        finally:
            for d in (os.path.join(stale, "light"), stale):
                if os.path.isdir(d):
                    os.rmdir(d)


if __name__ == "__main__":
    unittest.main()
