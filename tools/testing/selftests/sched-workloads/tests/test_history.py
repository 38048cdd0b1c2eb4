# SPDX-License-Identifier: GPL-2.0
"""history.py on series of kernels made from recorded metrics.

Each synthetic kernel is a result directory whose samples.json draws,
for every metric, three repetitions from the five the AMD class's
baseline recorded (with replacement), the whole run then shifted by a
few percent as a host drifts from run to run; its verdicts.json is a
real clean run's; its rounds.json has one round per workload, with a
canary drawn likewise from the baseline's. A step is injected from a
known kernel on: history must name that kernel, and only that metric.
With no step it must name nothing. A slower host from a known kernel on
(the canary's loops slower, the workloads' host gauges lower, drawn
with their own random numbers from five repetitions of each workload
the AMD class recorded on 2026-12-05 with a busy host, in
fixtures/history/host-gauges.json) is named as the machine's change,
beside a metric's change at the same kernel, and counts for nothing
alone.
"""
import base64
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
import tempfile
import unittest

import swtest
import facts
import history
import results

CLASS = "x86_64-2cpu-amd-epyc-vm"
BASELINES = os.path.join(swtest.COLLECTION, "baselines", CLASS)
FIXTURE = swtest.fixture("history")
WORKLOADS = ("periodic-light", "cfs-nice-share", "rt-push-pull")
STEPPED = "periodic-light.decoder.wu_lat.p50"
STEPPED_KEY = "rtapp_tasks/decoder/wu_lat.p50"
# per-run drift of the whole run: what a VM's host does between runs
DRIFT = 0.03
# what a slower host's CPU moves
HOST_SLOWER = ("canary/system/canary.loop_ns", "canary/system/canary.libm_ns")
GAUGE_KEY = "host/run/host.loops_per_us"


def kernels(n):
    return ["6.13.0-rc%d" % (i + 1) for i in range(n)]


def draw_canary(rng, base, drift, slower):
    """One round's canary, each figure drawn from the baseline's, the
    loops @slower times slower."""
    return {key: [rng.choice(values) * drift *
                  (slower if key in HOST_SLOWER else 1)]
            for key, values in base.items()
            if key.startswith("canary/system/")}


def make_series(top, n, seed, step_at=None, factor=1.3, reps=3,
                step_end=None, host_at=None):
    """@n result directories under @top, one per kernel, in date order;
    STEPPED_KEY multiplied by @factor from kernel @step_at (0-based) to
    the last, or up to @step_end; the canary's loops 30% slower from
    kernel @host_at on, and the workloads' host gauges halved."""
    rng = random.Random(seed)
    # the canary's own draws, so that it leaves the metrics' as they were
    canary_rng = random.Random(-seed)
    gauge_rng = random.Random("gauge-%d" % seed)
    recorded = {}
    for w in WORKLOADS:
        recorded[w] = swtest.load_json(os.path.join(BASELINES, w + ".json"))
    fp = swtest.load_json(os.path.join(FIXTURE, "fingerprint.json"))
    gauges = swtest.load_json(os.path.join(FIXTURE, "host-gauges.json"))
    dirs = []
    for k, release in enumerate(kernels(n)):
        d = os.path.join(top, "202612%02d-030000-%s" % (k + 1, release))
        fp = dict(fp, kernel_release=release)
        os.makedirs(d)
        with open(os.path.join(d, "fingerprint.json"), "w") as f:
            json.dump(fp, f)
        drift = 1 + rng.uniform(-DRIFT, DRIFT)
        for w in WORKLOADS:
            os.mkdir(os.path.join(d, w))
            shutil.copy(os.path.join(FIXTURE, w + ".verdicts.json"),
                        os.path.join(d, w, "verdicts.json"))
            samples = {}
            for key, values in recorded[w]["metrics"].items():
                if key == GAUGE_KEY:
                    continue    # drawn below, from host-gauges.json
                got = [v for v in values if v is not None]
                draw = [rng.choice(got) * drift if got else None
                        for _ in range(reps)]
                if key == STEPPED_KEY and w == "periodic-light" and \
                        step_at is not None and k >= step_at and \
                        (step_end is None or k < step_end):
                    draw = [v * factor for v in draw]
                samples[key] = draw
            slower = 1.3 if host_at is not None and k >= host_at else 1
            # the gauge: rt-app's loops per us, halved by the slower host
            # as the AMD host halves them (docs: verdicts.rst)
            samples[GAUGE_KEY] = [gauge_rng.choice(gauges[w]) * drift /
                                  (2 if slower > 1 else 1)
                                  for _ in range(reps)]
            with open(os.path.join(d, w, "samples.json"), "w") as f:
                json.dump(samples, f)
            rnd = {"round": 1, "reps": list(range(1, reps + 1)),
                   "canary": draw_canary(canary_rng, recorded[w]["canary"],
                                         drift, slower)}
            with open(os.path.join(d, w, "rounds.json"), "w") as f:
                json.dump([rnd], f)
        swtest.index_run(d)
        dirs.append(d)
    return dirs


def run_history(dirs, *extra):
    """history's exit code and its JSON document."""
    out = os.path.join(os.path.dirname(dirs[0]), "history.json")
    rc = history.main(["--json", "-o", out] + list(extra) + dirs)
    return rc, swtest.load_json(out)


def changed(doc, part="metrics"):
    return {m["name"]: m["changes"] for m in doc[part] if m["changes"]}


class TestHistory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def series(self, name, *args, **kw):
        return make_series(os.path.join(self.tmp.name, name), *args, **kw)

    def test_step_is_named_at_its_kernel(self):
        dirs = self.series("step", 12, seed=7, step_at=6)
        rc, doc = run_history(dirs)
        self.assertEqual(rc, 1)
        self.assertEqual(list(changed(doc)), [STEPPED])
        (c,) = changed(doc)[STEPPED]
        self.assertEqual((c["kernel"], c["previous"]),
                         ("6.13.0-rc7", "6.13.0-rc6"))
        self.assertAlmostEqual(c["relative"], 0.3, delta=0.1)
        self.assertLessEqual(c["p"], history.DEFAULT_P)
        # the machine did not change
        self.assertEqual(c["machine"], [])
        self.assertEqual(changed(doc, "machine"), {})
        self.assertEqual(len(doc["machine"]),
                         len(facts.canary_machine()) + len(WORKLOADS))

    def test_slower_host_is_named_beside_the_change(self):
        dirs = self.series("host", 12, seed=7, step_at=6, host_at=6)
        rc, doc = run_history(dirs)
        self.assertEqual((rc, list(changed(doc))), (1, [STEPPED]))
        (c,) = changed(doc)[STEPPED]
        self.assertEqual(c["kernel"], "6.13.0-rc7")
        moved = {m["name"]: m for m in c["machine"]}
        # the stepped metric's own workload's gauge, not the others'
        self.assertEqual(sorted(moved),
                         ["canary.libm_ns", "canary.loop_ns",
                          "periodic-light.run.host.loops_per_us"])
        self.assertAlmostEqual(moved["periodic-light.run.host.loops_per_us"]
                               ["relative"], -0.5, delta=0.1)
        self.assertEqual(moved["canary.loop_ns"]["kernel"], "6.13.0-rc7")
        self.assertAlmostEqual(moved["canary.loop_ns"]["relative"], 0.3,
                               delta=0.1)
        r = swtest.sw("history", *dirs)
        self.assertRegex(r.stdout, r"the machine changed there too: "
                         r"canary\.loop_ns [0-9.]+ -> [0-9.]+ ns")
        self.assertIn("1 changed, 1 of them where the machine changed too",
                      r.stdout)

    def test_slower_host_alone_counts_for_nothing(self):
        dirs = self.series("host-alone", 12, seed=7, host_at=6)
        rc, doc = run_history(dirs)
        self.assertEqual((rc, changed(doc)), (0, {}))
        self.assertEqual(changed(doc, "machine")["canary.loop_ns"][0]
                         ["kernel"], "6.13.0-rc7")
        self.assertNotIn("canary.timer_lat.p50", changed(doc, "machine"))
        for w in WORKLOADS:
            self.assertEqual(changed(doc, "machine")[history.gauge_name(w)]
                             [0]["kernel"], "6.13.0-rc7", w)

    def test_step_down_and_late_step(self):
        # a drop, three kernels before the end: the least a change needs
        dirs = self.series("late", 16, seed=3, step_at=13, factor=0.7)
        rc, doc = run_history(dirs)
        self.assertEqual(list(changed(doc)), [STEPPED])
        self.assertEqual(changed(doc)[STEPPED][0]["kernel"], "6.13.0-rc14")
        self.assertLess(changed(doc)[STEPPED][0]["delta"], 0)
        # two kernels are not enough to tell it from two disturbed runs
        rc, doc = run_history(dirs[:15])
        self.assertEqual((rc, changed(doc)), (0, {}))

    def test_flat_series_names_nothing(self):
        for seed in (1, 2, 3, 4, 5):
            dirs = self.series("flat-%d" % seed, 12, seed=seed)
            rc, doc = run_history(dirs)
            self.assertEqual((rc, changed(doc)), (0, {}), "seed %d" % seed)
            self.assertEqual(changed(doc, "machine"), {}, "seed %d" % seed)
            self.assertGreater(len(doc["metrics"]), 20)

    def test_one_odd_kernel_is_not_a_change(self):
        # one run 30% off, the next ones back: a disturbed run, as far
        # as a series can tell
        for name, at, end in (("odd-last", 11, None), ("odd-mid", 5, 6),
                              ("two-odd", 4, 6)):
            dirs = self.series(name, 12, seed=7, step_at=at, step_end=end)
            rc, doc = run_history(dirs)
            self.assertEqual((rc, changed(doc)), (0, {}), name)

    def test_order_by_date_or_as_given(self):
        dirs = self.series("order", 12, seed=11, step_at=6)
        shuffled = dirs[6:] + dirs[:6]
        rc, doc = run_history(shuffled)
        self.assertEqual([r["kernel"] for r in doc["runs"]], kernels(12))
        self.assertEqual(changed(doc)[STEPPED][0]["kernel"], "6.13.0-rc7")
        # as given, the step sits between the last and the first kernel
        renamed = []
        for i, d in enumerate(shuffled):
            renamed.append(os.path.join(self.tmp.name, "k%d" % i))
            os.rename(d, renamed[-1])
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(history.main(renamed), swtest.EXIT_USAGE)
        self.assertIn("no date in the directory name", err.getvalue())
        rc, doc = run_history(renamed, "--given-order")
        self.assertEqual([r["kernel"] for r in doc["runs"]][0], "6.13.0-rc7")
        self.assertEqual(changed(doc)[STEPPED][0]["kernel"], "6.13.0-rc1")

    def test_text_names_the_kernel(self):
        dirs = self.series("text", 12, seed=7, step_at=6)
        r = swtest.sw("history", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_FAIL, r.stderr)
        self.assertIn("%s (us): " % STEPPED, r.stdout)
        self.assertRegex(r.stdout, r"change at 6\.13\.0-rc7 \(after "
                         r"6\.13\.0-rc6\): [0-9.]+ -> [0-9.]+ us \(\+")
        self.assertRegex(r.stdout, r"\n# \d+ metrics, 1 changed, 0 of them "
                         r"where the machine changed too\n$")

    def test_bad_input(self):
        dirs = self.series("bad", 3, seed=1)
        r = swtest.sw("history", *dirs[:2])
        self.assertEqual(r.returncode, swtest.EXIT_USAGE)
        self.assertIn("at least three", r.stderr)
        path = os.path.join(dirs[1], "periodic-light", "samples.json")
        with open(path, "w") as f:
            f.write("{\"rtapp_tasks/decoder/wu_lat.p50\": [1, ")
        r = swtest.sw("history", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
        self.assertIn(path + ": not JSON", r.stderr)
        with open(path, "w") as f:
            f.write("{}")
        path = os.path.join(dirs[1], "cfs-nice-share", "rounds.json")
        with open(path, "w") as f:
            json.dump([{"canary": {"canary/system/canary.loop_ns": "1"}}],
                      f)
        r = swtest.sw("history", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
        self.assertIn(path + ": round 1: canary canary.loop_ns: not a list "
                      "of numbers", r.stderr)
        os.remove(os.path.join(dirs[2], "fingerprint.json"))
        r = swtest.sw("history", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_BAD_RESULTS)
        self.assertIn(os.path.join(dirs[2], "fingerprint.json"), r.stderr)

    def test_other_machine_class_is_refused(self):
        dirs = self.series("class", 4, seed=1)
        path = os.path.join(dirs[3], "fingerprint.json")
        fp = swtest.load_json(path)
        fp["class"] = "x86_64-2cpu-intel-xeon-processor-vm"
        with open(path, "w") as f:
            json.dump(fp, f)
        r = swtest.sw("history", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_USAGE)
        self.assertIn("different machine classes", r.stderr)
        r = swtest.sw("history", "--force", *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)


def page_of(dirs, *extra):
    """history --html's exit code and page."""
    out = os.path.join(os.path.dirname(dirs[0]), "history.html")
    rc = history.main(["--html", "-o", out] + list(extra) + dirs)
    with open(out) as f:
        return rc, f.read()


def page_changes(page):
    """[(previous, kernel, [metrics])] of the change points of @page."""
    out = []
    for part in page.split('<h3 class="change"')[1:]:
        m = re.match(r' id="[^"]*" data-previous="([^"]*)" '
                     r'data-kernel="([^"]*)"', part)
        out.append((m.group(1), m.group(2),
                    re.findall(r'<tr data-metric="([^"]+)"',
                               part.split("<h2")[0])))
    return out


@unittest.skipUnless(importlib.util.find_spec("matplotlib"),
                     "needs python3-matplotlib")
class TestHistoryPage(unittest.TestCase):
    """history --html: the change points of the JSON, a figure of each
    metric that changed, and the commits it was given, under the change
    they belong to."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_the_change_its_figure_and_commits(self):
        dirs = make_series(os.path.join(self.tmp.name, "s"), 10, 7,
                           step_at=5, factor=2)
        commits = os.path.join(self.tmp.name, "commits.json")
        with open(commits, "w") as f:
            json.dump([{"previous": "6.13.0-rc5", "kernel": "6.13.0-rc6",
                        "commits": 3, "sched": ["sched/fair: <the> step"],
                        "near": ["cpufreq: near"]},
                       {"previous": "6.13.0-rc1", "kernel": "6.13.0-rc2",
                        "commits": 1, "sched": ["sched/core: no change"],
                        "near": []}], f)
        rc, page = page_of(dirs, "--commits", commits)
        self.assertEqual(rc, swtest.EXIT_FAIL)
        _, doc = run_history(dirs)
        (c,) = changed(doc)[STEPPED]
        self.assertEqual(page_changes(page),
                         [(c["previous"], c["kernel"], [STEPPED])])
        self.assertEqual(re.findall(r'<img alt="([^"]+)"', page),
                         ["series " + STEPPED])
        svg = base64.b64decode(re.search(
            r'src="data:image/svg\+xml;base64,([^"]+)"', page).group(1))
        self.assertTrue(svg.startswith(b"<?xml"), svg[:40])
        # the commits of its change, escaped; not those of a pair that
        # is no change point
        self.assertIn("<li>sched/fair: &lt;the&gt; step</li>", page)
        self.assertIn("<li>cpufreq: near</li>", page)
        self.assertNotIn("sched/core: no change", page)
        # every metric has its row of medians
        self.assertEqual(len(re.findall(r'<tr data-series="', page)),
                         len(doc["metrics"]))

    def test_no_change_and_no_commits(self):
        dirs = make_series(os.path.join(self.tmp.name, "flat"), 6, 3)
        rc, page = page_of(dirs)
        self.assertEqual(rc, swtest.EXIT_PASS)
        self.assertEqual(page_changes(page), [])
        self.assertIn("No metric changed along the series.", page)
        self.assertNotIn("<img", page)

    def test_bad_commits_file(self):
        dirs = make_series(os.path.join(self.tmp.name, "bad"), 3, 1)
        path = os.path.join(self.tmp.name, "commits.json")
        for text, says in (
                ("[{", "not JSON"),
                ('{"previous": "a"}', ": not a list of change points"),
                ('[{"previous": "a", "kernel": "b"}, {"kernel": "b"}]',
                 ': item 1: no "previous" kernel'),
                ('[{"previous": "a", "kernel": "b", "sched": [1]}]',
                 ': item 0: "sched" is not a list of commit subjects')):
            with open(path, "w") as f:
                f.write(text)
            r = swtest.sw("history", "--html", "--commits", path, *dirs)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE, text)
            self.assertIn("history: --commits " + path, r.stderr)
            if says != "not JSON":
                self.assertIn(path + says, r.stderr)
        r = swtest.sw("history", "--commits", path, *dirs)
        self.assertEqual(r.returncode, swtest.EXIT_USAGE)
        self.assertIn("--commits goes with --html", r.stderr)


class TestEnergy(unittest.TestCase):
    def test_statistic_by_hand(self):
        # blocks [0, 0] [2]: m = 2, n = 1; E|X-Y| = 2, E|X-X'| = 0,
        # E|Y-Y'| = 0 (one value): Q = 2 * 1 / 3 * (2 * 2) = 8 / 3
        e = history.Energy([[0, 0], [2]])
        self.assertEqual(e.best_split([0, 1]), (8 / 3, 1))
        # [1, 3] [1, 3]: E|X-Y| = 1, E|X-X'| = E|Y-Y'| = 2: Q = -2, the
        # two sides are alike
        e = history.Energy([[1, 3], [1, 3]])
        self.assertEqual(e.best_split([0, 1]), (-2.0, 1))

    def test_best_split_is_at_the_step(self):
        blocks = [[10, 11], [10, 12], [11, 10], [20, 21], [19, 20]]
        q, t = history.Energy(blocks).best_split(list(range(5)))
        self.assertEqual(t, 3)

    def test_noise(self):
        # squares from the means 2 and 3: 1 + 0 + 1 + 9 + 0 + 9 = 20 over
        # 2 + 2 degrees of freedom (a single value has none): sqrt(5)
        self.assertAlmostEqual(history.noise([[1, 2, 3], [0, 3, 6], [5]]),
                               5 ** 0.5)
        self.assertEqual(history.noise([[4], [7]]), 0.0)

    def test_check_to_series(self):
        self.assertEqual(results.check_entity_metric(
            {"name": "w.cpu0.cpu.busy_share.vs-baseline",
             "metric": "cpu.busy_share"}, "w"), ("cpu0", "cpu.busy_share"))
        self.assertIsNone(results.check_entity_metric(
            {"name": "w.cpu0.other", "metric": "cpu.busy_share"}, "w"))
        self.assertEqual(results.samples_key(
            {"trace_cpus/cpu0/cpu.busy_share": [1],
             "trace_cpus/cpu1/cpu.busy_share": [1]}, "cpu0",
            "cpu.busy_share"), "trace_cpus/cpu0/cpu.busy_share")


if __name__ == "__main__":
    unittest.main()
