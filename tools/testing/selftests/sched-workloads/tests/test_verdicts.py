# SPDX-License-Identifier: GPL-2.0
"""The verdict evaluator and KTAP output, on logs/basic.

The outcome of every check in fixtures/workloads/verdicts.json is worked
out by hand from the fixture logs (see test_rtapp_logs.py for the
values).
"""
import glob
import json
import os
import tempfile
import unittest

from swtest import (COLLECTION, EXIT_BAD_WORKLOAD, EXIT_FAIL, EXIT_PASS,
                    fixture, ktap_results, sw)

EXPECTED = [
    # (name, ok): value against bound
    ("verdicts.audio.missed_periods", False),    # 2 > 0
    ("verdicts.audio.slack.p50", True),          # 6000 >= 6000
    ("verdicts.audio.wu_lat.p90", False),        # 80 > 79
    ("verdicts.hog.run_inflation.max", True),    # 1.5 <= 1.5
    ("verdicts.audio.run_inflation.p50", True),  # 1.1 in [1.0, 1.1]
    ("verdicts.hog.run_inflation.p50", True),    # 1.0 in [1.0, 1.1]
    ("verdicts.hog.slack.min", False),           # no timer: not measured
    ("verdicts.nobody.passes", False),           # selects nothing
    ("verdicts.audio.wu_lat.p50", True),         # 60 <= 60
    ("verdicts.audio.wu_lat.p50.2", True),       # same metric again
]


def judge(workload):
    return sw("analyze", "--logs", fixture("logs", "basic"),
              "--workload", fixture("workloads", workload))


class TestVerdicts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = judge("verdicts.json")
        cls.results = ktap_results(cls.r.stdout)

    def test_exit_code(self):
        self.assertEqual(self.r.returncode, EXIT_FAIL, self.r.stdout)

    def test_subtests(self):
        sub = [(name, ok) for indent, ok, name, _ in self.results
               if indent == 2]
        self.assertEqual(sub, EXPECTED)

    def test_parent_line(self):
        top = [(name, ok) for indent, ok, name, _ in self.results
               if indent == 0]
        self.assertEqual(top, [("verdicts", False)])

    def test_ktap_shape(self):
        lines = self.r.stdout.splitlines()
        self.assertEqual(lines[0], "TAP version 13")
        self.assertEqual(lines[1], "1..1")
        self.assertIn("  KTAP version 1", lines)
        self.assertIn("  1..%d" % len(EXPECTED), lines)

    def test_failure_says_metric_value_expectation(self):
        out = self.r.stdout
        self.assertIn("FAIL audio: missed_periods = 2 count, expected <= 0",
                      out)
        self.assertIn("FAIL audio: wu_lat.p90 = 80 us, expected <= 79", out)
        self.assertIn("hog: slack.min: not measured", out)
        self.assertIn('selector "nobody" matched nothing', out)
        self.assertIn("expected <= 60: inclusive bound", out)

    def test_names_unique_and_spaceless(self):
        names = [name for _, _, name, _ in self.results]
        self.assertEqual(len(names), len(set(names)))
        for name in names:
            self.assertNotIn(" ", name)


class TestAllPass(unittest.TestCase):
    def test_pass(self):
        r = judge("all-pass.json")
        self.assertEqual(r.returncode, EXIT_PASS, r.stdout)
        res = ktap_results(r.stdout)
        # passes >= 3 on both tasks, slack.p50 exactly 6000.
        self.assertEqual([ok for _, ok, _, _ in res], [True] * 4)


class TestMalformedWorkloads(unittest.TestCase):
    """Each bad file gives exit 5 and names the file and the place."""

    CASES = {
        "bad-json.json": "bad-json.json:4:36: invalid JSON",
        "unknown-metric.json":
            'checks[0].metric: unknown metric "wu_lat.p77"',
        "unknown-key.json": "checks[0].tolerance: unknown key",
        "no-bound.json": 'checks[0]: neither "min" nor "max"',
        "canary-metric.json":
            'checks[0].metric: "canary.loop_ns" measures the host, not the',
        "host-metric.json":
            'baseline[0].metric: "host.loops_per_us" measures the host, not',
        "min-above-max.json": "checks[0]: min 5 > max 1",
        "bound-not-number.json": "checks[0].max: not a number",
        "no-selector.json": 'checks[0]: metric "passes" needs "task"',
        "cpu-on-task-metric.json": "checks[0].cpu:",
        "no-checks.json": "checks: missing or empty",
        "bad-scale.json": "scale.tasks.t.instance: expected",
        "task-lacks-timer.json": 'checks[1]: slack.p50 needs a "timer" '
                                 'event, and task "t" has none',
        "dl-period-overflow.json":
            "tasks.dl.dl-period: 9223372036854775807 is beyond an int",
        "no-block.json": 'no "sched-workloads" block: an rt-app file',
        "no-description.json": "description\": missing",
        "not-object.json": "top level is not a JSON object",
        "bad-priority.json": "tasks.t.priority: 120 outside 1..99",
        "bad-policy.json": 'tasks.t.policy: unknown policy "SCHED_BATCHY"',
        "bad-expr.json": "checks[0].min: number, cpus, sysctl:NAME or '('",
        "bad-expr-word.json": 'checks[0].max: number, cpus, sysctl:NAME or '
                              "'(' expected at \"ncpus * 2\"",
        "unknown-block-key.json": '"sched-workloads.tolerance": unknown key',
        "bad-sysctl-name.json": "sysctl.../../etc/passwd: not a sysctl name",
        "bad-sysctl-value.json": "sysctl.kernel.sched_rr_timeslice_ms: not "
                                 "an integer",
        "repeated-key.json": '6:3: key repeated in its object: "checks"',
        "trailing-comma.json": "7:27: comma before a closing bracket",
        "truncated.json": "5:1: invalid JSON: the file ends inside an "
                          "object, array or string",
        "bound-infinite.json": "checks[0].max: not a finite number",
        "task-matches-nothing.json": 'sched-workloads.baseline[0].task: '
                                     '"decoder*" matches no task',
        "too-long.json": "global.duration: 1000 s; at most 300",
        "cpu-out-of-range.json": "tasks.t.cpus[1]: 8192 is not a CPU "
                                 "number (0-8191)",
        "cpu-negative.json": "tasks.t.cpus[0]: -1 is not a CPU number",
        "sysctl-absent.json": "sysctl.kernel.sched_no_such_knob: not a "
                              "sysctl of this kernel",
        "verdicts.json": 'sched-workloads.checks[6].task: "nobody" matches '
                         "no task",
        "pooled-trace-metric.json": 'checks[0].pooled: "cpu_share" is '
                                    "measured on trace_tasks",
        "pooled-first-pass.json": 'checks[0].pooled: "first.slack" is one '
                                  "pass of one thread",
        "pooled-not-boolean.json": "checks[0].pooled: not true or false",
        "origin-not-a-task.json": '"sched-workloads.origin.tasks.u": not a '
                                  "pid of a task",
        "pooled-thread-name.json": 'checks[0].task: "crew-0" matches no '
                                   "task",
        "bad-min-cpus.json": '"sched-workloads.min_cpus": "2": not a CPU '
                             "count (1-8192)",
        "zero-min-cpus.json": '"sched-workloads.min_cpus": 0: not a CPU '
                              "count",
        "bad-semantics.json": 'checks[0].semantics: "bfs": "eevdf" or '
                              '"cfs"',
        "cgroups-not-object.json": '"sched-workloads.cgroups": an object of '
                                   "1-4 groups",
        "cgroups-unknown-task.json": '"sched-workloads.cgroups.g.tasks": [0]: '
                                     '"nobody": not a task of the workload',
        "cgroups-no-delay.json": '"sched-workloads.cgroups.g.tasks": [0]: '
                                 'task "u" needs a "delay" of 50000 us',
        "cgroups-task-twice.json": '"sched-workloads.cgroups.h.tasks": [0]: '
                                   '"t" is in a group already',
        "cgroups-bad-weight.json": '"sched-workloads.cgroups.g.weight": 0: '
                                   "not an integer in 1-10000",
        "cgroups-unknown-key.json": '"sched-workloads.cgroups.g.cpu.max": '
                                    "unknown key",
        "cgroups-period-alone.json": '"sched-workloads.cgroups.g.period_us":'
                                     " without quota_us",
        "cgroups-bad-name.json": '"sched-workloads.cgroups.g.x": a group '
                                 "name is 1-15 characters",
        "cgroups-rt-task.json": '"sched-workloads.cgroups": task "u" is '
                                'SCHED_FIFO: a workload with cgroups has '
                                "fair tasks only",
    }

    def test_check_command(self):
        for name, msg in self.CASES.items():
            with self.subTest(name=name):
                path = fixture("workloads", name)
                r = sw("check", path)
                self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
                self.assertIn(path, r.stderr)
                self.assertIn(msg, r.stderr)

    def test_rtapp_ignored_keys(self):
        # Each key rt-app 1.0 would ignore or misread, exiting 0, is
        # named with its path: check lists them all.
        path = fixture("workloads", "rtapp-ignored-keys.json")
        r = sw("check", path)
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
        named = {
            "taskgroups": "not a top-level key of rt-app 1.0",
            "global.frag": "not a key of global",
            "tasks.t.util_min": "not a key of a task",
            "tasks.t.phases.p.cpus": "neither an event nor a key of a phase",
            "tasks.t.phases.p.slep": "neither an event nor a key of a phase",
            "tasks.t.phases.q.run": 'a "run" event takes an integer',
            "tasks.t.phases.q.fork": "neither an event nor a key of a phase",
            "tasks.t.phases.q.timer": 'mode "absolut"',
            "tasks.u.runtime": 'a "runtime" event takes an integer',
            "tasks.u.wait.mutx": "not a key of wait",
        }
        for key, why in named.items():
            self.assertIn('%s: "%s": %s' % (path, key, why), r.stderr)
        self.assertIn("%s: %d problems listed above" % (path, len(named)),
                      r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), len(named) + 1)

    def test_plain_rtapp_file(self):
        # No block: still read through, every problem named with its
        # line and column or JSON path, then refused as no workload.
        path = fixture("workloads", "plain-rtapp.json")
        r = sw("check", path)
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [
            'sched-workloads: %s:13:4: key repeated in its object: "run" '
            '(json-c would keep this one and drop the first silently)' % path,
            "sched-workloads: %s:14:15: comma before a closing bracket "
            "(not JSON)" % path,
            "sched-workloads: %s:14:18: comma before a closing bracket "
            "(not JSON)" % path,
            'sched-workloads: %s: "global.frag": not a key of global in '
            "rt-app 1.0, which would ignore it" % path,
            'sched-workloads: %s: no "sched-workloads" block: an rt-app '
            "file, not a workload of the battery; 4 problems listed above"
            % path])

    def test_rtapp_examples(self):
        # rt-app's own examples, as Debian's rt-app package ships them:
        # what rt-app 1.0 would not read as written, named every time.
        d = "/usr/share/doc/rt-app/examples"
        if not os.path.isdir(d):
            self.skipTest("%s missing (Debian package rt-app)" % d)
        expect = {
            "mp3-short.json": ['mp3-short.json:24:4: key repeated in its '
                               'object: "run"',
                               'mp3-short.json: "global.frag": not a key'],
            "tutorial/example8.json": [
                '"tasks.thread0.phases.phase1.cpus": neither an event',
                '"tasks.thread0.phases.phase2.cpus": neither an event'],
            "merge/thread0.json": [
                '"tasks.thread0.lock_order": a "lock" event takes a '
                'string'],
            "template.json": ["template.json: no \"sched-workloads\" "
                              "block: an rt-app file, not a workload of "
                              "the battery; 0 problems listed above"],
        }
        for name, lines in expect.items():
            with self.subTest(name=name):
                r = sw("check", os.path.join(d, name))
                self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
                for line in lines:
                    self.assertIn(line, r.stderr)
        # and every one of them is refused, none passed silently
        for path in sorted(glob.glob(os.path.join(d, "**", "*.json"),
                                     recursive=True)):
            r = sw("check", path)
            self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, path)
            self.assertIn(path, r.stderr)

    def test_metrics_per_task(self):
        # What a check may name for each task follows from its events:
        # timer metrics need a timer, run metrics a run, pi.* a lock.
        r = sw("check", "-m", fixture("workloads", "metrics-by-events.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        per = {}
        for i, line in enumerate(lines):
            if line.startswith("  ") and not line.startswith("    "):
                per[line.strip().rstrip(":")] = (lines[i + 1], lines[i + 2])
        self.assertEqual(sorted(per), ["locker", "spinner", "ticker"])
        rtapp, trace = per["ticker"]
        for name in ("passes", "missed_periods", "slack.{", "wu_lat.{",
                     "period_jitter.{", "first.{slack,wu_lat}",
                     "run_inflation.{", "rate.{p50,p10}"):
            self.assertIn(name, rtapp)
        self.assertNotIn("pi.", trace)
        rtapp, trace = per["spinner"]
        self.assertEqual(rtapp.split(": ", 1)[1],
                         "passes, startup.passes, "
                         "run_inflation.{p50,p90,p99,max,mean}, "
                         "rate.{p50,p10}")
        self.assertIn("wakeup_lat.{p50,p90,p99,p999,max,count,unobserved}",
                      trace)
        self.assertNotIn("pi.", trace)
        rtapp, trace = per["locker"]
        self.assertNotIn("slack", rtapp)
        self.assertIn("pi.{boosts,blocked_count,blocked_total,blocked_max}",
                      trace)

    def test_workloads_in_the_grammar(self):
        # the battery's own workloads use rt-app 1.0's grammar only
        d = os.path.join(COLLECTION, "workloads")
        paths = sorted(os.path.join(d, f) for f in os.listdir(d)
                       if f.endswith(".json"))
        self.assertGreater(len(paths), 10)
        r = sw("check", *paths)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_directory(self):
        d = fixture("workloads")
        r = sw("check", d)
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
        self.assertIn("%s: cannot read: Is a directory" % d, r.stderr)

    def test_task_names(self):
        """A task name is a comm and part of result names: 1-15 of
        [A-Za-z0-9_], no '#' (KTAP directive), ' ', '-' or '.'."""
        def check(task):
            text = json.dumps({
                "sched-workloads": {"description": "names", "checks": [
                    {"metric": "passes", "task": "*", "min": 1}]},
                "global": {"duration": 1},
                "tasks": {task: {"loop": 1, "run": 10}}})
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "names.json")
                with open(path, "w") as f:
                    f.write(text)
                return path, sw("check", path)
        for task in ("hog#1", "a b", "sixteen_chars_xx", "a-b", "a.b", "",
                     "h\u00f6g"):
            with self.subTest(task=task):
                path, r = check(task)
                self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stderr)
                self.assertIn(path, r.stderr)
                self.assertIn('"tasks.%s": a task name is 1-15 characters'
                              % task, r.stderr)
        for task in ("fifteen_chars_x", "T", "tick_1ms"):
            with self.subTest(task=task):
                _, r = check(task)
                self.assertEqual(r.returncode, EXIT_PASS, r.stderr)

    def test_analyze_refuses_bad_block(self):
        r = judge("unknown-metric.json")
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD)
        self.assertIn("unknown-metric.json", r.stderr)
        self.assertNotIn("ok 1", r.stdout)

    def test_run_reports_bad_workload(self):
        # No live run happens: the file is refused before anything starts.
        path = fixture("workloads", "unknown-metric.json")
        r = sw("run", "-r", "/tmp/sched-workloads-unit", path)
        self.assertEqual(r.returncode, EXIT_BAD_WORKLOAD, r.stdout)
        self.assertIn("not ok 1 unknown-metric", r.stdout)
        self.assertIn(path, r.stdout)

    def test_valid_files_pass_check(self):
        battery = glob.glob(os.path.join(COLLECTION, "workloads", "*.json"))
        self.assertGreater(len(battery), 10)
        r = sw("check", fixture("workloads", "all-pass.json"), *battery)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)


class TestInstanceSelectors(unittest.TestCase):
    """logs/instances: "crew" selects the task's three threads, "crew-0"
    the first only (1, 2 and 3 passes; lead 4, tail 5)."""

    def test_names(self):
        r = sw("analyze", "--logs", fixture("logs", "instances"),
               "--workload", fixture("workloads", "instances.json"))
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        sub = [(name, ok) for indent, ok, name, _ in ktap_results(r.stdout)
               if indent == 2]
        self.assertEqual(sub, [
            ("instances.lead.passes", True),
            ("instances.crew-0.passes", True),
            ("instances.crew-1.passes", True),
            ("instances.crew-2.passes", True),
            ("instances.tail.passes", True),
            ("instances.crew-0.passes.2", True),    # 1 <= 2
            ("instances.crew-1.passes.2", True),    # 2 <= 2
            ("instances.crew-2.passes.2", False),   # 3 > 2
            ("instances.crew-0.passes.3", True),    # 1 <= 1
            ("instances.tail.passes.vs-baseline", True),    # SKIP
        ])


class TestPooledSelectors(unittest.TestCase):
    """logs/instances: a pooled check judges crew's threads as one entity
    named "crew" (steady-state slack 7000 | 7000, -500: p50 7000, one
    overrun), a task of one thread as that thread; a check without
    "pooled" takes the threads and never the pooled entity."""

    def test_names_and_values(self):
        r = sw("analyze", "--logs", fixture("logs", "instances"),
               "--workload", fixture("workloads", "instances-pooled.json"))
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        sub = [(name, ok) for indent, ok, name, _ in ktap_results(r.stdout)
               if indent == 2]
        self.assertEqual(sub, [
            ("instances-pooled.crew.passes", True),     # 1 + 2 + 3 <= 6
            ("instances-pooled.crew.slack.p50", True),  # 7000 >= 7000
            ("instances-pooled.crew-0.slack.p50", False),   # no steady pass
            ("instances-pooled.crew-1.slack.p50", True),    # 7000
            ("instances-pooled.crew-2.slack.p50", False),   # -500
            ("instances-pooled.lead.missed_periods", False),    # 1 > 0
            ("instances-pooled.tail.missed_periods", False),    # 1 > 0
            ("instances-pooled.crew.missed_periods", False),    # 1 > 0
        ])
        self.assertIn("crew: slack.p50 = 7000 us", r.stdout)
        self.assertIn("crew-2: slack.p50 = -500 us", r.stdout)


class TestExpressionBounds(unittest.TestCase):
    """Bounds computed when judged: audio has 6 passes."""

    def test_values(self):
        r = judge("expr-bounds.json")
        self.assertEqual(r.returncode, EXIT_FAIL, r.stdout)
        sub = [(name, ok) for indent, ok, name, _ in ktap_results(r.stdout)
               if indent == 2]
        self.assertEqual(sub, [
            ("expr-bounds.audio.passes", True),     # 6 in [6, 100 cpus]
            ("expr-bounds.audio.passes.2", False),  # 6 > 10 - 5
            ("expr-bounds.audio.passes.3", True),   # 6 >= x / x
            ("expr-bounds.audio.passes.4", False),  # no such sysctl
            ("expr-bounds.audio.passes.5", True),   # no such knob: SKIP
        ])
        self.assertIn("expected in [6, %d] (2 * (1 + 2))"
                      % (100 * os.sysconf("SC_NPROCESSORS_ONLN")), r.stdout)
        self.assertIn("ERROR passes: bound: cannot read the sysctl", r.stdout)
        # a debugfs knob that the machine does not show: not judged here
        self.assertRegex(r.stdout, r"ok 5 expr-bounds\.audio\.passes\.5 # "
                         r"SKIP passes: bound: neither recorded nor "
                         r"readable at \"sched\.no_such_knob\"")


if __name__ == "__main__":
    unittest.main()
