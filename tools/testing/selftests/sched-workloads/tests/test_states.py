# SPDX-License-Identifier: GPL-2.0
"""Every workload of a run is accounted for, whatever became of it
(fixtures/states: a battery of 21 workloads, one skipped as "machine too
busy", one broken, one failed, 18 passed; its README says how it was
recorded): index.json, verdicts.json, the KCIDB export (checked against
the schema), the report and history all show the 21 with their states.
"""
import glob
import json
import os
import shutil
import tempfile
import unittest

import swtest
import test_kcidb

RUN = glob.glob(swtest.fixture("states", "2*"))[0]
# the battery as it was when the fixture was recorded (a directory each)
BATTERY = sorted(d for d in os.listdir(RUN)
                 if os.path.isdir(os.path.join(RUN, d)))
EXPECT = dict({w: "pass" for w in BATTERY}, **{
    "periodic-light": "skip", "duty-step": "error",
    "cfs-fair-spread": "fail"})


class TestStates(unittest.TestCase):
    def test_index_has_them_all(self):
        index = swtest.load_json(os.path.join(RUN, "index.json"))
        states = {n: w["state"] for n, w in index["workloads"].items()}
        self.assertEqual(states, EXPECT)
        busy = index["workloads"]["periodic-light"]
        self.assertRegex(busy["reason"], r"^machine too busy: 3 repetitions"
                         r" in a row disturbed by other tasks, the heaviest "
                         r"sh \(pid \d+, fair nice 0\) \d+\.\d%")
        self.assertEqual([t["comm"] for t in busy["neighbours"][:2]],
                         ["sh", "sh"])
        self.assertIn("refused for the fixture",
                      index["workloads"]["duty-step"]["reason"])

    def test_verdicts(self):
        for w, state in EXPECT.items():
            path = os.path.join(RUN, w, "verdicts.json")
            with self.subTest(workload=w):
                # skipped before a round, or broken: no verdicts to read
                self.assertEqual(os.path.exists(path),
                                 state in ("pass", "fail"))
        failed = [c for c in swtest.load_json(os.path.join(
            RUN, "cfs-fair-spread", "verdicts.json")) if c["status"] == "fail"]
        self.assertTrue(failed)

    def test_export(self):
        r = swtest.sw("export", "--kcidb", RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        tests = {t["path"]: t for t in doc["tests"]}
        got = {w: tests["sched-workloads." + w]["status"] for w in BATTERY}
        self.assertEqual(got, {w: {"pass": "PASS", "fail": "FAIL",
                                   "skip": "SKIP", "error": "ERROR"}[s]
                               for w, s in EXPECT.items()})
        self.assertIn("machine too busy",
                      tests["sched-workloads.periodic-light"]["comment"])
        self.assertIn("neighbours",
                      tests["sched-workloads.periodic-light"]["misc"])
        self.assertIn("refused for the fixture",
                      tests["sched-workloads.duty-step"]["log_excerpt"])
        suite = tests["sched-workloads"]
        self.assertEqual(suite["status"], "FAIL")
        self.assertEqual(suite["misc"]["not_judged"], ["periodic-light"])
        self.assertEqual(len(suite["misc"]["workloads"]), 21)
        if test_kcidb.jsonschema:
            schema = test_kcidb.TestSchema
            schema.setUpClass()
            self.assertEqual(schema.errors(schema, doc), [])

    def test_export_of_a_run_not_all_judged(self):
        # without the failure and the error, the skip keeps the run from
        # being a plain PASS
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, os.path.basename(RUN))
            shutil.copytree(RUN, run)
            index = swtest.load_json(os.path.join(run, "index.json"))
            for w in ("duty-step", "cfs-fair-spread"):
                shutil.rmtree(os.path.join(run, w))
                del index["workloads"][w]
            with open(os.path.join(run, "index.json"), "w") as f:
                json.dump(index, f)
            r = swtest.sw("export", "--kcidb", run)
            suite = json.loads(r.stdout)["tests"][0]
            self.assertEqual((suite["path"], suite["status"]),
                             ("sched-workloads", "DONE"))
            self.assertIn("not judged: periodic-light", suite["comment"])

    def test_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.html")
            r = swtest.sw("report", "-o", out, RUN)
            if r.returncode == swtest.EXIT_SKIP:
                self.skipTest(r.stderr.strip())
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                page = f.read()
        self.assertIn("21 workloads: fail 1, error 1, skip 1, pass 18", page)
        # what needs a look comes first, with its evidence
        top = page[page.index('id="attention"'):page.index("Every workload")]
        for w in ("cfs-fair-spread", "duty-step", "periodic-light"):
            self.assertIn('href="#%s"' % w, top)
        self.assertIn("refused for the fixture", top)
        self.assertIn('<table class="neighbours">', top)
        for w, state in EXPECT.items():
            self.assertIn('data-workload="%s" data-state="%s"' % (w, state),
                          page)

    def test_history(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = []
            for k in range(3):
                d = os.path.join(tmp, "2026120%d-000000-k%d" % (k + 1, k))
                shutil.copytree(RUN, d)
                runs.append(d)
            r = swtest.sw("history", "--json", *runs)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            doc = json.loads(r.stdout)
            for run in doc["runs"]:
                self.assertEqual(run["workloads"], EXPECT)
            r = swtest.sw("history", *runs)
            self.assertIn("# workloads: 21, their state in each run (not "
                          "every one passed in every run)", r.stdout)
            self.assertIn("  periodic-light: skip skip skip", r.stdout)
            self.assertIn("  duty-step: error error error", r.stdout)


if __name__ == "__main__":
    unittest.main()
