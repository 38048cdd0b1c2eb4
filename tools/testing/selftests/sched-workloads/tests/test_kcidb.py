# SPDX-License-Identifier: GPL-2.0
"""export --kcidb on recorded runs (fixtures/kcidb/runs: a broken run's
rt-push-pull failing and periodic-light passing, a clean run's
duty-step skipping and dl-over-admission refused), checked against KCIDB
I/O 5.3 as fixtures/kcidb/schema-v5.3.json restates it; and
lab/sched-workloads-lab.sh on them, with a stand-in run_kselftest.sh and
lava-test-case (the battery is not run)."""
import copy
import datetime
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

import swtest
import kcidb

try:
    import jsonschema
except ImportError:
    jsonschema = None

RUNS = swtest.fixture("kcidb", "runs")
BROKEN = os.path.join(RUNS, "20261205-034357-6.18.44-fc-v1272")
CLEAN = os.path.join(RUNS, "20261205-033930-6.18.44-fc-v1272")
SCHEMA = swtest.fixture("kcidb", "schema-v5.3.json")
WRAPPER = os.path.join(swtest.COLLECTION, "lab", "sched-workloads-lab.sh")
NO_JSONSCHEMA = ("needs python3-jsonschema "
                 "(tools/testing/sched-workloads/deps.sh test)")
LAB = ("--origin", "lkft", "--build-id", "lkft:build-42", "--run-id",
       "job-7", "--log-url", "https://lab.example.org/job/7/log.txt")


def export(*args):
    r = swtest.sw("export", "--kcidb", *args)
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


RFC3339_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?"
                        r"([Zz]|[+-]\d\d:\d\d)$")


def rfc3339(text):
    """A date-time of RFC 3339: the shape, then a real date and time."""
    if not isinstance(text, str):
        return True
    if not RFC3339_RE.match(text):
        return False
    datetime.datetime.fromisoformat(text.replace("z", "Z").replace(
        "Z", "+00:00"))
    return True


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
        cls.cls = jsonschema.validators.validator_for(schema)
        cls.cls.check_schema(schema)
        checker = copy.copy(cls.cls.FORMAT_CHECKER)
        if "date-time" not in checker.checkers:
            # Debian's python3-jsonschema checks date-time only with
            # rfc3339-validator, which Debian does not package
            checker.checks("date-time", raises=ValueError)(rfc3339)
        cls.validator = cls.cls(schema, format_checker=checker)

    def errors(self, doc):
        return [e.message for e in self.validator.iter_errors(doc)]

    def test_schema_is_2020_12(self):
        self.assertIs(self.cls, jsonschema.Draft202012Validator)

    def test_exports_are_valid(self):
        for run in (BROKEN, CLEAN):
            for args in ([], list(LAB), ["--tests-only"]):
                with self.subTest(run=os.path.basename(run), args=args):
                    r, doc = export(*args, run)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(self.errors(doc), [])
                    self.assertEqual(doc["version"],
                                     {"major": 5, "minor": 3})
        self.assertEqual((kcidb.SCHEMA_MAJOR, kcidb.SCHEMA_MINOR), (5, 3))

    def test_schema_catches_a_broken_document(self):
        _, doc = export(BROKEN)
        fail = next(i for i, t in enumerate(doc["tests"])
                    if "log_excerpt" in t)
        breaks = {
            "status": ("tests", 1, "status", "pass"),
            "path": ("tests", 2, "path", "sched-workloads.a b"),
            "empty level": ("tests", 2, "path", "sched-workloads..a"),
            "number": ("tests", 3, "number", {"unit": "us"}),
            "unit": ("tests", 3, "number", {"value": 1, "unit": 1}),
            "prefix": ("tests", 3, "number", {"value": 1, "prefix": "si"}),
            "origin": ("builds", 0, "origin", "Sched-Workloads"),
            "id": ("tests", 0, "id", "no origin"),
            "build id": ("tests", 0, "build_id", ":b"),
            "time": ("tests", 0, "start_time", "2026-12-05 03:43"),
            "comment": ("tests", 0, "comment", "a\0b"),
            "excerpt": ("tests", fail, "log_excerpt", "x" * 16385),
            "arch": ("builds", 0, "architecture", "x86-64"),
            "unknown": ("tests", 0, "verdict", "pass"),
            "environment": ("tests", 0, "environment", {"class": "x"}),
        }
        for what, (kind, i, key, value) in breaks.items():
            with self.subTest(what=what):
                bad = json.loads(json.dumps(doc))
                bad[kind][i][key] = value
                self.assertEqual(len(self.errors(bad)), 1, what)
        for what, version in (("minor", {"major": 5, "minor": 4}),
                              ("major", {"major": 4, "minor": 3}),
                              ("none", {"minor": 3})):
            with self.subTest(what=what):
                self.assertEqual(len(self.errors(dict(doc,
                                                      version=version))), 1)
        for key in ("build_id", "id", "origin"):
            with self.subTest(missing=key):
                bad = json.loads(json.dumps(doc))
                del bad["tests"][0][key]
                self.assertEqual(len(self.errors(bad)), 1)


class TestExport(unittest.TestCase):
    def test_one_test_per_check(self):
        kcidb_status = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP",
                        "error": "ERROR"}
        seen = set()
        for run in (BROKEN, CLEAN):
            r, doc = export(run)
            self.assertEqual(r.returncode, 0, r.stderr)
            tests = {t["id"]: t for t in doc["tests"]}
            self.assertEqual(len(tests), len(doc["tests"]), "ids unique")
            paths = [t["path"] for t in doc["tests"]]
            self.assertEqual(len(set(paths)), len(paths), "paths unique")
            prefix = "sched_workloads:" + os.path.basename(run)
            every = []
            for w, checks in verdicts(run).items():
                summary = tests[prefix + "." + w]
                self.assertEqual(summary["path"], "sched-workloads." + w)
                self.assertNotIn("number", summary)
                statuses = [kcidb_status[c["status"]] for c in checks]
                self.assertEqual(summary["status"], kcidb.worst(statuses))
                every += statuses
                for c in checks:
                    t = tests[prefix + "." + c["name"]]
                    seen.add((t["status"], "number" in t))
                    self.assertEqual(t["path"],
                                     "sched-workloads." + c["name"])
                    self.assertEqual(t["status"], kcidb_status[c["status"]])
                    if c["value"] is None or c["status"] == "skip":
                        self.assertNotIn("number", t)
                    elif c.get("unit"):
                        self.assertEqual(t["number"], {"value": c["value"],
                                                       "unit": c["unit"]})
                    else:
                        self.assertEqual(t["number"], {"value": c["value"]})
                    self.assertEqual(t["comment"], c["diag"])
                    self.assertEqual(t.get("log_excerpt"),
                                     c["diag"] if c["status"] == "fail"
                                     else None)
                    self.assertEqual(t["misc"]["kind"], c["kind"])
                    self.assertEqual(t["environment"]["comment"],
                                     "machine class x86_64-2cpu-amd-epyc-vm")
            suite = tests[prefix]
            self.assertEqual(suite["path"], "sched-workloads")
            self.assertEqual(suite["status"], kcidb.worst(every))
            self.assertEqual(suite["duration"], swtest.load_json(
                os.path.join(run, "time.json"))["wall_s"])
            self.assertEqual(len(tests), len(every) + len(verdicts(run)) + 1)
        self.assertEqual(seen, {("PASS", True), ("FAIL", True),
                                ("FAIL", False), ("SKIP", False)})

    def test_statuses_of_the_runs(self):
        _, doc = export(BROKEN)
        by_path = {t["path"]: t["status"] for t in doc["tests"]}
        self.assertEqual(by_path["sched-workloads"], "FAIL")
        self.assertEqual(by_path["sched-workloads.rt-push-pull"], "FAIL")
        self.assertEqual(by_path["sched-workloads.periodic-light"], "PASS")
        _, doc = export(CLEAN)
        by_path = {t["path"]: t["status"] for t in doc["tests"]}
        self.assertEqual(by_path["sched-workloads"], "PASS")
        self.assertEqual(by_path["sched-workloads.duty-step"], "PASS")
        self.assertEqual(
            by_path["sched-workloads.duty-step.cpu0.freq.time_to_max"],
            "SKIP")

    def test_an_error_check(self):
        """No recorded run has a check in error: one made so is ERROR,
        its diagnostic the log excerpt, its workload ERROR, the run
        still FAIL (rt-push-pull fails: FAIL ranks above ERROR)."""
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, os.path.basename(BROKEN))
            shutil.copytree(BROKEN, run)
            path = os.path.join(run, "periodic-light", "verdicts.json")
            checks = swtest.load_json(path)
            checks[0].update(status="error", value=None,
                             diag="error decoder: rt-app log unreadable")
            with open(path, "w") as f:
                json.dump(checks, f)
            r, doc = export(run)
        self.assertEqual(r.returncode, 0, r.stderr)
        by_path = {t["path"]: t for t in doc["tests"]}
        t = by_path["sched-workloads." + checks[0]["name"]]
        self.assertEqual(t["status"], "ERROR")
        self.assertNotIn("number", t)
        self.assertEqual(t["log_excerpt"], checks[0]["diag"])
        self.assertEqual(by_path["sched-workloads.periodic-light"]["status"],
                         "ERROR")
        self.assertEqual(by_path["sched-workloads"]["status"], "FAIL")
        every = sum(len(c) + 1 for c in verdicts(BROKEN).values())
        self.assertEqual(len(doc["tests"]), 1 + every)

    def test_ids_and_start_time(self):
        _, broken = export(BROKEN)
        _, clean = export(CLEAN)
        # one kernel build: the same checkout and build in both runs
        self.assertEqual(broken["builds"], clean["builds"])
        self.assertEqual(broken["checkouts"], clean["checkouts"])
        build = broken["builds"][0]
        self.assertRegex(build["id"],
                         r"^sched_workloads:6\.18\.44-fc-v1272-[0-9a-f]{8}"
                         r"-x86_64$")
        self.assertEqual(build["checkout_id"],
                         broken["checkouts"][0]["id"])
        self.assertEqual(build["architecture"], "x86_64")
        self.assertEqual({t["build_id"] for t in broken["tests"]},
                         {build["id"]})
        # the directory's name is the machine's local time
        start = datetime.datetime.fromisoformat(
            broken["tests"][0]["start_time"])
        self.assertEqual(start.utcoffset(), datetime.timedelta(0))
        self.assertEqual(start.astimezone().replace(tzinfo=None),
                         datetime.datetime(2026, 12, 5, 3, 43, 57))

    def test_a_lab_gives_its_ids(self):
        r, doc = export(*LAB, "--tests-only", BROKEN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(doc), ["tests", "version"])
        for t in doc["tests"]:
            self.assertEqual((t["origin"], t["build_id"]),
                             ("lkft", "lkft:build-42"))
            self.assertTrue(t["id"].startswith("lkft:job-7"), t["id"])
            self.assertEqual(t["log_url"],
                             "https://lab.example.org/job/7/log.txt")
        # tests of one origin on another origin's build
        r, doc = export("--origin", "lab_a", "--checkout-id",
                        "kernelci:c1", "--build-id", "kernelci:b1", BROKEN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(doc["builds"][0]["checkout_id"], "kernelci:c1")
        self.assertEqual(doc["tests"][0]["build_id"], "kernelci:b1")

    def test_paths_keep_to_kcidb_characters(self):
        self.assertEqual(kcidb.kcidb_path("w.burst/0.wu_lat.p50"),
                         "sched-workloads.w.burst_0.wu_lat.p50")
        self.assertEqual(kcidb.kcidb_path("w.a..b"),
                         "sched-workloads.w.a._.b")
        self.assertEqual(kcidb.kcidb_path("w.cpu0.cpu.busy_share"
                                          ".vs-baseline"),
                         "sched-workloads.w.cpu0.cpu.busy_share.vs-baseline")

    def test_bad_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, os.path.basename(BROKEN))
            shutil.copytree(BROKEN, run)
            path = os.path.join(run, "periodic-light", "verdicts.json")
            for text, why in (("[{\"name\": ", ": not JSON"),
                              ("[{\"name\": \"x\", \"kind\": \"absolute\"}]",
                               ": check 1: no name, status or kind"),
                              ("{}", ": not a list of checks")):
                with self.subTest(text=text):
                    with open(path, "w") as f:
                        f.write(text)
                    r, _ = export(run)
                    self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
                    self.assertIn(path + why, r.stderr)
            shutil.copy(os.path.join(BROKEN, "periodic-light",
                                     "verdicts.json"), path)
            time_json = os.path.join(run, "time.json")
            with open(time_json, "w") as f:
                f.write("[]")
            r, _ = export(run)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn(time_json + ": not an object", r.stderr)
            # a directory that is not a run of the tool
            r, _ = export(tmp)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn(tmp + ": no index.json", r.stderr)
            r, _ = export(os.path.join(tmp, "none"))
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)

    def test_usage(self):
        for args in ([BROKEN], ["--kcidb"],
                     ["--kcidb", "--origin", "Bad Origin", BROKEN],
                     ["--kcidb", "--build-id", "b1", BROKEN],
                     ["--kcidb", "--checkout-id", "Lab:c1", BROKEN],
                     ["--kcidb", "--run-id", "", BROKEN],
                     ["--kcidb", "--log-url", "log.txt", BROKEN],
                     ["--kcidb", "-o", "/nonexistent/kcidb.json", BROKEN],
                     ["--kcidb", "--junit", BROKEN]):
            with self.subTest(args=args):
                r = swtest.sw("export", *args)
                self.assertEqual(r.returncode, swtest.EXIT_USAGE, r.stderr)

    def test_output_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "kcidb.json")
            r = swtest.sw("export", "--kcidb", "-o", out, CLEAN)
            self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
            self.assertEqual(swtest.load_json(out), export(CLEAN)[1])


class TestLabWrapper(unittest.TestCase):
    """The wrapper on a kselftest tree whose sched-workloads is this
    collection and whose run_kselftest.sh prints a recorded KTAP."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tree = os.path.join(self.tmp, "kselftest")
        os.makedirs(self.tree)
        os.symlink(swtest.COLLECTION,
                   os.path.join(self.tree, "sched-workloads"))
        fake = os.path.join(self.tmp, "bin")
        os.makedirs(fake)
        self.calls = os.path.join(self.tmp, "calls")
        self.script(os.path.join(fake, "lava-test-case"),
                    "echo \"$*\" >> %s\n" % self.calls)
        self.env = dict(swtest.CHILD_ENV,
                        PATH=fake + os.pathsep + os.environ["PATH"])

    def script(self, path, body):
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)

    def fake_runner(self, results, line):
        self.script(os.path.join(self.tree, "run_kselftest.sh"),
                    "[ \"$*\" = \"-c sched-workloads\" ] || exit 2\n"
                    "printf '%%s\\n' 'TAP version 13' '1..1' "
                    "'# selftests: sched-workloads: sched-workloads' "
                    "'# # results: %s' '# ok 1 w.a.b' '%s 1 selftests: "
                    "sched-workloads: sched-workloads'\n" % (results, line))

    def wrapper(self, *args):
        out = os.path.join(self.tmp, "out")
        r = subprocess.run([WRAPPER, "--out", out] + list(args),
                           capture_output=True, text=True, env=self.env)
        doc = None
        if os.path.exists(os.path.join(out, "kcidb.json")):
            doc = swtest.load_json(os.path.join(out, "kcidb.json"))
        calls = []
        if os.path.exists(self.calls):
            with open(self.calls) as f:
                calls = f.read().splitlines()
            os.unlink(self.calls)
        return r, doc, calls

    def test_exports_a_recorded_run(self):
        r, doc, calls = self.wrapper("--installed", self.tree, "--results",
                                     BROKEN, *LAB)
        self.assertEqual(r.returncode, 1, r.stderr)    # rt-push-pull fails
        self.assertEqual(sorted(doc), ["tests", "version"])
        self.assertEqual({t["build_id"] for t in doc["tests"]},
                         {"lkft:build-42"})
        self.assertEqual(len(calls), len(doc["tests"]) + 1)
        self.assertIn("sched-workloads --result fail", calls)
        self.assertIn("periodic-light --result pass", calls)
        self.assertIn("rt-push-pull.hi-0.missed_periods --result fail "
                      "--measurement 297 --units count", calls)
        self.assertIn("rt-push-pull.lo.wu_lat.p50 --result fail", calls)
        self.assertEqual(calls[-1], "kcidb-export --result pass")
        r, doc, calls = self.wrapper("--installed", self.tree, "--results",
                                     CLEAN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("builds", doc)
        self.assertIn("duty-step.cpu0.freq.time_to_max --result skip", calls)
        self.assertIn("dl-over-admission.rtapp.refused --result pass "
                      "--measurement 0 --units none", calls)

    def test_runs_the_collection_from_a_tarball(self):
        self.fake_runner(CLEAN, "not ok")
        tarball = os.path.join(self.tmp, "kselftest.tar.gz")
        with tarfile.open(tarball, "w:gz") as t:
            t.add(self.tree, arcname=".")
        r, doc, calls = self.wrapper("--tarball", tarball)
        self.assertEqual(r.returncode, 1, r.stderr)    # the KTAP says so
        self.assertIn("# # results: " + CLEAN, r.stdout)
        self.assertEqual(doc["tests"][0]["id"],
                         "sched_workloads:" + os.path.basename(CLEAN))
        self.assertEqual(calls[-1], "kcidb-export --result pass")
        self.fake_runner(CLEAN, "ok")
        r, doc, _ = self.wrapper("--installed", self.tree)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_failures(self):
        self.fake_runner(os.path.join(self.tmp, "none"), "ok")
        r, doc, calls = self.wrapper("--installed", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertIn("export of", r.stderr)
        self.assertEqual(calls, ["kcidb-export --result fail"])
        r, _, _ = self.wrapper("--installed", self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a kselftest tree with sched-workloads", r.stderr)
        r, _, _ = self.wrapper("--installed", self.tree, "--bogus", "x")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
