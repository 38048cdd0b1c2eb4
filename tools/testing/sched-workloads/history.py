#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads history: where a series of kernels changed.

  history.py [--given-order] [--json | --html [--commits FILE]]
             [options] RESULTS...

RESULTS are result directories of "sched-workloads run", one per kernel
(a daily linux-next lab's runs, say), on machines of one class. They are
taken in the order the runs started (their directory names), or as
given with --given-order. For every judged metric (every check of the
runs' verdicts.json; a metric's absolute and baseline check are one
series) it prints the series, the median of each kernel's repetitions,
and the change points: the first kernel after which the metric moved,
from what to what, and the p-value.

Method: E-divisive means (Matteson and James, 2014), as MongoDB's and
Hunter's performance CI use it, with alpha = 1: the split of a series
into a before and an after that maximises the energy distance between
the two,

  Q = m n / (m + n) * (2 E|X - Y| - E|X - X'| - E|Y - Y'|),

taken over every repetition of every kernel, tried only between two
kernels. The split counts when a permutation test finds it significant
and then the two sides are searched again (bisection), until no split
counts. The permutation test permutes kernels, not repetitions: the
repetitions of one run share its host's state (a VM's neighbours, a
minute of drift), so a run that is off as a whole must not look like a
change. A consequence: a change is named once at least two kernels
after it show it (one kernel alone is as likely a disturbed run).
Besides being significant (p <= 0.01, 4999 permutations), the step
must matter: the medians before and after differ by at least
--min-change (10%) of the one before, by more than --min-effect (2)
standard deviations of a run's repetitions (pooled over the kernels)
and, for a share, by at least 0.01. And at least three kernels must be
on each side (--min-kernels): a change is named once three kernels
after it show it, as the battery confirms a regression in three rounds.
The permutation test bounds what a short series can tell: with ten
kernels split five and five, no p is below 2 / C(10, 5) = 0.008.

Measured on series made from the AMD class's recorded repetitions
(tests/test_history.py's generator: 3 repetitions a kernel drawn from
the baseline's 5, each run shifted by up to 3% as a host drifts): no
change named in 1120 flat 10-kernel series of a metric nor in 972 flat
30-kernel ones; a step at kernel 6 of 10 named there 36 times in 40 at
+30%, 26 at +20%, 0 at +10% (wu_lat.p50 of periodic-light, whose
repetitions spread 8%). 30 kernels of the whole battery (162 metrics)
take 3 s.

The machine is a series too: the canary's figures before every round
(machine/canary.h: a loop, libm, a timer wakeup and a cross-CPU
wakeup) of every workload of a run are that kernel's block, searched by
the same method, and so is each workload's host gauge
(machine/host_gauge.h: rt-app's loops per us on a CPU, measured during
every repetition, on its workload's own scale). A metric's change at a
kernel where the canary or its own workload's gauge changed too says
so: a lab that moved the runs to another host, or a host that got busier,
moves metrics as a kernel would, and one machine must tell the two
apart. Such a change is still named (a kernel may have moved it too);
the canary's own changes do not count for the exit code.

With --html it writes one HTML page (history_report.py): the change
points first, each with its metrics, a figure of each across the
series and, given --commits (series' changes.json, or a lab's list in
its form), the commits that landed between the change's two kernels.

Exit: 0 no change point, 1 a metric changed (named), 2 usage (fewer
than three runs, runs of different machine classes without --force, a
commits file that is not a list of change points), 4 nothing to read
(no judged metric; --html without python3-matplotlib), 9 a result
directory that is not the tool's.
"""
import argparse
import json
import math
import random
import statistics
import sys

import sw_paths  # noqa: F401 (the collection's lab/ on sys.path)
import facts
import results

DEFAULT_PERMUTATIONS = 4999
DEFAULT_P = 0.01
# The least step, and LEAST_STEP below, are history's own and defined
# here only: the binary has no threshold for this decision. It judges
# one run against a baseline, by the smallest change each baseline
# check declares (absolute checks declare none) and the canary by its
# margins around the baseline's range; history names a step between
# the medians of kernels either side of a split, for every judged
# metric and the canary alike.
DEFAULT_MIN_CHANGE = 0.10
DEFAULT_MIN_EFFECT = 2.0
DEFAULT_MIN_KERNELS = 3
# A share (of the CPUs, of the activations) moving by less than 1% is
# not news even from 0, where --min-change says nothing.
LEAST_STEP = {"share": 0.01}


class Series:
    """One judged metric across the kernels: each kernel's repetitions
    (an empty list where that run lacks it)."""

    def __init__(self, name, unit, nkernels):
        self.name, self.unit = name, unit
        self.reps = [[] for _ in range(nkernels)]
        self.changes = []

    def medians(self):
        return [statistics.median(r) if r else None for r in self.reps]


def collect(runs):
    """{name: Series} of every check of every run, in the runs' order."""
    series = {}
    for k, run in enumerate(runs):
        for w in run.workloads():
            samples = None
            for check in w.verdicts():
                es = results.check_entity_metric(check, w.name)
                if not es:
                    continue
                name = "%s.%s.%s" % (w.name, es[0], es[1])
                if name not in series:
                    series[name] = Series(name, check.get("unit", ""),
                                          len(runs))
                s = series[name]
                if s.reps[k]:
                    continue
                if samples is None:
                    samples = w.samples()
                key = results.samples_key(samples, *es)
                if key:
                    s.reps[k] = [v for v in samples[key]
                                 if isinstance(v, (int, float))]
    return series


# machine/host_gauge.h's figure of each repetition: rt-app's loops per us on a
# CPU, on the scale of its workload.
GAUGE, GAUGE_UNIT = "host.loops_per_us", "loops/us"


def gauge_name(workload):
    return "%s.run.%s" % (workload, GAUGE)


def collect_canary(runs):
    """{name: Series} of the machine: the canary, a kernel's block being
    the canary before every round of every workload of its run, and each
    workload's host gauge, a block being its repetitions; only those
    that some run has."""
    series = {}
    # the figures of the whole machine that the tool takes for a slower
    # host when it judges a run against a baseline
    for name, unit in facts.canary_machine():
        s = Series(name, unit, len(runs))
        for k, run in enumerate(runs):
            for w in run.workloads():
                s.reps[k] += w.canary(name)
        if any(s.reps):
            series[name] = s
    for k, run in enumerate(runs):
        for w in run.workloads():
            reps = [v for v in w.samples().get("host/run/" + GAUGE, [])
                    if isinstance(v, (int, float))]
            if reps:
                name = gauge_name(w.name)
                series.setdefault(name, Series(name, GAUGE_UNIT,
                                               len(runs))).reps[k] = reps
    return series


def machine_moved(change, canary, metric):
    """The changes at the kernel of @metric's @change of the canary and
    of the gauge of @metric's workload (another's has its own host)."""
    gauge = gauge_name(metric.split(".", 1)[0])
    return [dict(c, name=s.name, unit=s.unit) for s in canary.values()
            if s.name in dict(facts.canary_machine()) or s.name == gauge
            for c in s.changes if c["kernel"] == change["kernel"]]


class Energy:
    """E-divisive's statistic over blocks (kernels) of observations:
    sums of |x - y| between every two blocks, computed once, so that a
    split of any order of the blocks costs O(blocks^2)."""

    def __init__(self, blocks):
        self.n = [len(b) for b in blocks]
        self.d = [[sum(abs(x - y) for x in a for y in b) for b in blocks]
                  for a in blocks]

    def best_split(self, order, side=1):
        """(Q, t): the largest Q over splits of the blocks @order
        between position t - 1 and t, with at least @side blocks on
        each side."""
        k = len(order)
        # within[t]: sum of |x - y| over ordered pairs of order[:t];
        # cross-sums grow block by block
        best = (-math.inf, None)
        total = sum(self.d[a][b] for a in order for b in order)
        ntotal = sum(self.n[a] for a in order)
        left = 0.0
        left_right = [0.0] * k  # sum over order[:t] x order[j], per j
        m = 0
        for t in range(1, k):
            a = order[t - 1]
            left += 2 * left_right[t - 1] + self.d[a][a]
            for j in range(t, k):
                left_right[j] += self.d[a][order[j]]
            m += self.n[a]
            n = ntotal - m
            if t < side or k - t < side:
                continue
            cross = sum(left_right[t:])
            right = total - left - 2 * cross
            q = 2 * cross / (m * n)
            if m > 1:
                q -= left / (m * (m - 1))
            if n > 1:
                q -= right / (n * (n - 1))
            q *= m * n / (m + n)
            if q > best[0]:
                best = (q, t)
        return best


def split_p(energy, order, q, side, permutations, p_max, rng):
    """The permutation p-value of a best split worth @q of @order: the
    share of block orders whose best split is worth as much. Stops as
    soon as the answer is known to be above @p_max."""
    worse = int(p_max * (permutations + 1))
    at_least = 0
    shuffled = list(order)
    for i in range(permutations):
        rng.shuffle(shuffled)
        if energy.best_split(shuffled, side)[0] >= q * (1 - 1e-12):
            at_least += 1
            if at_least >= worse:
                return (1 + at_least) / (2 + i)
    return (1 + at_least) / (1 + permutations)


def noise(reps):
    """The spread of one run's repetitions: the standard deviation of
    every repetition from its kernel's mean, pooled over the kernels
    (a kernel's own median absolute deviation is 0 whenever two of its
    three repetitions agree, which tails with few distinct values often
    do)."""
    ss, df = 0.0, 0
    for r in reps:
        if len(r) > 1:
            mean = statistics.fmean(r)
            ss += sum((x - mean) ** 2 for x in r)
            df += len(r) - 1
    return math.sqrt(ss / df) if df else 0.0


def find_changes(series, args, rng):
    """E-divisive on @series: the significant steps that matter, as
    dicts, in kernel order."""
    present = [k for k, r in enumerate(series.reps) if r]
    blocks = [series.reps[k] for k in present]
    energy = Energy(blocks)
    sigma = noise(blocks)
    changes = []
    todo = [list(range(len(present)))]
    while todo:
        seg = todo.pop()
        if len(seg) < 2 * args.min_kernels:
            continue
        q, t = energy.best_split(seg, args.min_kernels)
        if t is None or q <= 0:
            continue
        p = split_p(energy, seg, q, args.min_kernels, args.permutations,
                    args.p, rng)
        if p > args.p:
            continue
        before = [x for b in seg[:t] for x in blocks[b]]
        after = [x for b in seg[t:] for x in blocks[b]]
        mb, ma = statistics.median(before), statistics.median(after)
        delta = ma - mb
        todo += [seg[:t], seg[t:]]
        if (abs(delta) < args.min_change * abs(mb) or
                abs(delta) <= args.min_effect * sigma or
                abs(delta) < LEAST_STEP.get(series.unit, 0)):
            continue
        changes.append({"kernel": present[seg[t]],
                        "previous": present[seg[t] - 1],
                        "before": mb, "after": ma, "delta": delta,
                        "relative": delta / mb if mb else None,
                        "p": p, "noise": sigma})
    return sorted(changes, key=lambda c: c["kernel"])


def fmt(v):
    return "-" if v is None else "%.4g" % v


def print_change(c, unit, kernels, out):
    rel = (" (%+.1f%%)" % (100 * c["relative"])
           if c["relative"] is not None else "")
    print("  change at %s (after %s): %s -> %s %s%s, p=%.3g" %
          (kernels[c["kernel"]], kernels[c["previous"]], fmt(c["before"]),
           fmt(c["after"]), unit, rel, c["p"]), file=out)


def print_series(s, kernels, out):
    print("%s (%s): %s" % (s.name, s.unit or "-",
                           " ".join(fmt(m) for m in s.medians())), file=out)
    if not s.changes:
        print("  no change", file=out)
    for c in s.changes:
        print_change(c, s.unit, kernels, out)
        for m in c.get("machine", []):
            print("    the machine changed there too: %s %s -> %s %s: "
                  "judge this change on one host" %
                  (m["name"], fmt(m["before"]), fmt(m["after"]),
                   m["unit"]), file=out)


def method_text(args):
    return ("E-divisive means (alpha 1), splits between kernels; "
            "kernel-order permutation test, %d permutations, p <= %g; a "
            "step of at least %g%% and %g standard deviations of a run's "
            "repetitions, %d kernels a side" %
            (args.permutations, args.p, 100 * args.min_change,
             args.min_effect, args.min_kernels))


def print_text(runs, series, canary, args, out):
    kernels = [r.kernel for r in runs]
    changed = [s for s in series.values() if s.changes]
    print("# history: %d runs of %s, %s to %s" %
          (len(runs), runs[0].machine_class, kernels[0], kernels[-1]),
          file=out)
    print("# method: %s" % method_text(args), file=out)
    print("# kernels: %s" % " ".join(kernels), file=out)
    print_states(runs, out)
    for s in sorted(series.values(), key=lambda s: s.name):
        if not args.changed_only or s.changes:
            print_series(s, kernels, out)
    print("# the machine: the canary before each round, and each "
          "workload's host gauge (%s)" % GAUGE, file=out)
    for s in canary.values():
        if not args.changed_only or s.changes:
            print_series(s, kernels, out)
    print("# %d metrics, %d changed%s" %
          (len(series), len(changed),
           ", %d of them where the machine changed too" %
           len([s for s in changed if any(c.get("machine")
                                          for c in s.changes)])
           if canary else "; no canary in these runs"), file=out)


def workload_states(runs):
    """{workload: [its state in each run, or "absent"]}, every workload
    of every run in the order the runs list them: a series with a gap
    (skipped, broken, cut) says so rather than running through it."""
    names = []
    for r in runs:
        names += [w.name for w in r.every() if w.name not in names]
    return {n: [r.entries[n]["state"] if n in r.entries else "absent"
                for r in runs] for n in names}


def print_states(runs, out):
    states = workload_states(runs)
    print("# workloads: %d, their state in each run%s" %
          (len(states), "" if all(set(v) == {"pass"} for v in
                                  states.values()) else
           " (not every one passed in every run)"), file=out)
    for name, v in states.items():
        if set(v) != {"pass"}:
            print("  %s: %s" % (name, " ".join(v)), file=out)


def metric_json(s, kernels):
    changes = [dict(c, kernel=kernels[c["kernel"]],
                    previous=kernels[c["previous"]],
                    machine=[dict(m, kernel=kernels[m["kernel"]],
                                  previous=kernels[m["previous"]])
                             for m in c.get("machine", [])])
               for c in s.changes]
    return {"name": s.name, "unit": s.unit, "medians": s.medians(),
            "reps": [len(r) for r in s.reps], "changes": changes}


def print_json(runs, series, canary, args, out):
    kernels = [r.kernel for r in runs]
    doc = {
        "class": runs[0].machine_class,
        "runs": [{"dir": r.dir, "kernel": r.kernel, "started": r.started,
                  "workloads": {w.name: w.state for w in r.every()}}
                 for r in runs],
        "method": {"name": "e-divisive means", "alpha": 1,
                   "permutations": args.permutations, "p": args.p,
                   "min_change": args.min_change, "seed": args.seed},
        "metrics": [metric_json(s, kernels)
                    for s in sorted(series.values(), key=lambda s: s.name)],
        "machine": [metric_json(s, kernels) for s in canary.values()],
    }
    json.dump(doc, out, indent=1)
    out.write("\n")


def print_html(runs, series, canary, args, out):
    import history_report
    out.write(history_report.page(runs, series, canary,
                                  workload_states(runs), method_text(args),
                                  args.commit_map))


def order_runs(runs, given):
    if given:
        return runs
    missing = [r.dir for r in runs if r.started is None]
    if missing:
        raise ValueError("%s: no date in the directory name (the tool's "
                         "<YYYYmmdd-HHMMSS>-<release>): use --given-order"
                         % missing[0])
    return sorted(runs, key=lambda r: r.started)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads history",
        description="Runs of successive kernels: per judged metric, the "
        "series and its change points (E-divisive means).")
    ap.add_argument("results", nargs="+", metavar="RESULTS")
    ap.add_argument("--given-order", action="store_true",
                    help="take the runs in the order given, not by date")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="JSON output")
    out.add_argument("--html", action="store_true",
                     help="an HTML page, a figure of each metric that "
                     "changed (needs python3-matplotlib)")
    ap.add_argument("--commits", metavar="FILE",
                    help="with --html: the commits between the kernels of "
                    "each change point, as series' changes.json lists them")
    ap.add_argument("--changed-only", action="store_true",
                    help="print only the metrics that changed")
    ap.add_argument("--permutations", type=int,
                    default=DEFAULT_PERMUTATIONS,
                    help="of the permutation test (default %(default)s)")
    ap.add_argument("--p", type=float, default=DEFAULT_P,
                    help="largest p of a change (default %(default)s)")
    ap.add_argument("--min-change", type=float, default=DEFAULT_MIN_CHANGE,
                    help="least relative step (default %(default)s)")
    ap.add_argument("--min-effect", type=float, default=DEFAULT_MIN_EFFECT,
                    help="least step, in standard deviations of a run's "
                    "repetitions (default %(default)s)")
    ap.add_argument("--min-kernels", type=int, default=DEFAULT_MIN_KERNELS,
                    help="least kernels on each side of a change "
                    "(default %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="of the permutations, so that output repeats")
    ap.add_argument("--force", action="store_true",
                    help="accept runs of different machine classes")
    ap.add_argument("-o", "--output", help="write here, not to stdout")
    args = ap.parse_args(argv)
    if (args.permutations < 19 or not 0 < args.p < 1 or
            args.min_kernels < 1):
        ap.error("--permutations at least 19, --p between 0 and 1, "
                 "--min-kernels at least 1")
    if args.commits and not args.html:
        ap.error("--commits goes with --html")
    if len(args.results) < 3:
        ap.error("at least three result directories: a change needs "
                 "kernels on both sides of it")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        runs = [results.Run(d) for d in args.results]
        runs = order_runs(runs, args.given_order)
    except results.ResultError as e:
        print("history: %s" % e, file=sys.stderr)
        return facts.EXIT_BAD_RESULTS
    except ValueError as e:
        print("history: %s" % e, file=sys.stderr)
        return facts.EXIT_USAGE
    classes = sorted({r.machine_class for r in runs})
    if len(classes) > 1:
        print("history: runs of different machine classes (%s)%s" %
              (", ".join(classes), ": compared anyway (--force)"
               if args.force else "; --force compares them anyway"),
              file=sys.stderr)
        if not args.force:
            return facts.EXIT_USAGE
    try:
        series = collect(runs)
        canary = collect_canary(runs)
    except results.ResultError as e:
        print("history: %s" % e, file=sys.stderr)
        return facts.EXIT_BAD_RESULTS
    if not series:
        print("history: no judged metric in these runs", file=sys.stderr)
        return facts.EXIT_SKIP
    rng = random.Random(args.seed)
    for name in sorted(series):
        series[name].changes = find_changes(series[name], args, rng)
    for s in canary.values():
        s.changes = find_changes(s, args, rng)
    for s in series.values():
        for c in s.changes:
            c["machine"] = machine_moved(c, canary, s.name)
    printer = print_text
    if args.json:
        printer = print_json
    elif args.html:
        printer = print_html
        try:
            import history_report
        except ImportError as e:
            print("history: --html: %s: python3-matplotlib missing "
                  "(Debian: apt-get install python3-matplotlib)" % e,
                  file=sys.stderr)
            return facts.EXIT_SKIP
        try:
            args.commit_map = (history_report.load_commits(args.commits)
                               if args.commits else None)
        except history_report.CommitsError as e:
            print("history: --commits %s" % e, file=sys.stderr)
            return facts.EXIT_USAGE
    out = open(args.output, "w") if args.output else sys.stdout
    try:
        printer(runs, series, canary, args, out)
    finally:
        if args.output:
            out.close()
    changed = any(s.changes for s in series.values())
    return facts.EXIT_FAIL if changed else facts.EXIT_PASS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
