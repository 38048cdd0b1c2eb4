# SPDX-License-Identifier: GPL-2.0
"""sched-workloads mutants: the in-tree set of scheduler bugs (each says
what it breaks, each applies to the reference tree), and how a battery's
KTAP on a mutant is set against the base's: a check caught it only when
it passes on the base and fails on the mutant, named with its
diagnostic."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import unittest.mock

import swtest  # noqa: F401 (puts the desk's tools on the path)
import kbuild
import kbuild_source
import guest_verdicts
import mutants

BASE_KTAP = """TAP version 13
1..3
# w1: rt-app ran 3.0 s
  KTAP version 1
  1..3
  # ok hi: wu_lat.p50 = 40 us, expected <= 500: a wakeup preempts
  ok 1 w1.hi.wu_lat.p50
  # FAIL lo: wu_lat.p90 = 9000 us, expected <= 4000: lo is pulled
  not ok 2 w1.lo.wu_lat.p90
  ok 3 w1.lo.cpu_share # SKIP the guest's reason
not ok 1 w1
  KTAP version 1
  1..2
  # ok x: share = 0.5 share vs baseline 0.5: +0%
  ok 1 w2.x.share.vs-baseline
  # ok x: share = 0.5 share, expected >= 0.3: fair
  ok 2 w2.x.share
ok 2 w2
ok 3 w3 # SKIP needs 4 CPUs
"""

MUTANT_KTAP = """TAP version 13
1..3
  KTAP version 1
  1..3
  # FAIL hi: wu_lat.p50 = 3113 us, expected <= 500: a wakeup preempts
  not ok 1 w1.hi.wu_lat.p50
  # FAIL lo: wu_lat.p90 = 9100 us, expected <= 4000: lo is pulled
  not ok 2 w1.lo.wu_lat.p90
  not ok 3 w1.lo.cpu_share
not ok 1 w1
# w2: rt-app ran 3.0 s
  KTAP version 1
  1..2
  # REGRESSION x: share = 0.4 share vs baseline 0.5: -20%
  not ok 1 w2.x.share.vs-baseline
  # ok x: share = 0.5 share, expected >= 0.3: fair
  ok 2 w2.x.share
not ok 2 w2
not ok 3 w3
"""


class TestJudging(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-mutants-test-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def ktap(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return guest_verdicts.checks(path)

    def test_checks(self):
        base = self.ktap("base", BASE_KTAP)
        self.assertEqual(base, {
            "w1.hi.wu_lat.p50": (True, "ok hi: wu_lat.p50 = 40 us, "
                                 "expected <= 500: a wakeup preempts"),
            "w1.lo.wu_lat.p90": (False, "FAIL lo: wu_lat.p90 = 9000 us, "
                                 "expected <= 4000: lo is pulled"),
            "w1": (False, ""),
            "w2.x.share.vs-baseline": (True, "ok x: share = 0.5 share vs "
                                       "baseline 0.5: +0%"),
            "w2.x.share": (True, "ok x: share = 0.5 share, expected >= "
                           "0.3: fair"),
            "w2": (True, ""),
        })

    def test_caught_only_where_the_base_passed(self):
        base = self.ktap("base", BASE_KTAP)
        got = self.ktap("mutant", MUTANT_KTAP)
        # w1.lo.wu_lat.p90 fails on both: not the mutant's doing; the
        # SKIPs of the base (w1.lo.cpu_share, w3) judge nothing; the
        # checks with a diagnostic first, the workload's own result last
        self.assertEqual(guest_verdicts.judge(base, got), [
            ("w1.hi.wu_lat.p50", "FAIL hi: wu_lat.p50 = 3113 us, "
             "expected <= 500: a wakeup preempts"),
            ("w2.x.share.vs-baseline", "REGRESSION x: share = 0.4 share "
             "vs baseline 0.5: -20%"),
            ("w2", "")])
        self.assertEqual(guest_verdicts.judge(base, base), [])

    def test_a_hung_guest_is_a_catch(self):
        # vm's own line names the kernel; the base's guest ended well
        base = self.ktap("base", BASE_KTAP)
        hung = self.ktap("hung", "TAP version 13\n1..1\n# console: "
                         "SW_VM_BOOTED\nnot ok 1 vm-6.1.192-sw-m1 # the "
                         "guest hung: no end in 1800 s\n")
        self.assertEqual(hung, {"vm": (False, "the guest hung: no end in "
                                       "1800 s")})
        self.assertEqual(guest_verdicts.judge(base, hung), [
            ("vm", "the guest hung: no end in 1800 s")])
        # a base whose guest hung too: not the mutant's doing
        self.assertEqual(guest_verdicts.judge(hung, hung), [])

    def test_boot_bound(self):
        # two boots a kernel, a host thread each
        with unittest.mock.patch("os.cpu_count", lambda: 2):
            self.assertEqual(guest_verdicts.boot_bound(1), 1800)
            self.assertEqual(guest_verdicts.boot_bound(2), 3600)
        with unittest.mock.patch("os.cpu_count", lambda: 8):
            self.assertEqual(guest_verdicts.boot_bound(2), 1800)
            self.assertEqual(guest_verdicts.boot_bound(8), 3600)

    def test_battery_digest(self):
        # a copy of the collection's battery: its digest is the tree's;
        # a workload or a checker's source changed moves it, a test, a
        # baseline or the built binary does not
        tmp = tempfile.mkdtemp(prefix="sw-battery-")
        self.addCleanup(shutil.rmtree, tmp)
        copy = os.path.join(tmp, "c")
        shutil.copytree(swtest.COLLECTION, copy,
                        ignore=shutil.ignore_patterns(
                            "tests", "fuzz", "baselines", "results",
                            "__pycache__"))
        first = guest_verdicts.battery_digest(copy)
        self.assertEqual(first, guest_verdicts.battery_digest())
        for path in ("tests/test_new.py", "baselines/x/w.json",
                     "sched-workloads"):
            os.makedirs(os.path.dirname(os.path.join(copy, path)),
                        exist_ok=True)
            with open(os.path.join(copy, path), "w") as f:
                f.write("not the battery\n")
        self.assertEqual(guest_verdicts.battery_digest(copy), first)
        # a workload's comment is its documentation
        light = os.path.join(copy, "workloads", "periodic-light.json")
        with open(light) as f:
            text = f.read()
        with open(light, "w") as f:
            f.write(text.replace("/*", "/*\n * A paragraph more.\n *", 1))
        self.assertEqual(guest_verdicts.battery_digest(copy), first)
        with open(light, "w") as f:
            f.write(text.replace('"duration": 5', '"duration": 6', 1))
        moved = guest_verdicts.battery_digest(copy)
        self.assertNotEqual(moved, first)
        with open(os.path.join(copy, "judge", "absolute_check.c"), "a") as f:
            f.write("\n")
        self.assertNotEqual(guest_verdicts.battery_digest(copy), moved)

    def test_verdicts(self):
        self.assertEqual(mutants.verdict_of("mutant", [("a", "b")]),
                         "caught")
        self.assertEqual(mutants.verdict_of("mutant", []), "missed")
        self.assertEqual(mutants.verdict_of("control", []), "passed")
        self.assertEqual(mutants.verdict_of("control", [("a", "b")]),
                         "FALSE-ALARM")

    def test_table(self):
        rows = [{"name": "m1", "kind": "mutant", "verdict": "caught",
                 "caught_by": [("w.a", "FAIL a: x = 1"), ("w.b", "FAIL")]},
                {"name": "c1", "kind": "control", "verdict": "passed",
                 "caught_by": []}]
        lines = mutants.table(rows).splitlines()
        self.assertEqual(len(lines), 3)
        self.assertRegex(lines[1], r"^m1 +mutant +caught +2: w\.a: "
                         r"FAIL a: x = 1$")
        self.assertRegex(lines[2], r"^c1 +control +passed +$")

    def test_header(self):
        p = os.path.join(self.tmp, "x.patch")
        with open(p, "w") as f:
            f.write("Control: a name\nMechanism: none: text\n\n--- a/f\n"
                    "+++ b/f\nMutant: not a header\n")
        got = mutants.Patch(p)
        self.assertEqual((got.kind, got.name, got.mechanism),
                         ("control", "a-name", "none: text"))
        with open(p, "w") as f:
            f.write("--- a/f\n+++ b/f\n")
        got = mutants.Patch(p)
        self.assertEqual((got.kind, got.name, got.mechanism),
                         ("mutant", "x", "(not said)"))


class TestResume(unittest.TestCase):
    """A campaign run again on its directory: what was judged there from
    the same base image, patch, battery and arguments is neither built
    nor run again, and the table is the same; a patch that changed is
    built and run again, and every kernel when the battery changed.
    Builds and guests are stand-ins: a kernel is a directory
    with an image, a guest's KTAP the base's or the mutant's above."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-mutants-resume-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.out = os.path.join(self.tmp, "campaign")
        self.patches = []
        for kind, name in (("Mutant", "m1"), ("Control", "c1")):
            path = os.path.join(self.tmp, name + ".patch")
            with open(path, "w") as f:
                f.write("%s: %s\nMechanism: a test's\n\n--- a/f\n+++ b/f\n"
                        % (kind, name))
            self.patches.append(path)
        self.built, self.booted, self.timeouts = [], [], []

    def build(self, tree, arch, patches, name):
        self.built.append(name)
        kernel = os.path.join(self.tmp, "kernels", name)
        os.makedirs(os.path.join(kernel, "boot"), exist_ok=True)
        with open(os.path.join(kernel, "boot", "vmlinuz-" + name),
                  "w") as f:
            f.write("an image of %s\n" % name)
        return kernel, name, 1.0

    def guest(self, kernel, baselines, results, run_args, log,
              timeout=None):
        self.timeouts.append(timeout)
        name = os.path.basename(kernel)
        self.booted.append((name, run_args[0]))
        if run_args[0] == "baseline":
            os.makedirs(os.path.join(baselines, "class"))
            with open(os.path.join(baselines, "class", "w1.json"), "w") as f:
                f.write("{}\n")
        with open(log, "w") as f:
            f.write(MUTANT_KTAP if name == "sw-m1" else BASE_KTAP)
        return 1

    def campaign(self):
        rc = self.run_campaign()
        with open(os.path.join(self.out, "campaign.json")) as f:
            rows = json.load(f)["rows"]
        return rc, [(r["name"], r["verdict"], r["caught_by"]) for r in rows]

    def run_campaign(self):
        with unittest.mock.patch.object(kbuild, "build", self.build), \
                unittest.mock.patch.object(kbuild, "missing_tools",
                                           lambda arch: []), \
                unittest.mock.patch.object(kbuild_source, "tree_of",
                                           lambda tree, cache: self.tmp), \
                unittest.mock.patch.object(kbuild_source, "release_of",
                                           lambda tree: "6.1.192"), \
                unittest.mock.patch.object(mutants, "guest", self.guest), \
                unittest.mock.patch("sys.stdout"):
            return mutants.main(["--only", "none", "-o", self.out] +
                                self.patches)

    def test_resumed(self):
        rc, rows = self.campaign()
        self.assertEqual(rc, 0)
        self.assertEqual(self.built, ["sw", "sw-m1", "sw-c1"])
        # the baselines first; the batteries two at once, in any order
        self.assertEqual(self.booted[0], ("sw", "baseline"))
        self.assertEqual(sorted(self.booted[1:]), [
            ("sw", "run"), ("sw-c1", "run"), ("sw-m1", "run")])
        self.assertEqual([r[:2] for r in rows],
                         [("m1", "caught"), ("c1", "passed")])
        # the batteries, two kernels at once, bounded as such
        self.assertEqual(self.timeouts[1:], [guest_verdicts.boot_bound(2)] * 3)
        self.built, self.booted = [], []
        self.assertEqual(self.campaign(), (rc, rows))
        # the base is built, to know its image; nothing runs
        self.assertEqual(self.built, ["sw"])
        self.assertEqual(self.booted, [])

    def test_a_changed_patch_runs_again(self):
        self.campaign()
        with open(self.patches[0], "a") as f:
            f.write("+one line more\n")
        self.built, self.booted = [], []
        self.campaign()
        self.assertEqual(self.built, ["sw", "sw-m1"])
        self.assertEqual(self.booted, [("sw-m1", "run")])

    def test_another_battery_runs_everything_again(self):
        # a workload or a checker changed: the records and the base's
        # baselines were made by another battery
        self.campaign()
        self.built, self.booted = [], []
        with unittest.mock.patch.object(mutants, "battery_digest",
                                        lambda: "another battery"):
            self.campaign()
        self.assertEqual(self.built, ["sw", "sw-m1", "sw-c1"])
        self.assertEqual(self.booted[0], ("sw", "baseline"))
        self.assertEqual(sorted(self.booted[1:]), [
            ("sw", "run"), ("sw-c1", "run"), ("sw-m1", "run")])
        self.assertEqual(swtest.load_json(os.path.join(
            self.out, "logs", "baselines.json"))["battery"],
            "another battery")

    def test_an_interrupted_guest_judges_nothing(self):
        """vm interrupted (Ctrl-C, SIGTERM) exits 130: the campaign stops
        with that status, records nothing of that kernel, and run again
        judges it; the base's baselines interrupted are not taken for
        recorded either."""
        real = self.guest

        def interrupted(name, what):
            def guest(kernel, baselines, results, run_args, log,
                      timeout=None):
                real(kernel, baselines, results, run_args, log, timeout)
                if (os.path.basename(kernel), run_args[0]) == (name, what):
                    return guest_verdicts.INTERRUPTED
                return 1
            return guest

        self.guest = interrupted("sw", "baseline")
        self.assertEqual(self.run_campaign(), guest_verdicts.INTERRUPTED)
        self.assertFalse(os.path.exists(os.path.join(
            self.out, "logs", "baselines.json")))
        self.assertEqual(self.booted, [("sw", "baseline")])
        self.guest = interrupted("sw-m1", "run")
        self.booted = []
        self.assertEqual(self.run_campaign(), guest_verdicts.INTERRUPTED)
        self.assertIn(("sw-m1", "run"), self.booted)
        self.assertFalse(os.path.exists(os.path.join(self.out, "logs",
                                                     "m1.json")))
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     "campaign.json")))
        self.guest, self.booted = real, []
        rc, rows = self.campaign()
        self.assertIn(("sw-m1", "run"), self.booted)
        self.assertEqual([r[:2] for r in rows],
                         [("m1", "caught"), ("c1", "passed")])

    def test_a_kernel_cut_short_runs_again(self):
        self.campaign()
        # stopped while the control's battery ran: its KTAP, no record
        os.unlink(os.path.join(self.out, "logs", "c1.json"))
        self.built, self.booted = [], []
        self.campaign()
        self.assertEqual(self.built, ["sw", "sw-c1"])
        self.assertEqual(self.booted, [("sw-c1", "run")])


# A vm that ends as vm does when told to stop: SIGTERM, then exit 130.
FAKE_VM = """#!/bin/sh
echo started >> "$MARK"
trap 'echo ended >> "$MARK"; exit 130' TERM
while :; do sleep 0.05; done
"""

# A command running a guest, then sent SIGTERM (guest_verdicts'
# stop_guests_on_sigterm()): it prints what guest() returned then, and
# what a guest started after it returns.
SIGTERMED = """
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
import guest_verdicts, sw_paths
sw_paths.binary = lambda: sys.argv[2]
guest_verdicts.stop_guests_on_sigterm()
got = []
t = threading.Thread(target=lambda: got.append(guest_verdicts.guest(
    "k", "b", "r", ["run"], sys.argv[3])))
t.start()
while not os.path.exists(os.environ["MARK"]):
    time.sleep(0.01)
os.kill(os.getpid(), signal.SIGTERM)
t.join()
print(got[0], guest_verdicts.guest("k", "b", "r", ["run"], sys.argv[3]))
"""


class TestStopGuests(unittest.TestCase):
    def test_sigterm_ends_the_guests_and_starts_none(self):
        """Python's default for SIGTERM ends the command and leaves its
        vm children running (seen: two guests of a campaign orphaned);
        the campaign's and the series' handler passes it on to each
        guest, whose vm ends QEMU and exits 130, and starts no other."""
        tmp = tempfile.mkdtemp(prefix="sw-stop-")
        self.addCleanup(shutil.rmtree, tmp)
        vm, mark = os.path.join(tmp, "vm"), os.path.join(tmp, "mark")
        with open(vm, "w") as f:
            f.write(FAKE_VM)
        os.chmod(vm, 0o755)
        r = subprocess.run(
            ["python3", "-c", SIGTERMED,
             os.path.dirname(guest_verdicts.__file__), vm,
             os.path.join(tmp, "log")],
            capture_output=True, text=True, timeout=60,
            env=dict(os.environ, MARK=mark))
        self.assertEqual((r.returncode, r.stdout), (0, "130 130\n"),
                         r.stderr)
        with open(mark) as f:
            self.assertEqual(f.read(), "started\nended\n")


class TestInTreeSet(unittest.TestCase):
    def setUp(self):
        self.patches = mutants.in_tree_patches()

    def test_what_each_says(self):
        names = [p.name for p in self.patches]
        self.assertEqual(len(names), len(set(names)))
        kinds = [p.kind for p in self.patches]
        self.assertGreaterEqual(kinds.count("mutant"), 15)
        self.assertGreaterEqual(kinds.count("control"), 3)
        for p in self.patches:
            self.assertNotEqual(p.mechanism, "(not said)", p.path)
            if p.kind == "control":
                self.assertTrue(p.mechanism.startswith("none: "), p.path)
            files = kbuild_source.patched_files(p.path)
            self.assertTrue(all(f.startswith("kernel/") for f in files),
                            (p.path, files))
            # the file's name begins with its number and says its name
            self.assertRegex(os.path.basename(p.path),
                             r"^\d\d-%s\.patch$" % re.escape(p.name))

    @unittest.skipUnless(os.path.isfile(kbuild.REFERENCE_TREE) and
                         shutil.which("patch"),
                         "needs %s (Debian package linux-source-6.1) and "
                         "patch" % kbuild.REFERENCE_TREE)
    def test_each_applies_to_the_reference_tree(self):
        tree = kbuild_source.tree_of(kbuild.REFERENCE_TREE, kbuild.CACHE)
        for p in self.patches:
            with open(p.path) as f:
                r = subprocess.run(["patch", "-p1", "--dry-run", "-N", "-s",
                                    "-d", tree], stdin=f,
                                   capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, (p.path, r.stdout, r.stderr))
            self.assertEqual(r.stdout, "", p.path)


def campaign_prerequisites():
    """Why a campaign cannot run here, or None."""
    if not os.path.isfile(kbuild.REFERENCE_TREE):
        return "needs %s (Debian package linux-source-6.1)" % \
            kbuild.REFERENCE_TREE
    missing = kbuild.missing_tools("aarch64")
    if not shutil.which("qemu-system-aarch64"):
        missing.append("qemu-system-aarch64 (Debian package "
                       "qemu-system-arm)")
    return "not found: " + ", ".join(missing) if missing else None


class TestCampaign(unittest.TestCase):
    """The reference tree built with a mutant (SCHED_RR slices never
    rotated) and a control (a debug text reworded), judged in the
    judging guest against the unpatched kernel on rr-timeslice: the
    mutant caught by a check that names what it broke, the control
    passing. Cold (no kernel built here before, empty ccache) about 15
    minutes on 2 CPUs, 6 after."""
    LIVE = True
    MUTANT, CONTROL, WORKLOAD = "rt-rr-no-requeue", "control-debug-text", \
        "rr-timeslice"

    @classmethod
    def setUpClass(cls):
        why = campaign_prerequisites()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = tempfile.mkdtemp(prefix="sw-mutants-live-")
        tree = kbuild_source.tree_of(kbuild.REFERENCE_TREE, kbuild.CACHE)
        cls.rt_c = os.path.join(tree, "kernel", "sched", "rt.c")
        cls.out = os.path.join(cls.tmp, "campaign")
        cls.r = swtest.sw("mutants", "--only", cls.MUTANT, "--only",
                          cls.CONTROL, "-o", cls.out, "--", "run",
                          cls.WORKLOAD, timeout=3600)
        try:
            with open(os.path.join(cls.out, "campaign.json")) as f:
                cls.campaign = json.load(f)
        except FileNotFoundError:
            cls.campaign = None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def row(self, name):
        self.assertIsNotNone(self.campaign, self.r.stdout + self.r.stderr)
        rows = {r["name"]: r for r in self.campaign["rows"]}
        return rows[name]

    def test_mutant_caught(self):
        row = self.row(self.MUTANT)
        self.assertEqual(row["verdict"], "caught", row)
        names = [name for name, _ in row["caught_by"]]
        self.assertTrue(all(n == self.WORKLOAD or
                            n.startswith(self.WORKLOAD + ".")
                            for n in names), names)
        # the first says what failed; one names what the mutant broke,
        # RR's slices (which comes first depends on the numbers)
        self.assertRegex(row["caught_by"][0][1], r"^(FAIL|REGRESSION) ",
                         row["caught_by"])
        self.assertTrue(any(re.match(r"FAIL .*per slice", d)
                            for _, d in row["caught_by"]), row["caught_by"])

    def test_control_passed(self):
        row = self.row(self.CONTROL)
        self.assertEqual(row["verdict"], "passed", row)
        self.assertEqual(self.r.returncode, 0, self.r.stdout)

    def test_table_printed(self):
        self.assertRegex(self.r.stdout, r"(?m)^%s +mutant +caught +\d+: "
                         r"%s\." % (self.MUTANT, self.WORKLOAD))
        self.assertRegex(self.r.stdout, r"(?m)^# 1 of 1 mutants caught, 1 of "
                         r"1 controls passed; \d+ checks judged on the "
                         r"base; wall time \d+ s")

    def test_the_tree_is_untouched(self):
        # the file the mutant patches, as the tarball has it
        r = subprocess.run(["tar", "-xOf", kbuild.REFERENCE_TREE,
                            "--wildcards", "*/kernel/sched/rt.c"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.rt_c) as f:
            self.assertEqual(f.read(), r.stdout)


if __name__ == "__main__":
    unittest.main()
