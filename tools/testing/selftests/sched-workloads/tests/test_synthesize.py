# SPDX-License-Identifier: GPL-2.0
"""synthesize on the trace fixtures: what the copy is made to do, against
the scenarios' own definitions (fixtures/trace/scenario.c), not against
the analyser.

  sleeper  "sleeper", SCHED_OTHER: 100 x (burn 1 ms, sleep 2 ms)
  fifo     "rtper", SCHED_FIFO 50: 40 x (burn 1 ms, sleep 5 ms), beside
           "cfshog" (a 400 ms burn that never sleeps), "pilow" and
           "pihigh" (a PI mutex)

A copy's utilisation is its run time over its cycle, summed over its
phases; its activations, the runs it makes.
"""
import json
import os
import shutil
import tempfile
import unittest

from swtest import (BINARY, EXIT_BAD_WORKLOAD, EXIT_PASS, EXIT_USAGE, fixture,
                    sw, unpack_traces)
from breaker import load_workload


def model(task):
    """(utilisation, activations, kinds) of a synthesized task."""
    run = cycle = acts = 0
    kinds = set()
    for ph in task["phases"].values():
        loops = ph["loop"]
        runs = [v for k, v in ph.items() if k.startswith("run")]
        sleeps = [v for k, v in ph.items() if k.startswith("sleep")]
        if "timer" in ph:
            kinds.add("periodic")
            cycle += loops * ph["timer"]["period"]
        elif sleeps:
            kinds.add("bursty")
            cycle += loops * (sum(runs) + sum(sleeps))
        else:
            kinds.add("busy")
            cycle += loops * sum(runs)
        run += loops * sum(runs)
        acts += loops * len(runs)
    return run / cycle, acts, kinds


class TestSynthesize(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-synth-")
        cls.dats = unpack_traces(fixture("trace"), cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def synth(self, dat, *args):
        out = os.path.join(self.tmp, "%s-%d.json" % (dat, len(args)))
        r = sw("synthesize", "-o", out, *args, self.dats[dat])
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        with open(out) as f:
            text = f.read()
        return out, text, load_workload(BINARY, out)

    def test_sleeper(self):
        out, text, w = self.synth("sleeper", "-t", "sleeper")
        self.assertEqual(list(w["tasks"]), ["sleeper"])
        t = w["tasks"]["sleeper"]
        self.assertEqual((t["policy"], t["priority"]), ("SCHED_OTHER", 0))
        util, acts, _ = model(t)
        self.assertAlmostEqual(util, 1 / 3, delta=0.1 / 3)
        self.assertLessEqual(abs(acts - 100), 10)
        self.assertIn("sleeper: pid", text)
        # what it wrote passes check, and names the source
        self.assertEqual(sw("check", out).returncode, EXIT_PASS)
        self.assertIn(self.dats["sleeper"], text)

    def test_fifo_periodic(self):
        _, text, w = self.synth("fifo", "-t", "rtper", "-t", "cfshog")
        t = w["tasks"]["rtper"]
        self.assertEqual((t["policy"], t["priority"]), ("SCHED_FIFO", 50))
        util, acts, kinds = model(t)
        self.assertAlmostEqual(util, 1 / 6, delta=0.1 / 6)
        self.assertLessEqual(abs(acts - 40), 4)
        # the hog never slept: it runs all its life
        _, _, kinds = model(w["tasks"]["cfshog"])
        self.assertEqual(kinds, {"busy"})
        self.assertIn("(trace)", text)     # no record.json: from prio

    def test_draft_checks(self):
        _, _, w = self.synth("sleeper", "-t", "sleeper")
        checks = {(c["metric"], c["task"]): c
                  for c in w["sched-workloads"]["checks"]}
        share = checks[("cpu_share", "sleeper")]
        self.assertIn("80%", share["why"])
        self.assertGreater(share["min"], 0)
        # against the class's baseline: the changes the header states
        base = {(c["metric"], c["task"]): c
                for c in w["sched-workloads"]["baseline"]}
        self.assertEqual(sorted(base), [("cpu_share", "sleeper"),
                                        ("wakeup_lat.p90", "sleeper")])
        self.assertEqual((base[("cpu_share", "sleeper")]["better"],
                          base[("cpu_share", "sleeper")]["rel"],
                          base[("cpu_share", "sleeper")]["abs"]),
                         ("higher", 0.1, 0.01))
        self.assertEqual((base[("wakeup_lat.p90", "sleeper")]["better"],
                          base[("wakeup_lat.p90", "sleeper")]["rel"],
                          base[("wakeup_lat.p90", "sleeper")]["abs"]),
                         ("lower", 1.0, 200))

    def test_nothing_chosen(self):
        r = sw("synthesize", "-t", "no_such_comm", self.dats["sleeper"])
        self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)
        self.assertIn("no thread of the trace is chosen", r.stderr)
        r = sw("synthesize", self.dats["sleeper"])
        self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)
        self.assertIn("no record.json", r.stderr)
        r = sw("synthesize", "-T", "1", self.dats["sleeper"])
        self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)
        self.assertIn("-T needs record.json", r.stderr)

    def test_bad_record(self):
        bad = os.path.join(self.tmp, "bad-record.json")
        with open(bad, "w") as f:
            f.write('{"tasks": 3}')
        r = sw("synthesize", "-R", bad, self.dats["sleeper"])
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
        self.assertIn(bad, r.stderr)

    def test_record_gives_policy_and_affinity(self):
        cpus = os.sysconf("SC_NPROCESSORS_ONLN")
        if cpus < 2:
            self.skipTest("an affinity narrower than the machine needs 2 CPUs")
        rec = os.path.join(self.tmp, "record.json")
        # the rtper thread of the fixture, named by pid from its header
        _, text, _ = self.synth("fifo", "-t", "rtper")
        pid = int(text.split("rtper: pid ")[1].split()[0])
        with open(rec, "w") as f:
            json.dump({"format": 1, "command": ["scenario", "fifo"],
                       "tasks": [{"tid": pid, "tgid": pid, "ppid": 1,
                                  "comm": "rtper", "policy": "SCHED_RR:20",
                                  "nice": 0, "cpus": "0"}]}, f)
        _, text, w = self.synth("fifo", "-R", rec)
        self.assertEqual(list(w["tasks"]), ["rtper"])
        t = w["tasks"]["rtper"]
        # /proc's word over the trace's prio (50 there)
        self.assertEqual((t["policy"], t["priority"], t["cpus"]),
                         ("SCHED_RR", 20, [0]))
        self.assertIn('a recording of "scenario fifo"', text)


if __name__ == "__main__":
    unittest.main()
