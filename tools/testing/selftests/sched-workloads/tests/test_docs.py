# SPDX-License-Identifier: GPL-2.0
"""The documentation says what the tool does: its metric list is the
registry's ("make metrics-doc" writes it), its tables of detectable
effects are what "check -d" computes from the committed baselines
("make detectable-doc"), and every subcommand of the table is
documented, the lab's and the desk's apart, across the pages of its
directory."""
import glob
import os
import re
import unittest

import swtest

DOCS = os.path.join(swtest.TOP, "Documentation", "dev-tools",
                    "sched-workloads")


def pages():
    """Every page of the documentation: {file name: its text}."""
    out = {}
    for path in sorted(glob.glob(os.path.join(DOCS, "*.rst"))):
        with open(path) as f:
            out[os.path.basename(path)] = f.read()
    return out


def between(begin, end):
    """The lines between two markers, in the one page that has them."""
    holders = [(name, text) for name, text in pages().items()
               if begin in text]
    if len(holders) != 1:
        raise AssertionError("%s: in %d pages, not one: %s" %
                             (begin, len(holders),
                              ", ".join(n for n, _ in holders)))
    text = holders[0][1]
    return text[text.index(begin):text.index(end)]


@unittest.skipUnless(os.path.isdir(DOCS), "no Documentation/ (installed)")
class TestDocs(unittest.TestCase):
    def test_metric_list_is_the_registry(self):
        body = between(".. metrics-begin", ".. metrics-end")
        listed = [ln[2:] for ln in body.splitlines() if ln.startswith("  ")]
        r = swtest.sw("metrics")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(listed, r.stdout.splitlines(),
                         "run \"make metrics-doc\"")

    def test_detectable_tables_are_computed(self):
        body = between(".. detectable-begin", ".. detectable-end")
        bdir = os.path.join(swtest.COLLECTION, "baselines")
        dirs = sorted({os.path.dirname(p) for p in glob.glob(
            os.path.join(bdir, "**", "*.json"), recursive=True)
            if os.path.basename(p) != "qualification.json"})
        self.assertTrue(dirs)
        want = []
        for d in dirs:
            want.append("``%s``::" % os.path.relpath(d, bdir))
            r = swtest.sw("check", "-d", d, *sorted(glob.glob(
                os.path.join(swtest.COLLECTION, "workloads", "*.json"))))
            self.assertEqual(r.returncode, 0, r.stderr)
            want += ["  " + ln[4:] for ln in r.stdout.splitlines()
                     if ln.startswith("    ")]
        got = [ln for ln in body.splitlines()[1:] if ln]
        self.assertEqual(got, want, "run \"make detectable-doc\"")

    def test_every_subcommand_is_documented(self):
        usage = swtest.sw("--help").stdout
        lab, desk = usage.split("Tooling at a desk")
        names = {part: re.findall(r"^  ([a-z]+) ", text, re.M)
                 for part, text in (("lab", lab), ("desk", desk))}
        self.assertIn("run", names["lab"])
        self.assertIn("record", names["desk"])
        text = "\n".join(pages().values())
        for name in names["lab"] + names["desk"]:
            with self.subTest(command=name):
                self.assertTrue("sched-workloads %s" % name in text,
                                "%s: no \"sched-workloads %s\"" %
                                (DOCS, name))


if __name__ == "__main__":
    unittest.main()
