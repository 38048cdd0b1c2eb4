# SPDX-License-Identifier: GPL-2.0
"""The kselftest commands, on the real harness (tools/testing/selftests).

What a developer and a test lab do with the collection:

    make -C tools/testing/selftests TARGETS=sched-workloads run_tests
    make -C tools/testing/selftests TARGETS=sched-workloads install \\
            INSTALL_PATH=DIR && DIR/run_kselftest.sh -c sched-workloads
    make -C tools/testing/selftests TARGETS=sched-workloads gen_tar
    make -C tools/testing/selftests TARGETS=sched-workloads O=DIR

The harness is put in place by tools/testing/sched-workloads/ksft-harness.sh
(make harness); without it these tests skip. The script also puts the
kernel's own KTAP parser (tools/testing/kunit/kunit_parser.py) in its
cache: the battery's output must parse there with every result found.

Two full battery runs here, no more: run_tests in the tree, and
run_kselftest.sh from an installed copy, each inside swtest.live_lock()
(the tool, told so by SCHED_WORKLOADS_LOCK="", does not take it again).
The kselftest runner reopens /dev/stdout, so its output is read from a
pipe, never a regular file. In 6.1, run_tests exits 0 even when a test
fails: the output is what counts.
"""
import contextlib
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

import swtest

SELFTESTS = os.path.dirname(swtest.COLLECTION)
TARGET = os.path.basename(swtest.COLLECTION)
HARNESS = ("Makefile", "lib.mk", "kselftest.h", "run_kselftest.sh",
           os.path.join("kselftest", "runner.sh"),
           os.path.join("kselftest", "prefix.pl"))
# kselftest's codes for a test program: pass, fail, skip.
KSFT_EXITS = (0, 1, 4)
# One make at a time may rebuild the in-tree binary; builds are quick.
MAKE_TIMEOUT = 600
# The battery; kselftest's own timeout (settings) is 900 s.
RUN_TIMEOUT = 1200


def make_env():
    """The environment without what an enclosing make passes down.

    "make test O=x" would otherwise turn every make here into an O= build.
    The battery runs inside swtest.live_lock(): the tool must not wait for
    the lock this process holds (SCHED_WORKLOADS_LOCK="", as swtest.sw()).
    """
    env = dict(swtest.CHILD_ENV)
    # The runner passes KSELFTEST_<PROGRAM>_ARGS to the program: one
    # repetition each is enough to test the flow (the battery's own
    # verdicts are tested by test_live_battery and test_properties).
    env["KSELFTEST_SCHED_WORKLOADS_ARGS"] = "run -n 1"
    for k in ("MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKELEVEL",
              "MAKE_TERMOUT", "MAKE_TERMERR", "O", "KBUILD_OUTPUT",
              "INSTALL_PATH", "OUTPUT", "TARGETS"):
        env.pop(k, None)
    return env


def ksft_make(*args, timeout=MAKE_TIMEOUT):
    """make -C tools/testing/selftests TARGETS=sched-workloads ARGS.

    stdout is a pipe (the runner reopens /dev/stdout); stderr goes with it.
    """
    return subprocess.run(["make", "-C", SELFTESTS, "TARGETS=" + TARGET] +
                          list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          text=True, timeout=timeout, env=make_env(),
                          cwd=swtest.TOP)


def workload_names(workload_dir):
    return sorted(f[:-len(".json")] for f in os.listdir(workload_dir)
                  if f.endswith(".json"))


def runner_verdict(text):
    """The runner's own result line for the program: (ok, directive)."""
    pat = re.compile(r"^(not )?ok \d+ selftests: %s: %s(?: # (.*))?$"
                     % (re.escape(TARGET), re.escape(TARGET)))
    found = [m for m in map(pat.match, text.splitlines()) if m]
    if len(found) != 1:
        return None
    return (found[0].group(1) is None, found[0].group(2) or "")


def program_output(text):
    """The program's own lines: the runner prefixes each with "# "."""
    out = []
    for line in text.splitlines():
        if line == "#":
            out.append("")
        elif line.startswith("# "):
            out.append(line[2:])
    return "\n".join(out)


def remove_results(text):
    """Removes the results directory the battery said it wrote."""
    for m in re.finditer(r"^# results: (/\S+)$", program_output(text), re.M):
        if os.path.basename(m.group(1)) and os.path.isdir(m.group(1)):
            shutil.rmtree(m.group(1), ignore_errors=True)


def kunit_dir():
    """Where ksft-harness.sh puts the kernel's KTAP parser."""
    cache = os.environ.get("SW_HARNESS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or
        os.path.join(os.path.expanduser("~"), ".cache"),
        "sched-workloads", "harness")
    return os.path.join(cache, "kunit")


def kernel_ktap_parser():
    """The kernel's kunit_parser module, or None when not extracted."""
    d = kunit_dir()
    if not os.path.isfile(os.path.join(d, "kunit_parser.py")):
        return None
    sys.path.insert(0, d)
    try:
        return importlib.import_module("kunit_parser")
    finally:
        sys.path.remove(d)


def kernel_parse(parser, text):
    """Every test kunit_parser finds in KTAP @text, nested ones included,
    as (depth, name, status name), and what it printed meanwhile."""
    log = io.StringIO()
    # it prints through kunit_printer.stdout (newer trees) or print()
    printer = getattr(parser, "stdout", None)
    if printer is not None and hasattr(printer, "_output"):
        saved, printer._output = printer._output, log
    try:
        with contextlib.redirect_stdout(log):
            main = parser.parse_run_tests(text.splitlines())
    finally:
        if printer is not None and hasattr(printer, "_output"):
            printer._output = saved
    found = []

    def walk(test, depth):
        for sub in test.subtests:
            found.append((depth, sub.name, sub.status.name))
            walk(sub, depth + 1)
    walk(main, 0)
    return found, log.getvalue()


class KernelKtapChecks:
    """The output as the kernel's KTAP parser (kunit_parser.py) reads it:
    a result line it cannot parse (a name with '#', say) is lost."""

    def check_kernel_parser(self, ktap):
        parser = kernel_ktap_parser()
        if parser is None:
            self.skipTest("no kunit_parser.py in %s: run "
                          "tools/testing/sched-workloads/ksft-harness.sh"
                          % kunit_dir())
        found, log = kernel_parse(parser, ktap)
        lines = swtest.ktap_results(ktap)
        what = "kunit_parser said:\n%s\noutput:\n%s" % (log, ktap)
        self.assertTrue(lines, what)
        parsed = {name for _, name, _ in found}
        for indent, ok, name, directive in lines:
            self.assertIn(name, parsed, what)
        self.assertEqual(len(found), len(lines), what)
        # and the same verdicts, at the same nesting
        want = sorted((indent // 2, name, "SKIPPED" if "SKIP" in directive
                       else "SUCCESS" if ok else "FAILURE")
                      for indent, ok, name, directive in lines)
        self.assertEqual(sorted(found), want, what)


def harness_missing():
    for f in HARNESS:
        if not os.path.exists(os.path.join(SELFTESTS, f)):
            return ("kselftest harness not in place (%s): run "
                    "tools/testing/sched-workloads/ksft-harness.sh" % f)
    if not shutil.which("rsync"):
        return "rsync not installed (kselftest install needs it)"
    return None


class BatteryOutputChecks(KernelKtapChecks):
    """Checks on the output of one battery run under the kselftest runner."""

    def check_battery(self, text, workload_dir):
        verdict = runner_verdict(text)
        self.assertIsNotNone(
            verdict, "no single runner line 'ok N selftests: %s: %s':\n%s"
            % (TARGET, TARGET, text))
        ok, directive = verdict
        self.assertNotIn("TIMEOUT", directive, text)
        m = re.search(r"exit=(\d+)", directive)
        code = int(m.group(1)) if m else (0 if ok else None)
        if directive.startswith("SKIP"):
            code = 4
        self.assertIn(code, KSFT_EXITS,
                      "the battery broke (%s):\n%s" % (directive, text))

        prog = program_output(text)
        lines = prog.splitlines()
        self.assertTrue(any(re.match(r"K?TAP version \d+$", ln)
                            for ln in lines), "no TAP header:\n" + prog)
        plan = [int(m.group(1)) for m in
                map(re.compile(r"^1\.\.(\d+)$").match, lines) if m]
        self.assertEqual(len(plan), 1, "one top-level plan:\n" + prog)

        results = swtest.ktap_results(prog)
        top = [r for r in results if r[0] == 0]
        self.assertEqual(len(top), plan[0], "plan vs results:\n" + prog)
        self.assertEqual(sorted(r[2] for r in top),
                         workload_names(workload_dir),
                         "one result per workload file:\n" + prog)
        if code != 4:
            self.assertTrue(any(r[0] > 0 for r in results),
                            "no nested KTAP (per-check results):\n" + prog)

        # Every result line named, no spaces, unique among its siblings.
        # Nested results come before the result of the workload they belong to.
        siblings = []
        for indent, _, name, _ in results:
            self.assertTrue(name, "a result line without a name:\n" + prog)
            self.assertNotIn(" ", name, "a name with a space:\n" + prog)
            if indent == 0:
                self.assertEqual(len(siblings), len(set(siblings)),
                                 "duplicate subtest names under %s: %s"
                                 % (name, siblings))
                siblings = []
            else:
                siblings.append(name)
        self.assertEqual(len(top), len({r[2] for r in top}),
                         "duplicate workload names:\n" + prog)
        self.check_kernel_parser(prog)


class KselftestRunFlows(unittest.TestCase, BatteryOutputChecks):
    """run_tests in the tree; run_kselftest.sh from an installed copy."""

    LIVE = True

    def setUp(self):
        why = harness_missing()
        if why:
            self.skipTest(why)

    def test_run_tests(self):
        with swtest.live_lock():
            p = ksft_make("run_tests", timeout=RUN_TIMEOUT)
        try:
            self.assertEqual(p.returncode, 0, p.stdout)
            self.check_battery(p.stdout, os.path.join(swtest.COLLECTION,
                                                      "workloads"))
        finally:
            remove_results(p.stdout)

    def test_install_and_run_kselftest(self):
        with tempfile.TemporaryDirectory(prefix="sw-install-") as dest:
            p = ksft_make("install", "INSTALL_PATH=" + dest)
            self.assertEqual(p.returncode, 0, p.stdout)
            inst = os.path.join(dest, TARGET)
            binary = os.path.join(inst, TARGET)
            self.assertTrue(os.access(binary, os.X_OK), p.stdout)
            for f in ("settings", "config"):
                self.assertTrue(os.path.isfile(os.path.join(inst, f)), f)
            self.assertEqual(workload_names(os.path.join(inst, "workloads")),
                             workload_names(os.path.join(swtest.COLLECTION,
                                                         "workloads")))
            with open(os.path.join(dest, "kselftest-list.txt")) as f:
                self.assertIn("%s:%s" % (TARGET, TARGET), f.read().split())

            with swtest.live_lock():
                r = subprocess.run([os.path.join(dest, "run_kselftest.sh"),
                                    "-c", TARGET], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, text=True,
                                   timeout=RUN_TIMEOUT, cwd=dest,
                                   env=make_env())
            self.assertEqual(r.returncode, 0, r.stdout)
            self.check_battery(r.stdout, os.path.join(inst, "workloads"))


class KernelKtapParser(unittest.TestCase, KernelKtapChecks):
    """analyze's KTAP on fixtures, through the kernel's parser (no run)."""

    def test_analyze_output(self):
        r = swtest.sw("analyze", "--logs",
                      swtest.fixture("logs", "instances"), "--workload",
                      swtest.fixture("workloads", "instances.json"))
        self.assertEqual(r.returncode, swtest.EXIT_FAIL, r.stderr)
        self.check_kernel_parser(r.stdout)


class KselftestBuildFlows(unittest.TestCase):
    """gen_tar and O= builds: nothing runs the battery."""

    def setUp(self):
        why = harness_missing()
        if why:
            self.skipTest(why)

    def test_gen_tar(self):
        with tempfile.TemporaryDirectory(prefix="sw-gen-tar-") as dest:
            p = ksft_make("gen_tar", "INSTALL_PATH=" + dest)
            self.assertEqual(p.returncode, 0, p.stdout)
            pkgs = os.path.join(dest, "kselftest-packages")
            tars = [f for f in os.listdir(pkgs)
                    if f.startswith("kselftest.tar")]
            self.assertEqual(len(tars), 1, os.listdir(pkgs))
            with tarfile.open(os.path.join(pkgs, tars[0])) as tar:
                members = {os.path.normpath(m.name): m for m in tar}
            binary = members.get(os.path.join(TARGET, TARGET))
            self.assertIsNotNone(binary, sorted(members))
            self.assertTrue(binary.isfile() and binary.mode & 0o111)
            for f in ("run_kselftest.sh", "kselftest-list.txt",
                      os.path.join("kselftest", "runner.sh"),
                      os.path.join(TARGET, "settings"),
                      os.path.join(TARGET, "config")):
                self.assertIn(f, members)
            for w in workload_names(os.path.join(swtest.COLLECTION,
                                                 "workloads")):
                self.assertIn(os.path.join(TARGET, "workloads", w + ".json"),
                              members)

    def check_out_of_tree(self, o_arg, objtree):
        """Builds with O=o_arg, installs, lists the installed battery."""
        with tempfile.TemporaryDirectory(prefix="sw-o-install-") as dest:
            p = ksft_make("O=" + o_arg, "install", "INSTALL_PATH=" + dest)
            self.assertEqual(p.returncode, 0, p.stdout)
            built = os.path.join(objtree, "kselftest", TARGET, TARGET)
            self.assertTrue(os.access(built, os.X_OK),
                            "%s not built:\n%s" % (built, p.stdout))
            installed = os.path.join(dest, TARGET, TARGET)
            with open(built, "rb") as a, open(installed, "rb") as b:
                self.assertEqual(a.read(), b.read(),
                                 "install did not take the O= build")
            r = subprocess.run([installed, "list"], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            listed = sorted(ln.split()[0] for ln in r.stdout.splitlines())
            self.assertEqual(listed, workload_names(
                os.path.join(swtest.COLLECTION, "workloads")))

    def test_out_of_tree_absolute(self):
        with tempfile.TemporaryDirectory(prefix="sw-o-abs-") as obj:
            self.check_out_of_tree(obj, obj)

    def test_out_of_tree_relative(self):
        # kselftest takes a relative O= from the top of the kernel tree.
        with tempfile.TemporaryDirectory(prefix="sw-o-rel-") as obj:
            rel = os.path.relpath(obj, swtest.TOP)
            self.assertFalse(os.path.isabs(rel))
            self.check_out_of_tree(rel, obj)


if __name__ == "__main__":
    unittest.main()
