#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: what the trace analyzer costs, in figures (not a test).

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

  bench.py [--reps N] [--dir DIR] [--sizes 1,10] [--no-report]

Inputs are kept in DIR (default /var/tmp/sched-workloads-bench) and reused
when there. Needs root, tracefs, trace-cmd, perf and gcc; says which is
missing and exits 4 otherwise.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.dirname(HERE)
TRACEFS = "/sys/kernel/tracing"
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_migrate_task",
          "sched/sched_process_fork", "sched/sched_process_exit"]
# one loop of perf bench sched pipe: about 8 of those events
EVENTS_PER_LOOP = 8
EXIT_SKIP = 4


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
    need = [t for t in ("trace-cmd", "perf", "gcc", "pkg-config")
            if not shutil.which(t)]
    if os.geteuid():
        need.append("root")
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        need.append("tracefs at " + TRACEFS)
    return need


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/var/tmp/sched-workloads-bench")
    ap.add_argument("--sizes", default="1,10",
                    help="millions of events, comma-separated")
    ap.add_argument("--no-report", action="store_true",
                    help="leave out trace-cmd report (the slowest)")
    ap.add_argument("--binary", default=os.environ.get(
        "SW_BINARY", os.path.join(COLLECTION, "sched-workloads")))
    a = ap.parse_args()
    need = missing()
    if need:
        print("bench: SKIP: missing %s" % ", ".join(need))
        return EXIT_SKIP
    sizes = [int(s) for s in a.sizes.split(",")]
    os.makedirs(a.dir, exist_ok=True)
    counter = build_counter(a.dir)
    print("# %d runs each: wall s and peak RSS MB as min/median/max; "
          "ev/s from the median" % a.reps)
    for label, path in inputs(a.dir, sizes):
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
