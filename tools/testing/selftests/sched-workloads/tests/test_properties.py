# SPDX-License-Identifier: GPL-2.0
"""Live: each workload's key check fails when the property it guards is
broken on purpose.

One file per workload in breakers/ (the format: breaker.py): how the
property is broken (a patch of the workload's JSON and/or a cgroup whose
cpu controller settings the run is put in), and the subtests that must
then fail. A workload of the battery without a
breaker fails this test: every key check must be shown able to fail.
"""
import glob
import json
import os
import re
import tempfile
import unittest

from swtest import (BINARY, CHILD_ENV, COLLECTION, HERE, ktap_results,
                    live_lock, load_json, sw)
import breaker  # after swtest, which puts the collection on the path
import vm_topology

IS_ROOT = os.geteuid() == 0
RESULTS = "/tmp/sched-workloads-live-tests"
BREAKERS = sorted(glob.glob(os.path.join(HERE, "breakers", "*.json")))
BUSY = "# SKIP machine too busy"
BUSY_TRIES = 3


def workload_path(name):
    return os.path.join(COLLECTION, "workloads", name + ".json")


def patched(name, patch):
    """Workload @name of the battery with a breaker's patch applied."""
    return breaker.patched(breaker.load_workload(BINARY, workload_path(name)),
                           patch)


def run_broken(spec, tmp):
    return breaker.run_broken(BINARY, workload_path(spec["workload"]), spec,
                              tmp, RESULTS, env=CHILD_ENV)


def scaled(expr, cpus):
    """A "scale" count: "cpus", "cpus+1", "2*cpus-1" (at least 1)."""
    mult, _, rest = expr.rpartition("*")
    add = rest[len("cpus"):]
    return max(1, int(mult or 1) * cpus + int(add or 0))


def entities(workload, cpus):
    """The entity names a run of @workload has on @cpus CPUs.

    A task with one thread is its name; one with N > 1, "<task>-0" to
    "<task>-<N-1>" and, pooled, its name; then the CPUs, the system, and
    "rtapp" (the result "<workload>.rtapp.refused" of a workload the
    kernel refuses).
    """
    scale = workload["sched-workloads"].get("scale", {})
    names = {"system", "rtapp"} | {"cpu%d" % c for c in range(cpus)}
    for task, t in workload["tasks"].items():
        n = t.get("instance", 1)
        if "tasks.%s.instance" % task in scale:
            n = scaled(scale["tasks.%s.instance" % task], cpus)
        names |= {task} | ({"%s-%d" % (task, k) for k in range(n)}
                           if n > 1 else set())
    return names


class TestEveryWorkloadHasABreaker(unittest.TestCase):
    def test_expect_fail_names(self):
        """Every name a breaker expects to fail is one the run has, on
        the machine it is caught on: this one, or for a workload of a
        topology, the guest it is judged in."""
        here = os.sysconf("SC_NPROCESSORS_ONLN")
        for path in BREAKERS:
            spec = load_json(path)
            w = patched(spec["workload"], spec.get("patch"))
            block = w["sched-workloads"]
            topology = block.get("topology")
            cpus = (vm_topology.preset(
                vm_topology.FOR_WORKLOAD_TOPOLOGY[topology]).cpus
                if topology else max(here, block.get("min_cpus", 1)))
            have = entities(w, cpus)
            for name in spec["expect_fail"]:
                with self.subTest(name=name):
                    workload, entity, _ = name.split(".", 2)
                    self.assertEqual(workload, spec["workload"])
                    self.assertIn(entity, have, "%s: %s" % (path, name))

    def test_patched_workloads_pass_check(self):
        """A breaker breaks the kernel's side, never the file: the
        patched workload passes check, so its run is judged, not
        refused."""
        for path in BREAKERS:
            spec = load_json(path)
            with self.subTest(workload=spec["workload"]), \
                    tempfile.TemporaryDirectory() as tmp:
                broken = os.path.join(tmp, spec["workload"] + ".json")
                with open(broken, "w") as f:
                    json.dump(patched(spec["workload"], spec.get("patch")),
                              f)
                r = sw("check", broken)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_coverage(self):
        workloads = {os.path.basename(p)[:-5] for p in
                     glob.glob(os.path.join(COLLECTION, "workloads",
                                            "*.json"))}
        broken = {load_json(p)["workload"] for p in BREAKERS}
        self.assertEqual(workloads - broken, set(),
                         "workloads without a breaker in tests/breakers/")


@unittest.skipUnless(IS_ROOT and os.path.isdir(breaker.CGROUP_ROOT),
                     "needs root and the cgroup v1 cpu controller")
class TestBrokenProperties(unittest.TestCase):
    LIVE = True

    def test_key_checks_fail(self):
        for path in BREAKERS:
            spec = load_json(path)
            with self.subTest(workload=spec["workload"]):
                # another tenant of the machine (the VM's own agent, at
                # 5-8% for seconds) makes the run skip, judging nothing:
                # that is no answer, so the run is taken again
                for _ in range(BUSY_TRIES):
                    with tempfile.TemporaryDirectory() as tmp, live_lock():
                        r = run_broken(spec, tmp)
                    if BUSY not in r.stdout:
                        break
                else:
                    self.skipTest("%s: %s %d times"
                                  % (spec["workload"], BUSY, BUSY_TRIES))
                # a workload for a topology this machine lacks
                # (smt-spread, numa-spread) is broken in a guest
                # (tests/test_vm.py), one for more CPUs than it has, or
                # pinned by its breaker to CPUs it lacks, not
                m = re.search(r"(?m)^ok 1 \S+ # SKIP (needs [^:,(]*|"
                              r"task \S+ is pinned to cpu\d+)", r.stdout)
                if m:
                    self.skipTest("%s: %s" % (spec["workload"],
                                              m.group(1).strip()))
                sub = {name: ok for indent, ok, name, _
                       in ktap_results(r.stdout) if indent == 2}
                for name in spec["expect_fail"]:
                    self.assertIn(name, sub, r.stdout)
                    self.assertFalse(sub[name], "%s passed although %s:\n%s"
                                     % (name, spec["how"], r.stdout))


if __name__ == "__main__":
    unittest.main()
