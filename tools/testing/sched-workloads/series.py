# SPDX-License-Identifier: GPL-2.0
"""sched-workloads series [-o DIR] [-j N] [--debian SERIES] [KERNEL...]
                          [-- RUN-ARGUMENTS]

The battery over a series of kernels in the judging guest, where it
changed (history.py), and the commits that can explain each change.

KERNEL is a Debian kernel package's name (linux-image-6.1.0-44-arm64:
apt-get downloads it) or a .deb; --debian SERIES takes every arm64
package of a Debian series the apt sources serve (6.1, 6.1-rt, 6.12,
6.12-rt), oldest first. Each kernel runs the battery (or
RUN-ARGUMENTS) in the judging guest (vm --deterministic), N kernels at
once (default 2); a kernel judged by an earlier run of the same DIR is
not run again (unless the battery's sources or workloads changed since:
guest_verdicts.battery_digest), so an interrupted series goes on where
it stopped. Each run is kept in a compact form, its metrics and
verdicts without the traces (compact/<kernel>/), which is what history
reads: a series kept in the tree gives the same change points without
its traces.

For each change point between two kernels it prints the commits between
them that can explain it: the items of the newer package's changelog
newer than the older one's version (deb_changelog.py), the scheduler's
first, then those around it. A deterministic guest gives the same run
of a kernel on every boot, so the same series gives the same change
points.

Writes DIR (default results/series-<date>): debs/, runs/<kernel>/ (vm's
run directory, its KTAP in logs/), compact/<kernel>/, history.txt and
history.json (history's), changes.json (each change point with its
commits), history.html (history's page with those commits; with
python3-matplotlib) and prints history's text and the change points
with their commits. Exit: 0 no change point, 1 change points named, 2
usage, 4 a prerequisite missing, 8 a kernel that gave no run.
"""
import argparse
import concurrent.futures
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import sw_paths  # noqa: F401 (the collection's lab/ on sys.path)
import deb_changelog
import history
from guest_verdicts import (INTERRUPTED, Interrupted, battery_digest,
                            boot_bound, guest, read_record, split_run_args,
                            stop_guests_on_sigterm)
from facts import EXIT_FAIL, EXIT_RUN_ERROR, EXIT_SKIP, EXIT_USAGE

# Debian's arm64 kernel packages of each series, by name
DEBIAN = {
    "6.1": r"^linux-image-6\.1\.0-\d+-arm64$",
    "6.1-rt": r"^linux-image-6\.1\.0-\d+-rt-arm64$",
    "6.12": r"^linux-image-6\.12\.\d+\+deb\d+-arm64$",
    "6.12-rt": r"^linux-image-6\.12\.\d+\+deb\d+-rt-arm64$",
}
DONE = "done.json"
# what a compact run keeps of a workload's directory: its judged
# metrics, samples and rounds; a repetition's traces stay behind
COMPACT_FILES = (".json",)


class SeriesError(Exception):
    def __init__(self, msg, code=EXIT_RUN_ERROR):
        super().__init__(msg)
        self.code = code


class Kernel:
    """A kernel of the series: its name (the package's, or the .deb's
    file name), its package file once known, its Debian version."""

    def __init__(self, name, deb=None):
        self.name, self.deb, self.version = name, deb, None

    def read_version(self):
        r = subprocess.run(["dpkg-deb", "-f", self.deb, "Version"],
                           capture_output=True, text=True)
        if r.returncode:
            raise SeriesError("%s: not a Debian package: %s" %
                              (self.deb, r.stderr.strip()), EXIT_USAGE)
        self.version = r.stdout.strip()


def dpkg_cmp(a, b):
    if a == b:
        return 0
    return 1 if deb_changelog.newer(a, b) else -1


def served(pattern):
    """{package: version} of the arm64 packages apt's sources serve
    whose names match @pattern."""
    r = subprocess.run(["apt-cache", "search", "--names-only", pattern],
                       capture_output=True, text=True)
    names = sorted({line.split(" ", 1)[0] for line in r.stdout.splitlines()
                    if re.match(pattern, line.split(" ", 1)[0])})
    out = {}
    for name in names:
        r = subprocess.run(["apt-cache", "show", "--no-all-versions",
                            name + ":arm64"], capture_output=True, text=True)
        m = re.search(r"^Version: (\S+)", r.stdout, re.M)
        if m:
            out[name] = m.group(1)
    return out


def debian_series(which):
    """The Kernels of Debian series @which, oldest first."""
    found = served(DEBIAN[which])
    if not found:
        raise SeriesError("apt serves no package of Debian's %s series for "
                          "arm64 (as root: dpkg --add-architecture arm64 && "
                          "apt-get update)" % which, EXIT_SKIP)
    names = sorted(found, key=functools.cmp_to_key(
        lambda a, b: dpkg_cmp(found[a], found[b])))
    return [Kernel(n) for n in names]


def fetch(k, debs):
    """@k's package in directory @debs, downloaded when it is not."""
    if k.deb is None:
        have = glob.glob(os.path.join(debs, k.name + "_*_arm64.deb"))
        if not have:
            r = subprocess.run(["apt-get", "download", k.name + ":arm64"],
                               cwd=debs, capture_output=True, text=True)
            have = glob.glob(os.path.join(debs, k.name + "_*_arm64.deb"))
            if r.returncode or not have:
                raise SeriesError("apt-get download %s:arm64: %s" % (
                    k.name, (r.stderr.strip().splitlines() or ["failed"])[-1]))
        k.deb = have[0]
    k.read_version()


def kernels_of(args):
    ks = debian_series(args.debian) if args.debian else []
    for arg in args.kernels:
        if arg.endswith(".deb"):
            if not os.path.isfile(arg):
                raise SeriesError("%s: no such package" % arg, EXIT_USAGE)
            ks.append(Kernel(os.path.basename(arg).split("_")[0],
                             os.path.abspath(arg)))
        else:
            ks.append(Kernel(arg))
    names = [k.name for k in ks]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SeriesError("%s: twice in the series" % ", ".join(dup),
                          EXIT_USAGE)
    return ks


def run_dir(runs):
    """The run directory vm wrote under @runs, or None."""
    found = [d for d in sorted(glob.glob(os.path.join(runs, "*")))
             if os.path.isfile(os.path.join(d, "index.json"))]
    return found[-1] if found else None


def compact(run, into):
    """Run directory @run without its repetitions' traces and the
    guest's files: what history reads, into @into."""
    part = into + ".part"
    shutil.rmtree(part, ignore_errors=True)
    for top, dirs, files in os.walk(run):
        rel = os.path.relpath(top, run)
        dirs[:] = [d for d in dirs if not d.startswith("rep-") and
                   not (rel == "." and d == "vm")]
        for f in files:
            if f.endswith(COMPACT_FILES):
                os.makedirs(os.path.join(part, rel), exist_ok=True)
                shutil.copyfile(os.path.join(top, f),
                                os.path.join(part, rel, f))
    shutil.rmtree(into, ignore_errors=True)
    os.rename(part, into)


def judge(k, out, baselines, run_args, battery, at_once=1, stop=None):
    """The battery on @k in the judging guest (@at_once kernels in
    guests together), unless an earlier run of @out judged it with the
    same battery (@battery: battery_digest's) and arguments: (status,
    seconds, whether it ran now). Raises Interrupted when its guest was,
    or when @stop (a threading.Event) is set, which an interrupted guest
    sets: no other starts then."""
    done = os.path.join(out, "runs", k.name, DONE)
    d = read_record(done)
    if isinstance(d, dict) and (d.get("version"), d.get("run_args"),
                                d.get("battery")) == \
            (k.version, run_args, battery):
        return d["status"], d["seconds"], False
    if stop and stop.is_set():
        raise Interrupted(k.name)
    runs = os.path.join(out, "runs", k.name)
    shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs)
    t = time.monotonic()
    status = guest(k.deb, baselines, runs, run_args,
                   os.path.join(out, "logs", k.name + ".ktap"),
                   boot_bound(at_once))
    secs = round(time.monotonic() - t)
    if status == INTERRUPTED:
        # its battery did not end: nothing of it is kept as judged
        if stop:
            stop.set()
        raise Interrupted(k.name)
    run = run_dir(runs)
    if run:
        compact(run, os.path.join(out, "compact", k.name))
        with open(done, "w") as f:
            json.dump({"version": k.version, "run_args": run_args,
                       "battery": battery, "status": status, "seconds": secs,
                       "run": os.path.relpath(run, out)}, f, indent=1)
    return status, secs, True


def attribute(changes_by_pair, by_release):
    """For each (previous, kernel) release pair: the commits between the
    two packages, split into the scheduler's and those around it."""
    out = []
    for (prev, cur), metrics in changes_by_pair.items():
        a, b = by_release[prev], by_release[cur]
        try:
            items = deb_changelog.between(deb_changelog.of_deb(b.deb),
                                          a.version)
            sched, near = deb_changelog.split(items)
            why = None
        except deb_changelog.ChangelogError as e:
            items, sched, near, why = [], [], [], str(e)
        out.append({"previous": prev, "kernel": cur,
                    "previous_version": a.version, "version": b.version,
                    "metrics": metrics, "commits": len(items),
                    "sched": sched, "near": near, "error": why})
    return out


def change_points(doc):
    """{(previous release, release): [metric changes]} of history's JSON
    @doc, in the series' order."""
    order = [r["kernel"] for r in doc["runs"]]
    pairs = {}
    for m in doc["metrics"]:
        for c in m["changes"]:
            pairs.setdefault((c["previous"], c["kernel"]), []).append({
                "name": m["name"], "unit": m["unit"],
                "before": c["before"], "after": c["after"],
                "relative": c["relative"], "p": c["p"],
                "machine": bool(c.get("machine"))})
    return dict(sorted(pairs.items(), key=lambda kv: order.index(kv[0][1])))


def print_changes(found, out):
    print("# change points and the commits between their kernels", file=out)
    if not found:
        print("  none: no metric changed along the series", file=out)
    for c in found:
        print("%s -> %s (%s -> %s): %d metrics changed" % (
            c["previous"], c["kernel"], c["previous_version"], c["version"],
            len(c["metrics"])), file=out)
        for m in c["metrics"]:
            rel = ("%+.1f%%" % (100 * m["relative"])
                   if m["relative"] is not None else "")
            print("  %s: %s -> %s %s %s" % (
                m["name"], history.fmt(m["before"]), history.fmt(m["after"]),
                m["unit"], rel), file=out)
        if c["error"]:
            print("  commits: not known: %s" % c["error"], file=out)
            continue
        print("  commits between them: %d, the scheduler's %d:" % (
            c["commits"], len(c["sched"])), file=out)
        for s in c["sched"]:
            print("    %s" % s, file=out)
        if c["near"]:
            print("  around the scheduler (%d):" % len(c["near"]), file=out)
            for s in c["near"]:
                print("    %s" % s, file=out)


def parse_args(argv):
    argv, run_args = split_run_args(argv)
    ap = argparse.ArgumentParser(
        prog="sched-workloads series",
        description="The battery over a series of kernels in the judging "
        "guest: where it changed, and the commits between.")
    ap.add_argument("kernels", nargs="*", metavar="KERNEL",
                    help="a Debian kernel package's name or a .deb")
    ap.add_argument("--debian", choices=sorted(DEBIAN),
                    help="every arm64 kernel of this Debian series that "
                    "apt serves, oldest first")
    ap.add_argument("-j", type=int, default=2, metavar="N",
                    help="kernels in the guest at once")
    ap.add_argument("-o", "--output", metavar="DIR")
    ap.add_argument("-B", "--baselines", metavar="DIR",
                    default=os.path.join(sw_paths.battery(), "baselines"),
                    help="what the guest judges with (default: the "
                    "collection's)")
    a = ap.parse_args(argv)
    a.run_args = run_args
    if a.j < 1:
        ap.error("-j %d: one kernel at a time at least" % a.j)
    if not a.debian and not a.kernels:
        ap.error("no kernels: KERNEL... or --debian SERIES")
    return a


def main(argv):
    a = parse_args(argv)
    start = time.monotonic()
    out = os.path.abspath(a.output or os.path.join(
        "results", "series-" + time.strftime("%Y%m%d-%H%M%S")))
    for d in ("debs", "runs", "compact", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    try:
        ks = kernels_of(a)
        if len(ks) < 3:
            raise SeriesError("%d kernels: a change needs three on each "
                              "side of it, a series three at least" %
                              len(ks), EXIT_USAGE)
        for k in ks:
            fetch(k, os.path.join(out, "debs"))
    except SeriesError as e:
        print("sched-workloads series: %s" % e, file=sys.stderr)
        return e.code
    print("# series: %d kernels, %s to %s" % (len(ks), ks[0].name,
                                              ks[-1].name))
    sys.stdout.flush()
    battery = battery_digest()
    stop_guests_on_sigterm()
    stop = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        try:
            done = list(pool.map(lambda k: (k,) + judge(
                k, out, a.baselines, a.run_args, battery, a.j, stop), ks))
        except (Interrupted, KeyboardInterrupt) as e:
            # no kernel starts after this; one in a guest ends first
            pool.shutdown(cancel_futures=True)
            print("# %s: interrupted; run again on %s, the series goes on "
                  "where it stopped" % (str(e) or "the series", out))
            return INTERRUPTED
    for k, status, secs, ran in done:
        print("# %s (%s): battery exit %d in %d s%s" % (
            k.name, k.version, status, secs, "" if ran else
            " (judged before)"))
    missing = [k.name for k in ks
               if not os.path.isdir(os.path.join(out, "compact", k.name))]
    if missing:
        print("sched-workloads series: no run of %s (logs/)" %
              ", ".join(missing), file=sys.stderr)
        return EXIT_RUN_ERROR
    compacts = [os.path.join(out, "compact", k.name) for k in ks]
    argv = ["--given-order"] + compacts
    status = history.main(argv + ["-o", os.path.join(out, "history.txt")])
    if status not in (0, EXIT_FAIL):
        return status
    history.main(argv + ["--json", "-o", os.path.join(out, "history.json")])
    with open(os.path.join(out, "history.txt")) as f:
        print(f.read(), end="")
    with open(os.path.join(out, "history.json")) as f:
        doc = json.load(f)
    by_release = {r["kernel"]: k for r, k in zip(doc["runs"], ks)}
    found = attribute(change_points(doc), by_release)
    changes = os.path.join(out, "changes.json")
    with open(changes, "w") as f:
        json.dump(found, f, indent=1)
    print_changes(found, sys.stdout)
    page = os.path.join(out, "history.html")
    if history.main(argv + ["--html", "--commits", changes,
                            "-o", page]) == EXIT_SKIP:
        print("# no history.html: python3-matplotlib missing")
    print("# wall time %.0f s; %s" % (time.monotonic() - start, out))
    return EXIT_FAIL if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
