# SPDX-License-Identifier: GPL-2.0
"""sched-workloads report, opened in a headless Chromium.

The fixture (fixtures/report/) holds two recorded runs of one kernel
on the AMD class, cut to one repetition each: a clean one and one with
cfs-work-conserving and rt-push-pull run under their breakers' cgroup
(CFS bandwidth of one CPU, RT runtime of 2 ms in 10), whose traces are
kept. The reports of the broken run and of clean against broken must
load every figure, and show the verdicts of verdicts.json, no more, no
less.
"""
import glob
import os
import shutil
import tempfile
import unittest

import swtest
import report

FIXTURE = swtest.fixture("report")
CLEAN = "20261205-033930-6.18.44-fc-v1272"
BROKEN = "20261205-034357-6.18.44-fc-v1272"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False
HAVE_BROWSER = (HAVE_SELENIUM and os.access(CHROMIUM, os.X_OK) and
                os.access(CHROMEDRIVER, os.X_OK))
NO_BROWSER = ("needs chromium, chromium-driver and python3-selenium "
              "(scripts/sched-workloads/deps.sh test)")


def copy_runs(tmp):
    """The fixture's runs under @tmp, their traces unpacked in place."""
    for run in (CLEAN, BROKEN):
        shutil.copytree(os.path.join(FIXTURE, run), os.path.join(tmp, run))
    traces = swtest.unpack_traces(FIXTURE, tmp)
    for w, path in traces.items():
        os.rename(path, os.path.join(tmp, BROKEN, w, "rep-1", "trace.dat"))
    return os.path.join(tmp, CLEAN), os.path.join(tmp, BROKEN)


def verdicts(run):
    """{check: status} of every workload of @run."""
    out = {}
    for path in glob.glob(os.path.join(run, "*", "verdicts.json")):
        out.update({c["name"]: c["status"] for c in swtest.load_json(path)})
    return out


@unittest.skipUnless(HAVE_BROWSER, NO_BROWSER)
class TestReportInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.clean, cls.broken = copy_runs(cls.tmp.name)
        opts = webdriver.ChromeOptions()
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
                  "--window-size=1200,900"):
            opts.add_argument(a)
        opts.binary_location = CHROMIUM
        cls.browser = webdriver.Chrome(service=Service(CHROMEDRIVER),
                                       options=opts)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.tmp.cleanup()

    def open(self, *runs):
        r = swtest.sw("report", *runs)
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
        page = r.stdout.strip()
        self.assertTrue(os.path.isfile(page), r.stdout)
        self.browser.get("file://" + page)
        return page

    def images(self):
        """(alt, complete, naturalWidth) of every image of the page."""
        return self.browser.execute_script(
            "return Array.from(document.images).map("
            "i => [i.alt, i.complete, i.naturalWidth]);")

    def rows(self):
        return self.browser.execute_script(
            "return Array.from(document.querySelectorAll('tr.verdict'))"
            ".map(r => [r.dataset.check, r.dataset.status]);")

    def assert_images_load(self):
        imgs = self.images()
        self.assertGreater(len(imgs), 10)
        broken = [alt for alt, done, width in imgs if not done or not width]
        self.assertEqual(broken, [], "images that did not load")
        return [alt for alt, _, _ in imgs]

    def test_run_report(self):
        page = self.open(self.broken)
        self.assertEqual(page, os.path.join(self.broken, "report.html"))
        alts = self.assert_images_load()
        rows = self.rows()
        self.assertEqual(len(rows), len(set(c for c, _ in rows)))
        self.assertEqual(dict(rows), verdicts(self.broken))
        # the failing wc.* and rt.* checks get the timeline of their
        # longest stretch; periodic-light, which passes, none
        self.assertIn("timeline cfs-work-conserving wc", alts)
        self.assertIn("timeline rt-push-pull rt", alts)
        self.assertFalse([a for a in alts if "periodic-light" in a and
                          a.startswith("timeline")])
        # CDFs of every activation, against the baseline where it kept
        # the series (periodic-light's decoder wakeup latency)
        self.assertIn("CDF rtapp_tasks/decoder/wu_lat", alts)
        text = self.browser.find_element("tag name", "body").text
        self.assertIn("3 workloads, %d checks: pass 16, fail 19" %
                      len(rows), text)
        self.assertIn("the longest stretch, 6423.7 us at 2012.620021", text)

    def test_ab_report(self):
        page = self.open(self.clean, self.broken)
        self.assertEqual(page, os.path.join(
            self.broken, "report-vs-%s.html" % CLEAN))
        self.assert_images_load()
        rows = dict(self.rows())
        a, b = verdicts(self.clean), verdicts(self.broken)
        expected = {n: b.get(n, "absent") for n in set(a) | set(b)}
        self.assertEqual(rows, expected)
        # rows are coloured by B's verdict
        classes = self.browser.execute_script(
            "return Array.from(document.querySelectorAll('tr.verdict'))"
            ".map(r => r.className);")
        self.assertEqual(sorted(c.split()[1] for c in classes),
                         sorted(expected.values()))
        text = self.browser.page_source
        self.assertIn("sched-workloads compare A B", text)


class TestReportInput(unittest.TestCase):
    def test_explain_episodes(self):
        text = ("wc: 2 stretches with a CPU idle ...: 12.0 us in all\n"
                "  at 2012.620021 (+2.916100 s): 6423.7 us; burst (pid "
                "3284) waited on cpu0 while cpu1 idled\n"
                "rt: 1 stretch with an RT task waiting ...\n"
                "  at 2049.848540 (-0.000100 s): 56809.1 us; hi (pid 3368)"
                " waited on cpu0 while cpu0 ran bg (pid 3369, prio 120)\n"
                "neighbours: the tasks outside the workload\n"
                "  at 1.000000 (+0.000000 s): 1.0 us; not an episode\n")
        eps = report.parse_episodes(text)
        self.assertEqual(eps["wc"], [(2012.620021, 2.9161, 6423.7,
                                      "burst (pid 3284) waited on cpu0 "
                                      "while cpu1 idled")])
        self.assertEqual(eps["rt"][0][:3], (2049.84854, -0.0001, 56809.1))
        self.assertEqual(len(eps["rt"]), 1)

    def test_bad_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            clean, broken = copy_runs(tmp)
            r = swtest.sw("report", clean, broken, clean)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE)
            path = os.path.join(broken, "periodic-light", "verdicts.json")
            with open(path, "w") as f:
                f.write("[{\"name\": \"periodic-light.x\", ")
            r = swtest.sw("report", broken)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn(path + ": not JSON", r.stderr)
            r = swtest.sw("report", tmp)
            self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
            self.assertIn("fingerprint.json", r.stderr)
            self.assertEqual(glob.glob(os.path.join(tmp, "*.html")), [])


if __name__ == "__main__":
    unittest.main()
