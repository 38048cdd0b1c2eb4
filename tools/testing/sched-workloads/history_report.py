# SPDX-License-Identifier: GPL-2.0
"""history's HTML page: a series of kernels, where it changed, and the
commits between the kernels of each change.

One file, as report's pages are: the figures are SVG in data: URLs
(report_figures.kernel_series), the style is report's. The change
points come first, each with the metrics that moved there, the commits
that landed between its two kernels when history was given them
(--commits: series' changes.json, or a lab's own list in its form) and
a figure of each metric across the series; then the workloads that did
not pass in every run, the machine's own series, and every metric's
medians.
"""
import json

import report
import report_figures
from report import esc, fmt


def relative(c):
    return ("%+.1f%%" % (100 * c["relative"])
            if c["relative"] is not None else "-")


class CommitsError(Exception):
    pass


def load_commits(path):
    """{(previous, kernel): entry} of a commits file: a JSON list, an
    entry per change point as series' changes.json has it."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise CommitsError("%s: %s" % (path, e))
    if not isinstance(doc, list):
        raise CommitsError("%s: not a list of change points" % path)
    out = {}
    for i, e in enumerate(doc):
        where = "%s: item %d" % (path, i)
        if not isinstance(e, dict):
            raise CommitsError("%s: not an object" % where)
        for key in ("previous", "kernel"):
            if not isinstance(e.get(key), str):
                raise CommitsError('%s: no "%s" kernel' % (where, key))
        for key in ("sched", "near"):
            v = e.get(key, [])
            if not isinstance(v, list) or \
                    not all(isinstance(s, str) for s in v):
                raise CommitsError('%s: "%s" is not a list of commit '
                                   "subjects" % (where, key))
        if not isinstance(e.get("commits", 0), int):
            raise CommitsError('%s: "commits" is not a count' % where)
        out[(e["previous"], e["kernel"])] = e
    return out


def pairs_of(series, kernels):
    """[((previous, kernel), [(Series, change)])] of every metric's
    change points, in the series' order."""
    pairs = {}
    for s in sorted(series.values(), key=lambda s: s.name):
        for c in s.changes:
            pairs.setdefault((c["previous"], c["kernel"]), []).append((s, c))
    return [((kernels[p], kernels[k]), v) for (p, k), v in sorted(
        pairs.items(), key=lambda kv: kv[0][1])]


def change_table(moved):
    rows = ['<table class="changes"><tr><th>metric</th><th>before</th>'
            "<th>after</th><th>unit</th><th>change</th><th>p</th>"
            "<th>the machine moved there too</th></tr>"]
    for s, c in moved:
        machine = ", ".join("%s %s -> %s" % (m["name"], fmt(m["before"]),
                                             fmt(m["after"]))
                            for m in c.get("machine", []))
        rows.append('<tr data-metric="%s"><td>%s</td><td class="num">%s'
                    '</td><td class="num">%s</td><td>%s</td>'
                    '<td class="num">%s</td><td class="num">%.3g</td>'
                    "<td>%s</td></tr>" %
                    (esc(s.name), esc(s.name), fmt(c["before"]),
                     fmt(c["after"]), esc(s.unit or "-"), relative(c),
                     c["p"], esc(machine or "no")))
    rows.append("</table>")
    return "\n".join(rows)


def commits_html(entry):
    if entry is None:
        return ('<p class="note">no commits were given for these two '
                "kernels</p>")
    if entry.get("error"):
        return '<p class="note">commits not known: %s</p>' % esc(
            entry["error"])
    out = ['<div class="commits"><p>%d commits between %s and %s; the '
           "scheduler's %d:</p><ul class=\"sched\">" %
           (entry.get("commits", 0), esc(entry.get("previous_version", "")),
            esc(entry.get("version", "")), len(entry["sched"]))]
    out += ["<li>%s</li>" % esc(s) for s in entry["sched"]]
    out.append("</ul>")
    if entry.get("near"):
        out.append("<p>around the scheduler (%d):</p><ul class=\"near\">" %
                   len(entry["near"]))
        out += ["<li>%s</li>" % esc(s) for s in entry["near"]]
        out.append("</ul>")
    out.append("</div>")
    return "\n".join(out)


def figure(s, kernels):
    return report.img(report_figures.kernel_series(
        "%s (%s)" % (s.name, s.unit or "-"), s.unit, kernels, s.reps,
        s.changes), "series %s" % s.name)


def states_html(states):
    bad = {n: v for n, v in states.items() if set(v) != {"pass"}}
    if not bad:
        return "<p>Every workload passed in every run.</p>"
    out = ["<table class=\"states\"><tr><th>workload</th>%s</tr>" %
           "".join("<th>%d</th>" % (k + 1)
                   for k in range(len(next(iter(bad.values())))))]
    for name, v in bad.items():
        out.append("<tr><td>%s</td>%s</tr>" % (esc(name), "".join(
            '<td class="status %s">%s</td>' % (esc(s), esc(s)) for s in v)))
    out.append("</table>")
    return "\n".join(out)


def every_metric(series, kernels):
    out = ['<details><summary>every metric\'s medians, kernel by kernel '
           "(%d metrics)</summary><table class=\"every\"><tr><th>metric"
           "</th><th>unit</th>%s<th>changes</th></tr>" %
           (len(series), "".join("<th>%d</th>" % (k + 1)
                                 for k in range(len(kernels))))]
    for s in sorted(series.values(), key=lambda s: s.name):
        out.append('<tr data-series="%s"><td>%s</td><td>%s</td>%s'
                   '<td class="num">%d</td></tr>' %
                   (esc(s.name), esc(s.name), esc(s.unit or "-"),
                    "".join('<td class="num">%s</td>' % fmt(m)
                            for m in s.medians()), len(s.changes)))
    out.append("</table></details>")
    return "\n".join(out)


def page(runs, series, canary, states, method, commits=None):
    """The page of history's result: @runs (results.Run, in the
    series' order), @series and @canary ({name: history.Series} with
    their changes), @states (history.workload_states), @method (the
    text of history's method line), @commits (load_commits' or None)."""
    kernels = [r.kernel for r in runs]
    title = "sched-workloads history: %d kernels, %s to %s" % (
        len(runs), kernels[0], kernels[-1])
    out = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
           "<title>%s</title>" % esc(title),
           "<style>%s</style></head><body>" % report.STYLE,
           "<h1>%s</h1>" % esc(title),
           "<p>Machine class %s. %s</p>" % (esc(runs[0].machine_class),
                                            esc(method))]
    out.append('<table class="kernels"><tr><th></th><th>kernel</th>'
               "<th>results</th><th>started</th></tr>")
    for k, r in enumerate(runs):
        out.append("<tr><td class=\"num\">%d</td><td>%s</td><td>%s</td>"
                   "<td>%s</td></tr>" % (k + 1, esc(r.kernel), esc(r.dir),
                                         esc(r.started or "-")))
    out.append("</table>")
    pairs = pairs_of(series, kernels)
    out.append('<h2 id="changes">Change points</h2>')
    if not pairs:
        out.append("<p>No metric changed along the series.</p>")
    for (prev, cur), moved in pairs:
        out.append('<h3 class="change" id="change-%s" data-previous="%s" '
                   'data-kernel="%s">%s &rarr; %s: %d metric%s changed</h3>'
                   % (esc(cur), esc(prev), esc(cur), esc(prev), esc(cur),
                      len(moved), "" if len(moved) == 1 else "s"))
        out.append(change_table(moved))
        if commits is not None:
            out.append(commits_html(commits.get((prev, cur))))
        for s, _ in moved:
            out.append(figure(s, kernels))
    out.append("<h2>Workloads, their state in each run</h2>")
    out.append(states_html(states))
    out.append("<h2>The machine</h2>")
    moved = [s for s in canary.values() if s.changes]
    if not canary:
        out.append('<p class="note">no canary in these runs</p>')
    elif not moved:
        out.append("<p>The canary and the host gauges did not change.</p>")
    for s in moved:
        out.append("<p>%s changed: %s</p>" % (esc(s.name), esc("; ".join(
            "at %s %s -> %s" % (kernels[c["kernel"]], fmt(c["before"]),
                                fmt(c["after"])) for c in s.changes))))
        out.append(figure(s, kernels))
    out.append("<h2>Every metric</h2>")
    out.append(every_metric(series, kernels))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
