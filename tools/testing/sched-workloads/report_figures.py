# SPDX-License-Identifier: GPL-2.0
"""The report's figures, drawn with matplotlib as SVG documents.

Each function takes plain data (CDF points, values, timeline segments)
and returns the SVG as bytes; report.py embeds them. Nothing here reads
a result directory.
"""
import io
import statistics

import matplotlib

matplotlib.use("Agg")
# text as text, not as paths: a tenth of the size
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "sched-workloads"
import matplotlib.pyplot as plt  # noqa: E402

# One colour per curve, the same order in every figure: run, then B,
# then the baseline (grey, dashed).
COLOURS = ("#1f60c4", "#d4541c", "#777777")
STATUS_COLOURS = {"pass": "#2e8b3e", "fail": "#c0392b", "skip": "#b08d00",
                  "error": "#7d3c98"}
IDLE = "#e8e8e8"
WAIT = "#f0b429"


def _svg(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def cdf(title, unit, curves, signed=False):
    """@curves: [(label, [(value, share <= value)], dashed)], each an
    empirical CDF as results.Histogram.cdf() gives it; the dashed one
    (the baseline) grey. A log x axis for latencies (symmetric log when
    a value is not positive); symmetric log when @signed (slack may be
    negative)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    positive = all(v > 0 for _, pts, _ in curves for v, _ in pts)
    for i, (label, pts, dashed) in enumerate(curves):
        xs = [v for v, _ in pts]
        ys = [s for _, s in pts]
        colour = COLOURS[2] if dashed else COLOURS[min(i, 1)]
        ax.step(xs, ys, where="post", label=label, color=colour,
                linestyle="--" if dashed else "-")
    if signed:
        ax.set_xscale("symlog", linthresh=10)
    elif positive:
        ax.set_xscale("log")
    else:
        ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel(unit)
    ax.set_ylabel("share of activations <= x")
    ax.set_ylim(0, 1.02)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return _svg(fig)


def shares(title, bars):
    """@bars: [(entity, value, [per-repetition values], limit or None,
    baseline median or None, status)]: measured shares against what was
    expected of them."""
    fig, ax = plt.subplots(figsize=(6.4, 0.5 + 0.45 * len(bars)))
    for i, (entity, value, reps, limit, base, status) in enumerate(bars):
        ax.barh(i, value, color=STATUS_COLOURS.get(status, COLOURS[0]),
                alpha=0.75, height=0.6)
        ax.plot(reps, [i] * len(reps), "k.", markersize=4)
        if limit is not None:
            ax.plot([limit, limit], [i - 0.4, i + 0.4], color="black",
                    linewidth=2)
        if base is not None:
            ax.plot([base, base], [i - 0.4, i + 0.4], color=COLOURS[2],
                    linestyle="--", linewidth=2)
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share (bar: median; dots: repetitions; black: limit; "
                  "dashed: baseline median)", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    return _svg(fig)


def timeline(title, tl, highlight):
    """@tl: the JSON of "sched-workloads analyze --timeline"; one lane
    per CPU of what it ran (idle light grey) and, under it, the tasks
    that waited on it; @highlight: (start, end) of the stretch
    explained, in the same trace-clock seconds."""
    t0 = tl["start"]
    ncpus = max(tl["cpus"], 1)
    fig, ax = plt.subplots(figsize=(9, 0.6 + 1.1 * ncpus))

    def who(s):
        return "%s %d" % (s["comm"], s["pid"])

    names = sorted({who(s) for s in tl["running"] if s["pid"]} |
                   {who(s) for s in tl["waiting"]})
    colour = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}

    def ms(t):
        return (t - t0) * 1e3

    for s in tl["running"]:
        y = 2 * s["cpu"]
        c = IDLE if not s["pid"] else colour[who(s)]
        ax.broken_barh([(ms(s["start"]), ms(s["end"]) - ms(s["start"]))],
                       (y - 0.4, 0.8), facecolors=c, edgecolor="none")
    for s in tl["waiting"]:
        y = 2 * s["cpu"] + 0.9
        ax.broken_barh([(ms(s["start"]), ms(s["end"]) - ms(s["start"]))],
                       (y - 0.25, 0.5), facecolors=colour[who(s)],
                       edgecolor=WAIT, hatch="///")
    ax.axvspan(ms(highlight[0]), ms(highlight[1]), color="red", alpha=0.08)
    ticks, labels = [], []
    for cpu in range(ncpus):
        ticks += [2 * cpu, 2 * cpu + 0.9]
        labels += ["cpu%d ran" % cpu, "waited"]
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, ms(tl["end"]))
    ax.set_xlabel("ms from %.6f s (trace clock); the explained stretch "
                  "shaded" % t0, fontsize=8)
    ax.set_title(title, fontsize=10)
    handles = [matplotlib.patches.Patch(color=IDLE, label="idle")]
    handles += [matplotlib.patches.Patch(color=colour[n], label=n)
                for n in names]
    handles.append(matplotlib.patches.Patch(facecolor="white",
                                            edgecolor=WAIT, hatch="///",
                                            label="waiting"))
    ax.legend(handles=handles, fontsize=7, loc="upper left",
              bbox_to_anchor=(1.0, 1.0))
    return _svg(fig)


def kernel_series(title, unit, kernels, reps, changes):
    """A metric across a series of kernels: @reps, each kernel's
    repetitions (dots) and their median (line); each of @changes (dicts
    of "kernel", the index of the first kernel after the change,
    "before" and "after", the medians either side) a dashed line
    between its two kernels and the medians either side, drawn as far
    as the next change."""
    fig, ax = plt.subplots(figsize=(7.2, 3.0))
    xs = [k for k, r in enumerate(reps) for _ in r]
    ax.plot(xs, [v for r in reps for v in r], ".", color=COLOURS[0],
            alpha=0.45, markersize=5, label="repetitions")
    med = [(k, statistics.median(r)) for k, r in enumerate(reps) if r]
    ax.plot([k for k, _ in med], [m for _, m in med], "-", color=COLOURS[0],
            linewidth=1, label="median")
    cuts = [c["kernel"] - 0.5 for c in changes]
    for i, c in enumerate(changes):
        lo = cuts[i - 1] if i else -0.5
        hi = cuts[i + 1] if i + 1 < len(cuts) else len(reps) - 0.5
        ax.axvline(cuts[i], color=COLOURS[1], linestyle="--", linewidth=1)
        ax.plot([lo, cuts[i]], [c["before"]] * 2, color=COLOURS[1],
                linewidth=2, alpha=0.7,
                label=None if i else "medians either side of a change")
        ax.plot([cuts[i], hi], [c["after"]] * 2, color=COLOURS[1],
                linewidth=2, alpha=0.7)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels, rotation=60, ha="right", fontsize=7)
    ax.set_xlim(-0.5, len(kernels) - 0.5)
    ax.set_ylabel(unit or "value", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return _svg(fig)
