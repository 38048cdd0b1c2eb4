# SPDX-License-Identifier: GPL-2.0
"""export --kcidb: a recorded run (the report's fixture: cfs-work-
conserving and rt-push-pull broken, periodic-light clean) as KCIDB I/O
data, checked against the constraints of the schema version it claims
(fixtures/kcidb/schema-v5.3.json, written from kcidb-io's v05_03.py)."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import swtest
import kcidb

try:
    import jsonschema
except ImportError:
    jsonschema = None

RUN = swtest.fixture("report", "20261205-034357-6.18.44-fc-v1272")
SCHEMA = swtest.fixture("kcidb", "schema-v5.3.json")
NO_JSONSCHEMA = ("needs python3-jsonschema "
                 "(scripts/sched-workloads/deps.sh test)")


def export(*args):
    r = swtest.sw("export", "--kcidb", *args)
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


def verdicts(run):
    out = {}
    for w in sorted(os.listdir(run)):
        path = os.path.join(run, w, "verdicts.json")
        if os.path.exists(path):
            out[w] = swtest.load_json(path)
    return out


@unittest.skipUnless(jsonschema, NO_JSONSCHEMA)
class TestSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        schema = swtest.load_json(SCHEMA)
        cls.validator = jsonschema.Draft7Validator(
            schema, format_checker=jsonschema.FormatChecker())

    def errors(self, doc):
        return [e.message for e in self.validator.iter_errors(doc)]

    def test_export_is_valid(self):
        r, doc = export(RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.errors(doc), [])
        self.assertEqual(doc["version"], {"major": kcidb.SCHEMA_MAJOR,
                                          "minor": kcidb.SCHEMA_MINOR})
        self.assertEqual((kcidb.SCHEMA_MAJOR, kcidb.SCHEMA_MINOR), (5, 3))
        r, doc = export(RUN, "--tests-only", "--origin", "lkft",
                        "--build-id", "lkft:build-42", "--log-url",
                        "https://lab.example.org/job/42/log.txt")
        self.assertEqual(self.errors(doc), [])
        self.assertNotIn("builds", doc)
        self.assertEqual({t["build_id"] for t in doc["tests"]},
                         {"lkft:build-42"})

    def test_schema_catches_a_broken_document(self):
        _, doc = export(RUN)
        bad = json.loads(json.dumps(doc))
        bad["tests"][0]["status"] = "pass"
        bad["tests"][1]["path"] = "sched-workloads.a b"
        bad["tests"][2]["number"] = {"unit": "us"}
        bad["builds"][0]["origin"] = "Sched-Workloads"
        bad["version"]["minor"] = 4
        errs = self.errors(bad)
        self.assertEqual(len(errs), 5, errs)


class TestLabWrapper(unittest.TestCase):
    """lab/sched-workloads-lab.sh on a recorded run (--results): the
    export, and a LAVA test case per KTAP result."""

    def test_export_and_lava_cases(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree, out, fake = (os.path.join(tmp, d)
                               for d in ("kselftest", "out", "bin"))
            os.makedirs(tree)
            os.symlink(swtest.COLLECTION,
                       os.path.join(tree, "sched-workloads"))
            os.makedirs(out)
            os.makedirs(fake)
            with open(os.path.join(out, "ktap.txt"), "w") as f:
                f.write("TAP version 13\n1..1\n"
                        "# selftests: sched-workloads: sched-workloads\n"
                        "#   ok 1 w.a.b\n#   not ok 2 w.a.c\n"
                        "#   ok 3 w.a.d # SKIP no baseline\n"
                        "# not ok 1 w\n"
                        "ok 1 selftests: sched-workloads: sched-workloads\n")
            calls = os.path.join(tmp, "calls")
            with open(os.path.join(fake, "lava-test-case"), "w") as f:
                f.write("#!/bin/sh\necho \"$*\" >> %s\n" % calls)
            os.chmod(os.path.join(fake, "lava-test-case"), 0o755)
            env = dict(swtest.CHILD_ENV,
                       PATH=fake + os.pathsep + os.environ["PATH"])
            r = subprocess.run(
                [os.path.join(swtest.COLLECTION, "lab",
                              "sched-workloads-lab.sh"),
                 "--installed", tree, "--results", RUN, "--out", out,
                 "--origin", "lkft", "--build-id", "lkft:b1"],
                capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = swtest.load_json(os.path.join(out, "kcidb.json"))
            self.assertNotIn("builds", doc)
            self.assertEqual({t["build_id"] for t in doc["tests"]},
                             {"lkft:b1"})
            with open(calls) as f:
                self.assertEqual(f.read().splitlines(), [
                    "w.a.b --result pass", "w.a.c --result fail",
                    "w.a.d --result skip", "w --result fail"])


class TestExport(unittest.TestCase):
    def test_one_test_per_check_and_workload(self):
        r, doc = export(RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        tests = {t["path"]: t for t in doc["tests"]}
        self.assertEqual(len(tests), len(doc["tests"]), "paths unique")
        want = {"PASS": "pass", "FAIL": "fail", "SKIP": "skip",
                "ERROR": "error"}
        n = 0
        for w, checks in verdicts(RUN).items():
            summary = tests["sched-workloads." + w]
            self.assertNotIn("number", summary)
            worst = ("FAIL" if any(c["status"] == "fail" for c in checks)
                     else "PASS")
            self.assertEqual(summary["status"], worst, w)
            for c in checks:
                t = tests["sched-workloads." + c["name"]]
                self.assertEqual(want[t["status"]], c["status"])
                if c["value"] is None:
                    # not measured (no wakeup in a run): no number
                    self.assertNotIn("number", t)
                else:
                    self.assertEqual(t["number"], {"value": c["value"],
                                                   "unit": c["unit"]})
                self.assertEqual(t["comment"], c["diag"])
                self.assertEqual(t["environment"]["comment"],
                                 "machine class x86_64-2cpu-amd-epyc-vm")
                n += 1
        self.assertEqual(len(tests), n + 3)
        t = tests["sched-workloads.cfs-work-conserving.cpu0.cpu.busy_share"]
        self.assertEqual((t["status"], t["number"]["unit"]),
                         ("FAIL", "share"))
        self.assertEqual(t["start_time"][:10], "2026-12-05")

    def test_paths_keep_to_kcidb_characters(self):
        self.assertEqual(kcidb.kcidb_path("w.burst/0.wu_lat.p50"),
                         "sched-workloads.w.burst_0.wu_lat.p50")
        self.assertEqual(kcidb.kcidb_path("w.a..b"),
                         "sched-workloads.w.a._.b")

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, "run")
            shutil.copytree(RUN, run)
            path = os.path.join(run, "periodic-light", "verdicts.json")
            with open(path, "w") as f:
                f.write("[{\"name\": ")
            r, _ = export(run)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn(path + ": not JSON", r.stderr)
            r, _ = export(tmp)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn("fingerprint.json", r.stderr)
        for args in ([RUN], ["--kcidb", "--origin", "Bad Origin", RUN],
                     ["--kcidb", "--build-id", "other:1", RUN]):
            r = swtest.sw("export", *args)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE, args)


if __name__ == "__main__":
    unittest.main()
