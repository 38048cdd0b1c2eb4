# SPDX-License-Identifier: GPL-2.0
"""analyze --timeline: what ran and what waited on each CPU over a span.

On the traces of cfs-work-conserving and rt-push-pull under CFS bandwidth
(the report's fixtures), the segments are checked against what the events
that trace-cmd report prints say, worked out here without the analyzer:
each CPU runs the task a sched_switch switched to (or, when a switch went
unrecorded, the task its next event was taken in), from its first event
on; a task waits on a CPU's runqueue from its sched_waking (or a
preemption, or a migration there) until it is switched in, moved, or
exits. The longest stretches --explain names must show as their task
waiting on their CPU while the CPU they name idles or runs lower.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import swtest

FIXTURE = swtest.fixture("report")
RUNS = os.path.join(FIXTURE, "20261205-034357-6.18.44-fc-v1272")
# around the longest wc stretch explain.txt names on cfs-work-conserving
SPAN = (2012.615021, 2012.631445)
NS = 1000000000

LINE_RE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+): (\w+):"
                     r"\s+(.*)$")
SWITCH_RE = re.compile(r"(.+):(\d+) \[(\d+)\] (\S+) ==> (.+):(\d+) \[(\d+)\]")
WAKEUP_RE = re.compile(r".*:(\d+) \[\d+\] CPU:(\d+)")
FIELD_RE = re.compile(r"(\w+)=(\S+)")
WC_RE = re.compile(r"^  at (\d+\.\d+) \(\+[\d.]+ s\): ([\d.]+) us; .* \(pid "
                   r"(\d+)\) waited on cpu(\d+) while cpu(\d+) idled$", re.M)
RT_RE = re.compile(r"^  at (\d+\.\d+) \(\+[\d.]+ s\): ([\d.]+) us; .* \(pid "
                   r"(\d+)\) waited on cpu(\d+) while cpu(\d+) ran .* \(pid "
                   r"(\d+), prio (\d+)\)$", re.M)
TS_RE = re.compile(r'"(?:start|end)": (\d+\.\d+)')


def trace_events(trace):
    """trace-cmd report's events: [(cpu, ns, common_pid, name, fields)]."""
    out = subprocess.run(["trace-cmd", "report", "-t", "-i", trace],
                         capture_output=True, text=True, check=True).stdout
    ev = []
    for line in out.splitlines():
        m = LINE_RE.match(line)
        if m:
            ev.append((int(m.group(3)), round(float(m.group(4)) * NS),
                       int(m.group(2)), m.group(5), m.group(6)))
    return ev


def clip(segs, start, end, seg):
    s, e = max(seg[1], start), min(seg[2], end)
    if s < e:
        segs.append((seg[0], s, e) + seg[3:])


def expected_running(ev, start, end):
    """[(cpu, start, end, pid, prio)]; prio None where no event says it."""
    last = max(e[1] for e in ev)
    cur = {}                   # cpu -> [since, pid, prio]
    segs = []
    for cpu, ts, cpid, name, fields in ev:
        c = cur.setdefault(cpu, [ts, cpid, None if cpid else 120])
        if cpid != c[1]:       # a switch the trace did not record
            clip(segs, start, end, (cpu, c[0], ts, c[1], c[2]))
            c = cur[cpu] = [ts, cpid, None if cpid else 120]
        if name == "sched_switch":
            m = SWITCH_RE.match(fields)
            nxt, prio = int(m.group(6)), int(m.group(7))
            if nxt != c[1]:
                clip(segs, start, end, (cpu, c[0], ts, c[1], c[2]))
                cur[cpu] = [ts, nxt, prio]
    for cpu, c in cur.items():
        clip(segs, start, end, (cpu, c[0], last, c[1], c[2]))
    return sorted(segs)


def expected_waiting(ev, start, end):
    """[(cpu, start, end, pid)]: runnable, not running, on cpu's queue."""
    last = max(e[1] for e in ev)
    curr = {}                  # cpu -> pid
    wait = {}                  # pid -> (cpu, since)
    segs = []

    def stop(pid, ts):
        if pid in wait:
            cpu, since = wait.pop(pid)
            clip(segs, start, end, (cpu, since, ts, pid))

    def run(cpu, pid, ts):
        stop(pid, ts)
        curr[cpu] = pid

    def queue(pid, cpu, ts):
        stop(pid, ts)
        wait[pid] = (cpu, ts)

    for cpu, ts, cpid, name, fields in ev:
        if curr.get(cpu) != cpid:
            run(cpu, cpid, ts)
        kv = dict(FIELD_RE.findall(fields))
        if name == "sched_switch":
            m = SWITCH_RE.match(fields)
            prev, nxt = int(m.group(2)), int(m.group(6))
            if prev and m.group(4).startswith("R"):
                queue(prev, cpu, ts)
            run(cpu, nxt, ts)
        elif name == "sched_waking":
            if int(kv["pid"]) not in curr.values():
                queue(int(kv["pid"]), int(kv["target_cpu"]), ts)
        elif name in ("sched_wakeup", "sched_wakeup_new"):
            m = WAKEUP_RE.match(fields)
            pid, dest = int(m.group(1)), int(m.group(2))
            if (wait[pid][0] != dest if pid in wait
                    else name == "sched_wakeup_new"):
                queue(pid, dest, ts)
        elif name == "sched_migrate_task":
            if int(kv["pid"]) in wait:
                queue(int(kv["pid"]), int(kv["dest_cpu"]), ts)
        elif name == "sched_process_exit":
            stop(int(kv["pid"]), ts)
    for pid in list(wait):
        stop(pid, last)
    return sorted(segs)


def ns(s):
    return round(s * NS)


class TimelineCase(unittest.TestCase):
    NAME = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.trace = swtest.unpack_traces(FIXTURE, cls.tmp.name)[cls.NAME]
        cls.workload = os.path.join(RUNS, cls.NAME, cls.NAME + ".json")
        cls.events = None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_timeline(self, span, *extra):
        arg = span if isinstance(span, str) else "%.9f,%.9f" % span
        return swtest.sw("analyze", "--trace", self.trace, "--workload",
                         self.workload, "--timeline", arg, *extra)

    def timeline(self, span, *extra):
        r = self.run_timeline(span, *extra)
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
        return json.loads(r.stdout)

    def explain(self):
        r = swtest.sw("analyze", "--trace", self.trace, "--workload",
                      self.workload, "--explain")
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
        return r.stdout

    def trace_cmd_events(self):
        if not shutil.which("trace-cmd"):
            self.skipTest("needs trace-cmd")
        if self.events is None:
            type(self).events = trace_events(self.trace)
        return self.events

    def check_against_trace_cmd(self, span):
        ev = self.trace_cmd_events()
        tl = self.timeline(span)
        start, end = ns(span[0]), ns(span[1])
        running = [(s["cpu"], ns(s["start"]), ns(s["end"]), s["pid"],
                    s["prio"]) for s in tl["running"]]
        want = expected_running(ev, start, end)
        self.assertGreater(len(want), 10)
        self.assertEqual(len(running), len(want))
        for got, exp in zip(running, want):
            # a task's prio where the window opens before any switch to it
            self.assertEqual(got[:4], exp[:4])
            if exp[4] is not None:
                self.assertEqual(got[4], exp[4], got)
        waiting = [(s["cpu"], ns(s["start"]), ns(s["end"]), s["pid"])
                   for s in tl["waiting"]]
        self.assertEqual(sorted(waiting), expected_waiting(ev, start, end))
        return tl, ev

    def check_form(self, tl):
        """Tiled, sorted, clipped segments; a task waits or runs, not both."""
        for kind in ("running", "waiting"):
            segs = tl[kind]
            self.assertEqual(segs, sorted(segs, key=lambda s: (
                s["cpu"], s["start"])))
            for s in segs:
                self.assertEqual(sorted(s), ["comm", "cpu", "end", "pid",
                                             "prio", "start"])
                self.assertTrue(tl["start"] <= s["start"] < s["end"] <=
                                tl["end"], s)
                self.assertIn(s["cpu"], range(tl["cpus"]))
                self.assertEqual(s["comm"] == "idle", s["pid"] == 0, s)
        for cpu in range(tl["cpus"]):
            segs = [s for s in tl["running"] if s["cpu"] == cpu]
            for a, b in zip(segs, segs[1:]):
                self.assertEqual(a["end"], b["start"], (a, b))
                self.assertNotEqual(a["pid"], b["pid"], (a, b))
        for w in tl["waiting"]:
            for r in tl["running"]:
                if r["pid"] == w["pid"]:
                    self.assertFalse(r["start"] < w["end"] and
                                     w["start"] < r["end"], (w, r))


class TestTimelineWorkConserving(TimelineCase):
    NAME = "cfs-work-conserving"

    def test_span_as_trace_cmd_reads_it(self):
        tl, _ = self.check_against_trace_cmd(SPAN)
        self.assertEqual((tl["start"], tl["end"], tl["cpus"]),
                         (SPAN[0], SPAN[1], 2))
        self.check_form(tl)
        for cpu in (0, 1):
            segs = [s for s in tl["running"] if s["cpu"] == cpu]
            self.assertGreater(len(segs), 3)
            self.assertEqual(segs[0]["start"], SPAN[0])
            self.assertEqual(segs[-1]["end"], SPAN[1])

    def test_trace_start(self):
        """A CPU gets no segment before its first event."""
        ev = self.trace_cmd_events()
        first = {}
        for cpu, ts, *_ in ev:
            first.setdefault(cpu, ts)
        span = (ev[0][1] / NS - 0.01, ev[0][1] / NS + 0.05)
        tl, _ = self.check_against_trace_cmd(span)
        self.check_form(tl)
        self.assertEqual(sorted(first), [0, 1])
        for cpu, ts in first.items():
            segs = [s for s in tl["running"] if s["cpu"] == cpu]
            self.assertEqual(ns(segs[0]["start"]), ts)

    def test_trace_end(self):
        ev = self.trace_cmd_events()
        last = ev[-1][1] / NS
        tl, _ = self.check_against_trace_cmd((last - 0.02, last + 1))
        self.check_form(tl)
        self.assertEqual(max(s["end"] for s in tl["running"]), last)

    def test_explained_stretch(self):
        """The longest wc stretch: its task waits there, the other idles.

        The stretch lasts while any task waits there: the one it names is
        the first.
        """
        m = WC_RE.search(self.explain())
        start, length = float(m.group(1)), float(m.group(2)) * 1e-6
        pid, cpu, other = int(m.group(3)), int(m.group(4)), int(m.group(5))
        # explain.txt beside the fixture run names the same one
        self.assertEqual((start, pid, cpu, other), (2012.620021, 3284, 0, 1))
        tl = self.timeline((start - 0.005, start + length + 0.005))
        self.check_form(tl)

        def at(kind, c, t):
            return {s["pid"] for s in tl[kind] if s["cpu"] == c and
                    s["start"] <= t < s["end"]}
        self.assertIn(pid, at("waiting", cpu, start + 1e-6))
        self.assertNotIn(pid, at("running", cpu, start + 1e-6))
        for t in (start + 1e-6, start + length / 2, start + length - 1e-6):
            self.assertTrue(at("waiting", cpu, t) - at("running", cpu, t), t)
            self.assertEqual(at("running", other, t), {0}, t)

    def test_form_of_the_output(self):
        """Times with 9 decimals; workload or --all-cpus: the same."""
        span = "2012.610021,2012.640000"
        r = self.run_timeline(span)
        self.assertEqual(r.returncode, swtest.EXIT_PASS, r.stderr)
        self.assertEqual(r.stderr, "")
        times = TS_RE.findall(r.stdout)
        self.assertGreater(len(times), 50)
        for t in times:
            self.assertEqual(len(t.split(".")[1]), 9, t)
        tl = json.loads(r.stdout)
        self.assertEqual(sorted(tl), ["cpus", "end", "running", "start",
                                      "waiting"])
        self.check_form(tl)
        for extra in (["--all-cpus"], []):
            o = swtest.sw("analyze", "--trace", self.trace, "--timeline",
                          span, *extra)
            self.assertEqual((o.returncode, o.stdout),
                             (swtest.EXIT_PASS, r.stdout), extra)

    def test_span_outside_the_trace(self):
        for span in ((1.0, 2.0), (5000.0, 5009.0)):
            tl = self.timeline(span)
            self.assertEqual((tl["start"], tl["end"], tl["cpus"]),
                             span + (2,))
            self.assertEqual((tl["running"], tl["waiting"]), ([], []))

    def test_bad_spans(self):
        for arg in ("2012.6", "2012.63,2012.62", "2012.6,2012.6", "a,b",
                    "1,2,3", "-1,2", "1,", ",2", " 1,2", "1,2 ", "0x10,0x11",
                    "inf,inf", "nan,1", "1e3,1.001e3", "1.1234567891,2",
                    "99999999999,99999999999.5", "2000,2010.000000001",
                    "2000,2011"):
            r = self.run_timeline(arg)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE, arg)
            self.assertIn("--timeline", r.stderr, arg)
            self.assertEqual(r.stdout, "", arg)
        # 10 s is the widest span
        self.timeline("2000,2010")
        # with --explain, or without a trace
        for args in (["--trace", self.trace, "--explain"],
                     ["--workload", self.workload]):
            r = swtest.sw("analyze", "--timeline", "1,2", *args)
            self.assertEqual(r.returncode, swtest.EXIT_USAGE, args)

    def test_corrupt_trace(self):
        cut = os.path.join(self.tmp.name, "cut.dat")
        with open(self.trace, "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read(30000))
        r = swtest.sw("analyze", "--trace", cut, "--timeline",
                      "%.6f,%.6f" % SPAN)
        self.assertEqual(r.returncode, swtest.EXIT_BAD_TRACE, r.stderr)
        self.assertEqual(r.stdout, "")


class TestTimelinePushPull(TimelineCase):
    NAME = "rt-push-pull"

    def test_whole_trace_as_trace_cmd_reads_it(self):
        ev = self.trace_cmd_events()
        tl, _ = self.check_against_trace_cmd((ev[0][1] / NS - 0.001,
                                              ev[-1][1] / NS + 0.001))
        self.check_form(tl)

    def test_explained_rt_stretch(self):
        """An RT task waits on a CPU that runs a fair task meanwhile."""
        m = RT_RE.search(self.explain())
        start, length = float(m.group(1)), float(m.group(2)) * 1e-6
        pid, cpu, other, lower, prio = (int(g) for g in m.groups()[2:])
        self.assertEqual((start, pid, cpu, other, lower, prio),
                         (2049.848540, 3368, 0, 0, 3369, 120))
        tl = self.timeline((start - 0.001, start + length + 0.001))
        self.check_form(tl)
        t = start + length / 2
        waits = [s for s in tl["waiting"] if s["cpu"] == cpu and
                 s["start"] <= t < s["end"] and s["pid"] == pid]
        self.assertEqual(len(waits), 1)
        self.assertLess(waits[0]["prio"], 100)
        runs = [(s["pid"], s["prio"]) for s in tl["running"]
                if s["cpu"] == other and s["start"] <= t < s["end"]]
        self.assertEqual(runs, [(lower, prio)])


if __name__ == "__main__":
    unittest.main()
