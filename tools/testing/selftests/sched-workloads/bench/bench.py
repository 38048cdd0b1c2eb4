#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: what the suite costs, in figures (not a test).

Records its own inputs: a sched trace around "perf bench sched pipe" in a
tracefs instance of its own, saved by trace-cmd extract (zstd-compressed,
as trace-cmd 3.x writes by default) and converted to an uncompressed copy,
at about 1 M and 10 M events. Then, per input, REPS runs (min / median /
max) of:

  analyze     sched-workloads analyze --trace F --all-cpus
  libtracecmd bench/tracecmd_count: libtracecmd's iteration, counting
  report      trace-cmd report F > /dev/null

with wall seconds, events per second and peak RSS (the largest resident
set of the process: for the readers that mmap the file, its pages count).

Then the state machine's cost per event on 2 and on 256 CPUs
(tests/sched_stream_check fed the same number of events, text parsing
included); the battery's wall time by phase (one "sched-workloads run",
its time.json); and tracing's perturbation: per workload, each task's
rt-app metrics (wu_lat p50 and p99, slack p50) from PERT_REPS runs of
its run.json with the battery's tracing instance and PERT_REPS (10)
without, interleaved, as the ratio of the medians traced / untraced with
a rank test's p: a move of 5% that ten runs a side cannot tell from noise
is not one. The whole takes about 55 minutes on 2 CPUs (the
perturbation about 30): run nothing else meanwhile.

  bench.py [--reps N] [--dir DIR] [--sizes 1,10] [--no-report]
           [--sections traces,cpus,battery,perturbation] [--pert-reps N]
           [--pert-workloads W,...] [--pert-events SYS/EVENT,...]

Inputs are kept in DIR (default /var/tmp/sched-workloads-bench) and reused
when there. Needs root, tracefs, trace-cmd, perf and gcc; says which is
missing and exits 4 otherwise.
"""
import argparse
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(COLLECTION, "tests"))
import swtest  # noqa: E402
from swtest import ANALYSIS_PKGS, ANALYSIS_SOURCES, build_var  # noqa: E402
TRACEFS = "/sys/kernel/tracing"
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_migrate_task",
          "sched/sched_process_fork", "sched/sched_process_exit"]
# one loop of perf bench sched pipe: about 8 of those events
EVENTS_PER_LOOP = 8
# what trace/capture.c enables for a run: the perturbation is theirs
RUN_EVENTS = EVENTS + ["sched/sched_pi_setprio", "ipi/ipi_send_cpu",
                       "ipi/ipi_send_cpumask", "power/cpu_idle",
                       "power/cpu_frequency"]
RUN_BUFFER_KB = 32768


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def record(out, loops):
    """Traces perf bench sched pipe -l @loops into @out (compressed)."""
    name = "sw-bench-%d" % os.getpid()
    inst = os.path.join(TRACEFS, "instances", name)
    os.mkdir(inst)
    try:
        # ~52 bytes an event, spread over the CPUs: room for all of them
        kb = max(16384, loops * EVENTS_PER_LOOP * 64 // 1024)
        write(os.path.join(inst, "buffer_size_kb"), str(kb))
        write(os.path.join(inst, "trace_clock"), "mono")
        for e in EVENTS:
            write(os.path.join(inst, "events", e, "enable"), "1")
        write(os.path.join(inst, "tracing_on"), "1")
        subprocess.run(["perf", "bench", "sched", "pipe", "-l", str(loops)],
                       check=True, capture_output=True, timeout=600)
        write(os.path.join(inst, "tracing_on"), "0")
        subprocess.run(["trace-cmd", "extract", "-B", name, "-o", out],
                       check=True, capture_output=True, timeout=600)
    finally:
        # trace-cmd extract -B removes the instance itself
        if os.path.isdir(inst):
            os.rmdir(inst)


def inputs(bench_dir, sizes):
    """[(label, path)]: per size, the compressed trace and its copy."""
    out = []
    for m in sizes:
        z = os.path.join(bench_dir, "pipe-%dM-zstd.dat" % m)
        raw = os.path.join(bench_dir, "pipe-%dM-none.dat" % m)
        if not os.path.exists(z):
            print("# recording %s" % z, flush=True)
            record(z + ".tmp", m * 1000000 // EVENTS_PER_LOOP)
            os.rename(z + ".tmp", z)
        if not os.path.exists(raw):
            subprocess.run(["trace-cmd", "convert", "--compression", "none",
                            "-i", z, "-o", raw + ".tmp"], check=True,
                           capture_output=True, timeout=600)
            os.rename(raw + ".tmp", raw)
        out += [("%dM-zstd" % m, z), ("%dM-none" % m, raw)]
    return out


def timed(argv):
    """(wall seconds, peak RSS in MB, stdout) of one run of @argv."""
    with open(os.devnull, "w") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=null)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit("bench: %s exited %d" % (" ".join(argv), p.returncode))
    return wall, ru.ru_maxrss / 1024, out


def figures(argv, reps):
    """min / median / max of wall and peak RSS over @reps runs."""
    walls, rss, out = [], [], b""
    for _ in range(reps):
        w, m, out = timed(argv)
        walls.append(w)
        rss.append(m)
    return walls, rss, out


def mmm(v, fmt):
    return "/".join(fmt % x for x in (min(v), statistics.median(v), max(v)))


def build_counter(bench_dir):
    binary = os.path.join(bench_dir, "tracecmd_count")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs",
                            "libtracecmd"], check=True, capture_output=True,
                           text=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", binary,
                    os.path.join(HERE, "tracecmd_count.c")] + flags,
                   check=True)
    return binary


def missing():
    need = [t for t in ("trace-cmd", "perf", "gcc", "pkg-config", "rt-app")
            if not shutil.which(t)]
    if os.geteuid():
        need.append("root")
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        need.append("tracefs at " + TRACEFS)
    return need


def trace_section(a, counter):
    print("# %d runs each: wall s and peak RSS MB as min/median/max; "
          "ev/s from the median" % a.reps)
    for label, path in inputs(a.dir, a.sizes):
        w, m, out = figures([a.binary, "analyze", "--trace", path,
                             "--all-cpus"], a.reps)
        events = json.loads(out)["system"]["system"]["trace.events"]
        size = os.path.getsize(path) / 1e6
        print("%s: %d events, %.0f MB" % (label, events, size))
        rows = [("analyze", w, m)]
        rows.append(("libtracecmd",) + figures([counter, path], a.reps)[:2])
        if not a.no_report:
            rows.append(("report",) + figures(
                ["sh", "-c", 'exec trace-cmd report "$0" >/dev/null',
                 path], a.reps)[:2])
        med = statistics.median(w)
        for name, walls, rss in rows:
            mw = statistics.median(walls)
            print("  %-12s wall %s s  %6.2f M ev/s  RSS %s MB  x%.2f" %
                  (name, mmm(walls, "%.2f"), events / mw / 1e6,
                   mmm(rss, "%.0f"), mw / med))
        sys.stdout.flush()
    print("# xN: wall time against analyze's (median)")


def stream(ncpus, steps):
    """@steps context switches, round robin over @ncpus CPUs, each CPU
    alternating between two tasks of its own: a waking, then the switch."""
    cur = [0] * ncpus
    lines = []
    for i in range(steps):
        c = i % ncpus
        prev = 10000 + 2 * c + cur[c]
        nxt = 10000 + 2 * c + 1 - cur[c]
        ts = 1000000 + i * 1000
        lines.append("%d %d %d waking %d t%d 120 %d" %
                     (ts, c, prev, nxt, c, c))
        lines.append("%d %d %d switch %d t%d 120 1 %d t%d 120" %
                     (ts + 500, c, prev, prev, c, nxt, c))
        cur[c] ^= 1
    return "\n".join(lines) + "\n"


def cpus_section(a):
    flags = subprocess.run(["pkg-config", "--cflags", "--libs"] +
                           list(ANALYSIS_PKGS), check=True,
                           capture_output=True, text=True).stdout.split()
    binary = os.path.join(a.dir, "sched_stream_check")
    subprocess.run(["gcc", "-O2"] + build_var("SW_CPPFLAGS") +
                   ["-o", binary, "tests/sched_stream_check.c"] +
                   ANALYSIS_SOURCES + flags + ["-lm", "-pthread"],
                   cwd=COLLECTION, check=True)
    steps = 500000
    print("# state machine: %d events (text parsing included), %d runs" %
          (2 * steps, a.reps))
    for ncpus in (2, 256):
        path = os.path.join(a.dir, "stream-%d.txt" % ncpus)
        with open(path, "w") as f:
            f.write(stream(ncpus, steps))
        walls = figures(["sh", "-c", 'exec "$0" -a "$1" < "$2"', binary,
                         str(ncpus), path], a.reps)[0]
        print("  %3d CPUs: wall %s s, %.0f ns an event (median)" %
              (ncpus, mmm(walls, "%.2f"),
               statistics.median(walls) / (2 * steps) * 1e9))


def battery_section(a):
    results = os.path.join(a.dir, "battery")
    shutil.rmtree(results, ignore_errors=True)
    print("# the battery: sched-workloads run, %s" % results, flush=True)
    with open(os.path.join(a.dir, "battery.ktap"), "w") as out:
        subprocess.run([a.binary, "run", "-r", results], stdout=out,
                       stderr=subprocess.STDOUT, timeout=3600)
    (tj,) = glob.glob(os.path.join(results, "*", "time.json"))
    t = json.load(open(tj))
    wall = t["wall_s"]
    print("  %.0f s in all, %d repetitions" % (wall, t["repetitions"]))
    for key, name in (("rtapp_s", "rt-app"), ("setup_s", "setup"),
                      ("trace_save_s", "trace saving"),
                      ("analysis_s", "analysis"), ("canary_s", "canary"),
                      ("other_s", "other")):
        share = 100 * t[key] / wall
        print("  %-13s %6.1f s  %5.1f%%" % (name, t[key], share))
    print("  trace saving + analysis: %.1f%% of the wall time" %
          (100 * (t["trace_save_s"] + t["analysis_s"]) / wall))
    return os.path.dirname(tj)


def rtapp_once(run_json, traced, binary, events=RUN_EVENTS):
    """rt-app's metrics of one run of @run_json: {task: {metric: v}}."""
    with open(run_json) as f:
        w = json.load(f)
    tmp = tempfile.mkdtemp(prefix="sw-bench-pert-")
    inst = None
    try:
        w["global"]["logdir"] = tmp
        path = os.path.join(tmp, "run.json")
        with open(path, "w") as f:
            json.dump(w, f)
        if traced:
            inst = os.path.join(TRACEFS, "instances",
                                "sw-bench-pert-%d" % os.getpid())
            os.mkdir(inst)
            write(os.path.join(inst, "buffer_size_kb"), str(RUN_BUFFER_KB))
            write(os.path.join(inst, "trace_clock"), "mono")
            for e in events:
                ev = os.path.join(inst, "events", e, "enable")
                if os.path.exists(ev):
                    write(ev, "1")
            write(os.path.join(inst, "tracing_on"), "1")
        p = subprocess.run(["rt-app", path], capture_output=True,
                           timeout=w["global"]["duration"] * 1.5 + 10)
        if inst:
            write(os.path.join(inst, "tracing_on"), "0")
        if p.returncode:
            return None
        r = subprocess.run([binary, "analyze", "--logs", tmp],
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            return None
        return json.loads(r.stdout)["rtapp_tasks"]
    finally:
        if inst and os.path.isdir(inst):
            os.rmdir(inst)
        shutil.rmtree(tmp, ignore_errors=True)


PERT_METRICS = ("wu_lat.p50", "wu_lat.p99", "slack.p50")


def rank_test_p(a, b):
    """Two-sided Mann-Whitney U test of a vs b, normal approximation
    with mid-ranks, tie and continuity corrections."""
    pooled = sorted((v, i < len(a)) for i, v in enumerate(a + b))
    rank_sum, ties, i = 0.0, 0, 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j][0] == pooled[i][0]:
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(x[1] for x in pooled[i:j])
        ties += (j - i) ** 3 - (j - i)
        i = j
    n1, n2 = len(a), len(b)
    n = n1 + n2
    u = rank_sum - n1 * (n1 + 1) / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0) / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))


def perturbation_section(a, results):
    n = a.pert_reps
    print("# tracing's perturbation: %d traced and %d untraced runs a "
          "workload, interleaved; traced/untraced medians, their ratio "
          "and a rank test's p; wu_lat.p50 moved 5%% or more: * with "
          "p <= 0.05, ? when the runs do not tell it from noise" % (n, n),
          flush=True)
    for wdir in sorted(glob.glob(os.path.join(results, "*", ""))):
        runs = sorted(glob.glob(os.path.join(wdir, "rep-*", "run.json")))
        name = os.path.basename(os.path.dirname(wdir))
        if not runs or (a.pert_workloads and name not in a.pert_workloads):
            continue
        got = {False: [], True: []}
        for i in range(a.pert_reps):
            for traced in ((False, True) if i % 2 else (True, False)):
                m = rtapp_once(runs[0], traced, a.binary, a.pert_events)
                if m:
                    got[traced].append(m)
        if not got[False] or not got[True]:
            print("  %s: rt-app did not run it (refused workload?)" % name)
            continue
        for task in sorted(got[False][0]):
            cells, star = [], ""
            for key in PERT_METRICS:
                v = {t: [m[task][key] for m in got[t]
                         if task in m and m[task].get(key) is not None]
                     for t in (False, True)}
                if not v[False] or not v[True]:
                    cells.append("%s -" % key)
                    continue
                u, t = statistics.median(v[False]), statistics.median(v[True])
                ratio = t / u if u else float("nan")
                p = rank_test_p(v[True], v[False])
                cells.append("%s %.1f/%.1f x%.2f p=%.2f" %
                             (key, t, u, ratio, p))
                if key == "wu_lat.p50" and abs(ratio - 1) >= 0.05:
                    star = " *" if p <= 0.05 else " ?"
            print("  %-22s %-12s %s%s" % (name, task, "  ".join(cells),
                                          star))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pert-reps", type=int, default=10)
    ap.add_argument("--pert-workloads", default="",
                    help="comma-separated: the perturbation of these only")
    ap.add_argument("--pert-events", default=",".join(RUN_EVENTS),
                    help="the events traced (system/event, comma-"
                    "separated; default: those of a run)")
    ap.add_argument("--dir", default="/var/tmp/sched-workloads-bench")
    ap.add_argument("--sizes", default="1,10",
                    help="millions of events, comma-separated")
    ap.add_argument("--sections", default="traces,cpus,battery,perturbation")
    ap.add_argument("--no-report", action="store_true",
                    help="leave out trace-cmd report (the slowest)")
    ap.add_argument("--binary", default=swtest.BINARY)
    a = ap.parse_args()
    need = missing()
    if need:
        print("bench: SKIP: missing %s" % ", ".join(need))
        return swtest.EXIT_SKIP
    a.sizes = [int(s) for s in a.sizes.split(",")]
    a.pert_workloads = [w for w in a.pert_workloads.split(",") if w]
    a.pert_events = a.pert_events.split(",")
    sections = a.sections.split(",")
    os.makedirs(a.dir, exist_ok=True)
    if "traces" in sections:
        trace_section(a, build_counter(a.dir))
    if "cpus" in sections:
        cpus_section(a)
    results = None
    if "battery" in sections:
        results = battery_section(a)
    if "perturbation" in sections:
        if not results:
            # the battery's results of an earlier bench, when there
            found = glob.glob(os.path.join(a.dir, "battery", "*", ""))
            if not found:
                sys.exit("bench: the perturbation runs the battery's "
                         "run.json: add the battery section")
            results = sorted(found)[-1]
        perturbation_section(a, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
