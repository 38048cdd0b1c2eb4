# SPDX-License-Identifier: GPL-2.0
"""results.py: the reader of result directories that report, export and
history share. The histogram arithmetic is lib/event_hist.c's, redone
by hand here for values whose bins are easy to work out, on the bins the
tool states in a run's index.json."""
import json
import os
import tempfile
import unittest

import swtest
import results

# lib/event_hist.h: bin b >= 1 holds [0.01 * 2^((b-1)/16), 0.01 * 2^(b/16)).
# 1.0 us: 16 * log2(100) = 106.30 -> bin 107; 2.0 us: 16 * log2(200) =
# 122.30 -> bin 123; -1.0: bin -107.
LO_107 = 0.01 * 2 ** (106 / 16)
HI_107 = 0.01 * 2 ** (107 / 16)


def hist(values):
    """What lib/event_hist.c would write for @values (bins as worked out
    above)."""
    bins = {}
    for v in values:
        b = {1.0: 107, 2.0: 123, -1.0: -107}[v]
        bins[b] = bins.get(b, 0) + 1
    pairs = []
    for b in sorted(bins):
        pairs += [b, bins[b]]
    return {"n": len(values), "min": min(values), "max": max(values),
            "bins": pairs}


def tool_bins():
    """The bins as the tool states them in a run's index.json."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "fingerprint.json"), "w") as f:
            json.dump({"class": "x"}, f)
        swtest.index_run(tmp)
        return results.Run(tmp).bins


class TestHistogram(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bins = tool_bins()

    def test_edges(self):
        self.assertAlmostEqual(self.bins.edges(107)[0], LO_107)
        self.assertAlmostEqual(self.bins.edges(107)[1], HI_107)
        self.assertTrue(LO_107 <= 1.0 < HI_107)
        self.assertEqual(self.bins.edges(-107), (-HI_107, -LO_107))
        self.assertEqual(self.bins.edges(0), (-0.01, 0.01))
        self.assertEqual(self.bins.edges(44 * 16)[1], float("inf"))

    def test_cdf_clips_to_exact_ends(self):
        h = results.Histogram.from_json(hist([1.0, 1.0, 1.0, 2.0]), "f",
                                        "k")
        # bin 107 ends at 1.0307 (3 of 4 events), bin 123 at 2.03 but the
        # largest event is exactly 2.0
        cdf = h.cdf(self.bins)
        self.assertEqual(len(cdf), 2)
        self.assertAlmostEqual(cdf[0][0], HI_107)
        self.assertEqual(cdf[0][1], 0.75)
        self.assertEqual(cdf[1], (2.0, 1.0))

    def test_merge_pools_events(self):
        a = results.Histogram.from_json(hist([1.0, 2.0]), "f", "k")
        b = results.Histogram.from_json(hist([-1.0]), "f", "k")
        m = a.merge(b)
        self.assertEqual((m.n, m.min, m.max), (3, -1.0, 2.0))
        self.assertEqual(m.bins, {107: 1, 123: 1, -107: 1})
        self.assertEqual(a.n, 2, "merge must not change its operands")

    def test_counts_must_add_up(self):
        bad = hist([1.0, 2.0])
        bad["n"] = 3
        with self.assertRaisesRegex(results.ResultError,
                                    'file: "key": bin counts'):
            results.Histogram.from_json(bad, "file", "key")
        with self.assertRaisesRegex(results.ResultError, "integer pairs"):
            results.Histogram.from_json({"n": 1, "bins": [107, 1.5]},
                                        "file", "key")
        with self.assertRaisesRegex(results.ResultError, "not an event"):
            results.Histogram.from_json({"n": 1, "bins": [107]}, "file",
                                        "key")


class TestToolBins(unittest.TestCase):
    """The edges python3 reads from the binary hold the values the
    binary binned: each histogram's exact min and max lie in its lowest
    and highest bin."""

    def test_edges_hold_what_the_tool_binned(self):
        bins = tool_bins()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "events.json")
            r = swtest.sw("analyze", "--logs", swtest.fixture("logs", "basic"),
                          "--events-out", out, timeout=120)
            self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
            events = swtest.load_json(out)
        self.assertTrue(events)
        for key, obj in events.items():
            h = results.Histogram.from_json(obj, out, key)
            if not h.n:
                continue
            with self.subTest(series=key):
                lo, hi = bins.edges(min(h.bins))
                self.assertTrue(lo <= h.min <= hi, (lo, h.min, hi))
                lo, hi = bins.edges(max(h.bins))
                self.assertTrue(lo <= h.max <= hi, (lo, h.max, hi))

    def test_other_binning_is_refused(self):
        other = results.EventBins({"per_octave": 8, "min_abs": 0.01,
                                   "octaves": 44}, "index.json")
        with self.assertRaisesRegex(results.ResultError,
                                    "index.json: \"event_bins\": not the "
                                    "bins of"):
            other.edges(1)


class TestRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "20261205-034357-6.18.0-rc1")
        os.makedirs(os.path.join(self.dir, "w"))
        os.makedirs(os.path.join(self.dir, "not-judged"))
        self.write("fingerprint.json", {"class": "x86_64-2cpu-test-vm",
                                        "kernel_release": "6.18.0-rc1"})
        self.write("w/verdicts.json", [{"name": "w.a.b", "status": "pass",
                                        "kind": "absolute"}])

    def tearDown(self):
        self.tmp.cleanup()

    def indexed(self):
        """The run as the tool indexes it now."""
        swtest.index_run(self.dir)
        return results.Run(self.dir)

    def write(self, name, obj):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))

    def test_reads_a_run(self):
        run = self.indexed()
        self.assertEqual(run.machine_class, "x86_64-2cpu-test-vm")
        self.assertEqual(run.kernel, "6.18.0-rc1")
        self.assertEqual(run.started, "2026-12-05T03:43:57")
        self.assertEqual(run.names, ["w"])
        self.assertEqual(run.workload("w").verdicts()[0]["name"], "w.a.b")

    def test_bad_files_are_named(self):
        self.write("w/verdicts.json", "[{\"name\": ")
        with self.assertRaisesRegex(results.ResultError,
                                    r"w/verdicts.json: not JSON"):
            self.indexed().workload("w").verdicts()
        self.write("w/verdicts.json", [{"name": "x", "status": "maybe",
                                        "kind": "absolute"}])
        with self.assertRaisesRegex(results.ResultError, "check 1"):
            self.indexed().workload("w").verdicts()
        with self.assertRaisesRegex(results.ResultError, "no results"):
            self.indexed().workload("not-judged")
        with self.assertRaisesRegex(results.ResultError, "not a directory"):
            results.Run(os.path.join(self.dir, "nowhere"))
        self.write("fingerprint.json", {"kernel_release": "x"})
        with self.assertRaisesRegex(results.ResultError,
                                    "fingerprint.json: no machine class"):
            self.indexed()

    def test_refusal_has_no_repetitions(self):
        # dl-over-admission: rt-app refused, as expected: verdicts only
        w = self.indexed().workload("w")
        self.assertEqual((w.samples(), w.rounds(), w.counted_reps(),
                          w.events()), ({}, [], [], {}))
        self.write("w/rounds.json", {"round": 1})
        with self.assertRaisesRegex(results.ResultError, "rounds.json: "
                                    "not a list of rounds"):
            self.indexed().workload("w").rounds()

    def test_renamed_directory_has_no_start(self):
        renamed = os.path.join(self.tmp.name, "kernel-a")
        self.indexed()
        os.rename(self.dir, renamed)
        self.assertIsNone(results.Run(renamed).started)


# The "disturbed" fixture's workload with a check on a CPU, one on the
# system and the same check of its threads twice (a second result of one
# metric on one entity is named ".2").
ENTITY_CHECKS = ('"checks": [ { "metric": "passes", "task": "pulse", '
                 '"min": 1 }, { "metric": "passes", "task": "pulse-0", '
                 '"min": 2 }, { "metric": "cpu.busy_share", "cpu": 1, '
                 '"min": 0 }, { "metric": "wc.share", "max": 1 } ]')


class TestEntity(unittest.TestCase):
    """What each check is about, in a verdicts.json the tool writes
    (analyze --verdicts-out, on the "disturbed" trace and logs), as
    results reads it; and in one of a tool before "entity"."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = cls.tmp.name
        trace = swtest.unpack_traces(swtest.fixture("trace"),
                                     tmp)["disturbed"]
        with open(swtest.fixture("workloads", "disturbed.json")) as f:
            text = f.read()
        start = text.index('"checks"')
        end = text.index("]", start) + 1
        workload = os.path.join(tmp, "w.json")
        with open(workload, "w") as f:
            f.write(text[:start] + ENTITY_CHECKS + text[end:])
        cls.run_dir = os.path.join(tmp, "20261206-021350-6.18.44")
        os.makedirs(os.path.join(cls.run_dir, "w"))
        with open(os.path.join(cls.run_dir, "fingerprint.json"), "w") as f:
            json.dump({"class": "x"}, f)
        r = swtest.sw("analyze", "--logs",
                      swtest.fixture("logs", "disturbed"), "--trace", trace,
                      "--workload", workload, "--verdicts-out",
                      os.path.join(cls.run_dir, "w", "verdicts.json"))
        assert r.returncode == 0, r.stderr
        swtest.index_run(cls.run_dir)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_entity_of_each_check(self):
        want = {
            "w.pulse-0.passes": ("pulse-0", "passes"),
            "w.pulse-1.passes": ("pulse-1", "passes"),
            "w.pulse-0.passes.2": ("pulse-0", "passes"),
            "w.cpu1.cpu.busy_share": ("cpu1", "cpu.busy_share"),
            "w.system.wc.share": ("system", "wc.share"),
            "w.system.kthread.cpu_share": ("system", "kthread.cpu_share"),
        }
        checks = results.Run(self.run_dir).workload("w").verdicts()
        self.assertEqual({c["name"]: (c["entity"], c["metric"])
                          for c in checks}, want)
        self.assertEqual({c["name"]: results.check_entity_metric(c, "w")
                          for c in checks}, want)

    def test_before_the_field_the_name_says_it(self):
        old = {"name": "w.cpu1.cpu.busy_share.vs-baseline",
               "metric": "cpu.busy_share"}
        self.assertEqual(results.check_entity_metric(old, "w"),
                         ("cpu1", "cpu.busy_share"))
        # what the name alone cannot tell
        self.assertIsNone(results.check_entity_metric(
            dict(old, name="w.pulse-0.passes.2", metric="passes"), "w"))
        self.assertIsNone(results.check_entity_metric(
            {"name": "w.rtapp.refused"}, "w"))


if __name__ == "__main__":
    unittest.main()
