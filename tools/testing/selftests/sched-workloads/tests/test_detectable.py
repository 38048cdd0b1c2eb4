# SPDX-License-Identifier: GPL-2.0
"""The detectable effect (judge/detectable.h) against what it claims.

fixtures/detectable holds recorded repetitions: the first round of each
of the ten batteries of a qualification of the AMD class, 30 clean
repetitions of one kernel taken over 45 minutes (extract.py says how).
The claim of "check -d" is: against this baseline, a change of the
stated size is detected in 80% of runs. So, many times over: five of
the recorded repetitions become a baseline, "check -d" states the
effect against it, the change is injected into nine others (each moved
by it in the bad direction; for an overrun share, that share of each
repetition's passes turned into overruns), and three rounds of three
are judged against the baseline. The share of draws in which every
round regressed must be about 80%.

A check on repetitions is judged here by the rule as
Documentation/dev-tools/sched-workloads/verdicts.rst states it (the
median moved beyond the threshold, an exact one-sided Mann-Whitney
p <= 0.05), written again in Python; a tail by "sched-workloads
replay" of the three rounds: the whole protocol.

The effect is computed from five repetitions, so it cannot be exact:
models that took their median and spread as they are claimed 80% and
gave 46-80% on these repetitions, which is why judge/detectable.c draws
them as uncertain as five repetitions leave them.
"""
import fnmatch
import itertools
import json
import math
import os
import random
import re
import shutil
import statistics
import tempfile
import unittest

import swtest

FIX = swtest.fixture("detectable")
WORKLOADS = os.path.join(swtest.COLLECTION, "workloads")
BASE_REPS, ROUNDS, REPS = 5, 3, 3
DRAWS = 50
# About 80% on average, each share resting on DRAWS draws (a standard
# error of 0.06); no check's claim worse than a coin flip. A check may
# be conservative (duty-step's slack: 98%); an overrun share whose
# repetitions skew (a few far below the rest, which five of them often
# miss) is the weakest: 52%.
LOW, MEAN_LOW, MEAN_HIGH = 0.5, 0.7, 0.9

# (workload, entity, metric): checks where the spread, not only the
# threshold, sets the effect
MEDIAN_CHECKS = [
    ("condvar-pingpong", "ping", "passes"),
    ("cfs-yield", "worker", "cpu_share"),
    ("timer-idle", "tick5ms", "wu_lat.p50"),
    ("duty-step", "app", "slack.p50"),
    ("fifo-priority-order", "low", "wu_lat.p50"),
]
# (workload, entity, metric, the series of its events)
TAIL_CHECKS = [
    ("cfs-wakeup-among-hogs", "ping", "slack.negative_share", "slack"),
    ("timer-idle", "tick1ms", "wu_lat.p99", "wu_lat"),
]

EFFECT = re.compile(r"^    (\S+): baseline \S+ \S+, \S+ \S+ matters, detects "
                    r"a change of (\S+) ")


def load_reps(workload):
    with open(os.path.join(FIX, workload + ".reps.json")) as f:
        return json.load(f)


def workload_doc(workload):
    r = swtest.sw("check", "--json",
                  os.path.join(WORKLOADS, workload + ".json"))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def check_of(doc, group, entity, metric):
    """The baseline check of @doc on @metric of @entity: its "task" a
    glob of the entity or of its @group (the task of a thread "stream-1"
    is "stream")."""
    for c in doc["sched-workloads"]["baseline"]:
        task = c.get("task", entity)
        if c["metric"] == metric and (fnmatch.fnmatchcase(entity, task) or
                                      fnmatch.fnmatchcase(group, task)):
            return c
    raise KeyError("%s.%s" % (entity, metric))


def where(rep, entity):
    """(source, group) of @entity in a repetition's metrics."""
    src = next(s for s, e in rep["metrics"].items() if entity in e)
    return src, rep["metrics"][src][entity]["group"]


def baseline_of(workload, reps, entity, metric, series=None):
    """A baseline file's content from @reps, as "baseline" writes one."""
    src, _ = where(reps[0], entity)
    base = {"workload": workload, "format": 2, "canary": {},
            "fingerprint": {"class": "test", "settings": {}},
            "metrics": {"%s/%s/%s" % (src, entity, metric):
                        [r["metrics"][src][entity][metric] for r in reps]},
            "events": {}}
    gauge = [r["metrics"]["host"]["run"]["host.loops_per_us"] for r in reps
             if "run" in r["metrics"].get("host", {})]
    if len(gauge) == len(reps):
        base["metrics"]["host/run/host.loops_per_us"] = gauge
    if series:
        key = "%s/%s/%s" % (src, entity, series)
        base["events"][key] = [r["events"][key] for r in reps]
    return base


def stated_effects(workload, doc, baselines):
    """The effect "check -d" states against each baseline of
    @baselines, one copy of the workload for each: a list."""
    tmp = tempfile.mkdtemp(prefix="sw-detect-")
    try:
        files = []
        for i, base in enumerate(baselines):
            name = "%s-%d" % (workload, i)
            with open(os.path.join(tmp, name + ".json"), "w") as f:
                json.dump(base, f)
            path = os.path.join(tmp, "wl", name + ".json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                json.dump(doc, f)
            files.append(path)
        r = swtest.sw("check", "-d", tmp, "-n", str(REPS), *files)
    finally:
        shutil.rmtree(tmp)
    assert r.returncode == 0, r.stderr
    effects = {}
    for m in map(EFFECT.match, r.stdout.splitlines()):
        if m:
            effects[m.group(1)] = float(m.group(2))
    return effects


def u_stat(high, low):
    return sum(1.0 if h > lo else 0.5 if h == lo else 0.0
               for h in high for lo in low)


def p_greater(a, b):
    """Exact one-sided p of @b lying above @a: the share of the ways to
    split the pooled values in two of those sizes whose U is at least
    that of @b."""
    pooled = a + b
    seen = u_stat(b, a)
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), len(b)):
        bs = [pooled[i] for i in idx]
        rest = [pooled[i] for i in range(len(pooled)) if i not in idx]
        total += 1
        hits += u_stat(bs, rest) >= seen - 1e-9
    return hits / total


def regressed(base, now, check):
    """A round regressed: moved beyond max(rel * |median|, abs) in the
    bad direction, and p <= 0.05 in that direction."""
    ma, mb = statistics.median(base), statistics.median(now)
    delta = mb - ma
    bad = -1 if check["better"] == "higher" else 1
    if delta * bad <= 0:
        return False
    threshold = max(check.get("rel", 0) * abs(ma), check.get("abs", 0))
    p = p_greater(base, now) if bad > 0 else p_greater(now, base)
    return abs(delta) > threshold and p <= 0.05


def draws(reps):
    """DRAWS splits of the recorded repetitions: a baseline of five and
    three rounds of three, none shared."""
    rng = random.Random(1)
    return [rng.sample(reps, BASE_REPS + ROUNDS * REPS)
            for _ in range(DRAWS)]


class TestDetectable(unittest.TestCase):

    def test_detected_at_the_stated_effect(self):
        shares = {}
        for workload, entity, metric in MEDIAN_CHECKS:
            name = "%s.%s.%s" % (workload, entity, metric)
            shares[name] = self.medians(workload, entity, metric)
        for workload, entity, metric, series in TAIL_CHECKS:
            name = "%s.%s.%s" % (workload, entity, metric)
            shares[name] = self.replayed(workload, entity, metric, series)
        print("\n  detected at the stated effect: " + ", ".join(
            "%s %.0f%%" % (n, 100 * s) for n, s in shares.items()))
        for name, share in shares.items():
            with self.subTest(check=name):
                self.assertGreaterEqual(share, LOW, "%s: the stated effect "
                                        "was detected in %.0f%% of %d draws"
                                        % (name, 100 * share, DRAWS))
        mean = sum(shares.values()) / len(shares)
        self.assertTrue(MEAN_LOW <= mean <= MEAN_HIGH,
                        "detected in %.0f%% of the draws on average"
                        % (100 * mean))

    def medians(self, workload, entity, metric):
        """The share of draws in which every round regressed, judged by
        the rule on repetitions."""
        reps = load_reps(workload)
        src, group = where(reps[0], entity)
        doc = workload_doc(workload)
        check = check_of(doc, group, entity, metric)
        bad = -1 if check["better"] == "higher" else 1
        splits = draws(reps)
        effects = stated_effects(workload, doc, [
            baseline_of(workload, s[:BASE_REPS], entity, metric)
            for s in splits])
        hits = 0
        for i, s in enumerate(splits):
            effect = effects["%s-%d.%s.%s.vs-baseline" %
                             (workload, i, entity, metric)]
            value = [r["metrics"][src][entity][metric] for r in s]
            base, now = value[:BASE_REPS], value[BASE_REPS:]
            hits += all(regressed(
                base, [v + bad * effect
                       for v in now[k * REPS:(k + 1) * REPS]], check)
                for k in range(ROUNDS))
        return hits / len(splits)

    def replayed(self, workload, entity, metric, series):
        """The same for a tail, each draw's rounds replayed."""
        reps = load_reps(workload)
        src, group = where(reps[0], entity)
        doc = workload_doc(workload)
        check = dict(check_of(doc, group, entity, metric), task=entity)
        # an absolute check that always holds: a workload needs one
        doc["sched-workloads"] = {
            "description": "one tail check", "baseline": [check],
            "checks": [{"metric": metric, "task": entity, "min": 0}]}
        key = "%s/%s/%s" % (src, entity, series)
        overrun = metric in ("slack.negative_share", "missed_periods")
        bad = -1 if check["better"] == "higher" else 1
        splits = draws(reps)
        baselines = [baseline_of(workload, s[:BASE_REPS], entity, metric,
                                 series) for s in splits]
        effects = stated_effects(workload, doc, baselines)
        hits = []
        tmp = tempfile.mkdtemp(prefix="sw-detect-tail-")
        try:
            for i, s in enumerate(splits):
                effect = effects["%s-%d.%s.%s.vs-baseline" %
                                 (workload, i, entity, metric)]
                base = os.path.join(tmp, "base-%d.json" % i)
                with open(base, "w") as f:
                    json.dump(baselines[i], f)
                run = os.path.join(tmp, "draw-%d" % i, workload)
                os.makedirs(run)
                with open(os.path.join(run, workload + ".json"), "w") as f:
                    json.dump(doc, f)
                for k, r in enumerate(s[BASE_REPS:]):
                    rd = os.path.join(run, "rep-%d" % (k + 1))
                    os.makedirs(rd)
                    with open(os.path.join(rd, "metrics.json"), "w") as f:
                        json.dump(r["metrics"], f)
                    with open(os.path.join(rd, "events.json"), "w") as f:
                        json.dump({key: moved(r["events"][key], bad, effect,
                                              overrun)}, f)
                with open(os.path.join(run, "rounds.json"), "w") as f:
                    json.dump([{"round": k + 1, "start_s": 70 * k,
                                "reps": list(range(k * REPS + 1,
                                                   (k + 1) * REPS + 1))}
                               for k in range(ROUNDS)], f)
                r = swtest.sw("replay", "--baseline", base, run)
                res = {n: ok for indent, ok, n, _ in
                       swtest.ktap_results(r.stdout) if indent == 2}
                name = "%s.%s.%s.vs-baseline" % (workload, entity, metric)
                self.assertIn(name, res, r.stdout)
                hits.append(not res[name])
        finally:
            shutil.rmtree(tmp)
        return sum(hits) / len(hits)


# lib/event_hist.h: 16 log bins an octave from 0.01, signed; bin 0 holds
# the values under 0.01 in magnitude.
BINS_PER_OCTAVE, MIN_ABS, HALF = 16, 0.01, 44 * 16


def bin_of(v):
    if abs(v) < MIN_ABS:
        return 0
    octaves = math.log2(abs(v) / MIN_ABS)
    b = min(HALF, 1 + math.floor(BINS_PER_OCTAVE * octaves))
    return b if v > 0 else -b


def bin_middle(b, h):
    if not b:
        return min(max(0.0, h["min"]), h["max"])
    lo = MIN_ABS * 2 ** ((abs(b) - 1) / BINS_PER_OCTAVE)
    hi = MIN_ABS * 2 ** (abs(b) / BINS_PER_OCTAVE)
    mid = (lo + hi) / 2 * (1 if b > 0 else -1)
    return min(max(mid, h["min"]), h["max"])


def as_hist(counts, lo, hi):
    bins = []
    for b in sorted(counts):
        bins += [b, counts[b]]
    return {"n": sum(counts.values()), "min": lo, "max": hi, "bins": bins}


def moved(h, bad, effect, overrun):
    """One repetition's events with the change injected: each moved by
    @effect towards @bad, or (@overrun) that share of them, the lowest
    at or above 0, turned into overruns."""
    pairs = list(zip(h["bins"][::2], h["bins"][1::2]))
    counts = {}
    if overrun:
        k = round(effect * h["n"])
        for b, c in pairs:
            m = min(c, k) if b >= 0 else 0
            k -= m
            if m:
                counts[bin_of(-1)] = counts.get(bin_of(-1), 0) + m
            if c - m:
                counts[b] = counts.get(b, 0) + c - m
        return as_hist(counts, min(h["min"], -1) if counts.get(bin_of(-1))
                       else h["min"], h["max"])
    for b, c in pairs:
        nb = bin_of(bin_middle(b, h) + bad * effect)
        counts[nb] = counts.get(nb, 0) + c
    return as_hist(counts, h["min"] + bad * effect, h["max"] + bad * effect)


if __name__ == "__main__":
    unittest.main()
