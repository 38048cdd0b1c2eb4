#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sched-workloads report: one HTML page of a run, or of A against B.

  report.py [-o FILE] [-B BASELINES] RESULTS [RESULTS_B]

Per workload, the verdicts first; then the distributions of wakeup
latency and slack over every activation of the counted repetitions
against the baseline's (CDFs); the CPU shares against the limits and
the baseline; and, for a failing work-conservation (wc.*) or RT
placement (rt.wait_while_lower*) check, a per-CPU timeline of the
longest stretch that explain.json names, drawn from the trace by
"sched-workloads analyze --timeline". With two results: the checks of
A and B side by side, coloured by B's verdict, "sched-workloads
compare" A B's table, and the distributions of A and B overlaid.

The page is one file: figures are SVG in data: URLs, the style is
inline, nothing is fetched when it is viewed. Written to
RESULTS/report.html, or RESULTS_B/report-vs-<A>.html, unless -o.

Exit: 0 written, 2 usage or an output not writable, 4
python3-matplotlib missing, 9 a result directory that is not the
tool's.
"""
import argparse
import base64
import html
import json
import os
import subprocess
import sys

import sw_paths
import facts
import results

# The event series drawn as CDFs: rt-app's wakeup latency and slack per
# activation, the trace's wakeup latency.
CDF_SERIES = {"wu_lat": "rt-app wakeup latency", "slack": "rt-app slack",
              "wakeup_lat": "trace wakeup latency"}
# Series that may be negative: a symmetric log x axis, the others log.
SIGNED_SERIES = ("slack",)
# The share metrics drawn as CPU shares: what a task or CPU got of a CPU.
CPU_SHARE_SUFFIXES = ("cpu_share", "busy_share")
# Margin drawn on each side of an explained stretch (s).
TIMELINE_MARGIN = 0.005
# A failing check of these metrics gets the timeline of the first
# stretch of its explain.json section.
TIMELINE_SECTIONS = (("wc.", "wc"), ("rt.wait_while_lower", "rt"))

STYLE = """
body { font-family: sans-serif; margin: 1.5em; max-width: 1100px; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 90%; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
td.num { text-align: right; font-family: monospace; }
tr.pass td.status { background: #d5efd9; }
tr.fail td.status { background: #f6cdc8; }
tr.skip td.status { background: #f7ecc0; }
tr.error td.status { background: #e5d3ee; }
tr.absent td.status { background: #eeeeee; }
li.fail { color: #a01010; }
li.error { color: #602080; }
li.skip { color: #806000; }
td.diag { font-size: 85%; color: #444; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto;
      font-size: 80%; }
.note { color: #666; font-style: italic; }
h2 { border-bottom: 1px solid #999; margin-top: 2em; }
"""


def esc(x):
    return html.escape(str(x), quote=True)


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.4g" % v
    return str(v)


def img(svg, alt):
    data = base64.b64encode(svg).decode("ascii")
    return ('<img alt="%s" src="data:image/svg+xml;base64,%s">' %
            (esc(alt), data))


class Baselines:
    """The baseline file each workload of a run was judged against, as
    the run's index.json names it (none: the run had none), read once."""

    def __init__(self, run):
        self.run = run
        self.cache = {}

    def path(self, workload):
        if workload not in self.run.entries:
            return None
        return self.run.entries[workload].get("baseline")

    def get(self, workload):
        if workload not in self.cache:
            path = self.path(workload)
            self.cache[workload] = (results.load_json(path)
                                    if path and os.path.exists(path)
                                    else None)
        return self.cache[workload]

    def events(self, workload):
        b = self.get(workload)
        if not b:
            return {}
        return results.baseline_events(b, self.path(workload))

    def median(self, workload, entity, metric):
        summary = (self.get(workload) or {}).get("summary") or {}
        key = results.samples_key(summary, entity, metric)
        return summary[key].get("median") if key else None


def binary():
    return sw_paths.binary()


def summary_counts(checks):
    counts = {}
    for c in checks:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    return ", ".join("%s %d" % (s, counts[s]) for s in
                     ("pass", "fail", "skip", "error") if s in counts)


def verdict_table(checks):
    rows = ['<table class="verdicts"><tr><th>check</th><th>status</th>'
            '<th>kind</th><th>metric</th><th>value</th><th>limit</th>'
            '<th>unit</th><th>room</th><th>repetitions beyond</th>'
            '<th>diagnostic</th></tr>']
    for c in checks:
        rows.append(
            '<tr class="verdict %s" id="%s" data-check="%s" '
            'data-status="%s">'
            '<td>%s</td><td class="status">%s</td><td>%s</td><td>%s</td>'
            '<td class="num">%s</td><td class="num">%s</td><td>%s</td>'
            '<td class="num">%s</td><td class="num">%s / %s</td>'
            '<td class="diag">%s</td></tr>' %
            (esc(c["status"]), esc(c["name"]), esc(c["name"]),
             esc(c["status"]), esc(c["name"]), esc(c["status"]),
             esc(c["kind"]),
             esc(c.get("metric") or "-"), fmt(c.get("value")),
             fmt(c.get("limit")), esc(c.get("unit") or ""),
             fmt(c.get("room")), fmt(c.get("beyond")), fmt(c.get("reps")),
             esc(c.get("diag", ""))))
    rows.append("</table>")
    return "\n".join(rows)


def series_of(key):
    """(entity, series) of an event key "source/entity/series"."""
    parts = key.split("/", 2)
    return (parts[1], parts[2]) if len(parts) == 3 else (None, None)


def cdf_figures(name, runs_events, base_events, bins):
    """The CDFs of a workload: one figure per entity and series that has
    events. @runs_events: [(label, {key: Histogram})]; @bins: how the
    tool bins them (results.EventBins)."""
    import report_figures
    kept = sorted(k for k, h in base_events.items() if h.n)
    out = ['<p class="note">the baseline keeps the events of the series '
           'its checks judge: %s</p>' % esc(", ".join(kept) or "none")]
    keys = sorted({k for _, ev in runs_events for k, h in ev.items()
                   if h.n and series_of(k)[1] in CDF_SERIES})
    for key in keys:
        entity, series = series_of(key)
        curves = [(label + " (%d)" % ev[key].n, ev[key].cdf(bins), False)
                  for label, ev in runs_events
                  if key in ev and ev[key].n]
        b = base_events.get(key)
        if b and b.n:
            curves.append(("baseline (%d)" % b.n, b.cdf(bins), True))
        if not (b and b.n):
            out.append('<p class="note">%s: no baseline of this series, '
                       'the run alone</p>' % esc(key))
        title = "%s: %s of %s" % (name, CDF_SERIES[series], entity)
        out.append(img(report_figures.cdf(title, "us", curves,
                                          series in SIGNED_SERIES),
                       "CDF " + key))
    return out


def is_cpu_share(check):
    return (check.get("unit") == "share" and
            str(check.get("metric", "")).endswith(CPU_SHARE_SUFFIXES))


def share_bars(name, checks):
    """[(entity, metric, value, limit, status)], one per entity and
    share metric that a check judges: the value measured, the limit of
    its absolute check (None without one) and its worst status."""
    order = ("pass", "skip", "error", "fail")
    bars = {}
    for c in checks:
        em = results.check_entity_metric(c, name)
        if not em or not is_cpu_share(c) or c.get("value") is None:
            continue
        bar = bars.setdefault(em, [c["value"], None, "pass"])
        if c["kind"] == "absolute":
            bar[0], bar[1] = c["value"], c.get("limit")
        if order.index(c["status"]) > order.index(bar[2]):
            bar[2] = c["status"]
    return [em + tuple(v) for em, v in bars.items()]


def share_figure(w, checks, baselines):
    import report_figures
    bars = []
    found = share_bars(w.name, checks)
    samples = w.samples() if found else {}
    for entity, metric, value, limit, status in found:
        key = results.samples_key(samples, entity, metric)
        reps = [v for v in (samples.get(key) or []) if v is not None]
        bars.append(("%s %s" % (entity, metric), value, reps, limit,
                     baselines.median(w.name, entity, metric), status))
    if not bars:
        return None
    return img(report_figures.shares("%s: shares" % w.name, bars),
               "shares " + w.name)


def timeline_problem(tl):
    """Why @tl is not the JSON of "analyze --timeline", or None."""
    if not isinstance(tl, dict):
        return "not a JSON object"
    for k in ("start", "end", "cpus"):
        if not isinstance(tl.get(k), (int, float)):
            return "no \"%s\"" % k
    for lane in ("running", "waiting"):
        segs = tl.get(lane)
        if not isinstance(segs, list):
            return "no \"%s\" list" % lane
        for seg in segs:
            if not (isinstance(seg, dict) and
                    all(isinstance(seg.get(k), (int, float))
                        for k in ("cpu", "start", "end", "pid")) and
                    0 <= seg["cpu"] < max(tl["cpus"], 1)):
                return "\"%s\": a segment without cpu, start, end " \
                    "or pid" % lane
            seg.setdefault("comm", "?")
    return None


def timeline_json(w, rep, start, end):
    """(the timeline of repetition @rep between @start and @end, None)
    or (None, why it cannot be had)."""
    argv = [binary(), "analyze", "--trace", w.rep_path(rep, "trace"),
            "--workload", w.path("copy"), "--timeline",
            "%.6f,%.6f" % (start, end)]
    try:
        r = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        return None, "%s: %s" % (argv[0], e.strerror)
    if r.returncode:
        lines = r.stderr.strip().splitlines()
        return None, lines[0] if lines else "exit %d" % r.returncode
    try:
        tl = json.loads(r.stdout)
    except ValueError as e:
        return None, "not JSON: %s" % e
    why = timeline_problem(tl)
    return (None, why) if why else (tl, None)


def first_stretch(w, section):
    """(K, stretch) of the first stretch of @section in the explain.json
    of a counted repetition with a trace, else None."""
    for k in w.counted_reps():
        if not os.path.exists(w.rep_path(k, "trace")):
            continue
        eps = w.stretches(k, section)
        if eps:
            return k, eps[0]
    return None


def timeline_html(w, checks):
    """The timeline of the first (longest) explained stretch of each
    kind (wc, rt) whose check failed; a note when it cannot be
    drawn."""
    import report_figures
    out = []
    for prefix, section in TIMELINE_SECTIONS:
        failing = [c["name"] for c in checks if c["status"] == "fail" and
                   str(c.get("metric", "")).startswith(prefix)]
        if not failing:
            continue
        found = first_stretch(w, section)
        if not found:
            out.append('<p class="note">timeline unavailable: %s: no '
                       'counted repetition with a trace and an explained '
                       'stretch</p>' % section)
            continue
        k, (start, _, length_us, who) = found
        end = start + length_us / 1e6
        out.append("<p>%s (failing: %s), rep-%d: the longest stretch, "
                   "%.1f us at %.6f: %s</p>" %
                   (section, esc(", ".join(failing)), k, length_us, start,
                    esc(who)))
        tl, why = timeline_json(w, k, start - TIMELINE_MARGIN,
                                end + TIMELINE_MARGIN)
        if why:
            out.append('<p class="note">timeline unavailable: %s</p>' %
                       esc(why))
            continue
        title = "%s rep-%d: %.1f us; %s" % (section, k, length_us, who)
        out.append(img(report_figures.timeline(title, tl, (start, end)),
                       "timeline %s %s" % (w.name, section)))
    return out


def header(title, runs):
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
             "<title>%s</title>" % esc(title),
             "<style>%s</style></head><body>" % STYLE,
             "<h1>%s</h1>" % esc(title), "<table>"]
    parts.append("<tr><th></th><th>results</th><th>kernel</th>"
                 "<th>machine class</th><th>preemption, HZ</th>"
                 "<th>date</th></tr>")
    for label, run in runs:
        fp = run.fingerprint
        parts.append("<tr><th>%s</th><td>%s</td><td>%s %s</td>"
                     "<td>%s</td><td>%s, %s</td><td>%s</td></tr>" %
                     (esc(label), esc(run.dir), esc(run.kernel),
                      esc(fp.get("kernel_version", "")),
                      esc(run.machine_class), esc(fp.get("preempt", "-")),
                      esc(fp.get("hz", "-")),
                      esc(run.started or "-")))
    parts.append("</table>")
    return parts


# The order the report takes workloads in: what needs a look first.
STATE_ORDER = {"fail": 0, "error": 1, "skip": 2, "pending": 3, "unknown": 3,
               "pass": 4}


def neighbours_table(w):
    """Who kept the machine too busy for @w, as its run's index says."""
    if not w.neighbours:
        return ""
    rows = ['<table class="neighbours"><tr><th>task</th><th>pid</th>'
            '<th>policy</th><th>share of the CPUs</th></tr>']
    for t in w.neighbours:
        rows.append('<tr><td>%s</td><td class="num">%s</td><td>%s</td>'
                    '<td class="num">%s</td></tr>' %
                    (esc(t.get("comm", "?")), esc(t.get("pid", "?")),
                     esc(t.get("policy", "?")),
                     "%.1f%%" % (100 * t["share"])
                     if isinstance(t.get("share"), (int, float)) else "-"))
    rows.append("</table>")
    return "\n".join(rows)


def attention(ws):
    """What failed, broke or was not judged, first: each with what it
    rests on (the failing checks' diagnostics, which name the settings
    that differ from the baseline's; the reason; the neighbours)."""
    bad = [(w, checks) for w, checks in ws if w.state != "pass"]
    if not bad:
        return ['<p id="attention">every workload passed</p>']
    out = ['<h2 id="attention">What needs a look</h2><ul>']
    for w, checks in bad:
        item = '<li class="%s"><a href="#%s">%s</a>: %s' % (
            esc(w.state), esc(w.name), esc(w.name), esc(w.state))
        if w.reason:
            item += ": " + esc(w.reason)
        failing = [c for c in checks if c["status"] in ("fail", "error")]
        if failing:
            item += "<ul>%s</ul>" % "".join(
                '<li><a href="#%s">%s</a>: %s</li>' %
                (esc(c["name"]), esc(c["name"]), esc(c.get("diag", "")))
                for c in failing)
        out.append(item + neighbours_table(w) + "</li>")
    out.append("</ul>")
    return out


def single_report(run, baselines):
    ws = [(w, w.verdicts() if w.judged else []) for w in run.every()]
    ws.sort(key=lambda wc: STATE_ORDER.get(wc[0].state, 3))
    allchecks = [c for _, checks in ws for c in checks]
    states = {}
    for w, _ in ws:
        states[w.state] = states.get(w.state, 0) + 1
    out = header("sched-workloads: %s" % run.kernel, [("run", run)])
    out.append("<p>%d workloads: %s; %d checks: %s</p>" % (
        len(ws), ", ".join("%s %d" % (k, states[k]) for k in STATE_ORDER
                           if k in states),
        len(allchecks), summary_counts(allchecks)))
    out += attention(ws)
    out.append("<h2>Every workload</h2><ul>")
    for w, checks in ws:
        bad = [c for c in checks if c["status"] != "pass"]
        out.append('<li class="%s" data-workload="%s" data-state="%s">'
                   '<a href="#%s">%s</a>: %s %s</li>' %
                   (esc(w.state), esc(w.name), esc(w.state), esc(w.name),
                    esc(w.name), esc(w.state), summary_counts(checks) +
                    (" (%s)" % esc(", ".join(c["name"] for c in bad))
                     if bad else "")))
    out.append("</ul>")
    for w, checks in ws:
        out.append('<h2 id="%s">%s: %s</h2>' %
                   (esc(w.name), esc(w.name), esc(w.state)))
        if not w.judged:
            out.append("<p>%s</p>" % esc(w.reason or "not judged"))
            out.append(neighbours_table(w))
            continue
        out.append(verdict_table(checks))
        if baselines.get(w.name) is None:
            out.append('<p class="note">no baseline (%s): the run\'s '
                       "distributions alone</p>" %
                       esc(w.reason or "the run names none"))
        out += timeline_html(w, checks)
        fig = share_figure(w, checks, baselines)
        if fig:
            out.append(fig)
        out += cdf_figures(w.name, [("run", w.events())],
                           baselines.events(w.name), run.bins)
    out.append("</body></html>")
    return "\n".join(out)


def compare_text(a, b):
    r = subprocess.run([binary(), "compare", "--force", a.dir, b.dir],
                       capture_output=True, text=True)
    return r.stdout + r.stderr


def change(va, vb):
    """B's value against A's: relative when A's is not zero, else the
    difference; "-" without both."""
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if not (number(va) and number(vb)):
        return "-"
    if va:
        return "%+.1f%%" % (100 * (vb - va) / abs(va))
    return "%+.4g" % (vb - va)


def ab_table(name, checks_a, checks_b):
    a = {c["name"]: c for c in checks_a}
    b = {c["name"]: c for c in checks_b}
    rows = ['<table class="ab"><tr><th>check</th><th>unit</th><th>A</th>'
            '<th>A status</th><th>B</th><th>change</th>'
            '<th class="status">B status</th></tr>']
    for n in sorted(set(a) | set(b)):
        ca, cb = a.get(n, {}), b.get(n, {})
        va, vb = ca.get("value"), cb.get("value")
        status = cb.get("status", "absent")
        # a check that B lacks is no verdict of B: no data-status
        attrs = ('class="verdict %s" data-check="%s" data-status="%s"' %
                 (esc(status), esc(n), esc(status)) if cb else
                 'class="absent" data-check="%s"' % esc(n))
        rows.append('<tr %s><td>%s</td><td>%s</td>'
                    '<td class="num">%s</td><td>%s</td>'
                    '<td class="num">%s</td><td class="num">%s</td>'
                    '<td class="status">%s</td></tr>' %
                    (attrs, esc(n),
                     esc(cb.get("unit", ca.get("unit", ""))), fmt(va),
                     esc(ca.get("status", "absent")), fmt(vb),
                     change(va, vb),
                     esc(status)))
    rows.append("</table>")
    return "\n".join(rows)


def ab_report(run_a, run_b, baselines):
    out = header("sched-workloads: %s against %s" % (run_b.kernel,
                                                     run_a.kernel),
                 [("A", run_a), ("B", run_b)])
    names = sorted(set(run_a.names) | set(run_b.names))
    checks = {}
    for n in names:
        checks[n] = (run_a.workload(n).verdicts() if n in run_a.names
                     else [], run_b.workload(n).verdicts()
                     if n in run_b.names else [])
    allb = [c for _, cb in checks.values() for c in cb]
    out.append("<p>B: %d checks: %s. Rows are coloured by B's verdict."
               "</p>" % (len(allb), summary_counts(allb)))
    # every workload of either run, judged or not, with its state in each
    every = [w.name for w in run_a.every()] + [
        w.name for w in run_b.every() if w.name not in run_a.entries]
    out.append('<table class="states"><tr><th>workload</th><th>A</th>'
               '<th>B</th></tr>')
    for n in every:
        sa, sb = (run.entries[n]["state"] if n in run.entries else "absent"
                  for run in (run_a, run_b))
        out.append('<tr data-workload="%s"><td>%s</td><td>%s</td>'
                   '<td class="status %s">%s</td></tr>' %
                   (esc(n), esc(n), esc(sa), esc(sb), esc(sb)))
    out.append("</table>")
    out.append("<details><summary>sched-workloads compare A B</summary>"
               "<pre>%s</pre></details>" %
               esc(compare_text(run_a, run_b)))
    for n in names:
        out.append('<h2 id="%s">%s</h2>' % (esc(n), esc(n)))
        out.append(ab_table(n, *checks[n]))
        evs = []
        for label, run in (("A", run_a), ("B", run_b)):
            if n in run.names:
                evs.append((label, run.workload(n).events()))
        out += cdf_figures(n, evs, baselines.events(n), run_b.bins)
        if n in run_b.names:
            out += timeline_html(run_b.workload(n), checks[n][1])
    out.append("</body></html>")
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads report",
        description="One self-contained HTML page of a run, or of run A "
        "against run B.")
    ap.add_argument("results", nargs="+", metavar="RESULTS",
                    help="a result directory; two: A then B")
    ap.add_argument("-o", "--output", help="the HTML file to write")
    args = ap.parse_args(argv)
    if len(args.results) > 2:
        ap.error("one result directory, or two (A and B)")
    try:
        import report_figures  # noqa: F401
    except ImportError as e:
        print("report: %s: python3-matplotlib missing (Debian: apt-get "
              "install python3-matplotlib)" % e, file=sys.stderr)
        return facts.EXIT_SKIP
    try:
        runs = [results.Run(d) for d in args.results]
        # the baseline each workload of (B) was judged against
        baselines = Baselines(runs[-1])
        if len(runs) == 1:
            page = single_report(runs[0], baselines)
            out = args.output or os.path.join(runs[0].dir, "report.html")
        else:
            page = ab_report(runs[0], runs[1], baselines)
            out = args.output or os.path.join(
                runs[1].dir, "report-vs-%s.html" %
                os.path.basename(runs[0].dir))
    except results.ResultError as e:
        print("report: %s" % e, file=sys.stderr)
        return facts.EXIT_BAD_RESULTS
    try:
        with open(out + ".tmp", "w") as f:
            f.write(page)
        os.rename(out + ".tmp", out)
    except OSError as e:
        print("report: %s: %s (another file with -o)" %
              (e.filename, e.strerror), file=sys.stderr)
        return facts.EXIT_USAGE
    print(out)
    return facts.EXIT_PASS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
