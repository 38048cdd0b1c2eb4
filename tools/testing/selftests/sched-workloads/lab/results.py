# SPDX-License-Identifier: GPL-2.0
"""Reading a result directory of "sched-workloads run" back.

Where each file is, how event histograms are binned and what became of
each workload, the run says itself in its index.json (written by the
tool: lib/results.c, run/run_index.c); the index's own name is the one
thing this module knows of the layout, and the bins' edges are the
binary's (facts.py). report.py, kcidb.py and history.py read runs
through this module only.

A file that is not what the tool writes raises ResultError, naming the
file and what is wrong with it.
"""
import json
import math
import os
import re

import facts

# The directory name the tool gives a run: <YYYYmmdd-HHMMSS>-<release>.
RUN_DIR_RE = re.compile(r"^(\d{8})-(\d{6})-(.+)$")

# The file that says what is where in a run (run/run_index.h).
INDEX = "index.json"
INDEX_FORMAT = 1

VS_BASELINE = ".vs-baseline"


class ResultError(Exception):
    """A result file missing or not in the tool's format: exit
    facts.EXIT_BAD_RESULTS."""


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


class EventBins:
    """How the tool bins a series of events (lib/event_hist.h): the
    binning a run's index.json names, with the edges the binary states
    for it (facts.event_bins()), taken when first asked."""

    SCHEME = ("per_octave", "min_abs", "octaves")

    def __init__(self, obj, path):
        _expect(isinstance(obj, dict) and
                isinstance(obj.get("per_octave"), int) and
                obj["per_octave"] > 0 and
                isinstance(obj.get("min_abs"), (int, float)) and
                obj["min_abs"] > 0 and isinstance(obj.get("octaves"), int),
                path, "\"event_bins\": not the bins of event histograms")
        self.scheme, self.path = obj, path
        self.upper = None

    def edges(self, b):
        """(low, high) of bin @b: bin 0 spans the smaller values either
        side of 0, bin -b mirrors bin b, the last one is open."""
        if self.upper is None:
            tool = facts.event_bins()
            _expect(all(self.scheme[k] == tool[k] for k in self.SCHEME),
                    self.path, "\"event_bins\": not the bins of %s (%s)"
                    % (facts.binary(), ", ".join(
                        "%s %s" % (k, tool[k]) for k in self.SCHEME)))
            self.upper = [math.inf if e is None else e
                          for e in tool["edges"]]
        a = abs(b)
        lo = self.upper[a - 1] if a else -self.upper[0]
        hi = self.upper[a]
        return (lo, hi) if b >= 0 else (-hi, -lo)


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

    def cdf(self, bins):
        """[(value, share of events <= value)]: each bin's upper edge
        (@bins: EventBins), clipped to the exact min and max, in
        increasing order."""
        points, seen = [], 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            hi = min(max(bins.edges(b)[1], self.min), self.max)
            points.append((hi, seen / self.n))
        return points


def check_entity_metric(check, workload):
    """(entity, metric) that a check of @workload judges: its "entity"
    (a task, a thread, "cpu1", "system") and its "metric"; None for a
    result of no metric (rt-app refused, say)."""
    metric, entity = check.get("metric"), check.get("entity")
    if not isinstance(metric, str):
        return None
    if isinstance(entity, str):
        return (entity, metric) if entity else None
    # A verdicts.json written before results had "entity": the entity is
    # the part of "<workload>.<entity>.<metric>[.vs-baseline]" between
    # the workload and the metric.
    name = check["name"]
    if name.endswith(VS_BASELINE):
        name = name[:-len(VS_BASELINE)]
    prefix = workload + "."
    if not name.startswith(prefix) or not name.endswith("." + metric):
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
        self.entry = run.entries[name]

    def path(self, key):
        """The path of the workload's file @key ("verdicts", "copy",
        "dir"...) in the run's layout."""
        return self.run.layout_path("workload", key, workload=self.name)

    def rep_path(self, rep, key):
        """The path of file @key of repetition @rep ("events", "trace",
        "dir"...)."""
        return self.run.layout_path("repetition", key, workload=self.name,
                                    rep=rep)

    @property
    def judged(self):
        """It has verdicts (a workload skipped before its first round,
        or broken, has none)."""
        return "verdicts" in self.entry["files"]

    @property
    def neighbours(self):
        """Who kept the machine too busy for it: [{"comm", "pid",
        "policy", "share"...}] from its last disturbed repetition."""
        n = self.entry.get("neighbours")
        return n if isinstance(n, list) else []

    @property
    def state(self):
        """"pass", "fail", "skip", "error", "pending" or "unknown", as
        the run's KTAP line of the workload says."""
        return self.entry.get("state", "unknown")

    @property
    def reason(self):
        return self.entry.get("reason", "")

    def verdicts(self):
        """verdicts.json: a list of checks, each with at least name,
        status and kind."""
        path = self.path("verdicts")
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
        path = self.path("samples")
        if "samples" not in self.entry["files"]:
            return {}
        s = load_json(path)
        _expect(isinstance(s, dict) and all(isinstance(v, list)
                                            for v in s.values()),
                path, "not {\"source/entity/metric\": [values]}")
        return s

    def rounds(self):
        """rounds.json: [] for a workload judged without repetitions."""
        path = self.path("rounds")
        if "rounds" not in self.entry["files"]:
            return []
        r = load_json(path)
        _expect(isinstance(r, list), path, "not a list of rounds")
        return r

    def canary(self, metric):
        """The canary's @metric (machine/canary.h's, of the whole machine)
        before each round that has one, in round order."""
        path = self.path("rounds")
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

    def stretches(self, rep, section):
        """The longest stretches of @section ("wc" or "rt") that
        repetition @rep's explain.json names, longest first, each
        (start_s, offset_s, len_us, who); None when it has no
        explain.json."""
        path = self.rep_path(rep, "explain_json")
        if not os.path.exists(path):
            return None
        ex = load_json(path)
        sec = ex.get(section) if isinstance(ex, dict) else None
        _expect(isinstance(sec, dict), path,
                "no \"%s\" section: not an explain.json" % section)
        out = []
        for i, e in enumerate(sec.get("longest", [])):
            _expect(isinstance(e, dict) and
                    all(isinstance(e.get(k), (int, float))
                        for k in ("start_s", "offset_s", "len_us")) and
                    isinstance(e.get("who"), str), path,
                    "\"%s\".longest[%d]: not a stretch" % (section, i))
            out.append((e["start_s"], e["offset_s"], e["len_us"], e["who"]))
        return out

    def counted_reps(self):
        """The rep-<K> numbers of the counted repetitions, in order."""
        return [k for r in self.rounds() for k in r.get("reps", [])]

    def events(self):
        """The counted repetitions' event histograms, pooled:
        {"source/entity/series": Histogram}."""
        out = {}
        for k in self.counted_reps():
            path = self.rep_path(k, "events")
            if not os.path.exists(path):
                continue
            ev = load_json(path)
            _expect(isinstance(ev, dict), path, "not an object")
            for key, obj in ev.items():
                h = Histogram.from_json(obj, path, key)
                out[key] = out[key].merge(h) if key in out else h
        return out


class Run:
    """A result directory: its index.json, fingerprint.json and one
    directory per workload."""

    def __init__(self, path):
        self.dir = os.path.abspath(path)
        if not os.path.isdir(self.dir):
            raise ResultError("%s: not a directory" % path)
        ipath = os.path.join(self.dir, INDEX)
        if not os.path.exists(ipath):
            raise ResultError("%s: no %s: a run of an older sched-workloads "
                              "(\"sched-workloads index %s\" writes one)"
                              % (path, INDEX, path))
        index = load_json(ipath)
        _expect(isinstance(index, dict) and
                index.get("format") == INDEX_FORMAT and
                isinstance(index.get("layout"), dict) and
                isinstance(index.get("workloads"), dict), ipath,
                "not an index of format %d" % INDEX_FORMAT)
        self.layout = index["layout"]
        for level in ("run", "workload", "repetition"):
            _expect(isinstance(self.layout.get(level), dict) and
                    all(isinstance(v, str)
                        for v in self.layout[level].values()),
                    ipath, "\"layout\".\"%s\": not an object of paths" %
                    level)
        self.bins = EventBins(index.get("event_bins"), ipath)
        self.entries = index["workloads"]
        for name, e in self.entries.items():
            _expect(isinstance(e, dict) and isinstance(e.get("state"), str)
                    and isinstance(e.get("files"), list), ipath,
                    "\"workloads\".\"%s\": no state or files" % name)
        fp = self.path("fingerprint")
        self.fingerprint = load_json(fp)
        _expect(isinstance(self.fingerprint, dict)
                and isinstance(self.fingerprint.get("class"), str),
                fp, "no machine class: not a fingerprint.json of the tool")
        # the workloads judged: those with verdicts
        self.names = sorted(n for n, e in self.entries.items()
                            if "verdicts" in e["files"])

    def layout_path(self, level, key, **names):
        """The path of file @key of @level ("run", "workload",
        "repetition"), "{workload}" and "{rep}" replaced by @names."""
        rel = self.layout[level].get(key)
        if rel is None:
            raise ResultError("%s: %s names no %s file \"%s\"" %
                              (self.dir, INDEX, level, key))
        return os.path.join(self.dir, rel.format(**names))

    def path(self, key):
        """The path of the run's file @key ("fingerprint", "time")."""
        return self.layout_path("run", key)

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
        path = self.path("time")
        if not os.path.exists(path):
            return {}
        t = load_json(path)
        _expect(isinstance(t, dict), path, "not an object")
        return t

    def workloads(self):
        """The workloads that were judged (have verdicts), by name."""
        return [Workload(self, n) for n in self.names]

    def every(self):
        """Every workload of the battery, judged or not, in its order."""
        return [Workload(self, n) for n in self.entries]

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
