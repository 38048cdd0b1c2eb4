# SPDX-License-Identifier: GPL-2.0
"""Golden outputs: what check, metrics, list, analyze, compare, replay and
export print for the committed fixtures, byte for byte.

They hold the tool's observable behaviour still while its code moves:
a change that is meant to alter an output regenerates the goldens with

    python3 tests/test_golden.py --update

and the diff of tests/golden/ is then part of the change, to be read.
Paths of the collection and of the test's temporary directory are
written as <COLLECTION> and <TMP>, so the goldens hold on any checkout.
"""
import glob
import os
import shutil
import sys
import tempfile
import unittest

import swtest

GOLDEN = os.path.join(swtest.HERE, "golden")
FIX = swtest.FIXTURES
RUNS = sorted(glob.glob(os.path.join(FIX, "report", "2026*")))
KCIDB_RUNS = sorted(glob.glob(os.path.join(FIX, "kcidb", "runs", "*")))
# A window inside each trace (the trace clock, s) for --timeline.
TIMELINES = {
    "disturbed": "9035.000000,9035.050000",
    "fifo": "1639.300000,1639.320000",
    "idle1": "3643.600000,3643.650000",
    "pinned": "1617.700000,1617.750000",
    "sleeper": "1638.700000,1638.720000",
    "taken1": "12576.550000,12576.580000",
    "cfs-work-conserving": "2011.000000,2011.040000",
    "rt-push-pull": "2048.000000,2048.040000",
}


def cases(traces):
    """(name, argv, files the run writes into <TMP>) of every golden;
    @traces maps a trace fixture's name to its unpacked trace.dat."""
    out = [("metrics", ["metrics"], []),
           ("list", ["list", "-w", os.path.join(swtest.COLLECTION,
                                                "workloads")], []),
           ("check-m-battery", ["check", "-m"] + sorted(glob.glob(
               os.path.join(swtest.COLLECTION, "workloads", "*.json"))),
            [])]
    for w in sorted(glob.glob(os.path.join(FIX, "workloads", "*.json"))):
        out.append(("check-" + os.path.basename(w)[:-5], ["check", w], []))
    for name, dat in sorted(traces.items()):
        out.append(("analyze-%s" % name,
                    ["analyze", "--trace", dat, "--all-cpus",
                     "--events-out", "<TMP>/events.json"], ["events.json"]))
        out.append(("analyze-%s-libtracecmd" % name,
                    ["analyze", "--trace", dat, "--all-cpus", "--reader",
                     "libtracecmd"], []))
        out.append(("analyze-%s-explain" % name,
                    ["analyze", "--trace", dat, "--all-cpus",
                     "--explain"], []))
        if name in TIMELINES:
            out.append(("analyze-%s-timeline" % name,
                        ["analyze", "--trace", dat, "--all-cpus",
                         "--timeline", TIMELINES[name]], []))
    for logs in sorted(os.listdir(os.path.join(FIX, "logs"))):
        out.append(("analyze-logs-%s" % logs,
                    ["analyze", "--logs", os.path.join(FIX, "logs", logs)],
                    []))
    disturbed = ["analyze", "--logs", os.path.join(FIX, "logs", "disturbed"),
                 "--trace", traces["disturbed"], "--workload",
                 os.path.join(FIX, "workloads", "disturbed.json")]
    out += [("analyze-disturbed-workload",
             disturbed + ["--metrics-out", "<TMP>/metrics.json",
                          "--events-out", "<TMP>/events.json"],
             ["metrics.json", "events.json"]),
            ("analyze-disturbed-workload-explain", disturbed + ["--explain"],
             []),
            ("analyze-basic-vs-baseline",
             ["analyze", "--logs", os.path.join(FIX, "logs", "basic"),
              "--workload", os.path.join(FIX, "workloads",
                                         "vs-baseline.json"),
              "--baseline", os.path.join(FIX, "baselines", "basic.json")],
             [])]
    res = os.path.join(FIX, "results")
    for a, b in (("a", "b"), ("a", "a"), ("a", "c"), ("b", "c")):
        out.append(("compare-%s-%s" % (a, b),
                    ["compare", os.path.join(res, a), os.path.join(res, b)],
                    []))
    out.append(("compare-force-a-c", ["compare", "--force",
                                      os.path.join(res, "a"),
                                      os.path.join(res, "c")], []))
    out.append(("compare-runs", ["compare"] + RUNS, []))
    for i, run in enumerate(KCIDB_RUNS):
        out.append(("export-kcidb-%d" % i, ["export", "--kcidb", run], []))
    out.append(("export-kcidb-lab",
                ["export", "--kcidb", "--origin", "lkft", "--build-id",
                 "lkft:build-42", "--run-id", "job-7", KCIDB_RUNS[-1]], []))
    for run in RUNS:
        for w in sorted(os.listdir(run)):
            if os.path.isdir(os.path.join(run, w)):
                out.append(("replay-%s-%s" % (os.path.basename(run)[9:15], w),
                            ["replay", "-B", os.path.join(
                                swtest.COLLECTION, "baselines"),
                             os.path.join(run, w)], []))
    return out


def unpack(tmp):
    traces = swtest.unpack_traces(os.path.join(FIX, "trace"), tmp)
    traces.update(swtest.unpack_traces(os.path.join(FIX, "report"), tmp))
    return traces


def run_case(argv, writes, tmp):
    """The text a golden holds: exit code, stdout, stderr, then each file
    the case wrote; temporary and collection paths made neutral."""
    work = os.path.join(tmp, "work")
    os.makedirs(work, exist_ok=True)
    argv = [a.replace("<TMP>", work) for a in argv]
    r = swtest.sw(*argv, cwd=tmp)
    text = "exit %d\n--- stdout\n%s--- stderr\n%s" % (r.returncode,
                                                      r.stdout, r.stderr)
    for name in writes:
        path = os.path.join(work, name)
        body = open(path).read() if os.path.exists(path) else "(none)\n"
        text += "--- %s\n%s" % (name, body)
    shutil.rmtree(work)
    return text.replace(tmp, "<TMP>").replace(swtest.COLLECTION,
                                              "<COLLECTION>")


class TestGolden(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-golden-")
        cls.cases = cases(unpack(cls.tmp))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_every_golden_has_a_case(self):
        names = {c[0] + ".txt" for c in self.cases}
        self.assertEqual(sorted(set(os.listdir(GOLDEN)) - names), [])

    def test_outputs(self):
        for name, argv, writes in self.cases:
            with self.subTest(case=name):
                with open(os.path.join(GOLDEN, name + ".txt")) as f:
                    want = f.read()
                self.assertEqual(run_case(argv, writes, self.tmp), want)


def update():
    tmp = tempfile.mkdtemp(prefix="sw-golden-")
    try:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        os.makedirs(GOLDEN)
        for name, argv, writes in cases(unpack(tmp)):
            with open(os.path.join(GOLDEN, name + ".txt"), "w") as f:
                f.write(run_case(argv, writes, tmp))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        unittest.main()
