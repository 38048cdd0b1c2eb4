# SPDX-License-Identifier: GPL-2.0
"""The judging guest's battery in two boots (vm_split.py), without
booting: the halves, the two KTAP texts made one in the battery's order,
the exit status of both, and the second run directory moved into the
first; and how vm_reproduce.py reads a baseline and compares it with its
copy. The texts are shaped as a guest's ktap.txt is (a header, each
workload's diagnostics and nested results before its result line, the
trailer), with values chosen here."""
import json
import os
import shutil
import tempfile
import unittest

import swtest  # noqa: F401 (puts the desk's tools on sys.path)
import vm_reproduce
import vm_split
from swtest import ktap_results

BOOT1 = """\
TAP version 13
1..2
# results: /results/R
# machine class aarch64-2cpu-x-vm; kernel k
# a: first
  KTAP version 1
  1..1
  ok 1 a.t.m
ok 1 a
# c: third
  KTAP version 1
  1..1
  # FAIL t: m = 2, expected <= 1
  not ok 1 c.t.m
not ok 2 c
# 2 workloads, 3 repetitions each: 20 s in all
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
"""

BOOT2 = """\
TAP version 13
1..2
# results: /results/R2
# machine class aarch64-2cpu-x-vm; kernel k
# b: second
ok 1 b # SKIP needs 2 CPUs
# d: fourth
not ok 2 d # error rt-app exited with 1
# 2 workloads, 3 repetitions each: 9 s in all
# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:1
"""


class TestHalves(unittest.TestCase):
    def test_every_other(self):
        self.assertEqual(vm_split.halves(list("abcde")),
                         [["a", "c", "e"], ["b", "d"]])
        self.assertEqual(vm_split.halves(["a"]), [["a"], []])


class TestMergeKtap(unittest.TestCase):
    def setUp(self):
        self.text = vm_split.merge_ktap([BOOT1, BOOT2], list("abcd"))
        self.lines = self.text.splitlines()

    def test_battery_order_numbered_again(self):
        top = [(ok, name, d) for indent, ok, name, d
               in ktap_results(self.text) if indent == 0]
        self.assertEqual(top, [(True, "a", ""), (True, "b", "SKIP needs 2 "
                                                 "CPUs"),
                               (False, "c", ""),
                               (False, "d", "error rt-app exited with 1")])
        self.assertIn("ok 2 b # SKIP needs 2 CPUs", self.lines)
        self.assertIn("not ok 4 d # error rt-app exited with 1", self.lines)

    def test_header_plan_and_totals(self):
        self.assertEqual(self.lines[:4], [
            "TAP version 13", "1..4", "# results: /results/R",
            "# machine class aarch64-2cpu-x-vm; kernel k"])
        self.assertEqual(self.lines[-1], "# Totals: pass:1 fail:1 xfail:0 "
                         "xpass:0 skip:1 error:1")
        self.assertEqual(sum(line.startswith("# Totals") for line in
                             self.lines), 1)

    def test_blocks_whole(self):
        c = self.lines.index("not ok 3 c")
        self.assertEqual(self.lines[c - 5:c], [
            "# c: third", "  KTAP version 1", "  1..1",
            "  # FAIL t: m = 2, expected <= 1", "  not ok 1 c.t.m"])
        self.assertIn("# boot 2 of 2: 2 workloads, 3 repetitions each: 9 s "
                      "in all", self.lines)


class TestMergeStatus(unittest.TestCase):
    def test_worst(self):
        ok, fail, skip = swtest.EXIT_PASS, swtest.EXIT_FAIL, swtest.EXIT_SKIP
        broke = swtest.EXIT_RUN_ERROR
        self.assertEqual(vm_split.merge_status([ok, ok]), ok)
        self.assertEqual(vm_split.merge_status([ok, skip]), ok)
        self.assertEqual(vm_split.merge_status([skip, skip]), skip)
        self.assertEqual(vm_split.merge_status([ok, fail]), fail)
        self.assertEqual(vm_split.merge_status([broke, fail]), broke)


class TestMergeRuns(unittest.TestCase):
    def run_dir(self, root, name, workloads, boot):
        d = os.path.join(root, name)
        os.makedirs(os.path.join(d, "vm"))
        for w in workloads:
            os.makedirs(os.path.join(d, w))
            with open(os.path.join(d, w, "verdicts.json"), "w") as f:
                f.write("[]\n")
        with open(os.path.join(d, "index.json"), "w") as f:
            json.dump({"format": 1, "workloads": {
                w: {"state": "pass"} for w in workloads}}, f)
        with open(os.path.join(d, "time.json"), "w") as f:
            f.write('{"boot": %d}\n' % boot)
        with open(os.path.join(d, "vm", "console.log"), "w") as f:
            f.write("boot %d\n" % boot)
        return d

    def test_second_into_first(self):
        root = tempfile.mkdtemp(prefix="sw-split-")
        self.addCleanup(shutil.rmtree, root)
        first = self.run_dir(root, "R-vm", ["a", "c"], 1)
        second = self.run_dir(root, "R-vm2", ["b"], 2)
        self.assertEqual(vm_split.merge_runs(first, [second]), ["b"])
        self.assertFalse(os.path.exists(second))
        with open(os.path.join(first, "index.json")) as f:
            self.assertEqual(list(json.load(f)["workloads"]),
                             ["a", "b", "c"])
        self.assertTrue(os.path.isfile(os.path.join(first, "b",
                                                    "verdicts.json")))
        with open(os.path.join(first, "vm", "boot-2", "console.log")) as f:
            self.assertEqual(f.read(), "boot 2\n")
        with open(os.path.join(first, "vm", "boot-2", "time.json")) as f:
            self.assertEqual(json.load(f), {"boot": 2})
        with open(os.path.join(first, "time.json")) as f:
            self.assertEqual(json.load(f), {"boot": 1})


if __name__ == "__main__":
    unittest.main()


class TestReproduceCompare(unittest.TestCase):
    """vm_reproduce's reading of a baseline and its comparison with the
    copy made again, on files written here."""

    def write(self, doc):
        d = tempfile.mkdtemp(prefix="sw-repro-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "baselines", "cls", "w.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_first_difference(self):
        a = {"metrics": {"x": [1, 2, 3]}, "fingerprint": {"made_by": {
            "qemu": "10.0.2"}}}
        b = {"metrics": {"x": [1, 2, 4]}, "fingerprint": {"made_by": {
            "qemu": "10.0.3"}}}
        self.assertEqual(vm_reproduce.first_difference(a, b),
                         "/fingerprint/made_by/qemu: '10.0.2' vs '10.0.3'")
        del b["fingerprint"]
        self.assertEqual(vm_reproduce.first_difference(a, b),
                         "/fingerprint: only in the original")
        self.assertEqual(vm_reproduce.first_difference(
            {"x": [1, 2]}, {"x": [1]}), "/x: 2 values vs 1")
        self.assertIsNone(vm_reproduce.first_difference(a, a))

    def test_again_path(self):
        out = tempfile.mkdtemp(prefix="sw-repro-out-")
        self.addCleanup(shutil.rmtree, out)
        os.makedirs(os.path.join(out, "cls", "plat"))
        self.assertEqual(vm_reproduce.again_path("/t/x/cls/w.json", out),
                         os.path.join(out, "cls", "w.json"))
        open(os.path.join(out, "cls", "plat", "w.json"), "w").close()
        self.assertEqual(vm_reproduce.again_path("/t/cls/plat/w.json", out),
                         os.path.join(out, "cls", "plat", "w.json"))

    def test_what_cannot_be_made_again(self):
        for doc, why in (
                ({"fingerprint": {}}, "has no made_by"),
                ({"fingerprint": {"made_by": {"commit": "a" * 40,
                                              "dirty": True}}},
                 "changes no commit holds")):
            with self.assertRaises(vm_reproduce.ReproduceError) as e:
                vm_reproduce.made_by(self.write(doc))
            self.assertIn(why, str(e.exception))
            self.assertEqual(e.exception.code, vm_reproduce.EXIT_USAGE)

    def test_compare(self):
        doc = {"metrics": {"x": [1]}, "fingerprint": {"made_by": {
            "commit": "a" * 40, "dirty": False}}}
        original = self.write(doc)
        out = tempfile.mkdtemp(prefix="sw-repro-out-")
        self.addCleanup(shutil.rmtree, out)
        os.makedirs(os.path.join(out, "cls"))
        again = os.path.join(out, "cls", "w.json")
        shutil.copy(original, again)
        self.assertEqual(vm_reproduce.compare(original, out),
                         vm_reproduce.EXIT_SAME)
        doc["metrics"]["x"] = [2]
        with open(again, "w") as f:
            json.dump(doc, f)
        self.assertEqual(vm_reproduce.compare(original, out),
                         vm_reproduce.EXIT_DIFFERS)
