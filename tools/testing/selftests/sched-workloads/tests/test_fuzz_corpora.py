# SPDX-License-Identifier: GPL-2.0
"""The fuzz corpora, replayed under ASan and UBSan.

fuzz/corpus/<harness>/ holds the seeds (from the fixtures) and every
input a fuzzing run found that led to a fix: a crash, or a silent
acceptance caught by the harness's oracle (fuzz/fuzz_*.c). Each harness
runs every file of its corpus once; any sanitizer report or oracle abort
fails the test.
"""
import os
import platform
import shutil
import subprocess
import tempfile
import unittest

from swtest import COLLECTION

FUZZ = os.path.join(COLLECTION, "fuzz")
HARNESSES = ("fuzz_workload", "fuzz_rtapp_log", "fuzz_results", "fuzz_trace")
# the leaks of libraries the checkers call (fuzz/lsan.supp)
LSAN = "suppressions=%s:print_suppressions=0" % os.path.join(FUZZ, "lsan.supp")


def missing():
    if not os.path.isdir(FUZZ):
        return "no fuzz/ directory (an installed collection)"
    if not shutil.which("clang"):
        return "clang missing (Debian: clang libclang-rt-14-dev)"
    res = subprocess.run(["clang", "-print-resource-dir"],
                         capture_output=True, text=True).stdout.strip()
    lib = os.path.join(res, "lib", "linux",
                       "libclang_rt.fuzzer-%s.a" % platform.machine())
    if not os.path.exists(lib):
        return "%s missing (Debian: libclang-rt-14-dev)" % lib
    return None


class TestFuzzCorpora(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why:
            raise unittest.SkipTest(why)
        cls.out = tempfile.mkdtemp(prefix="sw-fuzz-")
        cls.build = subprocess.run(
            ["make", "--no-print-directory", "-C", FUZZ, "-j2",
             "OUT=" + cls.out, "all"],
            capture_output=True, text=True, timeout=900)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_build(self):
        self.assertEqual(self.build.returncode, 0, self.build.stderr[-4000:])

    def replay(self, harness):
        self.assertEqual(self.build.returncode, 0, "no harnesses built")
        corpus = os.path.join(FUZZ, "corpus", harness)
        files = sorted(os.listdir(corpus))
        self.assertTrue(files, "%s is empty" % corpus)
        with tempfile.TemporaryDirectory() as tmp:
            # a crash's input would be written to the current directory
            r = subprocess.run(
                [os.path.join(self.out, harness), "-runs=0",
                 "-artifact_prefix=%s/" % tmp] +
                [os.path.join(corpus, f) for f in files],
                capture_output=True, text=True, timeout=600,
                env=dict(os.environ, TMPDIR=tmp, LSAN_OPTIONS=LSAN))
            self.assertEqual(r.returncode, 0, r.stderr[-6000:])
            # every file ran, and the per-input files were removed
            self.assertIn("Executed %s in" % os.path.join(corpus, files[-1]),
                          r.stderr)
            self.assertEqual(r.stderr.count("Executed "), len(files))
            self.assertEqual(os.listdir(tmp), [])

    def test_every_harness(self):
        found = sorted(f[:-2] for f in os.listdir(FUZZ)
                       if f.startswith("fuzz_") and f.endswith(".c") and
                       f != "fuzz_common.c")
        self.assertEqual(found, sorted(HARNESSES))

    def test_workload(self):
        self.replay("fuzz_workload")

    def test_rtapp_log(self):
        self.replay("fuzz_rtapp_log")

    def test_results(self):
        self.replay("fuzz_results")

    def test_trace(self):
        self.replay("fuzz_trace")
