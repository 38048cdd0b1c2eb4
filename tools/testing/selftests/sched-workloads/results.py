# SPDX-License-Identifier: GPL-2.0
"""Reading a result directory of "sched-workloads run" back.

The layout is the rst's "Results" section: fingerprint.json, and per
workload <workload>/verdicts.json, samples.json, rounds.json, the
workload file as run and rep-<K>/ (metrics.json, events.json,
explain.txt, trace.dat). report.py, kcidb.py and history.py read runs
through this module only, so that a change of layout is made here.

A file that is not what the tool writes raises ResultError, naming the
file and what is wrong with it.
"""
import json
import math
import os
import re

# The directory name the tool gives a run: <YYYYmmdd-HHMMSS>-<release>.
RUN_DIR_RE = re.compile(r"^(\d{8})-(\d{6})-(.+)$")

# events.h: signed log bins, EVENT_BINS_PER_OCTAVE per doubling above
# EVENT_MIN_ABS, bin 0 for the smaller values.
EVENT_BINS_PER_OCTAVE = 16
EVENT_MIN_ABS = 0.01
EVENT_HALF = 44 * EVENT_BINS_PER_OCTAVE  # EVENT_OCTAVES of them


VS_BASELINE = ".vs-baseline"

# The tool's exit codes (util.h) that these programs use too.
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 4
EXIT_BAD_RESULTS = 9


class ResultError(Exception):
    """A result file missing or not in the tool's format: exit
    EXIT_BAD_RESULTS."""


def load_json(path):
    """The JSON of @path; ResultError naming the file and the place."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise ResultError("%s: %s" % (path, e.strerror)) from e
    except ValueError as e:
        raise ResultError("%s: not JSON: %s" % (path, e)) from e


def _expect(cond, path, what):
    if not cond:
        raise ResultError("%s: %s" % (path, what))


def bin_edges(b):
    """(low, high) of event bin @b, as events.c's bin_edges()."""
    a = abs(b)
    if not a:
        return -EVENT_MIN_ABS, EVENT_MIN_ABS
    lo = EVENT_MIN_ABS * 2 ** ((a - 1) / EVENT_BINS_PER_OCTAVE)
    hi = EVENT_MIN_ABS * 2 ** (a / EVENT_BINS_PER_OCTAVE)
    if a == EVENT_HALF:
        hi = math.inf
    return (lo, hi) if b > 0 else (-hi, -lo)


class Histogram:
    """One series of events (every wakeup latency, every slack...)."""

    def __init__(self, n=0, lo=None, hi=None, bins=None):
        self.n, self.min, self.max = n, lo, hi
        self.bins = dict(bins or {})

    @classmethod
    def from_json(cls, obj, path, key):
        where = "%s: \"%s\"" % (path, key)
        _expect(isinstance(obj, dict) and isinstance(obj.get("n"), int)
                and isinstance(obj.get("bins"), list)
                and len(obj["bins"]) % 2 == 0,
                path, "\"%s\": not an event histogram" % key)
        pairs = obj["bins"]
        bins = {}
        for b, c in zip(pairs[::2], pairs[1::2]):
            _expect(isinstance(b, int) and isinstance(c, int) and c >= 0,
                    path, "\"%s\": bins must be integer pairs" % key)
            bins[b] = bins.get(b, 0) + c
        _expect(sum(bins.values()) == obj["n"], where,
                "bin counts do not add up to n")
        if obj["n"]:
            for k in ("min", "max"):
                _expect(isinstance(obj.get(k), (int, float)), where,
                        "no %s" % k)
        return cls(obj["n"], obj.get("min"), obj.get("max"), bins)

    def merge(self, other):
        """This histogram with @other's events added."""
        out = Histogram(self.n, self.min, self.max, self.bins)
        if not other.n:
            return out
        for b, c in other.bins.items():
            out.bins[b] = out.bins.get(b, 0) + c
        out.min = other.min if out.min is None else min(out.min, other.min)
        out.max = other.max if out.max is None else max(out.max, other.max)
        out.n += other.n
        return out

    def cdf(self):
        """[(value, share of events <= value)]: each bin's upper edge,
        clipped to the exact min and max, in increasing order."""
        points, seen = [], 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            hi = min(max(bin_edges(b)[1], self.min), self.max)
            points.append((hi, seen / self.n))
        return points


def check_entity_metric(check, workload):
    """(entity, metric) that a check of @workload judges ("<workload>.
    <entity>.<metric>[.vs-baseline]"), or None."""
    name, metric = check["name"], check.get("metric")
    if name.endswith(VS_BASELINE):
        name = name[:-len(VS_BASELINE)]
    prefix = workload + "."
    if (not isinstance(metric, str) or not name.startswith(prefix) or
            not name.endswith("." + metric)):
        return None
    entity = name[len(prefix):-len(metric) - 1]
    return (entity, metric) if entity else None


def samples_key(samples, entity, metric):
    """The key "source/entity/metric" of samples.json (or a baseline's
    "metrics" and "summary") that holds @entity's @metric, or None."""
    found = sorted(k for k in samples
                   if k.split("/", 2)[1:] == [entity, metric])
    return found[0] if found else None


class Workload:
    """One workload's results in a run."""

    def __init__(self, run, name):
        self.run, self.name = run, name
        self.dir = os.path.join(run.dir, name)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def verdicts(self):
        """verdicts.json: a list of checks, each with at least name,
        status and kind."""
        path = self.path("verdicts.json")
        v = load_json(path)
        _expect(isinstance(v, list), path, "not a list of checks")
        for i, c in enumerate(v):
            _expect(isinstance(c, dict) and isinstance(c.get("name"), str)
                    and c.get("status") in ("pass", "fail", "skip",
                                            "error")
                    and isinstance(c.get("kind"), str),
                    path, "check %d: no name, status or kind" % (i + 1))
        return v

    def samples(self):
        """samples.json: {"source/entity/metric": [rep values]}; none for
        a workload judged without repetitions (a refusal: rt-app was
        refused, as the workload expected)."""
        path = self.path("samples.json")
        if not os.path.exists(path):
            return {}
        s = load_json(path)
        _expect(isinstance(s, dict) and all(isinstance(v, list)
                                            for v in s.values()),
                path, "not {\"source/entity/metric\": [values]}")
        return s

    def rounds(self):
        """rounds.json: [] for a workload judged without repetitions."""
        path = self.path("rounds.json")
        if not os.path.exists(path):
            return []
        r = load_json(path)
        _expect(isinstance(r, list), path, "not a list of rounds")
        return r

    def canary(self, metric):
        """The canary's @metric (canary.h's, of the whole machine)
        before each round that has one, in round order."""
        path = self.path("rounds.json")
        out = []
        for i, r in enumerate(self.rounds()):
            c = r.get("canary") if isinstance(r, dict) else None
            _expect(isinstance(r, dict) and (c is None or
                                             isinstance(c, dict)),
                    path, "round %d: not an object, or its canary not "
                    "one" % (i + 1))
            v = (c or {}).get("canary/system/" + metric)
            if v is None:
                continue
            _expect(isinstance(v, list) and v and
                    all(isinstance(x, (int, float)) for x in v), path,
                    "round %d: canary %s: not a list of numbers" %
                    (i + 1, metric))
            out.append(v[0])
        return out

    def counted_reps(self):
        """The rep-<K> numbers of the counted repetitions, in order."""
        return [k for r in self.rounds() for k in r.get("reps", [])]

    def events(self):
        """The counted repetitions' event histograms, pooled:
        {"source/entity/series": Histogram}."""
        out = {}
        for k in self.counted_reps():
            path = self.path("rep-%d" % k, "events.json")
            if not os.path.exists(path):
                continue
            ev = load_json(path)
            _expect(isinstance(ev, dict), path, "not an object")
            for key, obj in ev.items():
                h = Histogram.from_json(obj, path, key)
                out[key] = out[key].merge(h) if key in out else h
        return out


class Run:
    """A result directory: fingerprint.json and one directory per
    workload that was judged (verdicts.json in it)."""

    def __init__(self, path):
        self.dir = os.path.abspath(path)
        fp = os.path.join(self.dir, "fingerprint.json")
        if not os.path.isdir(self.dir):
            raise ResultError("%s: not a directory" % path)
        self.fingerprint = load_json(fp)
        _expect(isinstance(self.fingerprint, dict)
                and isinstance(self.fingerprint.get("class"), str),
                fp, "no machine class: not a fingerprint.json of the tool")
        self.names = sorted(
            d for d in os.listdir(self.dir)
            if os.path.isfile(os.path.join(self.dir, d, "verdicts.json")))

    @property
    def machine_class(self):
        return self.fingerprint["class"]

    @property
    def kernel(self):
        return self.fingerprint.get("kernel_release", "unknown")

    @property
    def started(self):
        """"YYYY-mm-ddTHH:MM:SS", the machine's local time the run began
        (the directory's name), else None (a directory renamed by
        hand)."""
        m = RUN_DIR_RE.match(os.path.basename(self.dir))
        if not m:
            return None
        d, t = m.group(1), m.group(2)
        return "%s-%s-%sT%s:%s:%s" % (d[:4], d[4:6], d[6:], t[:2],
                                      t[2:4], t[4:])

    def cost(self):
        """time.json: where the run's time went ({"wall_s": ..., "rtapp_s":
        ..., "repetitions": ...}); {} for a run that has none (one that
        was cut short)."""
        path = os.path.join(self.dir, "time.json")
        if not os.path.exists(path):
            return {}
        t = load_json(path)
        _expect(isinstance(t, dict), path, "not an object")
        return t

    def workloads(self):
        return [Workload(self, n) for n in self.names]

    def workload(self, name):
        if name not in self.names:
            raise ResultError("%s: no results of workload \"%s\""
                              % (self.dir, name))
        return Workload(self, name)


def baseline_events(baseline, path):
    """A baseline file's event histograms, pooled over its repetitions:
    {"source/entity/series": Histogram}."""
    out = {}
    for key, reps in (baseline.get("events") or {}).items():
        _expect(isinstance(reps, list), path,
                "\"events\".\"%s\": not a list of repetitions" % key)
        for obj in reps:
            h = Histogram.from_json(obj, path, key)
            out[key] = out[key].merge(h) if key in out else h
    return out
