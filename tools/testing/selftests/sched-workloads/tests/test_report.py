# SPDX-License-Identifier: GPL-2.0
"""sched-workloads report, opened in a headless Chromium.

The fixture (fixtures/report/) holds two recorded runs of one kernel
on the AMD class, cut to one repetition each: a clean one and one with
cfs-work-conserving and rt-push-pull run under their breakers' cgroup
(CFS bandwidth of one CPU, RT runtime of 2 ms in 10), whose traces are
kept. The reports of the broken run and of clean against broken must
load every figure, and show the verdicts of verdicts.json, no more, no
less. history's page of a synthetic series with a step (test_history's)
must load its one figure, under its one change point.
"""
import glob
import json
import importlib.util
import os
import shutil
import tempfile
import unittest
from unittest import mock

import swtest
import report
import results
from test_history import STEPPED, make_series

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
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
HAVE_CHROMIUM = (os.access(CHROMIUM, os.X_OK) and
                 os.access(CHROMEDRIVER, os.X_OK))
HAVE_BROWSER = HAVE_SELENIUM and HAVE_CHROMIUM
NO_BROWSER = ("needs chromium, chromium-driver and python3-selenium "
              "(tools/testing/sched-workloads/deps.sh test)")


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
        # periodic-light, which passes, gets no timeline
        self.assertFalse([a for a in alts if "periodic-light" in a and
                          a.startswith("timeline")])
        # the failing wc.* and rt.wait_while_lower* checks get the
        # timeline of their longest stretch
        self.assert_timelines(alts, "cfs-work-conserving wc",
                              "rt-push-pull rt")
        # CDFs of every activation, against the baseline where it kept
        # the series (periodic-light's decoder wakeup latency)
        self.assertIn("CDF rtapp_tasks/decoder/wu_lat", alts)
        text = self.browser.find_element("tag name", "body").text
        self.assertIn("3 workloads: fail 2, pass 1; %d checks: pass 16, "
                      "fail 19" % len(rows), text)
        # the failures first, each failing check linked to its row
        self.assertLess(text.index("What needs a look"),
                        text.index("Every workload"))
        links = self.browser.execute_script(
            "return Array.from(document.querySelectorAll("
            "'#attention + ul a')).map(a => a.getAttribute('href'));")
        self.assertIn("#rt-push-pull.lo.rt.wait_while_lower", links)
        for href in links:
            self.assertEqual(len(self.browser.find_elements(
                "id", href[1:])), 1, href)
        self.assertIn("the longest stretch, 6423.7 us at 2012.620021", text)

    def test_history_page(self):
        # history --html on a series with a step: its figure loads
        dirs = make_series(os.path.join(self.tmp.name, "series"), 10, 7,
                           step_at=5, factor=2)
        page = os.path.join(self.tmp.name, "history.html")
        r = swtest.sw("history", "--html", "-o", page, *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_FAIL, r.stderr)
        self.browser.get("file://" + page)
        imgs = self.images()
        self.assertEqual([(alt, done, width > 0) for alt, done, width in
                          imgs], [("series " + STEPPED, True, True)])
        heads = self.browser.execute_script(
            "return Array.from(document.querySelectorAll('h3.change'))"
            ".map(h => h.textContent);")
        self.assertEqual(heads, ["6.13.0-rc5 \u2192 6.13.0-rc6: 1 metric "
                                 "changed"])

    def assert_timelines(self, alts, *which):
        for w in which:
            self.assertIn("timeline " + w, alts)

    def test_ab_report(self):
        page = self.open(self.clean, self.broken)
        self.assertEqual(page, os.path.join(
            self.broken, "report-vs-%s.html" % CLEAN))
        alts = self.assert_images_load()
        rows = self.rows()
        a, b = verdicts(self.clean), verdicts(self.broken)
        # the verdict rows are B's, no more, no less; a check of A
        # alone has its row too, with no status
        self.assertEqual(len(rows), len(set(c for c, _ in rows)))
        self.assertEqual(dict(rows), b)
        every = self.browser.execute_script(
            "return Array.from(document.querySelectorAll("
            "'tr[data-check]')).map(r => r.dataset.check);")
        self.assertEqual(sorted(every), sorted(set(a) | set(b)))
        # rows are coloured by B's verdict
        classes = self.browser.execute_script(
            "return Array.from(document.querySelectorAll('tr.verdict'))"
            ".map(r => r.className);")
        self.assertEqual(sorted(c.split()[1] for c in classes),
                         sorted(b.values()))
        # A, B and the baseline overlaid
        self.assertIn("CDF rtapp_tasks/decoder/wu_lat", alts)
        text = self.browser.page_source
        self.assertIn("sched-workloads compare A B", text)
        self.assert_timelines(alts, "cfs-work-conserving wc",
                              "rt-push-pull rt")


class TestReportInput(unittest.TestCase):
    def test_explain_stretches(self):
        # what the report draws: the stretches explain.json names
        with tempfile.TemporaryDirectory() as tmp:
            _, broken = copy_runs(tmp)
            w = results.Run(broken).workload("rt-push-pull")
            rt = w.stretches(1, "rt")
            self.assertEqual(rt[0], (2049.84854, 2.839003, 56809.1,
                                     "hi (pid 3368) waited on cpu0 while "
                                     "cpu0 ran bg (pid 3369, prio 120)"))
            self.assertEqual([e[2] for e in w.stretches(1, "wc")],
                             [7284.4, 7279.4, 5253.9, 5204.4, 5199.2])
            self.assertIsNone(w.stretches(2, "wc"))
            path = w.rep_path(1, "explain_json")
            with open(path, "w") as f:
                json.dump({"wc": {"longest": [{"start_s": "x"}]}}, f)
            with self.assertRaisesRegex(results.ResultError,
                                        path + ': "wc".longest.0.: not a '
                                        'stretch'):
                w.stretches(1, "wc")

    def test_explain_json_says_what_the_text_says(self):
        # explain.txt for people, explain.json for programs: one source
        with tempfile.TemporaryDirectory() as tmp:
            dats = swtest.unpack_traces(swtest.fixture("trace"), tmp)
            for name in ("pinned", "taken1", "fifo"):
                args = ("analyze", "--trace", dats[name], "--all-cpus")
                text = swtest.sw(*args, "--explain").stdout
                ex = json.loads(swtest.sw(*args, "--explain-json").stdout)
                lines = ["  at %.6f (%+.6f s): %.1f us; %s" %
                         (e["start_s"], e["offset_s"], e["len_us"],
                          e["who"])
                         for sec in ("wc", "rt")
                         for e in ex[sec]["longest"]]
                self.assertTrue(lines, name)
                self.assertEqual([ln for ln in text.splitlines()
                                  if ln.startswith("  at ")], lines, name)

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
            self.assertIn("no index.json", r.stderr)
            self.assertEqual(glob.glob(os.path.join(tmp, "*.html")), [])

    def test_change(self):
        self.assertEqual(report.change(100, 150), "+50.0%")
        self.assertEqual(report.change(-4, -2), "+50.0%")
        self.assertEqual(report.change(0.2, 0.1), "-50.0%")
        self.assertEqual(report.change(0, 0.5), "+0.5")
        self.assertEqual(report.change(2, None), "-")
        self.assertEqual(report.change(True, 1), "-")

    def test_summary_counts(self):
        checks = [{"status": s} for s in ("fail", "pass", "pass", "error")]
        self.assertEqual(report.summary_counts(checks),
                         "pass 2, fail 1, error 1")

    def test_share_bars(self):
        def check(name, kind, status, value, limit=None,
                  metric="cpu_share", unit="share"):
            return {"name": "w." + name, "kind": kind, "status": status,
                    "metric": metric, "unit": unit, "value": value,
                    "limit": limit}
        checks = [check("hog.cpu_share", "absolute", "pass", 0.5, 0.4),
                  check("hog.cpu_share.vs-baseline", "baseline", "fail",
                        0.5),
                  check("cpu1.cpu.busy_share", "baseline", "pass", 0.9,
                        metric="cpu.busy_share"),
                  # not CPU shares: no bar
                  check("hog.wc.share", "absolute", "fail", 0.1, 0.01,
                        metric="wc.share"),
                  check("hog.wu_lat.p50", "absolute", "fail", 80.0, 50.0,
                        metric="wu_lat.p50", unit="us"),
                  check("idle.cpu_share", "absolute", "skip", None, 0.1)]
        self.assertEqual(report.share_bars("w", checks), [
            ("hog", "cpu_share", 0.5, 0.4, "fail"),
            ("cpu1", "cpu.busy_share", 0.9, None, "pass")])

    def test_timeline_problem(self):
        tl = {"start": 1.0, "end": 1.02, "cpus": 2,
              "running": [{"cpu": 1, "start": 1.0, "end": 1.01, "pid": 0,
                           "comm": "swapper/1", "prio": 120}],
              "waiting": []}
        self.assertIsNone(report.timeline_problem(tl))
        self.assertEqual(report.timeline_problem([]), "not a JSON object")
        self.assertEqual(report.timeline_problem(dict(tl, cpus=None)),
                         'no "cpus"')
        self.assertEqual(report.timeline_problem(dict(tl, waiting={})),
                         'no "waiting" list')
        bad = dict(tl, running=[dict(tl["running"][0], cpu=2)])
        self.assertIn('"running": a segment', report.timeline_problem(bad))

    def test_no_matplotlib(self):
        # a matplotlib that cannot be imported, first in the path
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "matplotlib"))
            with open(os.path.join(tmp, "matplotlib", "__init__.py"),
                      "w") as f:
                f.write("raise ImportError('No module named matplotlib')\n")
            env = dict(swtest.CHILD_ENV, PYTHONPATH=tmp)
            r = swtest.sw("report", os.path.join(FIXTURE, BROKEN), env=env)
            self.assertEqual(r.returncode, swtest.EXIT_SKIP, r.stderr)
            self.assertIn("python3-matplotlib missing (Debian: apt-get "
                          "install python3-matplotlib)", r.stderr)


# A hand-written "analyze --timeline" of a wc stretch: burst waited on
# cpu0 while cpu1 idled.
TIMELINE = {
    "start": 2012.615021, "end": 2012.631445, "cpus": 2,
    "running": [
        {"cpu": 0, "start": 2012.615021, "end": 2012.627000, "pid": 3283,
         "comm": "burst", "prio": 120},
        {"cpu": 0, "start": 2012.627000, "end": 2012.631445, "pid": 3284,
         "comm": "burst", "prio": 120},
        {"cpu": 1, "start": 2012.615021, "end": 2012.617000, "pid": 3285,
         "comm": "burst", "prio": 120},
        {"cpu": 1, "start": 2012.617000, "end": 2012.631445, "pid": 0,
         "comm": "swapper/1", "prio": 120}],
    "waiting": [
        {"cpu": 0, "start": 2012.620021, "end": 2012.627000, "pid": 3284,
         "comm": "burst", "prio": 120}]}


@unittest.skipUnless(HAVE_MATPLOTLIB, "needs python3-matplotlib")
class TestFigures(unittest.TestCase):
    def test_timeline_figure(self):
        import report_figures
        svg = report_figures.timeline("wc", TIMELINE,
                                      (2012.620021, 2012.626445))
        self.assertTrue(svg.startswith(b"<?xml"))
        for text in (b"cpu0 ran", b"cpu1 ran", b"waited", b"idle",
                     b"burst 3284", b"waiting"):
            self.assertIn(text, svg)

    def test_timeline_from_the_binary(self):
        # what the report draws of the JSON that "analyze --timeline"
        # prints, here from a stand-in that checks its arguments
        with tempfile.TemporaryDirectory() as tmp:
            _, broken = copy_runs(tmp)
            data = os.path.join(tmp, "timeline.json")
            with open(data, "w") as f:
                json.dump(TIMELINE, f)
            fake = os.path.join(tmp, "sw")
            with open(fake, "w") as f:
                f.write('#!/bin/sh\n'
                        'echo "$@" > %s/argv\n'
                        'exec cat %s\n' % (tmp, data))
            os.chmod(fake, 0o755)
            run = report.results.Run(broken)
            w = run.workload("cfs-work-conserving")
            with mock.patch.dict(os.environ, SW_BINARY=fake):
                out = report.timeline_html(w, w.verdicts())
            with open(os.path.join(tmp, "argv")) as f:
                argv = f.read().split()
        self.assertEqual(argv[-2:], ["--timeline",
                                     "2012.615021,2012.631445"])
        self.assertEqual(argv[0], "analyze")
        self.assertTrue(argv[2].endswith("cfs-work-conserving/rep-1/"
                                         "trace.dat"))
        html = "\n".join(out)
        self.assertIn('alt="timeline cfs-work-conserving wc"', html)
        self.assertIn("data:image/svg+xml;base64,", html)
        self.assertNotIn("timeline unavailable", html)

    def test_timeline_unavailable(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, broken = copy_runs(tmp)
            fake = os.path.join(tmp, "sw")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho 'sw: unrecognized option' >&2\n"
                        "exit 2\n")
            os.chmod(fake, 0o755)
            w = report.results.Run(broken).workload("rt-push-pull")
            with mock.patch.dict(os.environ, SW_BINARY=fake):
                html = "\n".join(report.timeline_html(w, w.verdicts()))
        self.assertIn("timeline unavailable: sw: unrecognized option", html)
        self.assertNotIn("<img", html)


if __name__ == "__main__":
    unittest.main()
