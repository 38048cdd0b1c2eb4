# SPDX-License-Identifier: GPL-2.0
"""The documentation says what the tool does, and builds: its metric list
is the registry's ("make metrics-doc" writes it), its tables of
detectable effects are what "check -d" computes from the committed
baselines ("make detectable-doc"), every subcommand of the table is
documented, the lab's and the desk's apart, and the directory builds
without a warning (Sphinx, or docutils file by file without it)."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import swtest

DOCS = os.path.join(swtest.TOP, "Documentation", "dev-tools",
                    "sched-workloads")

# What the kernel's Documentation/conf.py holds that the directory needs:
# an index as its root, and literal blocks left as plain text.
CONF = """project = "sched-workloads"
master_doc = "index"
highlight_language = "none"
"""


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


def docutils_problems(path):
    """What docutils says of one page, with the Sphinx directives and
    roles the directory uses registered as plain ones; None without
    docutils."""
    try:
        import docutils.core
        from docutils import nodes
        import docutils.utils
        from docutils.parsers.rst import Directive, directives, roles
        from docutils.parsers.rst.directives.body import CodeBlock
    except ImportError:
        return None

    class Toctree(Directive):
        has_content = True
        option_spec = {"maxdepth": directives.unchanged}

        def run(self):
            return []

    directives.register_directive("toctree", Toctree)
    directives.register_directive("code-block", CodeBlock)
    for role in ("ref", "doc"):
        roles.register_generic_role(role, nodes.inline)
    with open(path) as f:
        text = f.read()
    try:
        docutils.core.publish_doctree(
            text, source_path=path,
            settings_overrides={"report_level": 2, "halt_level": 2,
                                "syntax_highlight": "none",
                                "warning_stream": False})
    except docutils.utils.SystemMessage as e:
        return str(e)
    return ""


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

    def test_every_page_is_in_the_index(self):
        index = pages()["index.rst"]
        toc = index[index.index(".. toctree::"):]
        listed = set(re.findall(r"^   ([a-z_-]+)$", toc, re.M))
        self.assertEqual(listed, {n[:-len(".rst")] for n in pages()
                                  if n != "index.rst"})

    def test_builds_without_warnings(self):
        sphinx = shutil.which("sphinx-build")
        if sphinx:
            with tempfile.TemporaryDirectory() as tmp:
                with open(os.path.join(tmp, "conf.py"), "w") as f:
                    f.write(CONF)
                r = subprocess.run(
                    [sphinx, "-q", "-W", "--keep-going", "-n", "-E",
                     "-b", "dummy", "-c", tmp,
                     "-d", os.path.join(tmp, "doctrees"),
                     DOCS, os.path.join(tmp, "out")],
                    capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
            return
        for name in pages():
            problems = docutils_problems(os.path.join(DOCS, name))
            if problems is None:
                self.skipTest("neither sphinx-build nor docutils "
                              "(python3-sphinx, python3-docutils)")
            with self.subTest(page=name):
                self.assertEqual(problems, "", name)


if __name__ == "__main__":
    unittest.main()
